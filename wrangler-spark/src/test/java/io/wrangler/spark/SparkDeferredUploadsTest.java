package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CommitMethod;
import io.wrangler.InputException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.commit.Step;
import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.S3Fault;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark writes with {@code CommitMethod.DEFERRED_UPLOADS}: each task attempt's files are multipart uploads left open at
 * their final keys; the driver completes those of the attempts that counted and aborts the others. After every write,
 * and after the recovery of a failed one, no multipart upload is open. A task attempt whose uploads outlive it (its
 * executor lost, or S3 unreachable from it) is made by refusing its AbortMultipartUpload requests at a {@link FaultyS3}
 * proxy that every JVM of the write goes through.
 */
class SparkDeferredUploadsTest {
    private static FaultyS3 faulty;
    /** The failed attempts' uploads still open when the retry (or the recovery) started, by bucket. */
    private static final Map<String, AtomicInteger> LEFT_OPEN = new ConcurrentHashMap<>();

    @BeforeAll
    static void proxy() {
        faulty = FaultyS3.start(SparkLake.s3());
    }

    @AfterAll
    static void closeProxy() {
        faulty.close();
    }

    private static S3Settings throughProxy() {
        return SparkLake.settings().endpoint(faulty.endpoint());
    }

    /** Rows (id, cents, dt, country) for ids [from, to), 2 days x 3 countries, over 4 Spark partitions. */
    private static Dataset<Row> range(long from, long to, String days) {
        return SparkLake.spark().sql("SELECT id, CAST(id * 10 AS BIGINT) AS cents, element_at(array(" + days + "), "
                + "CAST(id % 2 AS INT) + 1) AS dt, element_at(array('RU','DE','FR'), CAST(id % 3 AS INT) + 1) AS country FROM range("
                + from + ", " + to + ", 1, 4)");
    }

    private static SparkWriteBuilder deferred(Dataset<Row> df, WriteMode mode) {
        return SparkParquet.write(df).partitionBy("dt", "country").mode(mode).commitMethod(CommitMethod.DEFERRED_UPLOADS);
    }

    /** At the commit point: the files are open uploads at final keys, nothing but the manifest and lease under _tmp/. */
    private static final class AtCommit implements io.wrangler.spi.StepHook {
        final String bucket;
        final String table;
        volatile List<String> open;
        volatile List<String> tmp;

        AtCommit(String bucket, String table) {
            this.bucket = bucket;
            this.table = table;
        }

        @Override
        public void reached(Enum<?> step, int n) {
            if (step == Step.MANIFEST_WRITTEN) {
                open = SparkLake.s3().openMultipartUploads(bucket, table);
                tmp = SparkLake.keys(bucket, table + "_tmp/");
            }
        }
    }

    private static void assertDeferred(AtCommit at, WriteResult r) {
        assertThat(at.open).hasSize(r.paths().size()).noneMatch(k -> k.contains("_tmp/"));
        assertThat(at.tmp).allMatch(k -> k.endsWith("_manifest.json") || k.endsWith("_lease.json"));
    }

    @Test
    void theThreeModesWithDeferredUploads() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/orders/";
        AtCommit at = new AtCommit(bucket, "orders/");
        WriteResult first = deferred(range(0, 600, "'2024-01-15','2024-01-16'"), WriteMode.APPEND).s3(SparkLake.settings()).hook(at)
                .maxRowsPerFile(70).to(uri);
        assertDeferred(at, first);
        assertThat(first.rows()).isEqualTo(600);
        assertThat(SparkLake.query(bucket, "orders/", "SELECT count(*), CAST(sum(cents) AS BIGINT), count(DISTINCT id) FROM t"))
                .containsExactly(List.of(600L, 1797000L, 600L));

        Map<String, byte[]> day15 = SparkLake.snapshot(bucket, "orders/dt=2024-01-15/");
        WriteResult replaced = deferred(range(1000, 1006, "'2024-01-16','2024-01-16'"), WriteMode.OVERWRITE_PARTITIONS)
                .s3(SparkLake.settings()).hook(at).to(uri);
        assertDeferred(at, replaced);
        assertThat(replaced.deletedFiles()).isNotEmpty();
        assertThat(SparkLake.snapshot(bucket, "orders/dt=2024-01-15/")).containsExactlyInAnyOrderEntriesOf(day15);
        assertThat(SparkLake.query(bucket, "orders/", "SELECT id, cents, country FROM t WHERE CAST(dt AS VARCHAR) = '2024-01-16' ORDER BY id"))
                .containsExactly(List.of(1000L, 10000L, "DE"), List.of(1001L, 10010L, "FR"), List.of(1002L, 10020L, "RU"),
                        List.of(1003L, 10030L, "DE"), List.of(1004L, 10040L, "FR"), List.of(1005L, 10050L, "RU"));
        assertThat(SparkLake.query(bucket, "orders/", "SELECT count(*) FROM t WHERE CAST(dt AS VARCHAR) = '2024-01-15'"))
                .containsExactly(List.of(300L));

