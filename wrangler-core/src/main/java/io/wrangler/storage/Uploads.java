package io.wrangler.storage;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Uploads is the bounded machinery shared by the output streams of one write: the pool that sends parts
 * and the permits that cap how many part buffers may wait in memory.
 *
 * <p>Memory held by pending uploads is at most {@code maxPendingParts * partSize} bytes (a larger part, late in a very
 * large file, waits alone when it needs all of it); a writer that would exceed it blocks until a part has been sent.
 * {@code partSize} is the size of a file's first parts ({@link PartSizes}). The budget is counted in chunks of
 * {@link PartBuffer#CHUNK} bytes, not in parts: a small file (one PutObject of a few hundred KB) takes the chunks it
 * holds, not a whole part's share, so that many small uploads can be in flight at once (as many as the pool has
 * threads) within the same memory.
 */
public final class Uploads {
    private final ExecutorService pool;
    private final Semaphore permits;
    private final int partSize;
    private final int maxPendingParts;
    /** Free chunks of PartBuffer.CHUNK bytes, kept for reuse up to MAX_FREE (16 MiB). */
    private final ConcurrentLinkedQueue<byte[]> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freeCount = new AtomicInteger();
    private static final int MAX_FREE = 64;

    public Uploads(ExecutorService pool, int maxPendingParts, int partSize) {
        if (partSize < 5 * 1024 * 1024) {
            throw new IllegalArgumentException("partSize must be at least 5 MiB (S3's minimum part), got " + partSize);
        }
        this.pool = pool;
        this.permits = new Semaphore(maxPendingParts * chunksOf(partSize));
        this.partSize = partSize;
        this.maxPendingParts = maxPendingParts;
    }

    int maxPendingParts() {
        return maxPendingParts;
    }

    /** The permits a buffer of {@code bytes} takes: one per chunk it holds, at most the whole budget. */
    int permitsFor(long bytes) {
        long n = Math.max(1, (bytes + PartBuffer.CHUNK - 1) / PartBuffer.CHUNK);
        return (int) Math.min(n, (long) maxPendingParts * chunksOf(partSize));
    }

    private static int chunksOf(int bytes) {
        return (bytes + PartBuffer.CHUNK - 1) / PartBuffer.CHUNK;
    }

    ExecutorService pool() {
        return pool;
    }

    Semaphore permits() {
        return permits;
    }

    int partSize() {
        return partSize;
    }

    byte[] takeChunk() {
        byte[] c = free.poll();
        if (c == null) {
            return new byte[PartBuffer.CHUNK];
        }
        freeCount.decrementAndGet();
        return c;
    }

    void giveChunk(byte[] chunk) {
        if (freeCount.incrementAndGet() <= MAX_FREE) {
            free.offer(chunk);
        } else {
            freeCount.decrementAndGet();
        }
    }
}
