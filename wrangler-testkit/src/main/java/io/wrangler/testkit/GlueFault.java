package io.wrangler.testkit;

/**
 * A GlueFault is an error {@link LocalGlue} answers with instead of (or after) carrying out a call, as the real
 * service does under load or failure.
 */
public enum GlueFault {
    /** {@code ThrottlingException} "Rate exceeded" (HTTP 400): retry with backoff. */
    THROTTLING("ThrottlingException", 400, "Rate exceeded"),
    /** {@code InternalServiceException} (HTTP 500): retry with backoff. */
    INTERNAL_SERVICE("InternalServiceException", 500, "An internal service error occurred"),
    /** {@code OperationTimeoutException} (HTTP 400): retry; the call may or may not have been applied. */
    OPERATION_TIMEOUT("OperationTimeoutException", 400, "The operation timed out"),
    /** {@code AccessDeniedException} (HTTP 400): permanent. */
    ACCESS_DENIED("AccessDeniedException", 400, "User is not authorized to perform this operation");

    final String type;
    final int status;
    final String message;

    GlueFault(String type, int status, String message) {
        this.type = type;
        this.status = status;
        this.message = message;
    }
}
