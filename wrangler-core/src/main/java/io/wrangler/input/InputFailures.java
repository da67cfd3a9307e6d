package io.wrangler.input;

import io.wrangler.InputException;
import io.wrangler.WriteStep;
import java.io.IOException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The input as the write reads it, an IOException of the source turned into an {@link InputException}: the source
 * failed, not S3, so the message must not send the user to rerun against S3. Wraps the input of every write, a
 * compaction's included.
 */
public final class InputFailures implements BatchSource {
    private final BatchSource source;
    private final String uri;
    private int batches;

    public InputFailures(BatchSource source, String uri) {
        this.source = source;
        this.uri = uri;
    }

    @Override
    public Schema schema() {
        return source.schema();
    }

    @Override
    public boolean next() {
        try {
            boolean more = source.next();
            batches++;
            return more;
        } catch (IOException e) {
            // Validation reads a replayable input before any I/O; a stream is read while it is staged.
            WriteStep step = source.replayable() ? WriteStep.VALIDATE : WriteStep.STAGE;
            throw new InputException(uri, step, "Cannot write " + uri + " (step: " + step + "): the input failed while batch "
                    + (batches + 1) + " was read: " + e + ". Nothing of the table was changed"
                    + (source.replayable() ? "" : "; this write's staged files were removed") + ". Fix the input source and "
                    + "rerun the write.", e);
        }
    }

    @Override
    public VectorSchemaRoot current() {
        return source.current();
    }

    @Override
    public boolean replayable() {
        return source.replayable();
    }

    @Override
    public void rewind() {
        batches = 0;
        source.rewind();
    }

    @Override
    public void close() {
        source.close();
    }
}
