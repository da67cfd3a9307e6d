/**
 * Reading a table back: finding its visible files ({@link io.wrangler.read.TableFiles}), decoding Parquet with
 * parquet-java's column decoders and no Hadoop class ({@link io.wrangler.read.ParquetArrow}) over ranged GETs
 * ({@link io.wrangler.read.S3InputFile}), into Arrow batches ({@link io.wrangler.read.TableReader}). Internal: not API; may change in any release.
 *
 * <p>One concern a unit: the table's schema, the union of its files' columns and the catalog's columns
 * ({@code TableSchema}, which compaction uses too); the partition columns restored from folder names
 * ({@code PartitionColumns}); one file's decoding ({@code FileDecoder}, {@code DirectColumn}, {@code RowGroupPages});
 * several files decoded at once, handed over in order ({@code Pipeline}); the footer and its parse options
 * ({@code Footers}, {@code FileFooters}, {@code ParquetOptions}); the reader that ties them together
 * ({@code TableReader}). Only {@code TableFiles} depends on {@code io.wrangler.commit} (the manifest and visibility rules).
 *
 * <p>Readers: a prefix with no object under it is no table (refused); a filter is checked against the partition columns
 * before any file is listed or opened; which writes show as before or after is decided over the read's whole scope (see
 * "Readers" in {@code io.wrangler.commit}). A row filter ({@code TableReader.rowFilter}) is bound to the read's schema
 * when the schema is made, before any row is decoded (a file is judged as its footer arrives with the filter bound to
 * its own columns, the verdict kept when the schema binds the same columns and types); {@code FilePruning} judges every file's row groups by
 * statistics, bloom filters ({@code ChunkBloom}, read block by block) and the file's partition values, and the files
 * ruled out whole are not decoded; {@code FileDecoder} skips the row groups ruled out, narrows the others by their
 * page indexes ({@code PageRanges}: only the pages that may hold passing rows are fetched and decoded), decodes the
 * filter's columns beside the selected ones, and keeps the rows that pass ({@code io.wrangler.filter}). Under a filter
 * the file's reads are exact ranges ({@code S3InputFile#exact}).
 */
package io.wrangler.read;
