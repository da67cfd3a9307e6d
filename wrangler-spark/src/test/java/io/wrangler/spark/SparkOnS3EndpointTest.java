package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.S3Endpoint;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark's executors (local[2]) write through an {@link S3Endpoint} (a MemoryS3 over HTTP, no S3Mock) with the SDK's
 * default request checksums and aws-chunked bodies, by the API and by {@code format("wrangler")}; DuckDB reads back.
 */
class SparkOnS3EndpointTest {
    private static S3Endpoint http;

    @BeforeAll
    static void start() {
        http = S3Endpoint.start();
        http.createBucket("lake");
    }

    @AfterAll
    static void stop() {
        http.close();
    }

    private static Dataset<Row> range(long from, long to, String days) {
        return SparkLake.spark().sql("SELECT id, CAST(id * 10 AS BIGINT) AS cents, element_at(array(" + days + "), CAST(id % 2 AS INT) + 1) AS dt "
                + "FROM range(" + from + ", " + to + ", 1, 4)");
    }

    @Test
    void executorsWriteAndRerunThroughTheEndpoint() {
        S3Settings settings = S3Settings.defaults().endpoint(http.endpoint()).region("us-east-1").pathStyle(true)
                .staticCredentials("any", "any", null);
        String uri = "s3://lake/orders/";
        WriteResult first = SparkParquet.write(range(0, 100, "'2024-01-15','2024-01-16'")).partitionBy("dt").s3(settings).to(uri);
        assertThat(first.rows()).isEqualTo(100);
        SparkParquet.write(range(1000, 1004, "'2024-01-16','2024-01-16'")).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS)
                .s3(settings).to(uri);
        range(2000, 2002, "'2024-01-17','2024-01-17'").write().format("wrangler").mode("append").partitionBy("dt")
                .option("s3.endpoint", http.endpoint().toString()).option("s3.region", "us-east-1").option("s3.pathStyle", "true")
                .option("s3.accessKeyId", "any").option("s3.secretAccessKey", "any").save(uri);
        assertThat(DuckReader.query(http.client(), "lake", "orders/", "SELECT CAST(dt AS VARCHAR) AS d, count(*), CAST(sum(cents) AS BIGINT) "
                + "FROM t GROUP BY d ORDER BY d"))
                .containsExactly(List.of("2024-01-15", 50L, 24500L), List.of("2024-01-16", 4L, 40060L), List.of("2024-01-17", 2L, 40010L));
        assertThat(http.memory().openMultipartUploads("lake", "orders/")).isEmpty();
    }
}
