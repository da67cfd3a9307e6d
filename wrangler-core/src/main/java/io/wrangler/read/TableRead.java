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
import io.wrangler.CommitMark;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
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
 * @param selection which of the table's files are read (all, those committed after a mark, modified in a range, named),
 *     and where the read's commit mark goes
 */
public record TableRead(String uri, CatalogTable catalog, Function<String, S3Client> client, List<String> columns, PartitionFilter filter,
                        BufferAllocator allocator, int batchRows, RetryPolicy retry, String expectedBucketOwner, RowFilter where,
                        Selection selection) {
    /**
     * Which files a read reads, and where its commit mark goes.
     *
     * @param after only what commits after this mark added (the table's commit log decides), or null
     * @param from only files last modified at or after this (S3's LastModified), or null
     * @param to only files last modified at or before this, or null
     * @param files only these files (keys or {@code s3://} URIs), each of which must be a visible file of the table, or null
     * @param withMark whether a read of the table as it is finds its commit mark (a read after a mark always does)
     * @param marks told the read's commit mark, as a supplier that throws a {@link ReadException} when it is unknown
     */
    public record Selection(CommitMark after, Instant from, Instant to, List<String> files, boolean withMark,
                            Consumer<Supplier<CommitMark>> marks) {
        public static final Selection ALL = new Selection(null, null, null, null, false, m -> { });

        public Selection {
            files = files == null ? null : List.copyOf(files);
        }
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

    /**
     * What a read lists, for an engine whose tasks read the files on other processes ({@link #plan}).
     *
     * @param table the table's URI
     * @param listing the visible files the read's filter admits, partition by partition
     * @param schema the read's schema (data columns, then partition columns), or null when not resolved
     */
    public record Plan(String table, TableFiles.Listing listing, Schema schema) {
    }

    /**
     * Lists the table once, as {@link #open()} does (through the catalog, if any; the filter prunes the listing), and,
     * with {@code resolveSchema}, reads every listed file's footer for the read's schema (every column, the partition
     * columns typed as {@link #open()} types them). Reads no row.
     */
    public Plan plan(boolean resolveSchema) {
        TableLayout byName = uri == null ? layoutByName() : null;
        S3Location location = S3Location.parse(byName != null ? byName.location() : this.uri, null, "read");
        String table = location.uri();
        S3Client client = this.client.apply(table);
        RequestOptions options = RequestOptions.of(Encryption.none(), null, expectedBucketOwner, retry);
        Listed listed = list(byName, location, client, options, null);
        if (!resolveSchema) {
            return new Plan(table, listed.listing, null);
        }
        List<TableFiles.DataFile> files = listed.listing.files();
        try (BufferAllocator owned = new RootAllocator();
             TableReader reader = new TableReader(owned, null, new TableReader.Source(client, options, table, listed.listing,
                     listed.partitionTypes), null, 1)) {
            reader.knownSchemas(FileFooters.read(client, options, files, key -> false).schemas(files));
            if (listed.catalogColumns != null) {
                reader.catalogColumns(listed.catalogColumns);
            }
            return new Plan(table, listed.listing, reader.schema());
        } catch (IOException e) {
            io.wrangler.storage.Replaced replaced = io.wrangler.storage.Replaced.in(e);
            if (replaced != null) {
                throw ReadErrors.replaced(table, replaced, e);
            }
            throw new ReadException(table, "Cannot read " + table + ": reading the files' footers failed: " + e + ". A read changes "
                    + "nothing: fix the cause and read again.", e);
        }
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
        ClassWarmup.start();
        TableLayout byName = uri == null ? layoutByName() : null;
        String uri = byName != null ? byName.location() : this.uri;
        S3Location location = S3Location.parse(uri, null, "read");
        String table = location.uri();
        S3Client client = this.client.apply(table);
        RequestOptions options = RequestOptions.of(Encryption.none(), null, expectedBucketOwner, retry);
        RecordRows<?> forListing = records;
        Listed listed = selection.after() != null ? increment(byName, location, client, options, records)
                : Selected.select(this, location, () -> list(byName, location, client, options, forListing), client, options);
        TableFiles.Listing listing = listed.listing;
        if (selection.after() != null && listing.files().isEmpty()) {
            columns = List.of(); // nothing was committed since: no file to take columns from, no row
            records = null;
        }
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
                .rowFilter(where).judgeAsFootersArrive();
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

    /**
     * The files committed after the selection's mark ({@link Increment}), with the catalog's types when there is one;
     * the read's mark is the last commit read.
     */
    private Listed increment(TableLayout byName, S3Location location, S3Client client, RequestOptions options, RecordRows<?> records) {
        String table = location.uri();
        S3Store store = new S3Store(client, location.bucket(), options);
        Map<String, Field> partitionTypes = new HashMap<>();
        Map<String, Field> catalogColumns = null;
        if (catalog != null) {
            TableLayout layout;
            try {
                layout = byName != null ? byName : catalog.layout();
            } catch (CatalogException e) {
                throw new ReadException(table, "Cannot read " + table + ": " + e.getMessage(), e);
            }
            if (layout != null) {
                catalogColumns = TableSchema.dataColumns(layout);
                partitionTypes.putAll(TableSchema.partitionTypes(layout));
            }
        }
        Increment.Result r;
        try {
            r = Increment.after(store, location, selection.after(), filter);
        } catch (SdkException e) {
            throw new ReadException(table, "Cannot read what " + table + " committed after " + selection.after() + ": reading the "
                    + "commit log failed: " + e.getMessage() + ". Nothing was changed; read again.", e);
        }
        selection.marks().accept(r::end);
        if (records != null) {
            r.listing().partitionColumns().forEach(c -> partitionTypes.computeIfAbsent(c, records::partitionType));
        }
        return new Listed(r.listing(), partitionTypes, catalogColumns);
    }

    /** The files a read lists, with the types of their partition columns and the catalog's data columns (or null). */
    record Listed(TableFiles.Listing listing, Map<String, Field> partitionTypes, Map<String, Field> catalogColumns, boolean midCommit) {
        Listed(TableFiles.Listing listing, Map<String, Field> partitionTypes, Map<String, Field> catalogColumns) {
            this(listing, partitionTypes, catalogColumns, false);
        }

        Listed withListing(TableFiles.Listing other) {
            return new Listed(other, partitionTypes, catalogColumns, midCommit);
        }
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
        TableFiles files = new TableFiles(store, location);
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
                listing = files.list(layout, filter,
                        b -> stores.computeIfAbsent(b, k -> new S3Store(client, k, options)));
                catalogColumns = TableSchema.dataColumns(layout);
                partitionTypes.putAll(TableSchema.partitionTypes(layout));
            } else {
                listing = files.list(filter);
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
        return new Listed(listing, partitionTypes, catalogColumns, files.midCommit());
    }
}
