package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.WriteStep;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A fence that takes another fence's swap as its proof ({@link TableLease#check}, round 9) must keep the rule its own
 * swap keeps: the proof is at most half the time to live old when the fence passes. A fence A waiting for its turn
 * behind a fence B (whose swap, sent after A began, succeeded) and a fence C (which began after B's swap, so sends its
 * own, and fails after a long time: S3 unreachable) gets its turn long after B's swap; meanwhile the lease expired and
 * another writer took it over. A must not pass on B's old swap.
 */
class BorrowedFenceProofTest {
    /**
     * Short, so that a proof goes stale (half of it) in real time; long enough (3 s) that B's second swap, answered once C
     * waits for its turn, counts (answered within half of it) on a loaded machine. Background renewals are stopped (abandon).
     */
    private static final Duration TTL = Duration.ofSeconds(6);
    private static final String BUCKET = "borrowed";

    @Test
    void aFenceWhoseTurnComesLongAfterTheSwapItWouldBorrowSendsItsOwnAndLearnsTheTakeover() throws Exception {
        // which of A and C has its turn first after B is the JVM's choice: trials until C had it (most often the first)
        int staleTurns = 0;
        for (int trial = 0; trial < 40 && staleTurns == 0; trial++) {
            if (trial(trial)) {
                staleTurns++;
            }
        }
        assertThat(staleTurns).as("trials where the waiting fence's turn came after the failing fence's").isPositive();
    }

    /**
     * One trial; true when the waiting fence A got its turn after C's failure (the case under test: A learned the
     * takeover), false when it got its turn right after B's swap (it took that fresh swap as its proof: fine).
     */
    private static boolean trial(int n) throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket(BUCKET);
            S3Store store = new S3Store(s3.client(), BUCKET, RequestOptions.defaults());
            S3Location location = S3Location.parse("s3://" + BUCKET + "/t" + n + "/", WriteStep.VALIDATE);
            String key = location.tmpPrefix() + TableLease.NAME;
            TableLease lease = TableLease.acquire(store, location, "writer", TTL, Duration.ZERO, Duration.ZERO);
            lease.abandon(); // no background renewal: the fences alone swap
            TableLease other = null;
            try {
                // the lease changed under this holder (its own renewal applied, the answer lost): B's first swap is refused
                String body = new String(s3.get(BUCKET, key), StandardCharsets.UTF_8).replaceAll("\"renewal\":[0-9]+", "\"renewal\":-1");
                s3.put(BUCKET, key, body.getBytes(StandardCharsets.UTF_8));
                MemoryS3.Hold readBack = s3.holdOnceWhereKeyContains("GetObject", "_lease.json");
                CompletableFuture<Void> b = fence(lease, "B");
                await(() -> readBack.held() == 1 || b.isDone(), "B's swap refused, its read-back sent");
                assertThat(b).as("B waits for its read-back").isNotDone();
                AtomicReference<Thread> aThread = new AtomicReference<>();
                CompletableFuture<Void> a = fence(lease, "A", aThread);
                await(() -> aThread.get() != null && aThread.get().getState() == Thread.State.BLOCKED, "A waits for its turn");
                MemoryS3.Hold bAnswer = s3.holdAnswerWhereKeyContains("PutObject", "_lease.json");
                readBack.release();
                await(() -> bAnswer.held() == 1, "B's second swap (sent after A began) applied");
                AtomicReference<Thread> cThread = new AtomicReference<>();
                CompletableFuture<Void> c = fence(lease, "C", cThread);
                await(() -> cThread.get() != null && cThread.get().getState() == Thread.State.BLOCKED, "C waits for its turn");
                s3.failNext("PutObject", 1, S3Fault.ACCESS_DENIED);
                MemoryS3.Hold cSwap = s3.holdOnceWhereKeyContains("PutObject", "_lease.json");
                long bAnswered = System.nanoTime();
                bAnswer.release();
                b.get(1, TimeUnit.MINUTES);
                await(() -> a.isDone() || cSwap.held() == 1, "A or C has its turn");
                if (a.isDone()) {
                    a.get(); // A took B's swap, answered an instant ago, as its proof
                    cSwap.release();
                    assertThat(failure(c)).isNotNull();
                    return false;
                }
                // C sends its swap, which S3 does not answer for longer than the time to live, and fails; meanwhile the
                // lease expired and another writer took it over
                s3.advanceClock(TTL.plusSeconds(5));
                other = TableLease.acquire(store, location, "writer D", TTL, Duration.ZERO, Duration.ZERO);
                other.abandon();
                while (System.nanoTime() - bAnswered < TTL.toNanos()) {
                    Thread.sleep(10); // the proof B's swap gave goes stale: a real time to live passes
                }
                cSwap.release();
                assertThat(failure(c)).as("C's swap failed").isNotNull();
                Throwable aFailed = failure(a);
                assertThat(aFailed).as("A, whose turn came a time to live after B's swap, on a lease taken over").isInstanceOf(TableLease.Lost.class);
                return true;
            } finally {
                lease.close();
                if (other != null) {
                    other.close();
                }
            }
        }
    }

    private static CompletableFuture<Void> fence(TableLease lease, String name) {
        return fence(lease, name, new AtomicReference<>());
    }

    private static CompletableFuture<Void> fence(TableLease lease, String name, AtomicReference<Thread> thread) {
        return CompletableFuture.runAsync(() -> {
            thread.set(Thread.currentThread());
            lease.check();
        }, r -> new Thread(r, "fence " + name).start());
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("not within a minute: " + what).isLessThan(deadline);
            Thread.sleep(1); // polling a condition, not waiting for time to pass
        }
    }

    private static Throwable failure(CompletableFuture<Void> f) throws Exception {
        try {
            f.get(1, TimeUnit.MINUTES);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
