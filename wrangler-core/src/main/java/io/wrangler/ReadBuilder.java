package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import io.wrangler.input.HiveTypes;
import io.wrangler.read.FullBatches;
import io.wrangler.read.RecordRows;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;

/**
 * A ReadBuilder is a read of one table, being configured; {@link #toList} returns its rows as records, {@link #count}
 * counts them, and {@link #open()} lists the table and returns its rows as a stream of Arrow batches.
 *
 * <pre>{@code
 * record Order(String orderId, LocalDate dt, long amountCents) {}
 * List<Order> orders = S3Parquet.read("s3://bucket/marts/orders/").filter(PartitionFilter.in("dt", "2024-01-15")).toList(Order.class);
 * long rows = S3Parquet.read(GlueCatalog.of(glue).table("analytics", "orders")).count();
 *
 * try (ArrowReader r = S3Parquet.read("s3://bucket/marts/orders/")
 *         .columns("order_id", "amount", "dt")
 *         .filter(PartitionFilter.in("dt", "2024-01-15"))
 *         .open()) {
 *     while (r.loadNextBatch()) {
 *         VectorSchemaRoot batch = r.getVectorSchemaRoot();
 *     }
 * }
 * }</pre>
 *
 * <p>What a read sees: the files listed when it is opened, less those of writes in flight (their manifests under
 * {@code _tmp/} say which): a write is seen whole or not at all, as long as it does not change state between the read's
 * look at {@code _tmp/} and its listing of the files (a reader holds no lease). Whether a committed overwrite shows as
 * before or after is decided once over everything the read covers (the whole table, or every partition the filter
 * admits, one the overwrite emptied included). A file deleted after the listing, or a manifest that cannot be fetched,
 * fails the read with a {@link ReadException}; rerun it. Not thread-safe; each {@code open()} is a new read.
 */
public final class ReadBuilder {
    /**
     * Files decoded at once, each on a thread of its own (batches still come in file order): the machine's cores, at
     * most 4. Each holds its row group and two decoded batches.
     */
    private static final int READ_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

    /** The table's URI, or null for a read by catalog table ({@link S3Parquet#read(CatalogTable)}): its location. */
    private final String uri;
    private S3Client s3;
    private List<String> columns;
    private PartitionFilter filter = PartitionFilter.all();
    private CatalogTable catalog;
    private BufferAllocator allocator;
    private int batchRows = 65_536;
    private RetryPolicy retry = RetryPolicy.defaults();
    private String expectedBucketOwner;

    ReadBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** A read of the table {@code table} registers, at the location the catalog gives it. */
    ReadBuilder(CatalogTable table) {
        this.uri = null;
        this.catalog = Objects.requireNonNull(table, "catalog table");
    }

    /** The S3 client to use; by default the SDK's default client. */
    public ReadBuilder s3(S3Client client) {
        this.s3 = Objects.requireNonNull(client, "client");
        return this;
    }

