package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.CommitConflictException;
import io.wrangler.WriteStep;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of the lease (issue 31 item 2, issue 32): a takeover is a compare-and-swap on the ETag of the expired
 * lease it read. When every renewal of one holder writes the same bytes, a renewal applied between the contender's read
 * and its swap leaves that ETag unchanged, and the contender takes over a lease renewed an instant before: the holder's
 * fence passed, the contender recovers the table under it. A renewal must change the lease's ETag.
 */
class LeaseTakeoverRaceTest {
    @Test
    void aFenceBetweenAContendersReadAndItsSwapKeepsTheLease() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket("lease-race");
            S3Store store = new S3Store(s3.client(), "lease-race", RequestOptions.defaults());
            S3Location location = S3Location.parse("s3://lease-race/t/", WriteStep.VALIDATE);
            Duration ttl = Duration.ofMinutes(10); // no background renewal during the test: only the fence renews
            TableLease a = TableLease.acquire(store, location, "writer A", ttl, Duration.ZERO, Duration.ZERO);
            try {
                s3.advanceClock(ttl.plusMinutes(1)); // A stalled past its time to live: its lease is expired
                MemoryS3.Hold read = s3.holdAnswerWhereKeyContains("GetObject", "_lease.json");
                CompletableFuture<TableLease> b = CompletableFuture.supplyAsync(
                        () -> TableLease.acquire(store, location, "writer B", ttl, Duration.ofSeconds(2), Duration.ZERO));
                assertThat(read.awaitHeld(Duration.ofMinutes(1))).as("B reads the expired lease").isTrue();
                a.check(); // A wakes up and fences: the lease is A's again, renewed now
                read.release(); // B's read, taken before A's renewal, says expired
                Throwable thrown = null;
                TableLease taken = null;
                try {
                    taken = b.get(2, TimeUnit.MINUTES);
                } catch (java.util.concurrent.ExecutionException e) {
                    thrown = e.getCause();
                }
                if (taken != null) {
                    taken.abandon();
                }
                assertThat(taken).as("B took over a lease A renewed after B read it").isNull();
                assertThat(thrown).isInstanceOf(CommitConflictException.class);
                a.check(); // and A still holds it
                assertThat(a.lost()).isFalse();
            } finally {
                a.close();
            }
        }
    }
}
