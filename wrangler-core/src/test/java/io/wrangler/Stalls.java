package io.wrangler;

import io.wrangler.commit.Step;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Stalled writers for the protocol tests: a write held at a step boundary while other actors take the table over. */
final class Stalls {
    private Stalls() {
    }

    /**
     * Starts a write that stops at {@code at} (the {@code n}-th time it is reached) until {@code release} opens;
     * {@code reached} opens when it got there.
     */
    static CompletableFuture<WriteResult> stalledAt(WriteBuilder w, String uri, Step at, int n, CountDownLatch reached,
                                                    CountDownLatch release) {
        return CompletableFuture.supplyAsync(() -> w.stepHook((step, count) -> {
            if (step == at && count == n) {
                reached.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }).to(uri));
    }

    /** The stalled write's failure once it ends, or null if it succeeded. */
    static Throwable failureOf(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(90, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("the stalled writer did not finish", e);
        }
    }
}
