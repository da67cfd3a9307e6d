package io.wrangler.spark;

import io.wrangler.commit.TableWrite;
import io.wrangler.input.BatchSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

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
    private volatile TableWrite.TaskStaged staged;
    private volatile Throwable failure;
    private final int batchRows;
    private RowsToArrow filling;
    private boolean ended;

    TaskWriter(TaskSettings settings, int partitionId, long taskId) {
        this.batchRows = settings.batchRows();
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
                staged = TableWrite.stageTask(settings.taskSpec(partitionId, taskId), schema, settings.writeId(), source);
            } catch (Throwable t) {
                failure = t;
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

    private void join() throws IOException {
        try {
            stager.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("the task was interrupted");
        }
    }

    /** The attempt failed or was cancelled: its open uploads are aborted; its finished files stay staged for the write's end to remove. */
    @Override
    public void abort() throws IOException {
        if (ended) {
            return;
        }
        ended = true;
        full.clear();
        full.offer(ABORT);
        try {
            stager.join(TimeUnit.SECONDS.toMillis(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
