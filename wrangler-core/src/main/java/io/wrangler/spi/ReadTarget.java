package io.wrangler.spi;

import io.wrangler.PartitionFilter;
import io.wrangler.RetryPolicy;
import io.wrangler.catalog.CatalogTable;
import java.util.Objects;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What a distributed read reads and how: the table (its URI, or a catalog table read by name at the location it
 * registers; both: the URI read through the catalog, as {@code ReadBuilder.catalog}), the S3 client of this process,
 * the partitions to read, how each request is retried and the account that must own the bucket. A task's target names
 * the table it reads files of; its catalog and filter are not used (the driver's listing decided them).
 *
 * @param uri the table URI ({@code s3://bucket/prefix}), or null for a read of {@code catalog} by name
 * @param catalog the catalog table, or null
 * @param s3 the client of this process
 * @param filter the partitions to read ({@link PartitionFilter#all()} for every one)
 * @param retry how each S3 request is retried
 * @param expectedBucketOwner the account that must own the bucket, or null
 */
public record ReadTarget(String uri, CatalogTable catalog, S3Client s3, PartitionFilter filter, RetryPolicy retry, String expectedBucketOwner) {
    public ReadTarget {
        if (uri == null && catalog == null) {
            throw new IllegalArgumentException("a read needs a table URI or a catalog table");
        }
        Objects.requireNonNull(s3, "s3");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(retry, "retry");
    }

    /** The table at {@code uri}, every partition, the default retries. */
    public static ReadTarget of(String uri, S3Client s3) {
        return new ReadTarget(uri, null, s3, PartitionFilter.all(), RetryPolicy.defaults(), null);
    }
}
