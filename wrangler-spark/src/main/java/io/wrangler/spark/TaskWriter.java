package io.wrangler.spark;

import io.wrangler.CommitMethod;
import io.wrangler.WriteStep;
import io.wrangler.commit.StagedFiles;
import io.wrangler.commit.TaskStager;
import io.wrangler.input.BatchSource;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A TaskWriter stages one task attempt's rows: Spark pushes rows into it, wrangler-core's stager pulls Arrow batches,
 * so the stager runs on a thread of its own, fed through a hand-off of two batches (one filled while the other is
 * encoded; memory stays at two batches of {@code batchRows} rows (65,536 by default) plus the stager's own bounds). {@link #commit}
 * returns what the attempt staged; Spark hands the driver the message of exactly one attempt per task.
 */
final class TaskWriter implements DataWriter<InternalRow> {
    private static final Object END = new Object();
    private static final Object ABORT = new Object();

    private final BufferAllocator allocator = new RootAllocator();
    private final BlockingQueue<RowsToArrow> free = new ArrayBlockingQueue<>(2);
    private final BlockingQueue<Object> full = new ArrayBlockingQueue<>(2);
    private final VectorSchemaRoot[] roots = new VectorSchemaRoot[2];
    private final Thread stager;
    private volatile StagedFiles staged;
    private volatile Throwable failure;
    private final int batchRows;
    private final TaskSettings settings;
    private final int partitionId;
    private final long taskId;
    private RowsToArrow filling;
    private long rows;
    private boolean ended;
    private volatile boolean aborted;
    private final AtomicBoolean removed = new AtomicBoolean();

    TaskWriter(TaskSettings settings, int partitionId, long taskId) {
        this.batchRows = settings.batchRows();
        this.settings = settings;
        this.partitionId = partitionId;
        this.taskId = taskId;
        Schema schema = SparkSchemas.arrow(settings.schema());
        for (int i = 0; i < 2; i++) {
            roots[i] = VectorSchemaRoot.create(schema, allocator);
            free.add(new RowsToArrow(roots[i], settings.schema()));
        }
        BatchSource source = new BatchSource() {
            private RowsToArrow current;

            @Override
            public Schema schema() {
                return schema;
            }

            @Override
            public boolean next() throws IOException {
                if (current != null) {
                    free.add(current);
                    current = null;
                }
                Object next;
                try {
                    next = full.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("the task was interrupted");
                }
                if (next == END) {
                    return false;
                }
                if (next == ABORT) {
                    throw new InterruptedIOException("the task attempt was aborted");
                }
                current = (RowsToArrow) next;
                return true;
            }

            @Override
            public VectorSchemaRoot current() {
                return current.finish();
            }

            @Override
            public boolean replayable() {
                return false;
            }

            @Override
            public void rewind() {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {
            }
        };
        stager = new Thread(() -> {
            try {
                staged = TaskStager.stageTask(settings.taskSpec(partitionId, taskId), schema, settings.writeId(), source);
            } catch (Throwable t) {
                failure = t;
            } finally {
                if (aborted) {
                    removeOwnFiles(); // abort stopped waiting for this thread (interrupted, or after a minute)
                }
            }
        }, "wrangler-stager-" + partitionId + "-" + taskId);
        stager.setDaemon(true);
        stager.start();
    }

    @Override
    public void write(InternalRow row) throws IOException {
        if (filling == null) {
            filling = take();
            filling.reset();
        }
        filling.add(row);
        rows++;
        if (filling.rows() >= batchRows) {
            hand(filling);
            filling = null;
        }
    }

    private RowsToArrow take() throws IOException {
        try {
            while (true) {
                RowsToArrow r = free.poll(100, TimeUnit.MILLISECONDS);
                if (r != null) {
                    return r;
                }
                failIfStagerEnded();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("the task was interrupted");
        }
    }

    private void hand(Object batch) throws IOException {
        try {
            while (!full.offer(batch, 100, TimeUnit.MILLISECONDS)) {
                failIfStagerEnded();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("the task was interrupted");
        }
    }

    private void failIfStagerEnded() throws IOException {
        if (!stager.isAlive()) {
            rethrowFailure();
            throw new IOException("the stager of this task ended before its input did");
        }
    }

    private void rethrowFailure() throws IOException {
        Throwable t = failure;
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            throw new IOException(t);
        }
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        if (filling != null && filling.rows() > 0) {
            hand(filling);
            filling = null;
        }
        hand(END);
        join();
        ended = true;
        rethrowFailure();
        return TaskMessage.of(staged);
    }

    /** The rows this attempt was given so far (Spark sums the successful attempts' last values). */
    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return WriteMetrics.task(rows);
    }

    private void join() throws IOException {
        try {
            stager.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("the task was interrupted");
        }
    }

    /**
     * The attempt failed, was cancelled or lost (a speculative copy or an earlier attempt committed its task): its open
     * uploads are aborted, and once its stager has stopped, the files it finished are deleted. Its commit message never
     * left (abort follows no successful {@link #commit}), so no commit names them; and the write may have ended already
     * (a losing attempt still running when the driver removed the staging folder), with no one else to remove them until
     * the next recovery. Spark kills a task by interrupting its thread: the wait and the deletion run with the interrupt
     * set aside (restored before returning), and if the wait is cut short anyway the stager deletes them when it stops.
     */
    @Override
    public void abort() throws IOException {
        if (ended) {
            return;
        }
        ended = true;
        aborted = true;
        full.clear();
        full.offer(ABORT);
        boolean interrupted = Thread.interrupted();
        try {
            stager.join(TimeUnit.SECONDS.toMillis(60));
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (!stager.isAlive()) {
            removeOwnFiles();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Deletes this attempt's files from the write's staging folder and, with deferred uploads, aborts its uploads still
     * open at final keys (only names that begin with its own prefix and carry the write id), once.
     */
    private void removeOwnFiles() {
        if (!removed.compareAndSet(false, true)) {
            return;
        }
        try {
            S3Location table = S3Location.parse(settings.uri(), WriteStep.STAGE);
            S3Store store = new S3Store(settings.s3().client(), table.bucket(), settings.options());
            String mine = settings.attemptPrefix(partitionId, taskId);
            List<String> keys = new ArrayList<>();
            for (S3Object o : store.list(table.tmpPrefix() + settings.writeId() + "/")) {
                if (o.key().substring(o.key().lastIndexOf('/') + 1).startsWith(mine)) {
                    keys.add(o.key());
                }
            }
            store.delete(keys);
            if (settings.commitMethod() == CommitMethod.DEFERRED_UPLOADS) {
                // Open uploads at final keys: the stager aborts them when it fails, but one that finished (Spark killed the
                // attempt while its commit waited) leaves them open, and the driver may have listed the open uploads already.
                for (MultipartUpload u : store.openUploads(table.prefix())) {
                    String name = u.key().substring(u.key().lastIndexOf('/') + 1);
                    if (!u.key().startsWith(table.tmpPrefix()) && name.startsWith(mine) && name.contains(settings.writeId())) {
                        try {
                            store.abort(u.key(), u.uploadId());
                        } catch (RuntimeException gone) {
                            // completed by no one (its message never left) or aborted meanwhile: nothing open
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            // Best effort: what stays is removed with the staging folder by the write's end or by the next recovery.
        }
    }

    @Override
    public void close() {
        if (!ended) {
            try {
                abort();
            } catch (IOException ignored) {
                // closing after a failure: the failure is what Spark reports
            }
        }
        if (!stager.isAlive()) {
            for (VectorSchemaRoot r : roots) {
                r.close();
            }
            allocator.close();
        }
    }
}
