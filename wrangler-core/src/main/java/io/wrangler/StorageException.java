package io.wrangler;

/**
 * A StorageException reports an S3 request that failed after the client's retries.
 *
 * <p>It is raised only where the write did not take effect (before its commit point, or an append that was undone);
 * an S3 failure after the commit point is a {@link WriteIncompleteException} with this as its cause. The cause is kept,
 * and {@link #requestId()} gives the S3 request id to quote to AWS support.
 */
public final class StorageException extends WriteNotAppliedException {
    private static final long serialVersionUID = 1L;
    private final String requestId;
    private final int statusCode;

    public StorageException(String table, WriteStep step, String message, String requestId, int statusCode, Throwable cause) {
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
