package io.wrangler.input;

import io.wrangler.InputException;
import io.wrangler.WriteStep;
import java.io.IOException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The input as the write reads it, an IOException of the source turned into an {@link InputException}: the source
 * failed, not S3, so the message must not send the user to rerun against S3. Wraps the input of every write, a
 * compaction's and a merge's included. An interruption of the reading thread (the caller interrupted the operation) is
 * not the source's fault: its message says so instead of sending the user to fix the input.
 */
public final class InputFailures implements BatchSource {
    private final BatchSource source;
    private final String uri;
    private final String verb;
    private final String noun;
    private int batches;

    /** The input of a plain write. */
    public InputFailures(BatchSource source, String uri) {
        this(source, uri, "write", "write");
    }

    /**
     * The input of an operation named in its messages as "Cannot {@code verb} uri" and "this {@code noun}'s staged files"
     * ("merge into" and "merge", "compact" and "compaction").
     */
    public InputFailures(BatchSource source, String uri, String verb, String noun) {
        this.source = source;
        this.uri = uri;
        this.verb = verb;
        this.noun = noun;
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
            String cannot = "Cannot " + verb + " " + uri + " (step: " + step + "): ";
            String unchanged = ". Nothing of the table was changed" + (source.replayable() ? "" : "; this " + noun + "'s staged files were removed");
            if (interrupted(e)) {
                throw new InputException(uri, step, cannot + "interrupted while batch " + (batches + 1) + " of its rows was read ("
                        + e + ")" + unchanged + ". Rerun the " + noun + ".", e);
            }
            throw new InputException(uri, step, cannot + "the input failed while batch " + (batches + 1) + " was read: " + e
                    + unchanged + ". Fix the input source and rerun the " + noun + ".", e);
        }
    }

    /** The reading thread was interrupted (a socket's timeout, an InterruptedIOException too, is the source's failure). */
    private static boolean interrupted(IOException e) {
        return Thread.currentThread().isInterrupted() || e instanceof java.nio.channels.ClosedByInterruptException
                || (e instanceof java.io.InterruptedIOException && !(e instanceof java.net.SocketTimeoutException));
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
