package io.wrangler.testkit;

/**
 * An S3Fault is what {@link FaultyS3} does to a request instead of (or after) passing it on, as networks and S3 do.
 */
public enum S3Fault {
    /** Answers HTTP 500 InternalError without passing the request on. */
    INTERNAL_ERROR,
    /**
     * Answers HTTP 200 whose body is an InternalError, without passing the request on: what S3 may send for a
     * CopyObject, UploadPartCopy or CompleteMultipartUpload that fails after its answer began.
     */
    INTERNAL_ERROR_IN_200,
    /** Answers HTTP 503 SlowDown without passing the request on. */
    SLOW_DOWN,
    /** Answers HTTP 403 AccessDenied without passing the request on: a permanent failure. */
    ACCESS_DENIED,
    /** Closes the connection without an answer, without passing the request on. */
    CONNECTION_RESET,
    /** Holds the request longer than a client waits (see {@link FaultyS3#timeoutDelay}), without passing it on. */
    TIMEOUT,
    /**
     * Passes a GetObject on and answers its status and headers, then only half its body before closing the connection:
     * a body cut short, which a reader meets while it reads the body.
     */
    BODY_CUT_SHORT,
    /** Passes the request on, so that S3 applies it, then closes the connection: the answer is lost. */
    APPLIED_RESPONSE_LOST
}
