package io.wrangler.spark;

import io.wrangler.WriteResult;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the fluent builder hands the data source on the driver besides string options: the catalog table and S3 settings
 * as objects, and where the result goes back. Keyed by a random id in the option {@link #OPTION}; lives for one write.
 */
final class Handles {
    static final String OPTION = "wrangler.handle";
    private static final Map<String, Handle> OPEN = new ConcurrentHashMap<>();

    private Handles() {
    }

    static final class Handle {
        final CatalogTable catalog;
        final S3Settings s3;
        final StepHook hook;
        final Duration leaseClockOffset;
        volatile WriteResult result;

        Handle(CatalogTable catalog, S3Settings s3, StepHook hook, Duration leaseClockOffset) {
            this.catalog = catalog;
            this.s3 = s3;
            this.hook = hook;
            this.leaseClockOffset = leaseClockOffset;
        }
    }

    static String open(Handle h) {
        String id = UUID.randomUUID().toString();
        OPEN.put(id, h);
        return id;
    }

    static Handle get(String id) {
        return id == null ? null : OPEN.get(id);
    }

    static void close(String id) {
        OPEN.remove(id);
    }
}
