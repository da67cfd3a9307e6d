package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.commit.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.spark.Success$;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Speculative execution, for real: Spark's own scheduler speculates ({@link SpeculatingClusterManager}: two one-core
 * executors on two hosts in this JVM) and launches a second attempt of a task whose first attempt is slow; the second
 * wins, Spark's commit coordinator lets it commit, and the first keeps running after the write has ended, staging files
 * into the ended write's {@code _tmp/<writeId>/} (a task that does not stop at once when Spark kills it: Spark's kill is
 * an interrupt and a flag the task checks between batches of rows), until the interrupt reaches its writer.
 *
 * <p>Its master stops the module's shared session ({@link SparkLake#session}), so it holds {@link SparkLake#SESSION_LOCK}
 * exclusively and runs last.
 */
@ResourceLock(SparkLake.SESSION_LOCK) // switches the JVM's one SparkContext: never while KilledDriverTest uses it
@Order(Integer.MAX_VALUE) // the module's last class (junit-platform.properties): it waits for KilledDriverTest, so nothing waits behind it
class SparkSpeculationTest {
    /** Speculation checked every 100 ms, for a task slower than 1.5 times the median of at least half of its stage. */
    private static final Map<String, String> SPECULATION = Map.of(
            "spark.speculation", "true",
            "spark.speculation.interval", "100ms",
            "spark.speculation.multiplier", "1.5",
            "spark.speculation.quantile", "0.5",
            "spark.speculation.minTaskRuntime", "200ms",
            // else Spark 4 also requires the slow task's rate of records to be low, which a stalled task's is anyway
            "spark.speculation.efficiency.enabled", "false");

    private static final CountDownLatch WRITE_ENDED = new CountDownLatch(1);
    private static final AtomicInteger STAGED_BEFORE_END = new AtomicInteger(-1);
    private static final AtomicInteger STAGED_AFTER_END = new AtomicInteger(-1);

