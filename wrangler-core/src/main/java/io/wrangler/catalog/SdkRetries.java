package io.wrangler.catalog;

import io.wrangler.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.retries.api.AcquireInitialTokenRequest;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RecordSuccessRequest;
import software.amazon.awssdk.retries.api.RefreshRetryTokenRequest;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.retries.api.RetryToken;
import software.amazon.awssdk.retries.api.TokenAcquisitionFailedException;

/**
 * SdkRetries is the one owner of retries, S3's requests and a catalog's alike (so it is part of the catalog SPI: a
 * catalog on the AWS SDK retries as the engine does): a {@link RetryPolicy} becomes the SDK's own retry strategy, set on every
 * request wrangler sends (a request plugin, so the caller's client is used as it is and only its retries are replaced),
 * and the SDK then retries each request and decides what is transient. Nothing else in wrangler retries a request.
 *
 * <p>The strategy is the SDK's standard one with the AWS conditions (throttling codes and 429, 500/502/503/504,
 * InternalError and RequestTimeout also in a 200 answer's body, as S3 sends them for CopyObject, UploadPartCopy and
 * CompleteMultipartUpload, clock skew, broken and timed-out connections), plus the service's own transient failures
 * ({@code alsoTransient}: any 5xx for S3, Glue's OperationTimeoutException, ...); at most the policy's attempts,
 * counting the first, each retry after a random wait up to {@code base * 2^(n-1)} capped at {@code cap} (full jitter),
 * whether throttled or not; without the SDK's retry quota (circuit breaker), so that a request gets exactly the
 * attempts its policy grants however many others failed before it.
 *
 * <p>What stays outside the SDK, because a request's retry cannot do it: (1) a request that must be fenced before
 * every attempt ({@link #fenced}: a catalog change, a copy's completion): the SDK has no hook that may stop an attempt
 * from being sent, so these are sent with the SDK's retries off and driven here with the same strategy (same
 * classifier, same backoff); (2) the read-back after an ambiguous compare-and-swap (a conditional write whose answer
 * was lost, and whose retry then fails its condition): the write log, the lease and a completion read the object back
 * to learn whether it was applied; (3) the protocol's own loops, which are not retries of a request: re-reading a
 * manifest or a Glue table after a conflict, a lease's renewals and waits.
 */
public final class SdkRetries {
    private static final Map<Key, RetryStrategy> STRATEGIES = new ConcurrentHashMap<>();
    private static final Map<RetryStrategy, AwsRequestOverrideConfiguration> OVERRIDES = new ConcurrentHashMap<>();
    private static final Map<RetryStrategy, SdkPlugin> PLUGINS = new ConcurrentHashMap<>();
    private static final RetryStrategy NONE = AwsRetryStrategy.doNotRetry();
    private static final AwsRequestOverrideConfiguration ONCE = override(NONE);

    private record Key(int attempts, Duration base, Duration cap, Predicate<Throwable> alsoTransient) {
    }

    private SdkRetries() {
    }

