package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.WriteStep;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Attacks on "A fence lets a renewal in flight answer instead of racing it" (package-info) through its failure paths: a
 * fence that fails must not keep later renewals from going out (the lease would age out under a live writer), and a
 * renewal that fails, or was not sent because a fence was in flight, must not leave later fences waiting for it. The
 * time to live is 10 minutes, so no renewal is scheduled during a test and one attempt's timeout (the most a fence
 * waits for a renewal) is a minute: a fence left waiting for nothing is seen as a fence that does not end in 20 s.
 */
class FenceRenewalFailuresTest {
    private static final Duration TTL = Duration.ofMinutes(10);

    private static long leaseRenewals(MemoryS3 s3) {
        return s3.requests().stream().filter(r -> r.operation().equals("PutObject") && r.key() != null
                && r.key().endsWith("_lease.json") && ((PutObjectRequest) r.request()).ifMatch() != null).count();
    }

    private static void await(LongSupplier count, long atLeast, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (count.getAsLong() < atLeast) {
            assertThat(System.nanoTime()).as("not within 60 s: " + what).isLessThan(deadline);
            Thread.sleep(5); // polling a condition, not waiting for time to pass
        }
    }

    /** A fence on a thread of its own, which must end well within one attempt's timeout (a minute). */
    private static void fenceEndsPromptly(TableLease lease, String what) throws Exception {
        CompletableFuture<Void> fence = CompletableFuture.runAsync(lease::check);
        try {
            fence.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the fence did not end within 20 s (it waits for a renewal that is not in flight): " + what, e);
        }
    }

    private static TableLease lease(MemoryS3 s3, String bucket) {
        s3.createBucket(bucket);
        S3Store store = new S3Store(s3.client(), bucket, RequestOptions.defaults());
        return TableLease.acquire(store, S3Location.parse("s3://" + bucket + "/t/", WriteStep.VALIDATE), "writer", TTL,
                Duration.ZERO, Duration.ZERO);
    }

    @Test
    void aFenceThatFailedDoesNotStopTheNextRenewal() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            TableLease lease = lease(s3, "fence-failed");
            try {
                s3.failNext("PutObject", 1, S3Fault.ACCESS_DENIED);
                assertThatThrownBy(lease::check).isInstanceOf(S3Exception.class)
                        .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(403));
                assertThat(lease.lost()).as("a refused fence is not a takeover").isFalse();
                long before = leaseRenewals(s3);
                lease.sendRenewal();
                await(() -> leaseRenewals(s3), before + 1, "the renewal after a failed fence went out");
                fenceEndsPromptly(lease, "after a failed fence and a renewal");
                assertThat(lease.lost()).isFalse();
            } finally {
                lease.close();
            }
            assertThat(s3.list("fence-failed", "t/")).as("released").isEmpty();
        }
    }

    @Test
    void aRenewalThatFailedLeavesNoFenceWaitingForIt() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            TableLease lease = lease(s3, "renewal-failed");
            try {
                long before = leaseRenewals(s3);
                s3.failNext("PutObject", 1, S3Fault.ACCESS_DENIED);
                lease.sendRenewal();
                await(() -> leaseRenewals(s3), before + 1, "the failing renewal was sent");
                fenceEndsPromptly(lease, "after a renewal that failed with 403");
                assertThat(lease.lost()).isFalse();
                assertThat(leaseRenewals(s3)).as("the refused renewal and the fence's own swap").isEqualTo(before + 2);
            } finally {
                lease.close();
            }
            assertThat(s3.list("renewal-failed", "t/")).as("released").isEmpty();
        }
    }

    @Test
    void aRenewalDueWhileAFenceIsInFlightLeavesNoLaterFenceWaiting() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            TableLease lease = lease(s3, "fence-in-flight");
            MemoryS3.Hold held = s3.holdOnceWhereKeyContains("PutObject", "_lease.json");
            try {
                CompletableFuture<Void> first = CompletableFuture.runAsync(lease::check);
                assertThat(held.awaitHeld(Duration.ofSeconds(60))).as("the fence's swap is in flight").isTrue();
                for (int i = 0; i < 3; i++) {
                    lease.sendRenewal(); // not sent while the fence is in flight, or sent beside it: neither may block a fence
                }
                held.release();
                first.get(60, TimeUnit.SECONDS);
                fenceEndsPromptly(lease, "after renewals due while a fence was in flight");
                assertThat(lease.lost()).isFalse();
            } finally {
                held.release();
                lease.close();
            }
            assertThat(s3.list("fence-in-flight", "t/")).as("released").isEmpty();
        }
    }

    @Test
    void aFenceInterruptedWhileARenewalIsInFlightGoesOutAtOnceAndKeepsTheInterrupt() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            TableLease lease = lease(s3, "fence-interrupted");
            MemoryS3.Hold renewal = s3.holdOnceWhereKeyContains("PutObject", "_lease.json");
            try {
                lease.sendRenewal();
                assertThat(renewal.awaitHeld(Duration.ofSeconds(60))).as("a renewal is in flight").isTrue();
                CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
                Thread fence = new Thread(() -> {
                    try {
                        lease.check();
                        interrupted.complete(Thread.currentThread().isInterrupted());
                    } catch (Throwable t) {
                        interrupted.completeExceptionally(t);
                    }
                }, "fence");
                fence.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!(fence.getState() == Thread.State.TIMED_WAITING && java.util.Arrays.stream(fence.getStackTrace())
                        .anyMatch(e -> e.getMethodName().equals("awaitRenewals")))) {
                    assertThat(System.nanoTime()).as("the fence did not wait for the renewal in flight within 60 s").isLessThan(deadline);
                    Thread.sleep(5); // polling a condition, not waiting for time to pass
                }
                fence.interrupt();
                boolean kept;
                try {
                    kept = interrupted.get(20, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("the interrupted fence did not end within 20 s: it kept waiting for the renewal", e);
                }
                assertThat(kept).as("the fence went out at once and kept its thread's interrupt").isTrue();
                assertThat(lease.lost()).isFalse();
                renewal.release();
                fenceEndsPromptly(lease, "after an interrupted fence");
                assertThat(lease.lost()).as("the renewal answered after the fence's swap was refused, not a takeover").isFalse();
            } finally {
                renewal.release();
                lease.close();
            }
            assertThat(s3.list("fence-interrupted", "t/")).as("released").isEmpty();
        }
    }
}
