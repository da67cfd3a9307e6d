package io.wrangler;

/**
 * A WriteNotAppliedException reports a write that did not take effect: nothing of it is in the table, or what was
 * briefly visible (an append's files, before it was cut short) is undone by whoever holds the table next. The table
 * is as before. Rerunning the write is safe and adds its rows exactly once.
 *
 * <p>The subclasses say why: {@link InvalidWriteException} (fix the request first), {@link CommitConflictException}
 * (another writer holds or took the table), {@link StorageException} (S3 failed), {@link CatalogException} (the
 * catalog refused or failed), {@link InputException} (the input could not be read).
 */
public class WriteNotAppliedException extends WranglerException {
    private static final long serialVersionUID = 1L;

    WriteNotAppliedException(String table, WriteStep step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
