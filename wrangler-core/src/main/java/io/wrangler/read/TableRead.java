package io.wrangler.read;

import io.wrangler.CatalogException;
import io.wrangler.Encryption;
import io.wrangler.PartitionFilter;
import io.wrangler.ReadException;
import io.wrangler.RetryPolicy;
import io.wrangler.RowFilter;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;

/**
 * A TableRead runs a read the public {@code ReadBuilder} configured: it lists the table (through its catalog, if any),
 * opens its files and returns their rows as Arrow batches, records or a count. Internal: {@code S3Parquet} makes it from
 * the builder's values.
 *
 * @param uri the table's URI, or null for a read by catalog table: its location
 * @param catalog the catalog table, or null
 * @param client the S3 client for the table's URI (the caller's, or the default one)
 * @param columns the columns to read, or null for all
 * @param filter the partitions to read
 * @param allocator the allocator of the batches, or null for one the reader owns
 * @param batchRows the rows of a batch of {@link #open()}
 * @param retry how each request is retried
 * @param expectedBucketOwner the account that must own the bucket, or null
 * @param where the rows to read, or null for all
 */
public record TableRead(String uri, CatalogTable catalog, Function<String, S3Client> client, List<String> columns, PartitionFilter filter,
                        BufferAllocator allocator, int batchRows, RetryPolicy retry, String expectedBucketOwner, RowFilter where) {
    /** A read of every row the partition filter admits. */
    public TableRead(String uri, CatalogTable catalog, Function<String, S3Client> client, List<String> columns, PartitionFilter filter,
                     BufferAllocator allocator, int batchRows, RetryPolicy retry, String expectedBucketOwner) {
        this(uri, catalog, client, columns, filter, allocator, batchRows, retry, expectedBucketOwner, null);
    }

    /** This read, of the rows that pass {@code rows} only (null: every row). */
    public TableRead where(RowFilter rows) {
        return new TableRead(uri, catalog, client, columns, filter, allocator, batchRows, retry, expectedBucketOwner, rows);
    }

    /**
     * Files decoded at once, each on a thread of its own (batches still come in file order): the machine's cores, at
     * most 4. Each holds its row group and two decoded batches.
     */
    private static final int READ_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

    /** The rows as a stream of batches of {@link #batchRows} rows but the last; see {@code ReadBuilder.open}. */
    public ArrowReader open() {
        TableReader reader = reader(columns, batchRows, null);
        return new FullBatches(reader, reader.allocator(), batchRows);
    }

    /** Every row as a record of {@code recordType}; see {@code ReadBuilder.toList}. */
    public <R extends Record> List<R> toList(Class<R> recordType) {
        List<R> out = new ArrayList<>();
        RecordRows<R> rows = new RecordRows<>(recordType, name());
        try (TableReader reader = reader(columns, batchRows, rows)) {
            while (reader.loadNextBatch()) {
                rows.read(reader.getVectorSchemaRoot(), out);
            }
        } catch (IOException e) {
            throw new ReadException(name(), "Cannot read " + name() + ": " + e + ". A read changes nothing: fix the cause and read again.", e);
        }
        return out;
    }

    /** The number of rows, from the files' footers; see {@code ReadBuilder.count}. */
    public long count() {
        long rows = 0;
        try (TableReader reader = reader(List.of(), Integer.MAX_VALUE, null)) {
            VectorSchemaRoot batch = reader.getVectorSchemaRoot();
            while (reader.loadNextBatch()) {
                rows += batch.getRowCount();
            }
        } catch (IOException e) {
            throw new ReadException(name(), "Cannot read " + name() + ": " + e + ". A read changes nothing: fix the cause and read again.", e);
        }
        return rows;
    }

    /** The table's name for messages: its URI, or the catalog table's name. */
    private String name() {
        return uri != null ? uri : catalog.describe();
    }

    /** The layout of the catalog table read by name ({@code S3Parquet.read(CatalogTable)}), read once per open. */
    private TableLayout layoutByName() {
        TableLayout layout;
        try {
            layout = catalog.layout();
        } catch (CatalogException | UnsupportedOperationException e) {
            throw new ReadException(name(), "Cannot read " + name() + ": " + e.getMessage(), e);
        }
        if (layout == null) {
            throw new ReadException(name(), "Cannot read " + name() + ": the catalog has no such table. Check the database and table "
                    + "names, or read the table by its S3 location with S3Parquet.read(uri).", null);
        }
        return layout;
    }

    /**
     * The table's reader: its {@code columns} (null: all), batches of at most {@code batchRows} rows that never span two
     * files. With {@code records}, the partition columns no catalog types are typed for the record's components, and the
     * columns read are those its components take (checked against the table's schema before any row is read).
     */
    private TableReader reader(List<String> columns, int batchRows, RecordRows<?> records) {
        TableLayout byName = uri == null ? layoutByName() : null;
        String uri = byName != null ? byName.location() : this.uri;
        S3Location location = S3Location.parse(uri, null, "read");
        String table = location.uri();
        S3Client client = this.client.apply(table);
        RequestOptions options = RequestOptions.of(Encryption.none(), null, expectedBucketOwner, retry);
        Listed listed = list(byName, location, client, options, records);
        TableFiles.Listing listing = listed.listing;
        Map<String, Field> partitionTypes = listed.partitionTypes;
        Map<String, Field> catalogColumns = listed.catalogColumns;
        BufferAllocator owned = allocator == null ? new RootAllocator() : null;
        if (records != null) {
            try (TableReader all = new TableReader(allocator != null ? allocator : owned, null,
                    new TableReader.Source(client, options, table, listing, partitionTypes), columns, batchRows).rowFilter(where)) {
                if (catalogColumns != null) {
                    all.catalogColumns(catalogColumns);
                }
                columns = records.select(all.schema());
            } catch (IOException | RuntimeException e) {
                if (owned != null) {
                    owned.close();
                }
                throw e instanceof IOException io ? new ReadException(table, "Cannot read " + table + ": " + io, io) : (RuntimeException) e;
            }
        }
        TableReader reader = new TableReader(allocator != null ? allocator : owned, owned,
                new TableReader.Source(client, options, table, listing, partitionTypes), columns, batchRows).threads(READ_THREADS)
                .rowFilter(where);
        if (catalogColumns != null) {
            reader.catalogColumns(catalogColumns);
        }
        try {
            reader.schema();
        } catch (RuntimeException e) {
            try {
                reader.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return reader;
    }

    /** The files a read lists, with the types of their partition columns and the catalog's data columns (or null). */
    private record Listed(TableFiles.Listing listing, Map<String, Field> partitionTypes, Map<String, Field> catalogColumns) {
    }

    /** Lists the table's files, through the catalog's layout ({@code byName}, or its own) when there is a catalog. */
    private Listed list(TableLayout byName, S3Location location, S3Client client, RequestOptions options, RecordRows<?> records) {
        Map<String, S3Store> stores = new HashMap<>();
        S3Store store = new S3Store(client, location.bucket(), options);
        stores.put(location.bucket(), store);
        String table = location.uri();
        TableFiles.Listing listing;
        Map<String, Field> partitionTypes = new HashMap<>();
        Map<String, Field> catalogColumns = null;
        try {
            if (catalog != null) {
                TableLayout layout;
                try {
                    layout = byName != null ? byName : catalog.layout();
                } catch (CatalogException e) {
                    throw new ReadException(table, "Cannot read " + table + ": " + e.getMessage(), e);
                }
                if (layout == null) {
                    throw new ReadException(table, "Cannot read " + table + " through " + catalog.describe() + ": the catalog has no "
                            + "such table. Read it without catalog(...), or write it with this catalog first.", null);
                }
                listing = new TableFiles(store, location).list(layout, filter,
                        b -> stores.computeIfAbsent(b, k -> new S3Store(client, k, options)));
                catalogColumns = TableSchema.dataColumns(layout);
                partitionTypes.putAll(TableSchema.partitionTypes(layout));
            } else {
                listing = new TableFiles(store, location).list(filter);
            }
            if (records != null) {
                listing.partitionColumns().forEach(c -> partitionTypes.computeIfAbsent(c, records::partitionType));
            }
        } catch (NoSuchBucketException e) {
            throw new ReadException(table, "Cannot read " + table + ": the bucket " + location.bucket() + " does not exist (or not in "
                    + "this client's region and endpoint). Check the table's URI.", e);
        } catch (SdkException e) {
            throw new ReadException(table, "Cannot read " + table + ": listing the table failed: " + e.getMessage()
                    + ". Check the credentials and s3:ListBucket, then read again.", e);
        }
        return new Listed(listing, partitionTypes, catalogColumns);
    }
}
