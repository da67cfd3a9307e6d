package io.wrangler;

/**
 * A CommitConflictException reports that another writer (or a recovery) held the table, or took it over from this
 * write, before this write's commit point. This write did not take effect; rerunning it is safe.
 */
public final class CommitConflictException extends WriteNotAppliedException {
    private static final long serialVersionUID = 1L;

    public CommitConflictException(String table, WriteStep step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
