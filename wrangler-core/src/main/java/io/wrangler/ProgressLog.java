package io.wrangler;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The ready-made {@link Progress}: a line when a report arrives and the period has passed since the last line (or since
 * the start), and a closing line at publish if it printed any. It has no thread of its own: a write that reports
 * nothing for a while (waiting for a lease, say) prints nothing meanwhile.
 */
final class ProgressLog implements Progress {
    static final Duration EVERY = Duration.ofSeconds(5);
    private static final System.Logger LOG = System.getLogger("io.wrangler.progress");

    private final String what;
    private final long everyNanos;
    private final LongSupplier clock;
    private final Consumer<String> sink;
    private final long start;
    private final AtomicLong next;
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger files = new AtomicInteger();
    private final AtomicBoolean printed = new AtomicBoolean();

    ProgressLog(String what, Duration every, LongSupplier clock, Consumer<String> sink) {
        this.what = what;
        this.everyNanos = every.toNanos();
        this.clock = clock;
        this.sink = sink;
        this.start = clock.getAsLong();
        this.next = new AtomicLong(start + everyNanos);
    }

    static void log(String line) {
        LOG.log(Level.INFO, line);
    }

    String what() {
        return what;
    }

    @Override
    public void rowsEncoded(long total) {
        rows.accumulateAndGet(total, Math::max);
        due();
    }

    @Override
    public void filesStaged(int total) {
        files.accumulateAndGet(total, Math::max);
        due();
    }

    @Override
    public void bytesUploaded(long total) {
        bytes.accumulateAndGet(total, Math::max);
        due();
    }

    @Override
    public void partitionsPublished(int total, int of) {
        if (total == of && printed.get()) {
            sink.accept(String.format(Locale.ROOT, "%s: done, %,d rows in %,d files (%s) and %,d of %,d partitions published in %s",
                    what, rows.get(), files.get(), size(bytes.get()), total, of, seconds(clock.getAsLong())));
        } else {
            due();
        }
    }

    private void due() {
        long now = clock.getAsLong();
        long at = next.get();
        if (now - at >= 0 && next.compareAndSet(at, now + everyNanos)) {
            printed.set(true);
            sink.accept(String.format(Locale.ROOT, "%s: %,d rows encoded, %,d files staged, %s uploaded, %s elapsed", what, rows.get(),
                    files.get(), size(bytes.get()), seconds(now)));
        }
    }

    private String seconds(long now) {
        return String.format(Locale.ROOT, "%.1f s", (now - start) / 1e9);
    }

    private static String size(long bytes) {
        return bytes < 1024 * 1024 ? String.format(Locale.ROOT, "%,d bytes", bytes)
                : String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
    }
}
