package io.wrangler;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * A client of the test lake that tells when one of its attempts to take a table's lease is refused: proof that a writer
 * has started and is waiting for another holder, which a sleep and an {@code isNotDone} cannot tell from a writer that
 * never started.
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
}
