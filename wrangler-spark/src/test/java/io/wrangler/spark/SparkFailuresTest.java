package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.InputException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * Failed task attempts and failed jobs: only the committed attempts' files enter the table, a failed job leaves it as it
 * was, and nothing stays under {@code _tmp/}. Failures are thrown by a UDF inside the write's own tasks, after the
 * attempt has staged files of its own (small batches and files), so the attempt's files exist when it fails.
 */
class SparkFailuresTest {
    /** Staged files seen by the failing attempts, by bucket. */
    private static final Map<String, AtomicInteger> STAGED_BY_FAILED = new ConcurrentHashMap<>();

    /** Rows of ids [0, 2000) over 4 Spark partitions; the UDF fails partition 1's attempts below {@code failBelow} at id 900. */
    private static Dataset<Row> failing(String bucket, int failBelow) {
        SparkLake.spark().udf().register("fail_" + bucket.replace('-', '_'), (UDF1<Long, Long>) id -> {
            TaskContext tc = TaskContext.get();
            if (tc.partitionId() == 1 && tc.attemptNumber() < failBelow && id == 900) {
                String tag = "-a" + tc.taskAttemptId() + "-";
                long until = System.currentTimeMillis() + 60_000;
                int staged = 0;
                while (staged == 0 && System.currentTimeMillis() < until) {
                    staged = (int) SparkLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.contains(tag)).count();
                    Thread.sleep(50);
                }
                STAGED_BY_FAILED.computeIfAbsent(bucket, b -> new AtomicInteger()).addAndGet(staged);
                throw new IllegalStateException("injected failure of task attempt " + tc.taskAttemptId());
            }
            return id;
        }, DataTypes.LongType);
        return SparkLake.spark().sql("SELECT fail_" + bucket.replace('-', '_') + "(id) AS id, CAST(id * 3 AS BIGINT) AS v, "
                + "CAST(id % 5 AS STRING) AS p FROM range(0, 2000, 1, 4)");
    }

    @Test
    void aTaskThatFailsOnceAndIsRetriedLeavesExactlyOneCopyOfEveryRow() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        WriteResult r = SparkParquet.write(failing(bucket, 1)).partitionBy("p").mode(WriteMode.OVERWRITE_PARTITIONS)
                .s3(SparkLake.settings()).maxRowsPerFile(40).option("batchRows", "50").to(uri);
        assertThat(STAGED_BY_FAILED.get(bucket).get()).as("files the failed attempt had staged").isPositive();
        assertThat(r.rows()).isEqualTo(2000);
        assertThat(SparkLake.query(bucket, "t/", "SELECT count(*), count(DISTINCT id), CAST(sum(v) AS BIGINT), min(id), max(id) FROM t"))
                .containsExactly(List.of(2000L, 2000L, 5997000L, 0L, 1999L));
        assertThat(SparkLake.query(bucket, "t/", "SELECT CAST(p AS VARCHAR) AS q, count(*) FROM t GROUP BY q ORDER BY q"))
                .containsExactly(List.of("0", 400L), List.of("1", 400L), List.of("2", 400L), List.of("3", 400L), List.of("4", 400L));
        assertThat(SparkLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(r.paths()).hasSize(SparkLake.keys(bucket, "t/").size());
    }

    @Test
    void aJobThatFailsLeavesTheTableUnchangedAndNothingUnderTmpAfterRecovery() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        SparkParquet.write(SparkLake.spark().sql("SELECT id, CAST(id AS BIGINT) AS v, CAST(id % 5 AS STRING) AS p FROM range(0, 10, 1, 2)"))
                .partitionBy("p").s3(SparkLake.settings()).to(uri);
        Map<String, byte[]> before = SparkLake.snapshot(bucket, "t/");

        assertThatThrownBy(() -> SparkParquet.write(failing(bucket, 99)).partitionBy("p").mode(WriteMode.OVERWRITE)
                .s3(SparkLake.settings()).maxRowsPerFile(40).option("batchRows", "50").to(uri))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("Cannot write " + uri + " (step: stage): the Spark job failed (")
                .hasMessageContaining("injected failure")
                .hasMessageEndingWith("Nothing of the table was changed; the write's staging was removed. Fix the cause and rerun the write.");
        assertThat(STAGED_BY_FAILED.get(bucket).get()).as("files the failed attempts had staged").isPositive();
        assertThat(SparkLake.snapshot(bucket, "t/")).containsExactlyInAnyOrderEntriesOf(before);
        S3Parquet.recover(uri, SparkLake.s3().client());
        assertThat(SparkLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(SparkLake.query(bucket, "t/", "SELECT id, v, CAST(p AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(List.of(0L, 0L, "0"), List.of(1L, 1L, "1"), List.of(2L, 2L, "2"), List.of(3L, 3L, "3"), List.of(4L, 4L, "4"),
                        List.of(5L, 5L, "0"), List.of(6L, 6L, "1"), List.of(7L, 7L, "2"), List.of(8L, 8L, "3"), List.of(9L, 9L, "4"));
    }
}
