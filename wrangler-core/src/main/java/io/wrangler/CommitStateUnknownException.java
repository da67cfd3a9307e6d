package io.wrangler;

/**
 * A CommitStateUnknownException reports that this process cannot tell whether the write took effect, or that
 * recovery found something it must not act on by itself. Do not clean anything up by hand: run
 * {@code S3Parquet.recover(uri)} (it is idempotent), read the message, and check the table before rerunning.
 */
public final class CommitStateUnknownException extends WranglerException {
    private static final long serialVersionUID = 1L;

    public CommitStateUnknownException(String table, WriteStep step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
