package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A Spark write and a single-process S3Parquet write follow each other on one table, each replacing the other's partitions. */
class SparkAndSingleProcessTest {
    record Sale(String dt, String country, long id, long cents) {
    }

    private static final String SPARK_DAYS = "SELECT id, CAST(id * 100 AS BIGINT) AS cents, "
            + "IF(id < 3, '2024-01-15', '2024-01-16') AS dt, 'RU' AS country FROM range(0, 6, 1, 2)";

    @Test
    void aSparkWriteThenASingleProcessWriteAndTheReverse() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/sales/";
        // single process first
        S3Parquet.write(List.of(new Sale("2024-01-15", "RU", 100, 1), new Sale("2024-01-17", "DE", 101, 2)))
                .partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(SparkLake.s3().client()).to(uri);
        // Spark replaces 2024-01-15/RU and adds 2024-01-16/RU; 2024-01-17/DE stays
        SparkParquet.write(SparkLake.spark().sql(SPARK_DAYS)).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS)
                .s3(SparkLake.settings()).to(uri);
        assertThat(SparkLake.query(bucket, "sales/", "SELECT CAST(dt AS VARCHAR), country, id, cents FROM t ORDER BY id"))
                .containsExactly(List.of("2024-01-15", "RU", 0L, 0L), List.of("2024-01-15", "RU", 1L, 100L),
                        List.of("2024-01-15", "RU", 2L, 200L), List.of("2024-01-16", "RU", 3L, 300L), List.of("2024-01-16", "RU", 4L, 400L),
                        List.of("2024-01-16", "RU", 5L, 500L), List.of("2024-01-17", "DE", 101L, 2L));
        // the single process replaces what Spark wrote in 2024-01-16/RU
        S3Parquet.write(List.of(new Sale("2024-01-16", "RU", 200, 7))).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS)
                .s3(SparkLake.s3().client()).to(uri);
        assertThat(SparkLake.query(bucket, "sales/", "SELECT CAST(dt AS VARCHAR), country, id, cents FROM t ORDER BY id"))
                .containsExactly(List.of("2024-01-15", "RU", 0L, 0L), List.of("2024-01-15", "RU", 1L, 100L),
                        List.of("2024-01-15", "RU", 2L, 200L), List.of("2024-01-17", "DE", 101L, 2L), List.of("2024-01-16", "RU", 200L, 7L));
        assertThat(SparkLake.keys(bucket, "sales/_tmp/")).isEmpty();
    }
}
