package io.wrangler;

/**
 * An InputException reports that the input source failed while the write was reading it: an {@code ArrowReader} (or the
 * stream, file or socket behind it) threw an {@link java.io.IOException}.
 *
 * <p>Nothing of the table changed: a failure while the input is validated comes before any object is written, and one
 * while a stream is being staged removes this write's staging files again. The cause is the source's own exception. Fix
 * the source and rerun the write.
 */
public final class InputException extends WranglerException {
    private static final long serialVersionUID = 1L;

    public InputException(String table, String step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
