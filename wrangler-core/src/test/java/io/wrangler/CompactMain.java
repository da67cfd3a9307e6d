package io.wrangler;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Run by {@link CompactionMemoryTest} in a JVM with a small heap: compacts the table and prints
 * {@code COMPACTED <files before> <files after> <rows read> <rows written> <max heap MiB>}. Args: endpoint, table URI.
 */
public final class CompactMain {
    private CompactMain() {
    }

    public static void main(String[] args) {
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(args[0])).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build()) {
            CompactionResult r = S3Parquet.compact(args[1]).s3(s3).run();
            System.out.println("COMPACTED " + r.filesBefore() + " " + r.filesAfter() + " " + r.rowsRead() + " " + r.rowsWritten() + " "
                    + (Runtime.getRuntime().maxMemory() >> 20));
        }
    }
}
