package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A WriteBuilder is a write of one input to one table, being configured; {@link #to(String)} runs it.
 *
 * <pre>{@code
 * WriteResult r = S3Parquet.write(table)
 *     .partitionBy("dt", "country")
 *     .mode(WriteMode.OVERWRITE_PARTITIONS)
 *     .to("s3://bucket/marts/orders/");
 * }</pre>
 *
 * <p>A job that writes several tables keeps the options they share in one {@link WriteOptions} value and gives it to each
 * write with {@link #options}; every option setter here is short for the same setter of {@link WriteOptions.Builder},
 * for this write only. What belongs to one write alone is set here only: the input, the {@link #catalog} table, the
 * {@link #idempotencyKey} and the {@link #progress} listener.
 *
 * <p>Not thread-safe, and used once: the input is consumed by {@link #to(String)}. The options it was given are not
 * changed by it, and may be given to any number of other writes meanwhile.
 */
public final class WriteBuilder {
    private final S3Parquet.Input input;
    private final SettableOptions options = new SettableOptions("write");
    private CatalogTable catalog;
    private StepHook hook = StepHook.NONE;
    private S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;
    private String idempotencyKey;
    private Progress progress;
    private boolean used;

    WriteBuilder(S3Parquet.Input input) {
        this.input = input;
    }

    /**
     * Takes every option of {@code options}, a value a job may share between writes and threads; the setters called after
     * it change this write only. It must come before them: it replaces every option, so a setter called before it would
     * be undone without a word, and is refused instead.
     *
     * <pre>{@code
     * S3Parquet.write(orders).options(daily).idempotencyKey("orders:2024-01-15").to("s3://lake/marts/orders/");
     * }</pre>
     *
     * @throws IllegalStateException an option was set on this builder before, or options were given already
     */
    public WriteBuilder options(WriteOptions options) {
        this.options.give(options);
        return this;
    }

    /**
     * Sets options through {@link WriteOptions.Builder}, the one catalogue of options, for this write only: every option
     * is reachable this way, each setter of this builder is short for one call of it. After {@link #options(WriteOptions)},
     * if that is given at all.
     *
     * <pre>{@code
     * S3Parquet.write(orders).options(daily).options(o -> o.targetFileSize(256L << 20).maxRowsPerFile(1_000_000)).to(uri);
     * }</pre>
     */
    public WriteBuilder options(Consumer<WriteOptions.Builder> change) {
        Objects.requireNonNull(change, "change").accept(options.values());
        options.noteSet("options");
        return this;
    }

    /** For tests in this package: the options as set so far. */
    WriteOptions writeOptions() {
        return options.values().build();
    }


    /** Partitions the table by these columns, in this order: {@code dt=.../country=.../}. They are not stored in the files. */
    public WriteBuilder partitionBy(String... columns) {
        options.values().partitionBy(columns);
        options.noteSet("partitionBy");
        return this;
    }

    /**
     * Puts {@code prefix} before the name of every data file the write creates ({@code <prefix>part-00000-000-<writeId>.snappy.parquet}),
     * as awswrangler's {@code filename_prefix} does, for example to tell the files of one job apart. None by default. A
     * prefix may not hold {@code /} (it would make a folder) or control characters, and may not start with {@code _} or
     * {@code .}: Hive, Spark, Athena and Trino skip such files as hidden, so their rows would vanish.
     */
    public WriteBuilder filenamePrefix(String prefix) {
        options.values().filenamePrefix(prefix);
        options.noteSet("filenamePrefix");
        return this;
    }

    /**
     * Writes a row group once its encoded pages reach {@code bytes} (64 KiB to 2 GiB); by default 64 MiB, or an eighth
     * of the heap when that is less. A row group is buffered whole before it is written, so the heap must hold one per
     * open file. Larger row groups compress better; smaller ones let readers skip more by their statistics.
     */
    public WriteBuilder rowGroupSize(long bytes) {
        options.values().rowGroupSize(bytes);
        options.noteSet("rowGroupSize");
        return this;
    }

    /** Ends a page once it holds {@code bytes} (1 KiB to 512 MiB, at most the row group size); 1 MiB by default. */
    public WriteBuilder pageSize(int bytes) {
        options.values().pageSize(bytes);
        options.noteSet("pageSize");
        return this;
    }

    /**
     * Turns dictionary encoding on ({@code true}: a dictionary is always tried, and kept while it fits its page) or off
     * ({@code false}) for the columns named, as the input names them; others get a dictionary when a sample of their
     * first rows repeats enough. A column that is not in the files is refused before any I/O.
     */
    public WriteBuilder dictionaryEncoding(Map<String, Boolean> columns) {
        options.values().dictionaryEncoding(columns);
        options.noteSet("dictionaryEncoding");
        return this;
    }

    /**
     * Writes a Parquet bloom filter for each row group of the columns named (flat, non-boolean data columns), where
     * parquet-java, Spark, Trino and DuckDB look for it, so that a lookup of a value skips row groups that do not hold
     * it. Each filter is sized for the distinct values of its row group at {@link #bloomFilterFpp} (at most 1 MiB).
     */
    public WriteBuilder bloomFilters(String... columns) {
        options.values().bloomFilters(columns);
        options.noteSet("bloomFilters");
        return this;
    }

    /** The false positive probability each bloom filter is sized for (above 0, below 1); 0.01 by default. */
    public WriteBuilder bloomFilterFpp(double fpp) {
        options.values().bloomFilterFpp(fpp);
        options.noteSet("bloomFilterFpp");
        return this;
    }

    /**
     * Sorts the rows of each file by these columns (flat data columns), ascending with nulls first, and records the order
     * in each row group's Parquet {@code sorting_columns}: the row group and page statistics then narrow a lookup to a
     * few pages. Each file's rows are held in memory until the file is finished, so files may end before {@code
     * targetFileSize} when memory runs short; across files there is no order.
     */
    public WriteBuilder sortBy(String... columns) {
        options.values().sortBy(columns);
        options.noteSet("sortBy");
        return this;
    }

    /** Adds these entries to every data file's Parquet key-value metadata (keys starting with {@code wrangler.} are reserved). */
    public WriteBuilder fileMetadata(Map<String, String> metadata) {
        options.values().fileMetadata(metadata);
        options.noteSet("fileMetadata");
        return this;
    }

    /**
     * Puts every data file in this S3 storage class ({@code STANDARD}, {@code INTELLIGENT_TIERING}, {@code
     * STANDARD_IA}, {@code ONEZONE_IA} or {@code GLACIER_IR}); the bucket's default by default. Staged copies under
     * {@code _tmp/} stay STANDARD (they live seconds; the infrequent-access classes bill 30 days at least).
     */
    public WriteBuilder storageClass(String storageClass) {
        options.values().storageClass(storageClass);
        options.noteSet("storageClass");
        return this;
    }

    /** Tags every data file with these S3 object tags (at most 10, keys of at most 128 and values of 256 characters). */
    public WriteBuilder tags(Map<String, String> tags) {
        options.values().tags(tags);
        options.noteSet("tags");
        return this;
    }

    /**
     * Casts columns to these Hive types ({@code "bigint"}, {@code "decimal(12,2)"}, {@code "array<struct<a:double>>"}), by
     * column name (the input's or its sanitized form), as awswrangler's {@code dtype}. Only widenings that keep every
     * value are applied (a narrower integer to a wider one or to a decimal with as many digits before its point, float16
     * to float, float to double, a decimal to a wider decimal of the same scale, at any depth); any other is refused
     * before any I/O with the column path and both types. An unsigned 64-bit integer and a float16 have no Glue type:
     * {@code decimal(20,0)} and {@code float} are theirs. When the write has a
     * catalog whose table exists, the table's types are applied the same way without asking; {@code dtype} wins over them.
     *
     * @throws IllegalArgumentException for a type string that is not a Hive type wrangler writes
     */
    public WriteBuilder dtype(Map<String, String> types) {
        options.values().dtype(types);
        options.noteSet("dtype");
        return this;
    }

    /**
     * Splits every partition into {@code buckets} files by a hash of these columns, as awswrangler's {@code
     * bucketing_info=(columns, buckets)}: the same rows land in the same bucket number, file names carry it as
     * awswrangler's do ({@code part-00000-000-<writeId>_bucket-00003.snappy.parquet}), and the catalog gets the table's
     * {@code BucketColumns} and {@code NumberOfBuckets}, with which Athena reads only the bucket a query's value falls in.
     * The columns (input names or their sanitized form) must be data columns, not partition columns, of a type
     * awswrangler hashes: integers (up to signed 64 bits), strings and booleans; a null in them is refused, as awswrangler
     * refuses it. Checked before any I/O. Each file holds rows of one bucket only; {@link #maxRowsPerFile} and {@link
     * #targetFileSize} may still split a bucket into several files.
     *
     * @throws IllegalArgumentException for no columns, or fewer than one bucket
     */
    public WriteBuilder bucketBy(List<String> columns, int buckets) {
        options.values().bucketBy(columns, buckets);
        options.noteSet("bucketBy");
        return this;
    }

    /**
     * Writes every timestamp, nested ones included, as Parquet INT96 (the Julian day and the nanoseconds of that day)
     * instead of INT64 with a unit. Use it to add files to a table whose other files hold INT96 timestamps (written by
     * Spark, Hive, or awswrangler from pandas): readers that merge the files' schemas (awswrangler's, pyarrow's datasets)
     * fail on a column that is INT96 in some files and INT64 in others. INT96 holds nanoseconds, so nanosecond timestamps
     * keep every digit whatever {@link #preserveNanoseconds} says. Off by default: INT96 is deprecated in Parquet and
     * carries no min/max statistics, so a new table is better off with INT64.
     */
    public WriteBuilder timestampsAsInt96(boolean int96) {
        options.values().timestampsAsInt96(int96);
        options.noteSet("timestampsAsInt96");
        return this;
    }

    /** What the write does to existing data; {@link WriteMode#APPEND} by default. */
    public WriteBuilder mode(WriteMode mode) {
        options.values().mode(mode);
        options.noteSet("mode");
        return this;
    }

    /** The codec of every page; {@link Compression#SNAPPY} by default. */
    public WriteBuilder compression(Compression compression) {
        options.values().compression(compression);
        options.noteSet("compression");
        return this;
    }

    /** Starts a new file in a partition after this many rows. No limit by default. */
    public WriteBuilder maxRowsPerFile(long rows) {
        options.values().maxRowsPerFile(rows);
        options.noteSet("maxRowsPerFile");
        return this;
    }

    /**
     * Starts a new file in a partition once the current one holds about this many bytes (encoded, compressed), so that
     * files come out near a size readers like (128 MiB to 1 GiB for Athena and Spark). No limit by default; combines
     * with {@link #maxRowsPerFile}.
     */
    public WriteBuilder targetFileSize(long bytes) {
        options.values().targetFileSize(bytes);
        options.noteSet("targetFileSize");
        return this;
    }

    /**
     * Where a streamed input ({@code write(ArrowReader)}) that interleaves more partitions than can stay open in memory is
     * kept on local disk, grouped by partition, until each partition is encoded into whole files; the system's temporary
     * directory by default. It needs room for about the input's size in Arrow form; the file is deleted when the write
     * ends. Inputs already in memory (a {@code VectorSchemaRoot}, records) never spill.
     */
    public WriteBuilder spillDirectory(Path directory) {
        options.values().spillDirectory(Objects.requireNonNull(directory, "directory"));
        options.noteSet("spillDirectory");
        return this;
    }

    /**
     * How files reach their final keys: {@link CommitMethod#STAGE_AND_COPY} (the default) or {@link
     * CommitMethod#DEFERRED_UPLOADS}, which uploads straight to the final keys and completes the uploads at publish, so
     * that no byte is copied.
     */
    public WriteBuilder commitMethod(CommitMethod method) {
        options.values().commitMethod(method);
        options.noteSet("commitMethod");
        return this;
    }

    /**
     * Reports how the write advances: rows encoded, files staged, bytes uploaded, partitions published. Replaces the
     * default, {@link Progress#logging(String)} named {@code "Write of <uri>"} (an INFO line every five seconds once the
     * write has lasted five); {@link Progress#none()} turns it off.
     */
    public WriteBuilder progress(Progress listener) {
        this.progress = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Keeps nanosecond timestamps as Parquet TIMESTAMP(NANOS). By default they are written as microseconds,
     * which Spark and Athena read, and a value with digits below the microsecond is refused rather than truncated.
     */
    public WriteBuilder preserveNanoseconds(boolean keep) {
        options.values().preserveNanoseconds(keep);
        options.noteSet("preserveNanoseconds");
        return this;
    }

    /**
     * Names this logical write, so that rerunning it cannot add its rows twice: every run with the same key writes the
     * same file names ({@code part-NNNNN-k-<key>-<hash>...}), and an {@code APPEND} replaces, in the partitions it
     * writes, the files an earlier run with the same key left there. Use a key that identifies the input, such as
     * {@code "events:ids-101-200"} for an incremental batch, and rerun with the same input; a different input under
     * the same key replaces the earlier one in those partitions. A key holding {@code part-} followed by digits (as in
     * {@code "part-00000-000-k-x"}), which would make its file names read as another write's, is refused when the write
     * runs ({@link InvalidWriteException}, nothing written).
     */
    public WriteBuilder idempotencyKey(String key) {
        Objects.requireNonNull(key, "key");
        if (key.isBlank()) {
            throw new IllegalArgumentException("the idempotency key is blank");
        }
        this.idempotencyKey = key;
        return this;
    }

    /**
     * Whether the write takes the table's lease (default true): a conditional create of {@code _tmp/_lease.json},
     * renewed while the write runs and checked before the commit point, so that two writers of one table never
     * interleave (the second waits, see {@link #leaseWait}, then fails with a {@link CommitConflictException}). Needs
     * an S3 endpoint that enforces conditional writes (AWS S3 does; the write refuses one that does not). Turn it off
     * only when something else guarantees a single writer per table.
     */
    public WriteBuilder lease(boolean enabled) {
        options.values().lease(enabled);
        options.noteSet("lease");
        return this;
    }

    /**
     * How long to wait for the table's lease when another writer holds it (default 3 minutes, longer than a lease
     * lives without renewal, so that a rerun right after a crash waits for the crashed writer's lease to expire).
     */
    public WriteBuilder leaseWait(Duration wait) {
        options.values().leaseWait(wait);
        options.noteSet("leaseWait");
        return this;
    }

    /** Encrypts every object the write creates with S3-managed keys (SSE-S3, {@code AES256}): short for {@code encryption(Encryption.sseS3())}. */
    public WriteBuilder sseS3() {
        options.values().encryption(Encryption.sseS3());
        options.noteSet("sseS3");
        return this;
    }

    /**
     * Encrypts every object the write creates with KMS (SSE-KMS) under {@code keyId} (an id or ARN; null: the bucket's
     * default key): short for {@code encryption(Encryption.kms(keyId))}, or {@code encryption(Encryption.kms())} for null.
     */
    public WriteBuilder sseKms(String keyId) {
        options.values().encryption(keyId == null ? Encryption.kms() : Encryption.kms(keyId));
        options.noteSet("sseKms");
        return this;
    }

    /** How S3 encrypts every object the write creates; {@link Encryption#none()} by default. {@link #sseS3()} and {@link #sseKms} are short for it. */
    public WriteBuilder encryption(Encryption encryption) {
        options.values().encryption(encryption);
        options.noteSet("encryption");
        return this;
    }

    /** Gives every object the write creates this canned ACL, such as {@code bucket-owner-full-control}. */
    public WriteBuilder acl(String cannedAcl) {
        options.values().acl(Objects.requireNonNull(cannedAcl, "cannedAcl"));
        options.noteSet("acl");
        return this;
    }

    /** Sends {@code x-amz-expected-bucket-owner} with every request: S3 refuses them if the bucket belongs to another account. */
    public WriteBuilder expectedBucketOwner(String accountId) {
        options.values().expectedBucketOwner(Objects.requireNonNull(accountId, "accountId"));
        options.noteSet("expectedBucketOwner");
        return this;
    }

    /**
     * How wrangler retries a request after a transient failure (5xx, SlowDown, throttling, a broken or timed-out
     * connection): at most {@code attempts} calls, backoff from {@code base} doubling up to {@code cap}, full jitter.
     * The SDK carries it out, in place of the client's own retries (not on top). Default: 4 attempts, 200 ms, 10 s. Permanent failures (403,
     * NoSuchBucket, missing credentials) are never retried.
     */
    public WriteBuilder retry(int attempts, Duration base, Duration cap) {
        options.values().retryPolicy(RetryPolicy.of(attempts, base, cap));
        options.noteSet("retry");
        return this;
    }

    /** How S3 requests are retried after a transient failure; {@link #retry} is short for it. */
    public WriteBuilder retryPolicy(RetryPolicy policy) {
        options.values().retryPolicy(policy);
        options.noteSet("retryPolicy");
        return this;
    }

    /**
     * How many S3 requests of the write's data path are in flight at once (uploads, copies or completions, listings,
     * deletes); 48 by default. Against S3 a request waits tens of milliseconds before its first byte, so a write of
     * many small files is bound by this number, not by bandwidth: raise it for tables of thousands of partitions, lower it
     * to share a prefix's request rate (3,500 PUT/COPY/DELETE a second) with other writers. The client's HTTP
     * connection pool must be at least as large (the SDK's default Apache client has 50), or requests wait for a
     * connection. Memory does not grow with it: upload buffers stay within their own bound.
     */
    public WriteBuilder concurrency(int requests) {
        options.values().concurrency(requests);
        options.noteSet("concurrency");
        return this;
    }

    /** The S3 client to use; by default the SDK's default client (default region and credentials chains). */
    public WriteBuilder s3(S3Client client) {
        options.values().s3(Objects.requireNonNull(client, "client"));
        options.noteSet("s3");
        return this;
    }

    /** Registers the table and its partitions in this catalog table (for Glue: {@code GlueCatalog.of(glue).table(db, name)}). */
    public WriteBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** For tests in this package: told at each step of the commit protocol. */
    WriteBuilder stepHook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook);
        return this;
    }

    /** For tests in this package: smaller buffers and limits, a test clock. */
    WriteBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning);
        return this;
    }

    /**
     * Runs the write to the table rooted at {@code uri} ({@code s3://bucket/prefix}, with or without trailing slash;
     * {@code s3a://} too).
     *
     * <p>Atomic per file, not per table: each file appears whole or not at all, and a reader listing during
     * the publish step may see old and new files of a partition side by side for a moment, never neither.
     * A crash at any point leaves the table recoverable: the next write to it, or {@link S3Parquet#recover},
     * finishes or undoes the interrupted write. Concurrent writers of one table take turns through the table lease.
     *
     * <p>Every failure is a {@link WranglerException} whose type says what the caller may do; the three outcomes:
     *
     * @throws WriteNotAppliedException nothing of the write is in the table (or what was briefly visible is undone by
     *     whoever holds the table next): rerunning is safe. Its subclasses say why: {@link InvalidWriteException} (bad
     *     input, refused before any object of the table is written or deleted), {@link InputException} (the input source
     *     failed while it was read), {@link StorageException} (S3 failed before the commit point), {@link CatalogException}
     *     (the catalog refused a plain append, which undid itself), {@link CommitConflictException} (another writer
     *     holds the table, or took it over before this write's commit point)
     * @throws WriteIncompleteException the write passed its commit point and did not finish ({@code remaining()} says
     *     what is left): its data is never undone; {@code S3Parquet.recover} or the next write finishes it
     * @throws CommitStateUnknownException this process cannot tell whether the write took effect (an answer lost at its
     *     commit point), or found a state it must not act on by itself (another table's manifest): recover first, then
     *     look
     * @throws IllegalStateException this builder ran already (misuse, before any I/O)
     */
    public WriteResult to(String uri) {
        if (used) {
            throw new IllegalStateException("this write has run already: the input was consumed; start a new S3Parquet.write(...)");
        }
        used = true;
        ArrowMemory.check("write", uri);
        return S3Parquet.run(new Request(uri, input, options.values().build(), catalog, idempotencyKey, progressFor(uri), hook, tuning));
    }

    /**
     * The dry run of this write to {@code uri}: what {@link #to(String)} would do if it ran now, without doing it (as
     * Iceberg's {@code apply()}). It runs the write's validation and planning (every value of the input is checked, each
     * row assigned its partition and bucket, the catalog's table checked and its partitions' Locations read, dtype and
     * the catalog's types applied) and the reads the write would make (HeadBucket, the listing of the old files of the
     * partitions it replaces, the footers of marked files a keyed rerun would rewrite), and nothing else: it takes no
     * lease, creates nothing under {@code _tmp/}, sends no PUT, POST or DELETE to S3, changes nothing in the catalog, and
     * recovers no interrupted write. Bad input is refused with the exception and message the write would throw.
     *
     * <p>The builder is not used up: {@code to(uri)} may follow, and reads the input again.
     *
     * <pre>{@code
     * WriteBuilder nightly = S3Parquet.write(orders).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(glueTable);
     * PlannedWrite plan = nightly.plan(uri);
     * log.info(plan.describe());                 // the partitions, the files each would replace, the schema change
     * if (plan.bytesToReplace() < limit) nightly.to(uri);
     * }</pre>
     *
     * <p>What is atomic and what is not: the plan is a snapshot of the table, the catalog and the input when it was made,
     * under no lease. A write run after it replaces what it finds then: a file that came into a touched partition
     * meanwhile (another writer, a compaction) is replaced too, and a file that went is not. Before it starts, the write
     * recovers the table's interrupted writes ({@link PlannedWrite#recoveryPending()} tells there are some), which can
     * change the files it replaces. Nothing makes the write match the plan; compare its {@link WriteResult} with it.
     *
     * <p>An input that can be read only once ({@code S3Parquet.write(ArrowReader)}) is refused with an
     * {@link InvalidWriteException}, after the checks of its schema and before any batch is read: its partitions, and so
     * the files the write would replace, are known only by reading it, which would leave nothing for the write. A plan
     * from its schema alone would list no partition and no file, which reads as "replaces nothing" for an
     * OVERWRITE_PARTITIONS that may replace many. Load the stream into a {@code VectorSchemaRoot} (or records) and plan
     * and write that.
     *
     * @throws InvalidWriteException the write would refuse its input, options or the catalog's table (same message), or
     *     the input is a stream
     * @throws InputException the input source failed while it was read
     * @throws StorageException S3 failed while the bucket was checked or the old files listed
     * @throws CatalogException the catalog could not be read
     * @throws IllegalStateException this builder ran already
     */
    public PlannedWrite plan(String uri) {
        if (used) {
            throw new IllegalStateException("this write has run already: the input was consumed; start a new S3Parquet.write(...)");
        }
        ArrowMemory.check("write", uri);
        return S3Parquet.plan(new Request(uri, input, options.values().build(), catalog, idempotencyKey, Progress.none(), hook, tuning));
    }

    /**
     * What {@link #to} hands {@link S3Parquet} to run: the input, the options and what belongs to this write alone, with
     * the test seams ({@code hook}, {@code tuning}), which S3Parquet converts to the engine's.
     */
    /** The listener a write to {@code uri} reports to: the one given, or the default progress line. */
    Progress progressFor(String uri) {
        return progress != null ? progress : Progress.logging("Write of " + uri);
    }

    record Request(String uri, S3Parquet.Input input, WriteOptions options, CatalogTable catalog, String idempotencyKey, Progress progress,
                   StepHook hook, S3Parquet.Tuning tuning) {
    }
}
