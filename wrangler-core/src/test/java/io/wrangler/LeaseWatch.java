package io.wrangler;

import io.wrangler.testkit.MemoryS3;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Proof that a writer has started and is waiting for another holder of a table's lease, which a sleep and an
 * {@code isNotDone} cannot tell from a writer that never started: a client of the LocalS3 that tells when one of its
 * attempts to take the lease is refused, or, on a MemoryS3, the lease creates in its request log.
 */
final class LeaseWatch {
    private LeaseWatch() {
    }

    static S3Client refusals(Runnable onRefused) {
        return TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutObjectRequest p && p.key().endsWith("_tmp/_lease.json")) {
                    onRefused.run();
                }
            }
        })));
    }

    /** Creates of the lease of {@code s3://bucket/t/} (If-None-Match) in {@code s3}'s request log, the holder's probes included. */
    static long creates(MemoryS3 s3, String bucket) {
        return s3.requests().stream().filter(r -> r.operation().equals("PutObject") && bucket.equals(r.bucket())
                && "t/_tmp/_lease.json".equals(r.key()) && r.request() instanceof PutObjectRequest p && p.ifNoneMatch() != null).count();
    }

    /** Waits until {@link #creates} is over {@code seen}: another writer asked for the lease. Fails with {@code what} after 60 s. */
    static void awaitCreateAfter(MemoryS3 s3, String bucket, long seen, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (creates(s3, bucket) <= seen) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": no conditional create of the lease of s3://" + bucket + "/t/ came within 60 s");
            }
            Thread.sleep(5);
        }
    }
}
