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

    CatalogOnly.Run run(String verb, String rerun, boolean recover) {
        return new CatalogOnly.Run(verb, rerun, location, store(), catalog, tuning, leaseWait, hook, recover);
    }
}
