/**
 * Reading a table back: finding its visible files ({@link io.wrangler.read.TableFiles}), decoding Parquet with
 * parquet-java's column decoders and no Hadoop class ({@link io.wrangler.read.ParquetArrow}) over ranged GETs
 * ({@link io.wrangler.read.S3InputFile}), into Arrow batches ({@link io.wrangler.read.TableReader}). Internal: not API; may change in any release.
 *
 * <p>Readers: a prefix with no object under it is no table (refused); a filter is checked against the partition columns
 * before any file is listed or opened; which writes show as before or after is decided over the read's whole scope (see
 * "Readers" in {@code io.wrangler.commit}).
 */
package io.wrangler.read;
