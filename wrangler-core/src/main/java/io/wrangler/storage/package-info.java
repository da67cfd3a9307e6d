/**
 * S3 access for the write path: locations, puts, streaming multipart uploads with bounded buffers,
 * copies (UploadPartCopy above 5 GB), paginated listings, batched deletes with per-key errors read,
 * and aborting stray multipart uploads. Internal: not API; may change in any release.
 *
 * <p>Every request is retried by the SDK alone, with the write's {@code retry(...)} made the SDK's retry strategy and
 * set on the request ({@link io.wrangler.catalog.SdkRetries}: 4 attempts by default, capped exponential backoff with full
 * jitter; throttling, 5xx, S3's errors in a 200 answer, broken or timed-out connections), in place of the retries of the
 * client the caller gives, never on top of them. Only a copy's completion, fenced before every attempt, is driven here
 * with that same strategy. What fails after them becomes a {@link io.wrangler.StorageException} that names the table,
 * the step and the S3 request id.
 */
package io.wrangler.storage;
