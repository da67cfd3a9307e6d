package io.wrangler.spark;

import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.InputException;
import io.wrangler.WranglerException;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.commit.StepHook;
import io.wrangler.commit.WriteSpec;
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
 * of the {@code wrangler} data source (README lists them).
 */
public final class SparkWriteBuilder {
    private final Dataset<Row> df;
    private List<String> partitionBy = List.of();
    private WriteMode mode = WriteMode.APPEND;
    private CatalogTable catalog;
    private S3Settings s3 = S3Settings.defaults();
    private StepHook hook;
    private WriteSpec.Tuning tuning;
    private final Map<String, String> options = new LinkedHashMap<>();

    SparkWriteBuilder(Dataset<Row> df) {
        this.df = Objects.requireNonNull(df, "df");
    }

    /** Partition columns, in path order; they are not stored in the files. */
    public SparkWriteBuilder partitionBy(String... columns) {
        this.partitionBy = List.of(columns);
        return this;
    }

    /** {@code APPEND} (default), {@code OVERWRITE} or {@code OVERWRITE_PARTITIONS}, as {@code S3Parquet}'s. */
    public SparkWriteBuilder mode(WriteMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        return this;
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
        return option("sse", "AES256");
    }

    public SparkWriteBuilder sseKms(String keyId) {
        option("sse", "aws:kms");
        return keyId == null ? this : option("sseKmsKeyId", keyId);
    }

    public SparkWriteBuilder acl(String cannedAcl) {
        return option("acl", cannedAcl);
    }

    public SparkWriteBuilder expectedBucketOwner(String accountId) {
        return option("expectedBucketOwner", accountId);
    }

    public SparkWriteBuilder retry(int attempts, Duration base, Duration cap) {
        option("retryAttempts", Integer.toString(attempts));
        option("retryBaseMillis", Long.toString(base.toMillis()));
        return option("retryCapMillis", Long.toString(cap.toMillis()));
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

    /** Any option of the data source, by name. */
    public SparkWriteBuilder option(String name, String value) {
        options.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, name));
        return this;
    }

    /** Tests: told of each commit step on the driver. */
    SparkWriteBuilder hook(StepHook hook) {
        this.hook = hook;
        return this;
    }

    /** Tests: the driver's tunings (a clock offset to take over a killed driver's lease at once). */
    SparkWriteBuilder tuning(WriteSpec.Tuning tuning) {
        this.tuning = tuning;
        return this;
    }

    /**
     * Runs the write: a Spark job whose tasks stage the files, then the driver's commit. Throws what {@code S3Parquet}'s
     * {@code to} throws; a Spark job that fails (a task failed more often than Spark retries it) leaves the table
     * unchanged and is reported as the task's {@link WranglerException} when it was one, else as an {@link InputException}
     * (the input could not be computed).
     */
    public WriteResult to(String uri) {
        String id = Handles.open(new Handles.Handle(catalog, s3, hook, tuning));
        try {
            DataFrameWriter<Row> w = df.write().format(WranglerSource.class.getName())
                    .mode(mode == WriteMode.APPEND ? SaveMode.Append : SaveMode.Overwrite)
                    .options(options)
                    .option("writeMode", mode.name())
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
