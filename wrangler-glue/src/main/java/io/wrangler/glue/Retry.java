package io.wrangler.glue;

import io.wrangler.RetryPolicy;
import io.wrangler.storage.RequestOptions;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import software.amazon.awssdk.services.glue.model.GlueException;

/**
 * Retry runs a Glue call again after transient failures (ThrottlingException, OperationTimeoutException,
 * InternalServiceException, HTTP 5xx, a broken or timed-out connection) as a {@link RetryPolicy} says: capped
 * exponential backoff with full jitter, the same loop as S3's. Anything else fails at once. It comes on top of the
 * client's own retry policy.
 */
final class Retry {
    /** Glue's default: see {@link GlueTable#retryPolicy}. */
    static final RetryPolicy DEFAULT = RetryPolicy.of(8, Duration.ofMillis(100), Duration.ofSeconds(5));

    private static final Set<String> TRANSIENT = Set.of("ThrottlingException", "OperationTimeoutException", "InternalServiceException",
            "ConcurrentRunsExceededException", "ResourceNotReadyException");

    private Retry() {
    }

    static boolean isTransient(RuntimeException e) {
        if (e instanceof GlueException g) {
            String code = g.awsErrorDetails() == null ? null : g.awsErrorDetails().errorCode();
            return (code != null && TRANSIENT.contains(code)) || g.statusCode() >= 500;
        }
        // Broken connections and timeouts, judged as for S3: a client error without an I/O cause is permanent.
        return RequestOptions.isTransient(e);
    }

    static <T> T run(RetryPolicy policy, Supplier<T> call) {
        return RequestOptions.retry(policy, Retry::isTransient, call);
    }
}
