package io.wrangler;

/**
 * A VerificationException reports a compaction whose new files, read back before its commit point, do not hold the rows
 * it read (their count, or a column's count of values or checksum differs, or a file does not decode). Nothing was changed: its staged files were
 * removed and the table is as before. A column whose type comes back otherwise than it was read is named with both types:
 * a type the compaction cannot keep for those files. Any other difference means a bug or a file changed while it was
 * read; report it with the message.
 */
public final class VerificationException extends WriteNotAppliedException {
    private static final long serialVersionUID = 1L;

    public VerificationException(String table, String message) {
        this(table, message, null);
    }

    public VerificationException(String table, String message, Throwable cause) {
        super(table, WriteStep.COMMIT, message, cause);
    }
}
