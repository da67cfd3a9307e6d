package io.wrangler.spark;

import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import io.wrangler.InputException;
import io.wrangler.WranglerException;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;

/**
 * The options of one Spark write, named as {@code S3Parquet}'s; {@link #to} runs it. Each option is also a string option
 * of the {@code wrangler} data source (docs/spark.md lists them).
 */
public final class SparkWriteBuilder {
    private final Dataset<Row> df;
    private List<String> partitionBy = List.of();
    private WriteMode mode = WriteMode.APPEND;
    private CatalogTable catalog;
    private S3Settings s3 = S3Settings.defaults();
    private StepHook hook;
    private Duration leaseClockOffset;
    private final Map<String, String> options = new LinkedHashMap<>();
    /** The first option set on this builder, or null: {@link #options(WriteOptions)} would silently undo it. */
    private String firstSet;
    private boolean optionsGiven;

    SparkWriteBuilder(Dataset<Row> df) {
        this.df = Objects.requireNonNull(df, "df");
    }

    /**
     * Takes the options of {@code options}, the value a job shares with its {@code S3Parquet} writes; the setters called
     * after it change this write only, and it must come before them (as {@code WriteBuilder.options}). Each option
     * becomes the data source option of the same name, so the write runs exactly as if they had been set one by one.
     * {@code preserveNanoseconds} has no effect: Spark's timestamps hold microseconds. The retry durations are sent in
     * whole milliseconds and the lease wait in whole seconds (at least 1).
     *
     * @throws IllegalArgumentException the options hold what a Spark write cannot honour: an S3 client (executors build
     *     their own from {@link #s3(S3Settings)}), a spill directory (each executor spills into its own temporary
     *     directory), {@code dtype} (cast in Spark) or {@code timestampsAsInt96}
     * @throws IllegalStateException an option was set on this builder before, or options were given already
     */
    public SparkWriteBuilder options(WriteOptions options) {
        Objects.requireNonNull(options, "options");
        String refused = options.s3().isPresent() ? "they hold an S3 client, which cannot reach the executors; leave it out and "
                + "give the write S3Settings with s3(...)"
                : options.spillDirectory().isPresent() ? "they name a spill directory (" + options.spillDirectory().get() + "), but each "
                + "executor spills into its own temporary directory; leave it out"
                : !options.dtype().isEmpty() ? "they hold dtype " + options.dtype() + ", which wrangler-spark does not support yet; cast "
                + "the columns in Spark and leave it out"
                : options.timestampsAsInt96() ? "they ask for timestampsAsInt96, which wrangler-spark does not write; leave it out" : null;
        if (refused != null) {
            throw new IllegalArgumentException("Cannot write a DataFrame with these WriteOptions: " + refused + ".");
        }
        if (optionsGiven) {
            throw new IllegalStateException("Cannot apply WriteOptions: this write was given options(...) already; give it one "
                    + "WriteOptions (options.toBuilder() makes a changed copy)");
        }
        if (firstSet != null) {
            throw new IllegalStateException("Cannot apply WriteOptions: " + firstSet + " was set before options(...), which "
                    + "replaces every option and would undo it; call options(...) first, then the setters for this write");
        }
        partitionBy(options.partitionBy().toArray(new String[0]));
        mode(options.mode());
        compression(options.compression());
        if (options.maxRowsPerFile() != Long.MAX_VALUE) {
            maxRowsPerFile(options.maxRowsPerFile());
        }
        if (options.targetFileSize() != Long.MAX_VALUE) {
            targetFileSize(options.targetFileSize());
        }
        if (!options.filenamePrefix().isEmpty()) {
            filenamePrefix(options.filenamePrefix());
        }
        encryption(options.encryption());
        options.acl().ifPresent(this::acl);
        options.expectedBucketOwner().ifPresent(this::expectedBucketOwner);
        retryPolicy(options.retryPolicy());
        lease(options.lease());
        leaseWait(options.leaseWait());
        concurrency(options.concurrency());
        commitMethod(options.commitMethod());
        if (!options.bucketBy().isEmpty()) {
            bucketBy(options.bucketBy(), options.buckets());
        }
        if (options.preserveNanoseconds()) {
            option("preserveNanoseconds", "true");
        }
        options.rowGroupSize().ifPresent(this::rowGroupSize);
        options.pageSize().ifPresent(this::pageSize);
        if (!options.dictionaryEncoding().isEmpty()) {
            dictionaryEncoding(options.dictionaryEncoding());
        }
        if (!options.bloomFilters().isEmpty()) {
            bloomFilters(options.bloomFilters().toArray(new String[0]));
        }
        if (options.bloomFilterFpp() != WriteOptions.defaults().bloomFilterFpp()) {
            bloomFilterFpp(options.bloomFilterFpp());
        }
        if (!options.sortBy().isEmpty()) {
            sortBy(options.sortBy().toArray(new String[0]));
        }
        if (!options.fileMetadata().isEmpty()) {
            fileMetadata(options.fileMetadata());
        }
        options.storageClass().ifPresent(this::storageClass);
        if (!options.tags().isEmpty()) {
            tags(options.tags());
        }
        firstSet = null;
        optionsGiven = true;
        return this;
    }

