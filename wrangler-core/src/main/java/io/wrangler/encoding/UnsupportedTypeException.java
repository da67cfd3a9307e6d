package io.wrangler.encoding;

/** Raised when an Arrow column has no faithful Parquet mapping; the message names the column and what to do. */
public final class UnsupportedTypeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UnsupportedTypeException(String message) {
        super(message);
    }
}
