package io.wrangler.glue;

import io.wrangler.RetryPolicy;
import io.wrangler.catalog.SdkRetries;
import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.glue.model.GlueException;

/**
 * Retry is how Glue calls are retried: a {@link RetryPolicy} made the SDK's retry strategy ({@link SdkRetries}), set
 * on every Glue request, with Glue's transient failures added to the SDK's own conditions (ThrottlingException,
 * OperationTimeoutException, InternalServiceException, ConcurrentRunsExceededException, ResourceNotReadyException, HTTP
 * 5xx, a broken or timed-out connection). Anything else fails at once. The SDK is the only layer that retries.
 */
final class Retry {
    /** Glue's default: see {@link GlueTable#retryPolicy}. */
    static final RetryPolicy DEFAULT = RetryPolicy.of(8, Duration.ofMillis(100), Duration.ofSeconds(5));

    private static final Set<String> TRANSIENT = Set.of("ThrottlingException", "OperationTimeoutException", "InternalServiceException",
            "ConcurrentRunsExceededException", "ResourceNotReadyException");
    private static final Predicate<Throwable> GLUE_TRANSIENT = Retry::isTransient;

    private Retry() {
    }

    static boolean isTransient(Throwable e) {
        if (e instanceof GlueException g) {
            String code = g.awsErrorDetails() == null ? null : g.awsErrorDetails().errorCode();
            return (code != null && TRANSIENT.contains(code)) || g.statusCode() >= 500;
        }
        // Broken connections and timeouts, judged as for S3: a client error without an I/O cause is permanent.
        return SdkRetries.connectionFailure(e);
    }

    /** The SDK retry strategy of {@code policy} for Glue. */
    static RetryStrategy strategy(RetryPolicy policy) {
        return SdkRetries.strategy(policy, GLUE_TRANSIENT);
    }
}
