/**
 * S3 access for the write path: locations, puts, streaming multipart uploads with bounded buffers,
 * copies (UploadPartCopy above 5 GB), paginated listings, batched deletes with per-key errors read,
 * and aborting stray multipart uploads. Not public API.
 *
 * <p>Retries of transient failures (500, 503 SlowDown, throttling, connection resets) are left to the
 * AWS SDK's retry strategy on the client the caller gives; what fails after them becomes a
 * {@link io.wrangler.StorageException} that names the table, the step and the S3 request id.
 */
package io.wrangler.storage;
