package io.wrangler.spi;

import java.io.IOException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows one task stages, as a stream of Arrow batches of one schema, read once: {@link #next} moves to the next
 * batch, {@link #current} is that batch (valid until the next call to {@link #next}). An IOException fails the task.
 */
public interface TaskBatches {
    /** The schema of every batch. */
    Schema schema();

    /** Moves to the next batch; false at the end. */
    boolean next() throws IOException;

    /** The current batch, borrowed (the task does not close it). */
    VectorSchemaRoot current();
}
