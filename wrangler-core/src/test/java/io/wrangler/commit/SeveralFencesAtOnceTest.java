package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.CommitConflictException;
import io.wrangler.WriteStep;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.NetworkProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Several fences at once (round 9, h-hold9). A fence is the holder's compare-and-swap renewal of the table's lease, sent
 * right before every destructive step; a write sends several at once when it completes copies in parts on several
 * threads (each fenced before its completion). They all swap on the ETag the holder last learned: one wins, each other
 * is refused, reads the lease back (still this holder's) and swaps again, and after {@link TableLease#RENEWALS_PER_TTL}
 * refused rounds it used to fail with the raw 412 on a lease nobody took over. And two contenders taking over the same
 * stale holder while it fences: exactly one of the three swaps wins, the holder learns it lost (never a raw refusal).
 */
class SeveralFencesAtOnceTest {
    private static final Duration TTL = Duration.ofMinutes(10); // no background renewal during a test

    /**
     * Twelve fences of one holder at once against S3 over a network (30 ms to every answer's first byte, so that the
     * fences' requests meet at S3 as they do on AWS): every one passes and the lease is still the holder's. Before the
     * fences took turns, 6 or 7 of the 12 failed with "412 PreconditionFailed" (five refused rounds each).
     */
    @Test
    void twelveFencesOfOneHolderAtOnceAllPassOnALeaseNobodyTookOver() throws Exception {
        NetworkProfile net = NetworkProfile.builder().firstByte(Duration.ofMillis(30)).build();
        try (LocalS3 s3 = LocalS3.start(net)) {
            s3.createBucket("fences");
            S3Store store = new S3Store(s3.client(), "fences", RequestOptions.defaults());
            TableLease lease = TableLease.acquire(store, S3Location.parse("s3://fences/t/", WriteStep.VALIDATE), "writer", TTL,
                    Duration.ZERO, Duration.ZERO);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<CompletableFuture<Void>> fences = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    fences.add(CompletableFuture.runAsync(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        lease.check();
                    }, r -> new Thread(r, "fence").start()));
                }
                go.countDown();
                List<Throwable> failed = new ArrayList<>();
                for (CompletableFuture<Void> f : fences) {
                    try {
                        f.get(1, TimeUnit.MINUTES);
                    } catch (ExecutionException e) {
                        failed.add(e.getCause());
                    }
                }
                assertThat(failed).as("fences that failed on a lease nobody took over").isEmpty();
                assertThat(lease.lost()).isFalse();
                lease.check(); // and the next fence, alone, passes too
            } finally {
                lease.close();
            }
            assertThat(s3.client().listObjectsV2(b -> b.bucket("fences")).contents()).as("released").isEmpty();
        }
    }

    /**
     * A stale holder (its lease expired) fences while two contenders take the lease over, the three swaps on the same
     * ETag sent at once: exactly one wins. When a contender wins, the holder's fence throws {@link TableLease.Lost} and
     * the other contender is refused with a conflict after its wait; when the holder's fence wins, both contenders are.
     */
    @Test
    void twoTakeoversAndTheStaleHoldersFenceAtOnceLeaveExactlyOneHolder() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket("takeovers");
            S3Store store = new S3Store(s3.client(), "takeovers", RequestOptions.defaults());
            S3Location location = S3Location.parse("s3://takeovers/t/", WriteStep.VALIDATE);
            TableLease a = TableLease.acquire(store, location, "writer A", TTL, Duration.ZERO, Duration.ZERO);
            List<TableLease> taken = new ArrayList<>();
            try {
                s3.advanceClock(TTL.plusMinutes(1)); // A stalled past its time to live
                MemoryS3.Hold reads = s3.holdAnswerWhereKeyContains("GetObject", "_lease.json");
                List<CompletableFuture<TableLease>> contenders = new ArrayList<>();
                for (String owner : List.of("writer B", "writer C")) {
                    contenders.add(CompletableFuture.supplyAsync(
                            () -> TableLease.acquire(store, location, owner, TTL, Duration.ofSeconds(2), Duration.ZERO)));
                }
                awaitHeld(reads, 2, "both contenders read the expired lease");
                MemoryS3.Hold swaps = s3.holdWhereKeyContains("PutObject", "_lease.json");
                CompletableFuture<Void> fence = CompletableFuture.runAsync(a::check);
                awaitHeld(swaps, 1, "the holder's fence is sent");
                reads.release();
                awaitHeld(swaps, 3, "the contenders' takeovers are sent");
                swaps.release();

                Throwable fenceFailed = failure(fence);
                List<Throwable> refused = new ArrayList<>();
                for (CompletableFuture<TableLease> c : contenders) {
                    try {
                        taken.add(c.get(1, TimeUnit.MINUTES));
                    } catch (ExecutionException e) {
                        refused.add(e.getCause());
                    }
                }
                assertThat(taken.size() + (fenceFailed == null ? 1 : 0)).as("holders after the race").isEqualTo(1);
                assertThat(refused).hasSize(2 - taken.size()).allMatch(t -> t instanceof CommitConflictException);
                if (fenceFailed != null) {
                    assertThat(fenceFailed).isInstanceOf(TableLease.Lost.class);
                    assertThat(a.lost()).isTrue();
                    taken.get(0).check(); // the winner holds it
                } else {
                    a.check();
                    assertThat(a.lost()).isFalse();
                }
            } finally {
                a.close();
                taken.forEach(TableLease::close);
            }
            assertThat(s3.list("takeovers", "t/")).as("released").isEmpty();
        }
    }

    private static void awaitHeld(MemoryS3.Hold hold, int n, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (hold.held() < n) {
            assertThat(System.nanoTime()).as("not within a minute: " + what).isLessThan(deadline);
            Thread.sleep(5); // polling a condition, not waiting for time to pass
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
