package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A CompactBuilder is a compaction of one table, being configured; {@link #run()} rewrites each partition that has too
 * many or too small files into as few files as the target size allows, optionally keeping one row per key.
 *
 * <pre>{@code
 * CompactionResult r = S3Parquet.compact("s3://bucket/events/")
 *     .filter(PartitionFilter.in("year", "2024"))
 *     .whenMoreFilesThan(4)
 *     .dedupBy(List.of("id"), "created_at")
 *     .targetFileSize(256L << 20)
 *     .run();
 * }</pre>
 *
 * <p>A compaction is a write of the commit protocol like any other: it takes the table's lease, stages the new files,
 * reads them back and checks them against what it read (rows, and per column the count of values and a checksum of
 * them, less the dropped duplicates), then commits an {@code OVERWRITE_PARTITIONS} whose manifest records as replaced
 * exactly the files it read: a file that came into a partition after the compaction listed it stays. A crash at any step
 * leaves the table as before (before the commit point: recovery removes the staging) or as after (from it: recovery
 * finishes publishing), never rows lost or doubled. The new files have the union of the chosen files' columns (as a
 * read has it: names matched case-insensitively, the catalog's first through {@link #catalog}), and the check digests
 * every column of every file read (a column a file lacks reads as nulls and adds nothing). Its exceptions are those of {@link WriteBuilder#to}, plus
 * {@link ReadException} for the listing and a {@link VerificationException} when the check fails (nothing changed).
 *
 * <p>It keeps the table as its writes made it, and checks so before it takes the lease or writes anything
 * ({@code CompactionChecks}): every chosen file lies in its partition's folder in the table (a partition registered
 * outside the table root is refused, an {@link InvalidWriteException}); files named {@code _bucket-N} are compacted
 * bucket by bucket into files of the same number, so rows keep their buckets (partitions where that cannot hold are
 * refused); the files' INT96 or nanosecond timestamps and, unless {@link #compression} is set, their codec are kept,
 * read from their footers.
 * <p>Keyed runs stay keyed: when a partition holds rows of {@code idempotencyKey} writes, the new files record in their
 * footers which rows came from which key ({@code KeyedInput}), so that a later rerun of any of those keys replaces
 * exactly its own rows (see docs/compaction.md).
 *
 * <p>Memory: batches stream from the files read to the files written; {@code dedupBy} also keeps, per partition, each
 * distinct key and the order value of its last row, and reads the partition twice. Keys are deduplicated within a
 * partition. Not thread-safe; each {@code run()} is a new compaction. A job's shared {@link WriteOptions} apply with
 * {@link #options}, as to its writes, less the options a compaction cannot honour.
 *
 * <p>This builder only collects the options; the engine ({@code io.wrangler.compact}: the plan, the checks, the input
 * with its dedup and digest) runs it, and says in its package comment what a compaction guarantees.
 */
public final class CompactBuilder {
    // Read by S3Parquet.compact, which hands them to the engine (io.wrangler.compact).
    final String uri;
    final SettableOptions options = new SettableOptions("compaction");
    PartitionFilter filter = PartitionFilter.all();
    int moreFilesThan = -1;
    long smallerThan = -1;
    List<String> dedupKeys;
    String dedupOrder;
    CatalogTable catalog;
    StepHook hook = StepHook.NONE;
    S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;
    int batchRows = 65_536;
    UnaryOperator<Schema> outputSchema = s -> s;
    /** Whether the caller chose the codec (else the files' own is kept). */
    boolean compressionSet;

    CompactBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /**
     * Takes the options of {@code options} that a compaction uses: the S3 client, encryption, ACL, expected bucket owner,
     * retries (for its reads too), concurrency, compression, file sizes, file name prefix, timestamps, spill directory and
     * lease. It must come before the setters, as {@link WriteBuilder#options}. A job may give its compactions the same
     * value as its writes, as long as that value leaves at their defaults the options a compaction cannot honour.
     *
     * @throws IllegalArgumentException the options set {@code mode}, {@code partitionBy}, {@code bucketBy} or {@code dtype},
     *     or {@code commitMethod(DEFERRED_UPLOADS)}: a compaction rewrites partitions as they are and replaces exactly the
     *     files it read, and it reads its new files back before its commit point, which a deferred upload does not allow
     * @throws IllegalStateException an option was set on this builder before, or options were given already
     */
    public CompactBuilder options(WriteOptions options) {
        Objects.requireNonNull(options, "options");
        String refused = options.notForCompaction();
        if (refused != null) {
            throw new IllegalArgumentException("Cannot compact " + uri + " with these WriteOptions: " + refused + ". Give compact(...) "
                    + "options that leave it at its default.");
        }
        this.options.give(options);
        compressionSet = options.compression() != WriteOptions.builder().build().compression();
        return this;
    }


    /** The S3 client to use; by default the SDK's default client. */
    public CompactBuilder s3(S3Client client) {
        options.values().s3(Objects.requireNonNull(client, "client"));
        options.noteSet("s3");
        return this;
    }

    /**
     * Compacts only the partitions that pass {@code filter}; nothing of the others is listed or opened. A filter on a
     * column that is not a partition column, and a prefix that holds no table, are refused with an
     * {@link InvalidReadException} before anything is opened or changed (as for a read).
     */
    public CompactBuilder filter(PartitionFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /** Compacts a partition when it has more than {@code n} files (by default, when no threshold is set: more than 1). */
    public CompactBuilder whenMoreFilesThan(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("whenMoreFilesThan must be at least 1, got " + n);
        }
        this.moreFilesThan = n;
        return this;
    }

    /** Compacts a partition when it has at least two files and one of them is smaller than {@code bytes}. */
    public CompactBuilder whenFilesSmallerThan(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("whenFilesSmallerThan must be at least 1 byte, got " + bytes);
        }
        this.smallerThan = bytes;
        return this;
    }

    /**
     * Keeps one row per value of {@code keys} in each partition (in a bucketed table: each bucket of a partition): the
     * one with the greatest {@code orderBy}, nulls lowest; among rows with equal order values, the one committed last
     * (the file of the later write by the files' LastModified, then their write ids' times; within a file, the later
     * row). Keys are equal by value, as SQL's {@code PARTITION BY} groups them: strings and binary by content, unsigned
     * integers by their unsigned value, decimals by numeric value; null keys are one key. The others are dropped and
     * counted in {@link CompactionResult#duplicatesDropped()}. The exact rule is {@code Dedup}'s, stated in docs/compaction.md.
     */
    public CompactBuilder dedupBy(List<String> keys, String orderBy) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("dedupBy needs at least one key column");
        }
        keys.forEach(k -> Objects.requireNonNull(k, "key column"));
        this.dedupKeys = List.copyOf(keys);
        this.dedupOrder = Objects.requireNonNull(orderBy, "orderBy");
        return this;
    }

    /**
     * The codec of the new files. By default the codec of the files read, when they all have one and it compresses
     * (read from their footers), else {@link Compression#SNAPPY}: uncompressed files are compacted into SNAPPY unless
     * this asks for {@link Compression#NONE}, since writing uncompressed pages takes more heap.
     */
    public CompactBuilder compression(Compression compression) {
        options.values().compression(compression);
        options.noteSet("compression");
        compressionSet = true;
        return this;
    }

    /**
     * Sorts the rows of each new file by these columns, as {@link WriteBuilder#sortBy}; input order by default. The other
     * layout options (bloom filters, dictionaries, row group and page size, file metadata, storage class, tags) come
     * with {@link #options(WriteOptions)}. A file that merges the rows of several idempotency keys keeps each key's rows
     * together, sorted within each key, and records no sorting columns.
     */
    public CompactBuilder sortBy(String... columns) {
        options.values().sortBy(columns);
        options.noteSet("sortBy");
        return this;
    }

    /** Starts a new file in a partition once the current one holds about this many bytes; one file per partition by default. */
    public CompactBuilder targetFileSize(long bytes) {
        options.values().targetFileSize(bytes);
        options.noteSet("targetFileSize");
        return this;
    }

    /** Reads the partitions and their types from this catalog table, and registers the result in it. */
    public CompactBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** As {@link WriteBuilder#lease(boolean)}. */
    public CompactBuilder lease(boolean enabled) {
        options.values().lease(enabled);
        options.noteSet("lease");
        return this;
    }

    /** As {@link WriteBuilder#leaseWait}. */
    public CompactBuilder leaseWait(Duration wait) {
        options.values().leaseWait(wait);
        options.noteSet("leaseWait");
        return this;
    }

    /** Encrypts the new files with SSE-S3. */
    public CompactBuilder sseS3() {
        options.values().encryption(Encryption.sseS3());
        options.noteSet("sseS3");
        return this;
    }

    /** Encrypts the new files with SSE-KMS under {@code keyId} (null: the bucket's default key). */
    public CompactBuilder sseKms(String keyId) {
        options.values().encryption(keyId == null ? Encryption.kms() : Encryption.kms(keyId));
        options.noteSet("sseKms");
        return this;
    }

    /** As {@link WriteBuilder#retry}. */
    public CompactBuilder retry(int attempts, Duration base, Duration cap) {
        options.values().retryPolicy(RetryPolicy.of(attempts, base, cap));
        options.noteSet("retry");
        return this;
    }

    /** For tests in this package: told at each step of the commit protocol. */
    CompactBuilder stepHook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook);
        return this;
    }

    /** For tests in this package: smaller buffers and limits, a test clock. */
    CompactBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning);
        return this;
    }

    /** For tests in this package: changes the schema the new files are written with (the check must catch it). */
    CompactBuilder outputSchema(UnaryOperator<Schema> change) {
        this.outputSchema = Objects.requireNonNull(change);
        return this;
    }

    /** For tests in this package: smaller batches. */
    CompactBuilder batchRows(int rows) {
        this.batchRows = rows;
        return this;
    }

    /** Lists the table, picks the partitions to compact, and rewrites them in one commit ({@code io.wrangler.compact}). */
    public CompactionResult run() {
        return S3Parquet.compact(this);
    }
}
