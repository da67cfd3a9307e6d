package io.wrangler;

/**
 * A WriteIncompleteException reports a write that passed its commit point but did not finish: its data is in the
 * table, or will be put there by recovery, and is never undone. What remains ({@link #remaining()}) is finished by
 * {@code S3Parquet.recover(uri, s3, catalog)} or by the next write to the table with the same catalog.
 *
 * <p>Do not rerun a plain {@code APPEND} that failed this way: its rows are committed, and a rerun would add them a
 * second time. Rerunning an overwrite, or an append with an {@code idempotencyKey}, is safe (it recovers first, then
 * writes the same result again).
 */
public final class WriteIncompleteException extends WranglerException {
    private static final long serialVersionUID = 1L;
    private final WriteStep remaining;

    public WriteIncompleteException(String table, WriteStep step, WriteStep remaining, String message, Throwable cause) {
        super(table, step, message, cause);
        this.remaining = remaining;
    }

    /** The first step that is still to be done: {@code PUBLISH}, {@code CATALOG} or {@code CLEANUP}. */
    public WriteStep remaining() {
        return remaining;
    }
}
