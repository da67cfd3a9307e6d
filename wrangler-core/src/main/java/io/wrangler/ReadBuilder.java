package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import software.amazon.awssdk.services.s3.S3Client;

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
    /** The table's URI, or null for a read by catalog table ({@link S3Parquet#read(CatalogTable)}): its location. */
    final String uri;
    S3Client s3;
    List<String> columns;
    PartitionFilter filter = PartitionFilter.all();
    RowFilter where;
    CatalogTable catalog;
    BufferAllocator allocator;
    int batchRows = 65_536;
    RetryPolicy retry = RetryPolicy.defaults();
    String expectedBucketOwner;

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
     * Reads only the rows that pass {@code filter} (see {@link RowFilter}: SQL's semantics, nulls never pass a
     * comparison). The filter is checked against the table's columns before any row is decoded: a column the table does
     * not have, or a literal its type does not take, fails the read with an {@link InvalidReadException}. Files and row
     * groups whose footer statistics (min, max, null counts) or bloom filters rule every row out are skipped unread; the
     * filter is then applied exactly to every row decoded, so the rows read never depend on what statistics the files
     * hold. A filter may name partition columns too (their values as the read types them); to list fewer partitions,
     * add a {@link #filter(PartitionFilter)}. The filter's columns need not be among {@link #columns}. Replaces an
     * earlier {@code where}.
     */
    public ReadBuilder where(RowFilter filter) {
        this.where = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /**
     * Reads the partitions this catalog table registers, each from its Location, with the partition columns typed as the
     * catalog types them, and the data columns in the catalog's order and spelling (then any column only the files hold;
     * a column only the catalog declares reads as nulls). Without a catalog the partitions are the table's Hive folders,
     * their columns' types are inferred from the folder names, and the data columns are the union of the files' (see
     * docs/reading.md).
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
        return S3Parquet.open(this);
    }

    /**
     * Every row of the read as a record of {@code recordType}, in the read's order: the mirror of
     * {@code S3Parquet.write(records)}. Each component takes the column of its name (exactly, else ignoring case: Glue
     * lowercases names, so {@code orderId} reads {@code orderid}), partition columns included; only those columns are
     * fetched. A column becomes the component's type only without loss (see docs/reading.md); a component without a column,
     * or whose column it cannot hold, is refused before any row is read. The rows are held in memory: for a table larger
     * than the heap, stream its batches with {@link #open()}.
     *
     * @throws ReadException a component has no column or cannot hold its column (step: validate), a null meets a
     *     primitive component or a value fits no constant of an enum (step: toList), or the read failed
     */
    public <R extends Record> List<R> toList(Class<R> recordType) {
        Objects.requireNonNull(recordType, "record type");
        return S3Parquet.toList(this, recordType);
    }

    /**
     * The number of rows of the read (its filters apply, its columns do not matter), from the row counts in the files'
     * footers: no column chunk is fetched or decoded, unless a {@link #where} filter leaves a row group that statistics
     * cannot decide (some of its rows may pass, some not): then only the filter's columns of that row group are.
     *
     * @throws ReadException the listing or a footer could not be read
     */
    public long count() {
        return S3Parquet.count(this);
    }

    /** The table's name for messages: its URI, or the catalog table's name. */
    private String name() {
        return uri != null ? uri : catalog.describe();
    }
}
