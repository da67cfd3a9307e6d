package io.wrangler;

/**
 * An InvalidWriteException reports a request that cannot be carried out as given: a bad URI, a missing
 * column, an unsupported type, a partition value that cannot be a path, a catalog definition that
 * conflicts with the data.
 *
 * <p>It is raised before any object of the table is written or deleted (for a streamed input whose
 * later batches turn out bad, after only this write's own staging files, which are removed again).
 * Fix the input and rerun.
 */
public final class InvalidWriteException extends WriteNotAppliedException {
    private static final long serialVersionUID = 1L;

    public InvalidWriteException(String table, WriteStep step, String message) {
        super(table, step, message, null);
    }

    public InvalidWriteException(String table, WriteStep step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
