package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** The three modes through Spark (local[2]) to LocalS3, read back with DuckDB. */
class SparkWriteModesTest {
    private static Dataset<Row> orders(String sql) {
        return SparkLake.spark().sql(sql);
    }

    /** Rows (id, dt, country, cents) for ids [from, to), 2 days x 3 countries, over 4 Spark partitions. */
    private static Dataset<Row> range(long from, long to, String days) {
        return orders("SELECT id, CAST(id * 10 AS BIGINT) AS cents, element_at(array(" + days + "), CAST(id % 2 AS INT) + 1) AS dt, "
                + "element_at(array('RU','DE','FR'), CAST(id % 3 AS INT) + 1) AS country FROM range(" + from + ", " + to + ", 1, 4)");
    }

    @Test
    void appendAddsRowsOverwritePartitionsReplacesOnlyItsPartitionsOverwriteReplacesAll() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/orders/";
        WriteResult first = SparkParquet.write(range(0, 600, "'2024-01-15','2024-01-16'")).partitionBy("dt", "country")
                .s3(SparkLake.settings()).to(uri);
        assertThat(first.rows()).isEqualTo(600);
        assertThat(first.partitions()).hasSize(6);
        assertThat(SparkLake.query(bucket, "orders/", "SELECT count(*), CAST(sum(cents) AS BIGINT), count(DISTINCT id) FROM t"))
                .containsExactly(List.of(600L, 1797000L, 600L));

        SparkParquet.write(range(600, 700, "'2024-01-17','2024-01-17'")).partitionBy("dt", "country").mode(WriteMode.APPEND)
                .s3(SparkLake.settings()).to(uri);
        assertThat(SparkLake.query(bucket, "orders/", "SELECT CAST(dt AS VARCHAR) AS d, count(*) FROM t GROUP BY d ORDER BY d"))
                .containsExactly(List.of("2024-01-15", 300L), List.of("2024-01-16", 300L), List.of("2024-01-17", 100L));

        Map<String, byte[]> day15 = SparkLake.snapshot(bucket, "orders/dt=2024-01-15/");
        Map<String, byte[]> day17 = SparkLake.snapshot(bucket, "orders/dt=2024-01-17/");
        WriteResult replaced = SparkParquet.write(range(1000, 1010, "'2024-01-16','2024-01-16'")).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(SparkLake.settings()).to(uri);
        assertThat(replaced.deletedFiles()).isNotEmpty();
        assertThat(SparkLake.snapshot(bucket, "orders/dt=2024-01-15/")).containsExactlyInAnyOrderEntriesOf(day15);
        assertThat(SparkLake.snapshot(bucket, "orders/dt=2024-01-17/")).containsExactlyInAnyOrderEntriesOf(day17);
        assertThat(SparkLake.query(bucket, "orders/", "SELECT id, cents, country FROM t WHERE CAST(dt AS VARCHAR) = '2024-01-16' ORDER BY id"))
                .containsExactly(List.of(1000L, 10000L, "DE"), List.of(1001L, 10010L, "FR"), List.of(1002L, 10020L, "RU"),
                        List.of(1003L, 10030L, "DE"), List.of(1004L, 10040L, "FR"), List.of(1005L, 10050L, "RU"),
                        List.of(1006L, 10060L, "DE"), List.of(1007L, 10070L, "FR"), List.of(1008L, 10080L, "RU"),
                        List.of(1009L, 10090L, "DE"));

        SparkParquet.write(range(5, 8, "'2024-02-01','2024-02-01'")).partitionBy("dt", "country").mode(WriteMode.OVERWRITE)
                .s3(SparkLake.settings()).to(uri);
        assertThat(SparkLake.query(bucket, "orders/", "SELECT id, CAST(dt AS VARCHAR), country FROM t ORDER BY id"))
                .containsExactly(List.of(5L, "2024-02-01", "FR"), List.of(6L, "2024-02-01", "RU"), List.of(7L, "2024-02-01", "DE"));
        assertThat(SparkLake.keys(bucket, "orders/")).noneMatch(k -> k.startsWith("orders/_tmp/") && !k.endsWith("_lease.json"));
        // Spark reads the same rows back (from a local copy: no Hadoop S3 connector here)
        List<Row> read = SparkLake.sparkRead(bucket, "orders/").orderBy("id").collectAsList();
        assertThat(read).extracting(r -> r.getLong(r.fieldIndex("id")) + " " + r.get(r.fieldIndex("dt")) + " " + r.getString(r.fieldIndex("country")))
                .containsExactly("5 2024-02-01 FR", "6 2024-02-01 RU", "7 2024-02-01 DE");
    }

    @Test
    void aKeyedAppendRerunReplacesWhatItsEarlierRunAdded() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/orders/";
        SparkParquet.write(range(0, 6, "'2024-01-15','2024-01-16'")).partitionBy("dt").s3(SparkLake.settings()).to(uri);
        for (int run = 0; run < 2; run++) {
            SparkParquet.write(range(100, 110, "'2024-01-16','2024-01-17'")).partitionBy("dt").idempotencyKey("orders:100-109")
                    .s3(SparkLake.settings()).to(uri);
        }
        assertThat(SparkLake.query(bucket, "orders/", "SELECT CAST(dt AS VARCHAR) AS d, count(*), count(DISTINCT id) FROM t GROUP BY d ORDER BY d"))
                .containsExactly(List.of("2024-01-15", 3L, 3L), List.of("2024-01-16", 8L, 8L), List.of("2024-01-17", 5L, 5L));
    }
}