    /**
     * True for a broken connection (a client failure with an I/O cause) or an attempt that timed out: transient for
     * every service, judged the same for S3's requests and a catalog's. A client-side failure without an I/O cause
     * (missing credentials, a bad configuration) is not.
     */
    public static boolean connectionFailure(Throwable e) {
        if (e instanceof ApiCallAttemptTimeoutException) {
            return true;
        }
        if (e instanceof SdkClientException) {
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                if (c instanceof IOException) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The SDK retry strategy of {@code policy}: see the class comment. One instance per policy and classifier. */
    public static RetryStrategy strategy(RetryPolicy policy, Predicate<Throwable> alsoTransient) {
        return strategy(policy.attempts(), policy.base(), policy.cap(), alsoTransient);
    }

    /** The SDK retry strategy of a policy given by its parts ({@link RetryPolicy#of}), unchecked. */
    public static RetryStrategy strategy(int attempts, Duration base, Duration cap, Predicate<Throwable> alsoTransient) {
        return STRATEGIES.computeIfAbsent(new Key(attempts, base, cap, alsoTransient), k -> {
            BackoffStrategy backoff = fullJitter(k.base, k.cap);
            return AwsRetryStrategy.standardRetryStrategy().toBuilder()
                    .retryOnException(k.alsoTransient)
                    .maxAttempts(k.attempts)
                    .backoffStrategy(backoff)
                    .throttlingBackoffStrategy(backoff)
                    .circuitBreakerEnabled(false)
                    .build();
        });
    }

    /**
     * A random wait up to {@code base * 2^(n-1)} capped at {@code cap} before retry n (full jitter), as
     * {@link RetryPolicy} documents it; zero for a zero base. The SDK numbers the attempt that failed (1 for the first).
     */
    private static BackoffStrategy fullJitter(Duration base, Duration cap) {
        return attempt -> {
            long ceiling = Math.min(cap.toMillis(), base.toMillis() << Math.min(20, Math.max(0, attempt - 1)));
            return ceiling <= 0 ? Duration.ZERO : Duration.ofMillis(ThreadLocalRandom.current().nextLong(ceiling + 1));
        };
    }

    /** A request's override configuration that makes the SDK retry it with {@code strategy} (and only with it). */
    public static AwsRequestOverrideConfiguration override(RetryStrategy strategy) {
        return OVERRIDES.computeIfAbsent(strategy, s -> AwsRequestOverrideConfiguration.builder().addPlugin(plugin(s)).build());
    }

    /**
     * The request plugin that sets {@code strategy} as the request's retries, one per strategy. It sets a client override
     * made once, holding the retry strategy alone: the SDK copies only what an override holds into the request's
     * configuration (the strategy, and no retry mode, configurator or legacy policy), so the caller's other settings
     * (interceptors, headers, timeouts) stay as they are. The SDK runs the plugin on a copy of the client's configuration
     * for every request; setting the override through {@code overrideConfiguration(Consumer)} instead made it build an
     * override of every client option and copy them all back, about half of what the plugin cost a request.
     */
    private static SdkPlugin plugin(RetryStrategy strategy) {
        return PLUGINS.computeIfAbsent(strategy, s -> {
            ClientOverrideConfiguration retries = ClientOverrideConfiguration.builder().retryStrategy(s).build();
            return client -> client.overrideConfiguration(retries);
        });
    }

    /** {@code existing} (a request's override configuration, or null) with {@code strategy} as its retries. */
    public static AwsRequestOverrideConfiguration override(AwsRequestOverrideConfiguration existing, RetryStrategy strategy) {
        if (existing == null) {
            return override(strategy);
        }
        return existing.toBuilder().addPlugin(plugin(strategy)).build();
    }

    /** The override configuration of a request sent once, without the SDK's retries: see {@link #fenced}. */
    public static AwsRequestOverrideConfiguration once() {
        return ONCE;
    }

    /**
     * Sends a request that is fenced before every attempt: {@code beforeEach}, then {@code call} (which must send its
     * request with {@link #once()}), again after a failure that {@code strategy} retries, after the strategy's backoff,
     * with {@code beforeEach} run again first. A lease fence's check can outlast nothing: a writer that lost its lease
     * while an attempt failed or waited out its backoff sends no further attempt.
     *
     * <p>What {@code beforeEach} throws is passed on as it is, never retried here: a fence's own S3 requests were
     * retried by the SDK already, and a fence that fails after them has not proved the lease (one rule for every fenced
     * request, S3's completion and a catalog's change alike).
     */
    public static <T> T fenced(RetryStrategy strategy, Runnable beforeEach, Supplier<T> call) {
        RetryToken token = strategy.acquireInitialToken(AcquireInitialTokenRequest.create("wrangler")).token();
        while (true) {
            beforeEach.run();
            T out;
            try {
                out = call.get();
            } catch (SdkException e) {
                Duration delay;
                try {
                    var refreshed = strategy.refreshRetryToken(RefreshRetryTokenRequest.builder().token(token).failure(e).build());
                    token = refreshed.token();
                    delay = refreshed.delay();
                } catch (TokenAcquisitionFailedException notRetried) {
                    throw e;
                }
                sleep(delay, e);
                continue;
            }
            strategy.recordSuccess(RecordSuccessRequest.create(token));
            return out;
        }
    }

    private static void sleep(Duration delay, RuntimeException failure) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            failure.addSuppressed(ie);
            throw failure;
        }
    }
}
