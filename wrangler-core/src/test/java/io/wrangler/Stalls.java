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

    /**
     * The future's result within {@code seconds}; if it has not finished by then, the test fails with every thread's stack
     * and the table's lease object, so that a hang in CI says where it was.
     */
    static <T> T within(CompletableFuture<T> f, int seconds, String bucket) throws Exception {
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            StringBuilder dump = new StringBuilder("not finished after " + seconds + " s; lease objects: ");
            TestLake.keys(bucket, "").stream().filter(k -> k.endsWith("_lease.json"))
                    .forEach(k -> dump.append(k).append(' ').append(new String(TestLake.snapshot(bucket, k).get(k),
                            java.nio.charset.StandardCharsets.UTF_8)).append("; "));
            dump.append("\nthreads:\n");
            Thread.getAllStackTraces().forEach((t, stack) -> {
                dump.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
                for (StackTraceElement el : stack) {
                    dump.append("    at ").append(el).append('\n');
                }
            });
            throw new AssertionError(dump.toString(), e);
        }
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
