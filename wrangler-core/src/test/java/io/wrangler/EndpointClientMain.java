package io.wrangler;

import java.net.URI;
import java.time.LocalDate;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Run by {@link S3EndpointLakeTest} in a JVM of its own, with wrangler-core and the AWS SDK only (no testkit): writes two
 * days of sales to the table through the endpoint with the SDK's default client (checksums and aws-chunked bodies
 * included), reads them back and prints {@code READ <records>}. Args: endpoint, table URI.
 */
public final class EndpointClientMain {
    record Sale(LocalDate dt, String country, long cents) {
    }

    private EndpointClientMain() {
    }

    public static void main(String[] args) {
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(args[0])).region(Region.EU_WEST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("other", "process"))).build()) {
            List<Sale> sales = List.of(new Sale(LocalDate.of(2024, 3, 1), "FR", 1_000), new Sale(LocalDate.of(2024, 3, 2), "IT", 2_000));
            S3Parquet.write(sales).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3).to(args[1]);
            System.out.println("READ " + S3Parquet.read(args[1]).s3(s3).toList(Sale.class));
        }
    }
}
