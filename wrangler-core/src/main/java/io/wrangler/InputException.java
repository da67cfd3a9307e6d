package io.wrangler;

/**
 * An InputException reports that the input (an {@code ArrowReader}) failed while the write read it. Nothing of the
 * table changed; this write's staged files were removed. Fix the source and rerun.
 */
public final class InputException extends WriteNotAppliedException {
    private static final long serialVersionUID = 1L;

    public InputException(String table, WriteStep step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
