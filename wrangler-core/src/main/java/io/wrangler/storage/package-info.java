/**
 * S3 access for the write path: locations, puts, streaming multipart uploads with bounded buffers,
 * copies (UploadPartCopy above 5 GB), paginated listings, batched deletes with per-key errors read,
 * and aborting stray multipart uploads. Internal: not API; may change in any release.
 *
 * <p>Every request is retried by wrangler itself on transient failures (5xx, 503 SlowDown, throttling, broken or
 * timed-out connections: {@link io.wrangler.storage.RequestOptions#isTransient}), as many times as the write's
 * {@code retry(...)} says (4 attempts by default, capped exponential backoff with full jitter), on top of whatever the
 * SDK client the caller gives retries itself; what fails after them becomes a {@link io.wrangler.StorageException}
 * that names the table, the step and the S3 request id.
 */
package io.wrangler.storage;
