package io.wrangler;

import java.time.Duration;
import java.util.Objects;

/**
 * A Progress listener is told how a long write advances, so that a job can show it. Called from the write's threads,
 * possibly several at once: implementations must be thread-safe and quick. The default methods do nothing.
 *
 * <p>By default a write and a compaction report to {@link #logging(String)}: from its fifth second on, one INFO line
 * every five seconds (rows encoded, files staged, bytes uploaded, partitions published, time elapsed) on the
 * {@code System.Logger} named {@code io.wrangler.progress}, and a last line when its partitions are published; a write
 * that ends within five seconds prints nothing. {@link WriteBuilder#progress} replaces it: with a listener of your own,
 * with {@code Progress.logging(name, every)}, or with {@link #none()}.
 *
 * <p>A listener of one's own, printing a line each time another million rows has been encoded:
 *
 * <pre>{@code
 * AtomicLong millions = new AtomicLong();
 * S3Parquet.write(reader).progress(new Progress() {
 *     public void rowsEncoded(long total) {
 *         long m = total / 1_000_000;
 *         if (millions.getAndAccumulate(m, Math::max) < m) System.out.println(total + " rows encoded");
 *     }
 * }).to(uri);
 * }</pre>
 *
 * <p>(The totals grow by a run of rows at a time, not by one, so a test such as {@code total % 1_000_000 == 0} almost
 * never holds.)
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

    /** A listener that ignores everything: a write or compaction that logs no progress line. */
    static Progress none() {
        return new Progress() { };
    }

    /**
     * A listener that logs an INFO line on {@code io.wrangler.progress} every five seconds while the work lasts, naming
     * it {@code what} ({@code "nightly orders"}, say); see {@link #logging(String, Duration)}.
     */
    static Progress logging(String what) {
        return logging(what, ProgressLog.EVERY);
    }

    /**
     * A listener that logs an INFO line on {@code io.wrangler.progress} once {@code every} has passed since it was made
     * and then at most once per {@code every}, when the work reports ({@code what}: 1,200,000 rows encoded, 6 files staged,
     * 48.0 MB uploaded, 12 s elapsed), and a last line when the partitions are published if it logged any before. Make
     * one per write: the time elapsed counts from its creation.
     */
    static Progress logging(String what, Duration every) {
        Objects.requireNonNull(what, "what");
        if (every == null || every.isNegative()) {
            throw new IllegalArgumentException("every must be zero or positive, found " + every);
        }
        return new ProgressLog(what, every, System::nanoTime, ProgressLog::log);
    }
}