        WriteResult all = deferred(range(5, 8, "'2024-02-01','2024-02-01'"), WriteMode.OVERWRITE).s3(SparkLake.settings()).hook(at).to(uri);
        assertDeferred(at, all);
        assertThat(SparkLake.query(bucket, "orders/", "SELECT id, cents, CAST(dt AS VARCHAR), country FROM t ORDER BY id"))
                .containsExactly(List.of(5L, 50L, "2024-02-01", "FR"), List.of(6L, 60L, "2024-02-01", "RU"),
                        List.of(7L, 70L, "2024-02-01", "DE"));
        assertThat(SparkLake.keys(bucket, "orders/")).noneMatch(k -> k.startsWith("orders/_tmp/") && !k.endsWith("_lease.json"));
        assertThat(SparkLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }

    /**
     * Rows of ids [0, 2000) over 4 Spark partitions. Partition 1's attempts below {@code failBelow} fail at id 900, once
     * they have uploads open, with their AbortMultipartUpload requests refused: their uploads outlive them. The first
     * row a later attempt of partition 1 sees counts the failed attempts' uploads still open, then ends the refusals.
     */
    private static Dataset<Row> failing(String bucket, int failBelow) {
        String udf = "fail_deferred_" + bucket.replace('-', '_');
        SparkLake.spark().udf().register(udf, (UDF1<Long, Long>) id -> {
            TaskContext tc = TaskContext.get();
            if (tc.partitionId() != 1) {
                return id;
            }
            if (tc.attemptNumber() < failBelow && id == 900) {
                String tag = "t00001-a" + tc.taskAttemptId() + "-";
                long until = System.currentTimeMillis() + 60_000;
                while (SparkLake.s3().openMultipartUploads(bucket, "t/").stream().noneMatch(k -> k.contains(tag))
                        && System.currentTimeMillis() < until) {
                    Thread.sleep(50);
                }
                faulty.failWhereKeyContains("AbortMultipartUpload", tag, S3Fault.ACCESS_DENIED);
                throw new IllegalStateException("injected failure of task attempt " + tc.taskAttemptId());
            }
            if (tc.attemptNumber() >= failBelow && id == 500) {
                LEFT_OPEN.computeIfAbsent(bucket, b -> new AtomicInteger()).set((int) SparkLake.s3().openMultipartUploads(bucket, "t/")
                        .stream().filter(k -> k.contains("t00001-")).count());
                faulty.clearKeyFaults(); // S3 reachable again: the driver's commit must abort what the failed attempt left
            }
            return id;
        }, DataTypes.LongType);
        return SparkLake.spark().sql("SELECT " + udf + "(id) AS id, CAST(id * 3 AS BIGINT) AS v, CAST(id % 5 AS STRING) AS p "
                + "FROM range(0, 2000, 1, 4)");
    }

    @Test
    void aTaskAttemptWhoseUploadsOutliveItIsRetriedAndItsUploadsAborted() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        WriteResult r;
        try {
            r = SparkParquet.write(failing(bucket, 1)).partitionBy("p").mode(WriteMode.OVERWRITE_PARTITIONS)
                    .commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(throughProxy()).maxRowsPerFile(40).option("batchRows", "50").to(uri);
        } finally {
            faulty.clearKeyFaults();
        }
        assertThat(LEFT_OPEN.get(bucket).get()).as("uploads the failed attempt left open").isPositive();
        assertThat(r.rows()).isEqualTo(2000);
        assertThat(SparkLake.query(bucket, "t/", "SELECT count(*), count(DISTINCT id), CAST(sum(v) AS BIGINT), min(id), max(id) FROM t"))
                .containsExactly(List.of(2000L, 2000L, 5997000L, 0L, 1999L));
        assertThat(SparkLake.query(bucket, "t/", "SELECT CAST(p AS VARCHAR) AS q, count(*), CAST(sum(v) AS BIGINT) FROM t GROUP BY q ORDER BY q"))
                .containsExactly(List.of("0", 400L, 1197000L), List.of("1", 400L, 1198200L), List.of("2", 400L, 1199400L),
                        List.of("3", 400L, 1200600L), List.of("4", 400L, 1201800L));
        assertThat(SparkLake.s3().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(SparkLake.keys(bucket, "t/")).noneMatch(k -> k.startsWith("t/_tmp/") && !k.endsWith("_lease.json"));
        assertThat(r.paths()).hasSize(SparkLake.keys(bucket, "t/").size());
    }