    @Test
    void aSpeculativeAttemptThatWinsLeavesOneCopyOfEveryRowAndTheLosingAttemptLeavesNothing() throws Exception {
        SparkSession spark = SparkLake.session("wrangler-speculating[2]", SPECULATION);
        List<SparkListenerTaskEnd> ends = new CopyOnWriteArrayList<>();
        SparkListener listener = new SparkListener() {
            @Override
            public void onTaskEnd(SparkListenerTaskEnd end) {
                ends.add(end);
            }
        };
        spark.sparkContext().addSparkListener(listener);
        try {
            String bucket = SparkLake.bucket();
            String uri = "s3://" + bucket + "/t/";
            // Partition 1 (ids 100 to 199) is slow in its first attempt only: at id 130, once files of its own are staged,
            // it waits until the write has ended (ignoring Spark's kill meanwhile), then goes on staging.
            spark.udf().register("slow_first_attempt", (UDF1<Long, Long>) id -> {
                TaskContext tc = TaskContext.get();
                if (tc.partitionId() == 1 && tc.attemptNumber() == 0) {
                    String mine = "t00001-a" + tc.taskAttemptId() + "-";
                    if (id == 130) {
                        STAGED_BEFORE_END.set(awaitOwnFiles(bucket, mine));
                        awaitIgnoringInterrupts(() -> WRITE_ENDED.getCount() == 0, 30_000);
                    } else if (id == 170) {
                        STAGED_AFTER_END.set(awaitOwnFiles(bucket, mine));
                        // Spark's kill is an interrupt: it now reaches the attempt's writer, which stops, and Spark aborts it
                        // with the interrupt still set.
                        Thread.currentThread().interrupt();
                    }
                }
                return id;
            }, DataTypes.LongType);
            AtomicReference<byte[]> manifest = new AtomicReference<>();
            WriteResult r;
            try {
                r = SparkParquet.write(spark.sql("SELECT slow_first_attempt(id) AS id, CAST(id * 3 AS BIGINT) AS v, "
                                + "CAST(id % 2 AS STRING) AS p FROM range(0, 400, 1, 4)"))
                        .partitionBy("p").mode(WriteMode.OVERWRITE_PARTITIONS).s3(SparkLake.settings()).maxRowsPerFile(10)
                        .option("batchRows", "10")
                        .hook((step, n) -> {
                            if (step == Step.BEFORE_CLEANUP) {
                                SparkLake.snapshot(bucket, "t/_tmp/").forEach((k, v) -> {
                                    if (k.endsWith("/_manifest.json")) {
                                        manifest.set(v);
                                    }
                                });
                            }
                        })
                        .to(uri);
            } finally {
                WRITE_ENDED.countDown();
            }
            // The losing attempt ends after the write: it is Spark's attempt 0 of task 1, killed (or denied its commit).
            awaitIgnoringInterrupts(() -> ends.stream().anyMatch(e -> e.taskInfo().index() == 1 && e.taskInfo().attemptNumber() == 0),
                    30_000);

            SparkListenerTaskEnd winner = ends.stream().filter(e -> e.taskInfo().index() == 1 && e.reason() == Success$.MODULE$)
                    .findFirst().orElseThrow(() -> new AssertionError("no attempt of task 1 succeeded: " + describe(ends)));
            assertThat(winner.taskInfo().speculative()).as("the attempt of task 1 that won is a speculative copy: " + describe(ends))
                    .isTrue();
            assertThat(ends.stream().filter(e -> e.taskInfo().index() == 1 && e.taskInfo().attemptNumber() == 0))
                    .as(describe(ends)).singleElement().satisfies(e -> assertThat(e.reason()).isNotEqualTo(Success$.MODULE$));
            assertThat(STAGED_BEFORE_END.get()).as("files the losing attempt staged before the write ended").isPositive();
            assertThat(STAGED_AFTER_END.get()).as("files the losing attempt staged after the write ended").isPositive();

            // One copy of every row, with its values.
            assertThat(r.rows()).isEqualTo(400);
            List<List<Object>> expected = new ArrayList<>();
            for (long id = 0; id < 400; id++) {
                expected.add(List.of(id, id * 3, String.valueOf(id % 2)));
            }
            assertThat(SparkLake.query(bucket, "t/", "SELECT id, v, CAST(p AS VARCHAR) FROM t ORDER BY id")).isEqualTo(expected);
            // The table's files are exactly the manifest's, those of task 1 all from the speculative attempt.
            TreeSet<String> recorded = new TreeSet<>();
            JsonNode m = new ObjectMapper().readTree(manifest.get());
            m.get("files").forEach(f -> recorded.add(f.get("finalKey").asText()));
            TreeSet<String> published = new TreeSet<>(SparkLake.keys(bucket, "t/"));
            published.removeIf(k -> k.startsWith("t/_tmp/"));
            assertThat(published).isEqualTo(recorded);
            assertThat(new TreeSet<>(r.paths())).isEqualTo(new TreeSet<>(recorded.stream().map(k -> "s3://" + bucket + "/" + k).toList()));
            assertThat(published.stream().filter(k -> k.contains("/t00001-")))
                    .isNotEmpty().allMatch(k -> k.contains("/t00001-a" + winner.taskInfo().taskId() + "-"));
            // Nothing under _tmp/ once the write and its losing attempt have ended.
            assertThat(SparkLake.keys(bucket, "t/_tmp/")).isEmpty();
        } finally {
            spark.sparkContext().removeSparkListener(listener);
        }
    }

    private static String describe(List<SparkListenerTaskEnd> ends) {
        List<String> out = new ArrayList<>();
        for (SparkListenerTaskEnd e : ends) {
            out.add("task " + e.taskInfo().index() + " attempt " + e.taskInfo().attemptNumber() + " (id " + e.taskInfo().taskId()
                    + (e.taskInfo().speculative() ? ", speculative" : "") + ") on " + e.taskInfo().host() + ": " + e.reason());
        }
        return out.toString();
    }

    /** How many files of this attempt are staged, once there is one (at most 60 s: a loaded machine stages slowly; the first file ends the wait). */
    private static int awaitOwnFiles(String bucket, String attempt) {
        int[] n = new int[1];
        awaitIgnoringInterrupts(() -> {
            n[0] = (int) SparkLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.contains("/" + attempt)).count();
            return n[0] > 0;
        }, 60_000);
        return n[0];
    }

    /**
     * Waits until the condition holds or the time is up. An interrupt (Spark killing the task) is swallowed: this is the
     * task that goes on after its kill.
     */
    private static void awaitIgnoringInterrupts(BooleanSupplier condition, long millis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean() && System.nanoTime() < until) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException ignored) {
                // killed by Spark: carry on
            }
        }
    }
}
