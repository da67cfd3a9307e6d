package io.wrangler.glue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.glue.model.GlueException;

/**
 * Retry runs a Glue call again after transient failures (ThrottlingException, OperationTimeoutException,
 * InternalServiceException, HTTP 5xx, a connection that broke) with capped exponential backoff and full jitter.
 * Anything else fails at once. It comes on top of the client's own retry policy.
 */
record Retry(int attempts, Duration base, Duration cap) {
    private static final Set<String> TRANSIENT = Set.of("ThrottlingException", "OperationTimeoutException", "InternalServiceException",
            "ConcurrentRunsExceededException", "ResourceNotReadyException");

    static Retry defaults() {
        return new Retry(8, Duration.ofMillis(100), Duration.ofSeconds(5));
    }

    static boolean isTransient(RuntimeException e) {
        if (e instanceof GlueException g) {
            String code = g.awsErrorDetails() == null ? null : g.awsErrorDetails().errorCode();
            return (code != null && TRANSIENT.contains(code)) || g.statusCode() >= 500;
        }
        return e instanceof SdkClientException;
    }

    <T> T run(Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                if (attempt >= attempts || !isTransient(e)) {
                    throw e;
                }
                long ceiling = Math.min(cap.toMillis(), base.toMillis() << Math.min(20, attempt - 1));
                sleep(ThreadLocalRandom.current().nextLong(ceiling + 1));
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to retry a Glue call", e);
        }
    }
}
