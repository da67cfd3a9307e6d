package io.wrangler.spark;

import io.wrangler.CommitMethod;
import io.wrangler.Progress;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.WriteResult;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.commit.StepHook;
import io.wrangler.commit.TableWrite;
import io.wrangler.commit.WriteSpec;
import io.wrangler.storage.RequestOptions;
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
    private final SourceOptions options;
    private final WriteMode mode;
    private final List<String> partitionBy;
    private final StructType schema;
    private TableWrite.Distributed write;
    private Handles.Handle handle;

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
        WriteSpec spec = new WriteSpec(options.uri, driverClient, writeOptions, catalog,
                handle != null && handle.hook != null ? handle.hook : StepHook.NONE,
                (handle != null && handle.tuning != null ? handle.tuning : WriteSpec.Tuning.defaults()).withThreads(options.concurrency()),
                key, new Progress() { }, null);
        RequestOptions requests = spec.options();
        write = TableWrite.begin(spec, arrow);
        TaskSettings settings = new TaskSettings(options.uri, write.writeId(), mode, partitions, named, options.compression(),
                options.maxRowsPerFile(), options.targetFileSize(), options.filenamePrefix(), key, requests.sse(), requests.kmsKeyId(),
                requests.acl(), requests.expectedBucketOwner(), requests.attempts(), requests.base().toMillis(), requests.cap().toMillis(),
                options.taskConcurrency(), options.batchRows(), method, bucketBy, buckets, s3);
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
        List<TableWrite.TaskStaged> tasks = new ArrayList<>();
        for (WriterCommitMessage m : messages) {
            if (m != null) {
                tasks.add(((TaskMessage) m).staged());
            }
        }
        try {
            WriteResult result = write.commit(tasks);
            if (handle != null) {
                handle.result = result;
            }
        } finally {
            options.close();
        }
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        try {
            if (write != null) {
                write.abort(null);
            }
        } finally {
            options.close();
        }
    }
}