    /** Partition columns, in path order; they are not stored in the files. */
    public SparkWriteBuilder partitionBy(String... columns) {
        this.partitionBy = List.of(columns);
        noteSet("partitionBy(...)");
        return this;
    }

    /** {@code APPEND} (default), {@code OVERWRITE} or {@code OVERWRITE_PARTITIONS}, as {@code S3Parquet}'s. */
    public SparkWriteBuilder mode(WriteMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        noteSet("mode(...)");
        return this;
    }

    private void noteSet(String option) {
        if (firstSet == null) {
            firstSet = option;
        }
    }

    /** Registers the table and its partitions in this catalog table, on the driver, after publishing. */
    public SparkWriteBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "table");
        return this;
    }

    /** How the driver and every executor reach S3 (default: the SDK's default chains). */
    public SparkWriteBuilder s3(S3Settings settings) {
        this.s3 = Objects.requireNonNull(settings, "settings");
        return this;
    }

    public SparkWriteBuilder compression(Compression compression) {
        return option("compression", compression.name());
    }

    public SparkWriteBuilder maxRowsPerFile(long rows) {
        return option("maxRowsPerFile", Long.toString(rows));
    }

    public SparkWriteBuilder targetFileSize(long bytes) {
        return option("targetFileSize", Long.toString(bytes));
    }

    /** Put before every data file's name (after it comes the task's {@code t<partition>-a<attempt>-}). */
    public SparkWriteBuilder filenamePrefix(String prefix) {
        return option("filenamePrefix", prefix);
    }

    public SparkWriteBuilder sseS3() {
        return encryption(Encryption.sseS3());
    }

    public SparkWriteBuilder sseKms(String keyId) {
        return encryption(keyId == null ? Encryption.kms() : Encryption.kms(keyId));
    }

    /** How S3 encrypts every object the write creates, as {@code S3Parquet}'s; {@link Encryption#none()} by default. */
    public SparkWriteBuilder encryption(Encryption encryption) {
        Objects.requireNonNull(encryption, "encryption");
        options.remove("sseKmsKeyId");
        if (encryption.serverSideEncryption() == null) {
            options.remove("sse");
            noteSet("encryption(...)");
            return this;
        }
        option("sse", encryption.serverSideEncryption());
        return encryption.kmsKeyId() == null ? this : option("sseKmsKeyId", encryption.kmsKeyId());
    }

    public SparkWriteBuilder acl(String cannedAcl) {
        return option("acl", cannedAcl);
    }

    public SparkWriteBuilder expectedBucketOwner(String accountId) {
        return option("expectedBucketOwner", accountId);
    }

    public SparkWriteBuilder retry(int attempts, Duration base, Duration cap) {
        return retryPolicy(RetryPolicy.of(attempts, base, cap));
    }

    /** How S3 requests are retried, on the driver and in every task; durations are sent in whole milliseconds, at least 1. */
    public SparkWriteBuilder retryPolicy(RetryPolicy policy) {
        option("retryAttempts", Integer.toString(policy.attempts()));
        option("retryBaseMillis", Long.toString(Math.max(1, policy.base().toMillis())));
        return option("retryCapMillis", Long.toString(Math.max(1, policy.cap().toMillis())));
    }

    public SparkWriteBuilder lease(boolean enabled) {
        return option("lease", Boolean.toString(enabled));
    }

    public SparkWriteBuilder leaseWait(Duration wait) {
        return option("leaseWaitSeconds", Long.toString(Math.max(1, wait.toSeconds())));
    }

    /** S3 requests in flight on the driver (publish, deletes); each task keeps {@code taskConcurrency} (8) of its own. */
    public SparkWriteBuilder concurrency(int requests) {
        return option("concurrency", Integer.toString(requests));
    }

    public SparkWriteBuilder idempotencyKey(String key) {
        return option("idempotencyKey", key);
    }

    /**
     * {@code STAGE_AND_COPY} (default) or {@code DEFERRED_UPLOADS}: each task uploads its files straight to their final keys
     * and leaves the uploads open; the driver completes those of the attempts that counted and aborts the others.
     */
    public SparkWriteBuilder commitMethod(CommitMethod method) {
        return option("commitMethod", Objects.requireNonNull(method, "method").name());
    }

    /**
     * Splits each partition into {@code buckets} buckets by awswrangler's hash of these columns, as {@code S3Parquet}'s
     * {@code bucketBy}; each task writes its rows of a bucket to a file of that bucket ({@code ..._bucket-00003...}), so
     * a bucket may get several files (one per task holding its rows, and more with {@code maxRowsPerFile}).
     */
    public SparkWriteBuilder bucketBy(List<String> columns, int buckets) {
        option("bucketBy", String.join(",", columns));
        return option("buckets", Integer.toString(buckets));
    }

    /** As {@code WriteBuilder.rowGroupSize}: the string option {@code rowGroupSize}. */
    public SparkWriteBuilder rowGroupSize(long bytes) {
        WriteOptions.builder().rowGroupSize(bytes);
        return option("rowGroupSize", Long.toString(bytes));
    }

    /** As {@code WriteBuilder.pageSize}: the string option {@code pageSize}. */
    public SparkWriteBuilder pageSize(int bytes) {
        WriteOptions.builder().pageSize(bytes);
        return option("pageSize", Integer.toString(bytes));
    }

    /** As {@code WriteBuilder.dictionaryEncoding}: the string option {@code dictionaryEncoding}, a JSON object such as {@code {"id": false}}. */
    public SparkWriteBuilder dictionaryEncoding(Map<String, Boolean> columns) {
        WriteOptions.builder().dictionaryEncoding(columns);
        return option("dictionaryEncoding", SourceOptions.json(columns));
    }

    /** As {@code WriteBuilder.bloomFilters}: the string option {@code bloomFilters}, columns separated by commas. */
    public SparkWriteBuilder bloomFilters(String... columns) {
        WriteOptions.builder().bloomFilters(columns);
        return option("bloomFilters", String.join(",", columns));
    }

    /** As {@code WriteBuilder.bloomFilterFpp}: the string option {@code bloomFilterFpp}. */
    public SparkWriteBuilder bloomFilterFpp(double fpp) {
        WriteOptions.builder().bloomFilterFpp(fpp);
        return option("bloomFilterFpp", Double.toString(fpp));
    }

    /**
     * As {@code WriteBuilder.sortBy}: the string option {@code sortBy}, columns separated by commas. Each task sorts the
     * rows of each file it writes (as Spark's {@code sortWithinPartitions} would, but per file, and recorded in the files).
     */
    public SparkWriteBuilder sortBy(String... columns) {
        WriteOptions.builder().sortBy(columns);
        return option("sortBy", String.join(",", columns));
    }

    /** As {@code WriteBuilder.fileMetadata}: the string option {@code fileMetadata}, a JSON object of strings. */
    public SparkWriteBuilder fileMetadata(Map<String, String> metadata) {
        WriteOptions.builder().fileMetadata(metadata);
        return option("fileMetadata", SourceOptions.json(metadata));
    }

    /** As {@code WriteBuilder.storageClass}: the string option {@code storageClass}. */
    public SparkWriteBuilder storageClass(String storageClass) {
        WriteOptions.builder().storageClass(storageClass);
        return option("storageClass", storageClass);
    }

    /** As {@code WriteBuilder.tags}: the string option {@code tags}, a JSON object of strings. */
    public SparkWriteBuilder tags(Map<String, String> tags) {
        WriteOptions.builder().tags(tags);
        return option("tags", SourceOptions.json(tags));
    }

    /** Any option of the data source, by name. */
    public SparkWriteBuilder option(String name, String value) {
        options.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, name));
        // an idempotency key names this write alone, and WriteOptions hold none to undo it
        noteSet(name.equalsIgnoreCase("idempotencyKey") ? null : "option(\"" + name + "\", ...)");
        return this;
    }

    /** The data source's string options this builder gives the write (its partition columns go through Spark's partitionBy). */
    Map<String, String> sourceOptions() {
        Map<String, String> all = new LinkedHashMap<>(options);
        all.put("writeMode", mode.name());
        return all;
    }

    /** The partition columns, as given to Spark's partitionBy. */
    List<String> partitionColumns() {
        return partitionBy;
    }

    /** Tests: told of each commit step on the driver. */
    SparkWriteBuilder hook(StepHook hook) {
        this.hook = hook;
        return this;
    }

    /** Tests: the driver's lease clock offset, to take over a killed driver's lease at once (see {@code DistributedWrite.begin}). */
    SparkWriteBuilder leaseClockOffset(Duration offset) {
        this.leaseClockOffset = offset;
        return this;
    }

    /**
     * Runs the write: a Spark job whose tasks stage the files, then the driver's commit. Throws what {@code S3Parquet}'s
     * {@code to} throws; a Spark job that fails (a task failed more often than Spark retries it) leaves the table
     * unchanged and is reported as the task's {@link WranglerException} when it was one, else as an {@link InputException}
     * (the input could not be computed).
     */
    public WriteResult to(String uri) {
        String id = Handles.open(new Handles.Handle(catalog, s3, hook, leaseClockOffset));
        try {
            DataFrameWriter<Row> w = df.write().format(WranglerSource.class.getName())
                    .mode(mode == WriteMode.APPEND ? SaveMode.Append : SaveMode.Overwrite)
                    .options(sourceOptions())
                    .option(Handles.OPTION, id);
            if (!partitionBy.isEmpty()) {
                w = w.partitionBy(partitionBy.toArray(new String[0]));
            }
            try {
                w.save(uri);
            } catch (WranglerException e) {
                throw e;
            } catch (Exception e) { // SparkException is checked, and thrown through Scala undeclared
                for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                    if (c instanceof WranglerException w2) {
                        w2.addSuppressed(e);
                        throw w2;
                    }
                }
                throw new InputException(uri, WriteStep.STAGE, "Cannot write " + uri + " (step: stage): the Spark job failed ("
                        + e.getMessage() + "). Nothing of the table was changed; the write's staging was removed. Fix the cause and "
                        + "rerun the write.", e);
            }
            WriteResult r = Handles.get(id).result;
            if (r == null) {
                throw new IllegalStateException("the wrangler data source did not report a result for " + uri);
            }
            return r;
        } finally {
            Handles.close(id);
        }
    }
}
