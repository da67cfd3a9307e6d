package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.InvalidWriteException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.testkit.DuckReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bucketBy} through Spark: every row lands in a file of the bucket a single-process write of the same rows puts it
 * in (awswrangler's hash, core's {@code Buckets}), each file holding one bucket; a bucket of a partition gets a file
 * from each task that holds rows of it, which Athena reads as one bucket (one or more files per bucket per partition).
 */
class SparkBucketingTest {
    record Visit(long id, String user, String dt) {
    }

    private static final String VISITS = "SELECT id, concat('user-', CAST(id % 37 AS STRING)) AS user, "
            + "IF(id % 2 = 0, '2024-01-15', '2024-01-16') AS dt FROM range(0, 300, 1, 4)";

    /** Each row's id, user, day and the bucket its file's name carries. */
    private static List<List<Object>> bucketOfEachRow(String bucket, String prefix) {
        return DuckReader.query(SparkLake.s3(), bucket, prefix, "SELECT id, user, CAST(dt AS VARCHAR), "
                + "CAST(regexp_extract(filename, '_bucket-([0-9]+)', 1) AS INTEGER) FROM t ORDER BY id", "filename=true");
    }

    @Test
    void everyRowLandsInTheBucketASingleProcessWriteGivesIt() {
        String bucket = SparkLake.bucket();
        WriteResult r = SparkParquet.write(SparkLake.spark().sql(VISITS)).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS)
                .bucketBy(List.of("user"), 4).s3(SparkLake.settings()).to("s3://" + bucket + "/spark/");
        List<Visit> rows = new ArrayList<>();
        for (long id = 0; id < 300; id++) {
            rows.add(new Visit(id, "user-" + (id % 37), id % 2 == 0 ? "2024-01-15" : "2024-01-16"));
        }
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).bucketBy(List.of("user"), 4)
                .s3(SparkLake.s3().client()).to("s3://" + bucket + "/single/");

        List<List<Object>> spark = bucketOfEachRow(bucket, "spark/");
        assertThat(spark).hasSize(300);
        assertThat(spark).isEqualTo(bucketOfEachRow(bucket, "single/"));
        assertThat(spark).extracting(row -> (Integer) row.get(3)).containsOnly(0, 1, 2, 3);
        // one bucket per file: no file holds two buckets' users
        assertThat(DuckReader.query(SparkLake.s3(), bucket, "spark/", "SELECT count(*) FROM (SELECT filename FROM t GROUP BY filename "
                + "HAVING count(DISTINCT CAST(regexp_extract(filename, '_bucket-([0-9]+)', 1) AS INTEGER)) > 1)", "filename=true"))
                .containsExactly(List.of(0L));
        assertThat(r.paths()).allMatch(p -> p.matches(".*/dt=2024-01-1[56]/t0000[0-3]-a\\d+-part-\\d{5}-\\d{3}-.*_bucket-0000[0-3]\\.snappy\\.parquet"));
        assertThat(r.paths().size()).as("several tasks hold rows of one bucket").isGreaterThan(2 * 4);
        assertThat(SparkLake.query(bucket, "spark/", "SELECT count(*), CAST(sum(id) AS BIGINT), count(DISTINCT user) FROM t"))
                .containsExactly(List.of(300L, 44850L, 37L));
    }

    @Test
    void bucketingOptionsAreCheckedBeforeAnyWrite() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        assertThatThrownBy(() -> SparkParquet.write(SparkLake.spark().sql(VISITS)).mode(WriteMode.APPEND).option("bucketBy", "user")
                .s3(SparkLake.settings()).to(uri))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + uri + " (step: validate): the option bucketBy is set without buckets. Set buckets to the "
                        + "number of buckets, such as 16.");
        assertThatThrownBy(() -> SparkParquet.write(SparkLake.spark().sql(VISITS)).mode(WriteMode.APPEND).bucketBy(List.of("id", "dt"), 4)
                .partitionBy("dt").s3(SparkLake.settings()).to(uri))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageStartingWith("Cannot write " + uri + " (step: validate): the bucket column 'dt' is a partition column");
        assertThat(SparkLake.keys(bucket, "")).isEmpty();
    }
}
