package io.wrangler;

import java.time.Duration;
import java.util.Objects;

/**
 * A retry policy is how many times wrangler calls a service for one request after transient failures, and how long it
 * waits in between: at most {@link #attempts()} calls, counting the first, sleeping a random time up to {@code base * 2^(n-1)}
 * capped at {@link #cap()} before call {@code n + 1} (exponential backoff with full jitter, as the AWS SDK's own).
 *
 * <pre>{@code
 * RetryPolicy patient = RetryPolicy.of(8, Duration.ofMillis(200), Duration.ofSeconds(20));
 * WriteOptions options = WriteOptions.builder().retryPolicy(patient).build();
 * GlueTable orders = GlueCatalog.of(glue).table("analytics", "orders").retryPolicy(patient);
 * }</pre>
 *
 * <p>One type serves every service wrangler calls: S3 (through {@link WriteOptions#retryPolicy()}) and a catalog such as
 * Glue, each of which adds its own transient failures to the SDK's (5xx, throttling, a broken or timed-out connection);
 * a permanent failure (403, a missing bucket or table, missing credentials) is never retried. The policy becomes the AWS
 * SDK's retry strategy for each of wrangler's requests, in place of the retries the SDK client was built with: the SDK
 * is the only layer that retries, so a request is sent at most {@link #attempts()} times, not that many times the
 * client's own attempts.
 *
 * <p>Immutable and thread-safe; equal when attempts, base and cap are.
 */
public final class RetryPolicy {
    private static final RetryPolicy DEFAULTS = new RetryPolicy(4, Duration.ofMillis(200), Duration.ofSeconds(10));
    private static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);

    private final int attempts;
    private final Duration base;
    private final Duration cap;

    private RetryPolicy(int attempts, Duration base, Duration cap) {
        this.attempts = attempts;
        this.base = base;
        this.cap = cap;
    }

    /**
     * At most {@code attempts} calls per request, backoff from {@code base} doubling up to {@code cap}.
     *
     * @throws IllegalArgumentException for fewer than 1 attempt, a negative duration, or a cap shorter than the base
     */
    public static RetryPolicy of(int attempts, Duration base, Duration cap) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(cap, "cap");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
        }
        if (base.isNegative()) {
            throw new IllegalArgumentException("the retry base must not be negative, got " + base);
        }
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("the retry cap (" + cap + ") is shorter than its base (" + base + "): give a cap at "
                    + "least as long as the base");
        }
        return new RetryPolicy(attempts, base, cap);
    }

    /**
     * S3's default: 4 attempts, 200 ms, 10 s, so that a request rides out about 15 seconds of SlowDown or 503s at most.
     * A catalog may have its own default (Glue's is 8 attempts, 100 ms, 5 s, see {@code GlueTable.retryPolicy}).
     */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** One call per request: a transient failure fails the request at once (the SDK client's own retries still apply). */
    public static RetryPolicy none() {
        return NONE;
    }

    /** Calls at most per request, counting the first (1: no retries of wrangler's own). */
    public int attempts() {
        return attempts;
    }

    /** The longest wait before the first retry; each later one may wait twice as long as the one before, up to {@link #cap()}. */
    public Duration base() {
        return base;
    }

    /** The longest wait between two calls. */
    public Duration cap() {
        return cap;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPolicy r && attempts == r.attempts && base.equals(r.base) && cap.equals(r.cap);
    }

    @Override
    public int hashCode() {
        return Objects.hash(attempts, base, cap);
    }

    @Override
    public String toString() {
        return "RetryPolicy[attempts=" + attempts + ", base=" + base + ", cap=" + cap + "]";
    }
}
