package io.wrangler;

/**
 * A Progress listener is told how a long write advances, so that a job can show it. Called from the write's threads,
 * possibly several at once: implementations must be thread-safe and quick. The default methods do nothing.
 *
 * <pre>{@code
 * S3Parquet.write(reader).progress(new Progress() {
 *     public void rowsEncoded(long total) { if (total % 10_000_000 == 0) log.info("{} rows", total); }
 * }).to(uri);
 * }</pre>
 */
public interface Progress {
    /** Rows encoded so far (a running total, reported after each run of rows). */
    default void rowsEncoded(long total) {
    }

    /** Files staged so far: encoded and handed to their upload. */
    default void filesStaged(int total) {
    }

    /** Bytes of finished files uploaded to the staging area so far. */
    default void bytesUploaded(long total) {
    }

    /** Partitions published so far: their new files in place and their old ones deleted. */
    default void partitionsPublished(int total, int of) {
    }
}
