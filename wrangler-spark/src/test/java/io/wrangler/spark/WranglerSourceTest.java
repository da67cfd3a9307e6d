package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.InvalidWriteException;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** The data source form, {@code df.write().format("wrangler")...save(uri)}, as PySpark users call it: options only. */
class WranglerSourceTest {
    private static Dataset<Row> day(String dt, long from, long to) {
        return SparkLake.spark().sql("SELECT id, CAST(id * 2 AS BIGINT) AS v, '" + dt + "' AS dt FROM range(" + from + ", " + to + ", 1, 2)");
    }

    @Test
    void overwriteWithDynamicPartitionOverwriteReplacesOnlyTheWrittenPartitions() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/events/";
        day("2026-10-01", 0, 5).union(day("2026-10-02", 5, 8)).write().format("wrangler").partitionBy("dt").mode("append")
                .options(SparkLake.options()).option("compression", "zstd").save(uri);
        Map<String, byte[]> first = SparkLake.snapshot(bucket, "events/dt=2026-10-01/");
        day("2026-10-02", 100, 102).write().format("wrangler").partitionBy("dt").mode("overwrite")
                .option("partitionOverwriteMode", "dynamic").options(SparkLake.options()).save(uri);
        assertThat(SparkLake.snapshot(bucket, "events/dt=2026-10-01/")).containsExactlyInAnyOrderEntriesOf(first);
        assertThat(SparkLake.keys(bucket, "events/")).allMatch(k -> k.endsWith(".zstd.parquet") || k.contains("dt=2026-10-02/"));
        assertThat(SparkLake.query(bucket, "events/", "SELECT id, v, CAST(dt AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(List.of(0L, 0L, "2026-10-01"), List.of(1L, 2L, "2026-10-01"), List.of(2L, 4L, "2026-10-01"),
                        List.of(3L, 6L, "2026-10-01"), List.of(4L, 8L, "2026-10-01"), List.of(100L, 200L, "2026-10-02"),
                        List.of(101L, 202L, "2026-10-02"));
        // without dynamic overwrite, overwrite replaces the table
        day("2026-10-03", 7, 8).write().format("wrangler").partitionBy("dt").mode("overwrite").options(SparkLake.options()).save(uri);
        assertThat(SparkLake.query(bucket, "events/", "SELECT id, v, CAST(dt AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(List.of(7L, 14L, "2026-10-03"));
        assertThat(SparkLake.keys(bucket, "events/_tmp/")).isEmpty();
    }

    @Test
    void aBadOptionIsRefusedBeforeAnythingIsWritten() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/events/";
        assertThatThrownBy(() -> day("2026-10-01", 0, 5).write().format("wrangler").partitionBy("dt").mode("append")
                .options(SparkLake.options()).option("compression", "brotli").save(uri))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + uri + " (step: validate): the option compression is 'brotli'. Give snappy, zstd, gzip, "
                        + "lz4_raw or none.");
        assertThatThrownBy(() -> day("2026-10-01", 0, 5).write().format("wrangler").partitionBy("dt").mode("append")
                .options(SparkLake.options()).option("writeMode", "OVERWRITE").save(uri))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + uri + " (step: validate): Spark's mode is append but the option writeMode is OVERWRITE. "
                        + "Use mode(\"overwrite\") for OVERWRITE.");
        assertThatThrownBy(() -> SparkLake.spark().sql("SELECT id, INTERVAL '1' DAY AS gap, 'x' AS p FROM range(1)").write().format("wrangler")
                .partitionBy("p").mode("append").options(SparkLake.options()).save(uri))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + uri + " (step: validate): the column 'gap' has the Spark type interval day, which wrangler "
                        + "does not write (booleans, integers, float, double, decimal, string, binary, date, timestamp, timestamp_ntz, and "
                        + "arrays, structs and maps of them are written). Cast or drop the column before writing; nothing was written.");
        // Spark's default mode (error if exists) is Spark's to refuse for a source like this one
        assertThatThrownBy(() -> day("2026-10-01", 0, 5).write().format("wrangler").options(SparkLake.options()).save(uri))
                .hasMessageContaining("The data source \"wrangler\" cannot be written in the \"ErrorIfExists\" mode. Please use either "
                        + "the \"Append\" or \"Overwrite\" mode instead.");
        assertThat(SparkLake.keys(bucket, "")).isEmpty();
    }
}
