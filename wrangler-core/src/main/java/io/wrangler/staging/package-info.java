/**
 * Staging: encoding a write's input into Parquet files and uploading them where the commit protocol wants them (under
 * {@code _tmp/<writeId>/}, or as open multipart uploads at their final keys), spilling to local disk a stream that
 * interleaves more partitions than can stay open. Nothing here decides what the table shows: the commit package
 * ({@code io.wrangler.commit}) records the staged files and publishes them. Internal: not API; may change in any release.
 */
package io.wrangler.staging;
