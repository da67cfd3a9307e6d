/**
 * Reading a table back: finding its visible files ({@link io.wrangler.read.TableFiles}), decoding Parquet with
 * parquet-java's column decoders and no Hadoop class ({@link io.wrangler.read.ParquetArrow}) over ranged GETs
 * ({@link io.wrangler.read.S3InputFile}), into Arrow batches ({@link io.wrangler.read.TableReader}). Not public API.
 */
package io.wrangler.read;
