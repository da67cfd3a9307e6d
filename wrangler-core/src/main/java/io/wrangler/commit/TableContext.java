package io.wrangler.commit;

import io.wrangler.spi.StepHook;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.util.concurrent.ExecutorService;

/**
 * A TableContext is what every step of one actor's work on a table shares: the table's location, the store its requests
 * go through, the pool they run on, the tuning, the hook that tests stop steps at, and the fence, the check that this
 * actor still holds the table's lease ({@link TableLease#check}, or nothing for a write without a lease). One is built
 * once the lease is held and handed to {@link Recovery} and {@link Publisher}, instead of the same five arguments each.
 *
 * <p>Immutable; the pool and the lease it fences with are owned by whoever built it.
 */
record TableContext(S3Location location, S3Store store, ExecutorService pool, WriteSpec.Tuning tuning, StepHook hook,
                    Runnable fence) {
    /** The table root, {@code s3://bucket/prefix/}. */
    String table() {
        return location.uri();
    }

    /** This context with its requests sent through {@code other} (a recovery's copies carry the interrupted write's options). */
    TableContext withStore(S3Store other) {
        return new TableContext(location, other, pool, tuning, hook, fence);
    }

    /** This context with another hook. */
    TableContext withHook(StepHook other) {
        return new TableContext(location, store, pool, tuning, other, fence);
    }
}
