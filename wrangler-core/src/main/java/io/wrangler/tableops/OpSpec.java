package io.wrangler.tableops;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.commit.CatalogOnly;
import io.wrangler.commit.WriteSpec;
import io.wrangler.spi.StepHook;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.time.Duration;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What register, repair and drop table share: the table, the clients, the catalog (null when none was given), the lease's
 * wait, the engine's tunings and the test hook.
 */
public record OpSpec(S3Location location, S3Client s3, RequestOptions requests, CatalogTable catalog, WriteSpec.Tuning tuning,
                     Duration leaseWait, StepHook hook) {
    /** The table root, {@code s3://bucket/prefix/}. */
    String table() {
        return location.uri();
    }

    S3Store store() {
        return new S3Store(s3, location.bucket(), requests);
    }

    /**
     * Whether writes are in flight or interrupted under the table's {@code _tmp/} (a folder there): finished or undone by
     * the recovery under the lease, they may change what a plan made before it found. False when S3 cannot say (the plan
     * under the lease then fails on it as well).
     */
    boolean pendingWrites() {
        try {
            return store().firstEntries(location.tmpPrefix(), 3).stream().anyMatch(e -> e.endsWith("/"));
        } catch (software.amazon.awssdk.core.exception.SdkException e) {
            return false;
        }
    }

    /**
     * Plans before the lease, to refuse bad input before anything changes; a refusal is deferred to the plan made again
     * under the lease when writes are pending ({@link #pendingWrites}), whose recovery may settle it (a crashed merge's
     * catalog step that adds a column to the catalog's table, a crashed first write that creates it).
     */
    void planFirst(Runnable plan) {
        try {
            plan.run();
        } catch (io.wrangler.InvalidWriteException e) {
            if (!pendingWrites()) {
                throw e;
            }
        }
    }

    CatalogOnly.Run run(String verb, String rerun, boolean recover) {
        return new CatalogOnly.Run(verb, rerun, location, store(), catalog, tuning, leaseWait, hook, recover);
    }
}
