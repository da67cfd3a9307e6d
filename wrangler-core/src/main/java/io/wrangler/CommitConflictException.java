package io.wrangler;

/**
 * A CommitConflictException reports that another writer changed the table or holds it while this write
 * wanted to commit. This write did not take effect; rerunning it is safe.
 */
public final class CommitConflictException extends WranglerException {
    private static final long serialVersionUID = 1L;

    public CommitConflictException(String table, String step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
