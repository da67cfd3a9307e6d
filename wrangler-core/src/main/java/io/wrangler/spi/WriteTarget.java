package io.wrangler.spi;

import io.wrangler.WriteOptions;
import io.wrangler.catalog.CatalogTable;
import java.util.Objects;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What a distributed write, or one task of it, writes to and how: the table's URI, the S3 client, the write's options
 * (the one catalogue, {@link WriteOptions}; its client is not used, {@code s3} is), the catalog table (the driver's
 * only; null for a task) and the idempotency key (or null). A task's options are the driver's with its own file name
 * prefix (unique to the attempt), its own concurrency, and no lease.
 *
 * @param uri the table URI ({@code s3://bucket/prefix})
 * @param s3 the client of this process
 * @param options the write's options
 * @param catalog the catalog table, or null
 * @param idempotencyKey the caller's name for this logical write, or null
 */
public record WriteTarget(String uri, S3Client s3, WriteOptions options, CatalogTable catalog, String idempotencyKey) {
    public WriteTarget {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(s3, "s3");
        Objects.requireNonNull(options, "options");
    }
}
