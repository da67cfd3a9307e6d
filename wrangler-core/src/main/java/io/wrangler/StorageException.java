package io.wrangler;

/**
 * A StorageException reports an S3 request that failed after the client's retries.
 *
 * <p>The cause is kept, and {@link #requestId()} gives the S3 request id to quote to AWS support.
 * The message says whether the table is unchanged (the failure came before publishing) or must be
 * finished by a rerun or {@code S3Parquet.recover} (the failure came while publishing).
 */
public final class StorageException extends WranglerException {
    private static final long serialVersionUID = 1L;
    private final String requestId;
    private final int statusCode;

    public StorageException(String table, String step, String message, String requestId, int statusCode, Throwable cause) {
        super(table, step, message, cause);
        this.requestId = requestId;
        this.statusCode = statusCode;
    }

    /** The S3 request id of the failed request, or null when the request never got an answer. */
    public String requestId() {
        return requestId;
    }

    /** The HTTP status S3 answered with, or 0 when there was no answer. */
    public int statusCode() {
        return statusCode;
    }
}
