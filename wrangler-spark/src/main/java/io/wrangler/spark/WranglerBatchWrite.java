package io.wrangler.spark;

import io.wrangler.CommitMethod;
import io.wrangler.RecoveryResult;
import io.wrangler.RetryPolicy;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.WriteResult;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.DistributedWrite;
import io.wrangler.spi.StagedFiles;
import io.wrangler.spi.StepHook;
import io.wrangler.spi.WriteTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The driver's side of a wrangler write in Spark. Before any task runs ({@link #createBatchWriterFactory}) it begins the
 * write through wrangler-core: validate, lease, recover, record. Spark's commit coordinator lets one attempt of each
 * task commit; {@link #commit} gets exactly their messages and commits them through core (manifest, publish, catalog,
 * cleanup, which removes every other attempt's files with the staging); {@link #abort} undoes the write.
 */
final class WranglerBatchWrite implements BatchWrite {
    /**
     * The driver's account of each write, at INFO: when it began (after the lease and recovery), what it committed (its
     * WriteResult in one line) and when it was rolled back. {@code System.Logger} goes to java.util.logging, which Spark
     * bridges to its own log (log4j) when jul-to-slf4j is on its class path, as in Spark's distributions.
     */
    private static final System.Logger LOG = System.getLogger("io.wrangler.spark");

    private final SourceOptions options;
    private final WriteMode mode;
    private final List<String> partitionBy;
    private final StructType schema;
    private DistributedWrite write;
    private Handles.Handle handle;
    private long started;
    private volatile WriteResult committed;

    WranglerBatchWrite(SourceOptions options, WriteMode mode, List<String> partitionBy, StructType schema) {
        this.options = options;
        this.mode = mode;
        this.partitionBy = partitionBy;
        this.schema = schema;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        try {
            return begin();
        } catch (RuntimeException | Error e) {
            options.close(); // the Glue client the options made; nothing else is held before the write began
            throw e;
        }
    }

    private DataWriterFactory begin() {
        handle = Handles.get(options.get(Handles.OPTION));
        options.checkUnsupported();
        CommitMethod method = options.commitMethod();
        CatalogTable catalog = handle != null && handle.catalog != null ? handle.catalog : options.glue();
        // The catalog's column names (Glue's sanitized ones) go into the files: the rows keep their positions.
        StructType named = schema;
        List<String> partitions = new ArrayList<>(partitionBy);
        List<String> bucketBy = new ArrayList<>(options.bucketBy());
        int buckets = options.buckets();
        if (catalog != null) {
            StructField[] fields = schema.fields().clone();
            for (int i = 0; i < fields.length; i++) {
                String out = catalog.columnName(fields[i].name());
                int p = partitions.indexOf(fields[i].name());
                if (p >= 0) {
                    partitions.set(p, out);
                }
                int b = bucketBy.indexOf(fields[i].name());
                if (b >= 0) {
                    bucketBy.set(b, out);
                }
                fields[i] = new StructField(out, fields[i].dataType(), true, fields[i].metadata());
            }
            named = new StructType(fields);
        }
        Schema arrow;
        try {
            arrow = SparkSchemas.arrow(named);
        } catch (SparkSchemas.Unsupported e) {
            throw options.invalid(e.getMessage(), "Cast or drop the column before writing; nothing was written.");
        }
        S3Settings s3 = handle != null && handle.s3 != null ? handle.s3 : options.s3();
        S3Client driverClient = s3.client();
        String key = options.get("idempotencyKey");
        WriteOptions writeOptions = options.writeOptions(mode, partitions, bucketBy, buckets);
        WriteTarget target = new WriteTarget(options.uri, driverClient, writeOptions, catalog, key);
        RetryPolicy retry = writeOptions.retryPolicy();
        long began = System.nanoTime();
        write = DistributedWrite.begin(target, arrow, handle != null && handle.hook != null ? handle.hook : StepHook.NONE,
                handle != null && handle.leaseClockOffset != null ? handle.leaseClockOffset : Duration.ZERO);
        LOG.log(System.Logger.Level.INFO, () -> "wrangler write " + write.writeId() + " (" + mode + ") to " + options.uri
                + " began in " + millis(began) + " ms (lease taken, earlier writes recovered); its tasks stage now");
        started = System.nanoTime();
        TaskSettings settings = new TaskSettings(options.uri, write.writeId(), mode, partitions, named, options.compression(),
                options.maxRowsPerFile(), options.targetFileSize(), options.filenamePrefix(), key,
                writeOptions.encryption().serverSideEncryption(), writeOptions.encryption().kmsKeyId(), writeOptions.acl().orElse(null),
                writeOptions.expectedBucketOwner().orElse(null), retry.attempts(), retry.base().toMillis(), retry.cap().toMillis(),
                options.taskConcurrency(), options.batchRows(), method, bucketBy, buckets, s3, TaskSettings.Layout.of(writeOptions));
        return new Factory(settings);
    }

    /** Makes each task attempt's writer on its executor. */
    private record Factory(TaskSettings settings) implements DataWriterFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
            return new TaskWriter(settings, partitionId, taskId);
        }
    }

    @Override
    public boolean useCommitCoordinator() {
        return true;
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        List<StagedFiles> tasks = new ArrayList<>();
        for (WriterCommitMessage m : messages) {
            if (m != null) {
                tasks.add(((TaskMessage) m).staged());
            }
        }
        try {
            WriteResult result = write.commit(tasks);
            LOG.log(System.Logger.Level.INFO, () -> describe(result, tasks.size()));
            committed = result;
            if (handle != null) {
                handle.result = result;
            }
        } finally {
            options.close();
        }
    }

    /** What the write committed, or null before its commit returned. */
    WriteResult committed() {
        return committed;
    }

    private static long millis(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    private String describe(WriteResult r, int tasks) {
        StringBuilder s = new StringBuilder("wrangler write ").append(r.writeId()).append(" (").append(r.mode()).append(") to ")
                .append(r.table()).append(" committed ").append(r.rows()).append(" rows in ").append(r.paths().size()).append(" files, ")
                .append(r.partitions().size()).append(" partitions, from ").append(tasks).append(" tasks in ")
                .append(millis(started)).append(" ms; deleted ").append(r.deletedFiles().size()).append(" replaced files");
        RecoveryResult found = r.recovered();
        if (found != null && !found.isEmpty()) {
            s.append("; before it, recovery rolled forward ").append(found.rolledForward()).append(", rolled back ")
                    .append(found.rolledBack()).append(" and aborted ").append(found.abortedUploads().size()).append(" uploads");
        }
        return s.toString();
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        try {
            if (write != null) {
                write.abort(null);
                LOG.log(System.Logger.Level.WARNING, () -> "wrangler write " + write.writeId() + " to " + options.uri
                        + " was aborted by Spark after " + millis(started) + " ms and rolled back: nothing of it is visible");
            }
        } finally {
            options.close();
        }
    }
}
