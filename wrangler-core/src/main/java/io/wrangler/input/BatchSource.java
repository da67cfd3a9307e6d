package io.wrangler.input;

import java.io.IOException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A BatchSource yields the input of a write as Arrow batches, one at a time.
 *
 * <p>A replayable source (in memory: a root, records) can be read again from the start, which lets the
 * write validate every value before any object is written. A stream (an ArrowReader) is read once.
 */
public interface BatchSource extends AutoCloseable {
    /** The schema of every batch, dictionary-encoded columns shown decoded. */
    Schema schema();

    /** Moves to the next batch; false at the end. The previous batch is invalid afterwards. */
    boolean next() throws IOException;

    /** The current batch; owned by the source. */
    VectorSchemaRoot current();

    /** True when {@link #rewind()} works. */
    boolean replayable();

    /** Starts again from the first batch (replayable sources only). */
    void rewind();

    @Override
    void close();
}
