package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Endpoint;
import java.io.File;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.util.VersionInfo;

/** A write and a read from a project that knows wrangler only through its BOM, on the testkit's light embedded lake. */
class ConsumerTest {
    record Sale(LocalDate dt, String country, long cents) {
    }

    @Test
    void writesAndReadsThroughTheBomsVersions() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket("lake");
            List<Sale> sales = List.of(new Sale(LocalDate.of(2024, 1, 15), "RU", 100), new Sale(LocalDate.of(2024, 1, 15), "DE", 250),
                    new Sale(LocalDate.of(2024, 1, 16), "RU", 7));
            WriteResult r = S3Parquet.write(sales).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS)
                    .s3(s3.client()).to("s3://lake/sales/");
            assertEquals(3, r.rows());
            List<Long> cents = new ArrayList<>();
            try (ArrowReader reader = S3Parquet.read("s3://lake/sales/").s3(s3.client()).open()) {
                while (reader.loadNextBatch()) {
                    VectorSchemaRoot b = reader.getVectorSchemaRoot();
                    BigIntVector v = (BigIntVector) b.getVector("cents");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        cents.add(v.get(i));
                    }
                }
            }
            cents.sort(null);
            assertEquals(List.of(7L, 100L, 250L), cents);
            // the SDK on the class path is the one the BOM pins (.ci/run passes the root pom's version)
            String expected = System.getProperty("expected.awssdk");
            assertNotNull(expected, "run with -Dexpected.awssdk=<the root pom's awssdk.version>");
            assertEquals(expected, VersionInfo.SDK_VERSION);
        }
    }

    @Test
    void theEmbeddedLakeBringsNoServerFrameworkAndNoLoggingBackend() {
        List<String> heavy = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(p -> p.substring(p.lastIndexOf(File.separatorChar) + 1))
                .filter(j -> j.startsWith("spring-") || j.startsWith("tomcat-") || j.startsWith("s3mock") || j.startsWith("duckdb")
                        || j.startsWith("logback-") || j.startsWith("aws-crt-"))
                .toList();
        assertEquals(List.of(), heavy);
        // and on that class path the lake is served over HTTP to other processes (the JDK's server, the SDK's client)
        try (S3Endpoint http = S3Endpoint.start()) {
            http.createBucket("served");
            http.client().putObject(b -> b.bucket("served").key("k"), RequestBody.fromString("over http"));
            assertEquals("over http", http.client().getObjectAsBytes(b -> b.bucket("served").key("k")).asUtf8String());
            assertEquals("over http", new String(http.memory().get("served", "k"), java.nio.charset.StandardCharsets.UTF_8));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, LocalS3::start);
        assertTrue(e.getMessage().startsWith("LocalS3 needs com.adobe.testing:s3mock on the class path, an optional dependency of "
                + "wrangler-testkit: declare it in your build"), e.getMessage());
    }
}
