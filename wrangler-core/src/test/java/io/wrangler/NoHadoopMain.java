package io.wrangler;

import java.net.URI;
import java.time.LocalDate;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Run by {@link WritesWithoutHadoopTest} in a JVM whose class path is wrangler-core's runtime class path: proves
 * that no Hadoop class is there and that a write with every codec, and reading it back, work anyway. Args: endpoint, bucket.
 */
public final class NoHadoopMain {
    private NoHadoopMain() {
    }

    public static void main(String[] args) {
        try {
            Class.forName("org.apache.hadoop.conf.Configuration");
            System.err.println("Hadoop is on the class path");
            System.exit(3);
        } catch (ClassNotFoundException expected) {
            // the point of this program
        }
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(args[0])).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build()) {
            for (Compression c : Compression.values()) {
                S3Parquet.write(Orders.orders(c.name(), List.of(LocalDate.of(2024, 1, 15)), List.of("RU", "DE"), 10))
                        .partitionBy("dt", "country").compression(c).s3(s3).to("s3://" + args[1] + "/nohadoop/");
            }
            // Every codec's files read back, through parquet-java's decoders with wrangler's codec factory.
            long rows = 0;
            long amount = 0;
            try (org.apache.arrow.vector.ipc.ArrowReader r = S3Parquet.read("s3://" + args[1] + "/nohadoop/").s3(s3).open()) {
                while (r.loadNextBatch()) {
                    org.apache.arrow.vector.VectorSchemaRoot b = r.getVectorSchemaRoot();
                    org.apache.arrow.vector.BigIntVector v = (org.apache.arrow.vector.BigIntVector) b.getVector("amountCents");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        amount += v.get(i);
                    }
                    rows += b.getRowCount();
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            System.out.println("read without hadoop: " + rows + " rows, amountCents " + amount);
        }
        System.out.println("written without hadoop");
    }
}