    @Test
    void aJobThatFailsLeavesTheTableUnchangedAndNoUploadAfterRecovery() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        SparkParquet.write(SparkLake.spark().sql("SELECT id, CAST(id AS BIGINT) AS v, CAST(id % 5 AS STRING) AS p FROM range(0, 10, 1, 2)"))
                .partitionBy("p").mode(WriteMode.APPEND).commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(SparkLake.settings()).to(uri);
        Map<String, byte[]> before = data(bucket);

        try {
            // Every attempt of partition 1 fails, and no one can abort its uploads (the driver's abort neither): they
            // stay open with the write's STARTED record, for the recovery; the driver's abort aborts the other tasks'.
            faulty.failWhereKeyContains("AbortMultipartUpload", "/t00001-", S3Fault.ACCESS_DENIED);
            assertThatThrownBy(() -> SparkParquet.write(failing(bucket, 99)).partitionBy("p").mode(WriteMode.OVERWRITE)
                    .commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(throughProxy()).maxRowsPerFile(40).option("batchRows", "50").to(uri))
                    .isInstanceOf(InputException.class)
                    .hasMessageStartingWith("Cannot write " + uri + " (step: stage): the Spark job failed (")
                    .hasMessageContaining("injected failure");
            assertThat(data(bucket)).containsExactlyInAnyOrderEntriesOf(before);
            assertThat(SparkLake.s3().openMultipartUploads(bucket, "t/")).as("uploads of the failed attempts").isNotEmpty()
                    .allMatch(k -> k.contains("/t00001-"));
        } finally {
            faulty.clearKeyFaults();
        }
        S3Parquet.recover(uri, SparkLake.s3().client());
        assertThat(SparkLake.s3().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(SparkLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(data(bucket)).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(SparkLake.query(bucket, "t/", "SELECT id, v, CAST(p AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(List.of(0L, 0L, "0"), List.of(1L, 1L, "1"), List.of(2L, 2L, "2"), List.of(3L, 3L, "3"), List.of(4L, 4L, "4"),
                        List.of(5L, 5L, "0"), List.of(6L, 6L, "1"), List.of(7L, 7L, "2"), List.of(8L, 8L, "3"), List.of(9L, 9L, "4"));
    }

    /** The table's data files and their bytes (nothing under {@code _tmp/}). */
    private static Map<String, byte[]> data(String bucket) {
        Map<String, byte[]> out = new TreeMap<>(SparkLake.snapshot(bucket, "t/"));
        out.keySet().removeIf(k -> k.contains("_tmp/"));
        return out;
    }

    record Sale(String dt, String country, long id, long cents) {
    }

    @Test
    void aSparkDeferredWriteThenASingleProcessWriteAndBack() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/sales/";
        String days = "SELECT id, CAST(id * 100 AS BIGINT) AS cents, IF(id < 3, '2024-01-15', '2024-01-16') AS dt, 'RU' AS country "
                + "FROM range(0, 6, 1, 2)";
        AtCommit at = new AtCommit(bucket, "sales/");
        WriteResult first = SparkParquet.write(SparkLake.spark().sql(days)).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(SparkLake.settings()).hook(at).to(uri);
        assertDeferred(at, first);
        // a single process replaces 2024-01-16/RU and adds 2024-01-17/DE
        S3Parquet.write(List.of(new Sale("2024-01-16", "RU", 100, 1), new Sale("2024-01-17", "DE", 101, 2)))
                .partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(SparkLake.s3().client()).to(uri);
        assertThat(SparkLake.query(bucket, "sales/", "SELECT CAST(dt AS VARCHAR), country, id, cents FROM t ORDER BY id"))
                .containsExactly(List.of("2024-01-15", "RU", 0L, 0L), List.of("2024-01-15", "RU", 1L, 100L),
                        List.of("2024-01-15", "RU", 2L, 200L), List.of("2024-01-16", "RU", 100L, 1L), List.of("2024-01-17", "DE", 101L, 2L));
        // Spark, deferred again, replaces 2024-01-15/RU and 2024-01-16/RU; 2024-01-17/DE stays
        WriteResult again = SparkParquet.write(SparkLake.spark().sql(days.replace("id * 100", "id * 7"))).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(SparkLake.settings()).hook(at).to(uri);
        assertDeferred(at, again);
        assertThat(SparkLake.query(bucket, "sales/", "SELECT CAST(dt AS VARCHAR), country, id, cents FROM t ORDER BY id"))
                .containsExactly(List.of("2024-01-15", "RU", 0L, 0L), List.of("2024-01-15", "RU", 1L, 7L),
                        List.of("2024-01-15", "RU", 2L, 14L), List.of("2024-01-16", "RU", 3L, 21L), List.of("2024-01-16", "RU", 4L, 28L),
                        List.of("2024-01-16", "RU", 5L, 35L), List.of("2024-01-17", "DE", 101L, 2L));
        assertThat(SparkLake.keys(bucket, "sales/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));
        assertThat(SparkLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }
}
