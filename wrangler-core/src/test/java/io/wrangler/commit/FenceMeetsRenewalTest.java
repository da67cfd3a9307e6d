package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.WriteStep;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A fence that comes while a renewal of the lease is in flight lets that renewal answer, then swaps on the ETag it
 * learned: it does not race it. Both would swap on the same ETag; when the renewal lands first the other is refused
 * (412) and reads the lease and swaps again, two round trips more on a write's critical path when the refused one is
 * the fence (BENCHMARKS.md, "Round trips per write against latency").
 */
class FenceMeetsRenewalTest {
    @Test
    void aFenceLetsARenewalInFlightAnswerAndRacesNothing() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket("fence-renewal");
            S3Store store = new S3Store(s3.client(), "fence-renewal", RequestOptions.defaults());
            S3Location location = S3Location.parse("s3://fence-renewal/t/", WriteStep.VALIDATE);
            Duration ttl = Duration.ofMinutes(10); // no scheduled renewal during the test: only the one sent below
            TableLease lease = TableLease.acquire(store, location, "writer", ttl, Duration.ZERO, Duration.ZERO);
            try {
                MemoryS3.Hold renewal = s3.holdOnceWhereKeyContains("PutObject", "_lease.json");
                lease.sendRenewal();
                assertThat(renewal.awaitHeld(Duration.ofMinutes(1))).as("a renewal is in flight").isTrue();
                int before = s3.requests().size();
                Thread fence = new Thread(lease::check, "fence");
                fence.start();
                // Either the fence's own swap reaches S3 beside the held renewal (a race), or the fence waits for it.
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
                while (!waitsForRenewal(fence) && leasePuts(s3.requests().subList(before, s3.requests().size())) == 0) {
                    assertThat(System.nanoTime()).as("the fence neither sent its swap nor waited within a minute").isLessThan(deadline);
                    Thread.sleep(5); // polling a condition, not waiting for time to pass
                }
                renewal.release();
                fence.join(TimeUnit.MINUTES.toMillis(1));
                assertThat(fence.isAlive()).as("the fence ended").isFalse();
                assertThat(lease.lost()).isFalse();
                CompletableFuture.runAsync(lease::check).get(1, TimeUnit.MINUTES); // the lease is still this holder's
                assertThat(lease.lost()).isFalse();
            } finally {
                lease.close(); // lets the renewal finish first
            }
            assertThat(s3.requests().stream().filter(r -> r.key() != null && r.key().endsWith("_lease.json")
                    && r.operation().equals("GetObject")).toList())
                    .as("no request of the lease was refused and read back: the fence did not race the renewal").isEmpty();
            assertThat(s3.list("fence-renewal", "t/")).as("released").isEmpty();
        }
    }

    private static boolean waitsForRenewal(Thread fence) {
        return fence.getState() == Thread.State.TIMED_WAITING
                && Arrays.stream(fence.getStackTrace()).anyMatch(e -> e.getMethodName().equals("awaitRenewals"));
    }

    private static long leasePuts(List<MemoryS3.Request> requests) {
        return requests.stream().filter(r -> r.operation().equals("PutObject") && r.key() != null && r.key().endsWith("_lease.json")).count();
    }
}