    /**
     * Reads only these columns (data or partition columns), in this order; all by default. Only their bytes are fetched.
     * Names are matched case-insensitively, as the table's columns are (Hive, Glue and Athena's rule).
     */
    public ReadBuilder columns(String... names) {
        for (String n : names) {
            Objects.requireNonNull(n, "column");
        }
        if (names.length == 0) {
            throw new IllegalArgumentException("columns() needs at least one column");
        }
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            if (!seen.add(n.toLowerCase(Locale.ROOT))) {
                throw new ReadException(name(), "Cannot read " + name() + ": the column '" + n + "' is selected twice. Select each column "
                        + "once.", null);
            }
        }
        this.columns = List.of(names);
        return this;
    }

    /** Reads only the partitions that pass {@code filter}; nothing of the others is listed or opened. */
    public ReadBuilder filter(PartitionFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /**
     * Reads the partitions this catalog table registers, each from its Location, with the partition columns typed as the
     * catalog types them, and the data columns in the catalog's order and spelling (then any column only the files hold;
     * a column only the catalog declares reads as nulls). Without a catalog the partitions are the table's Hive folders,
     * their columns' types are inferred from the folder names, and the data columns are the union of the files' (see the
     * README).
     */
    public ReadBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** The allocator of the batches; by default one the reader owns and closes with itself. */
    public ReadBuilder allocator(BufferAllocator allocator) {
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        return this;
    }

    /**
     * The rows of a batch (65,536 by default): every batch of {@link #open()} holds exactly this many, the last one
     * excepted, whatever the files (a file's last rows and the next file's first ones share a batch).
     */
    public ReadBuilder batchRows(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batchRows must be at least 1, got " + rows);
        }
        this.batchRows = rows;
        return this;
    }

    /**
     * How each of the read's S3 requests (listings, GETs) is retried: the same policy type as a write's and a Glue
     * table's ({@link RetryPolicy#defaults()} unless set). A read changes nothing, so a request that fails after its
     * retries fails the read, and rerunning it is safe.
     */
    public ReadBuilder retryPolicy(RetryPolicy policy) {
        this.retry = Objects.requireNonNull(policy, "retry policy");
        return this;
    }

    /**
     * The account that must own the bucket (S3's {@code x-amz-expected-bucket-owner}): a request to a bucket of another
     * account fails with 403 instead of reading its objects. Null (the default) checks nothing.
     */
    public ReadBuilder expectedBucketOwner(String accountId) {
        this.expectedBucketOwner = accountId;
        return this;
    }

    /**
     * Lists the table and reads every file's footer for the schema (the union of the files' columns, or the catalog's);
     * the rows are read batch by batch by the returned reader, which the caller closes. Every batch holds
     * {@link #batchRows} rows but the last.
     *
     * @throws InvalidWriteException the URI is not {@code s3://bucket/prefix}
     * @throws InvalidReadException no object lies under the prefix (no table there), or the filter names a column that is
     *     not a partition column
     * @throws ReadException S3 or the catalog failed (a write's manifest that cannot be fetched or parsed too: retry), a
     *     column is unknown, or the table's folders are not Hive folders
     */
    public ArrowReader open() {
        TableReader reader = reader(columns, batchRows, null);
        return new FullBatches(reader, reader.allocator(), batchRows);
    }

    /**
     * Every row of the read as a record of {@code recordType}, in the read's order: the mirror of
     * {@code S3Parquet.write(records)}. Each component takes the column of its name (exactly, else ignoring case: Glue
     * lowercases names, so {@code orderId} reads {@code orderid}), partition columns included; only those columns are
     * fetched. A column becomes the component's type only without loss (see the README); a component without a column,
     * or whose column it cannot hold, is refused before any row is read. The rows are held in memory: for a table larger
     * than the heap, stream its batches with {@link #open()}.
     *
     * @throws ReadException a component has no column or cannot hold its column (step: validate), a null meets a
     *     primitive component or a value fits no constant of an enum (step: toList), or the read failed
     */
    public <R extends Record> List<R> toList(Class<R> recordType) {
        Objects.requireNonNull(recordType, "record type");
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

    /**
     * The number of rows of the read (its filter applies, its columns do not matter), from the row counts in the files'
     * footers: no column chunk is fetched or decoded.
     *
     * @throws ReadException the listing or a footer could not be read
     */
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

    /** The layout of the catalog table read by name ({@link S3Parquet#read(CatalogTable)}), read once per open. */
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
        S3Client client = s3 != null ? s3 : S3Parquet.defaultClient("read", table);
        Map<String, S3Store> stores = new HashMap<>();
        RequestOptions options = RequestOptions.of(Encryption.none(), null, expectedBucketOwner, retry);
        S3Store store = new S3Store(client, location.bucket(), options);
        stores.put(location.bucket(), store);
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
                catalogColumns = TableReader.dataColumns(layout);
                for (String c : layout.partitionColumns()) {
                    String hive = layout.types().get(c);
                    try {
                        partitionTypes.put(c, HiveTypes.parse(c, hive));
                    } catch (IllegalArgumentException unknown) {
                        // a type wrangler does not write (varchar(10)): inferred from the values instead
                    }
                }
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
        BufferAllocator owned = allocator == null ? new RootAllocator() : null;
        if (records != null) {
            try (TableReader all = new TableReader(allocator != null ? allocator : owned, null, client, options, table, listing,
                    partitionTypes, columns, batchRows)) {
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
        TableReader reader = new TableReader(allocator != null ? allocator : owned, owned, client, options, table, listing,
                partitionTypes, columns, batchRows).threads(READ_THREADS);
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
}
