package io.wrangler;

/**
 * A CommitStateUnknownException reports that the write may or may not have taken effect, and this
 * process cannot tell which. Do not clean anything up by hand: run {@code S3Parquet.recover(uri)} (or
 * rerun the write, which recovers first), then check the table.
 */
public final class CommitStateUnknownException extends WranglerException {
    private static final long serialVersionUID = 1L;

    public CommitStateUnknownException(String table, String step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
