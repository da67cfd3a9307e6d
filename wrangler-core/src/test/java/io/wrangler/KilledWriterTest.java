package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The writer runs in a child JVM that is killed with SIGKILL at a step boundary of the commit protocol (no cleanup,
 * no finally blocks: a real crash). The same write is then rerun, or the table recovered, and the table is checked:
 * the rows of one clean run (read back with DuckDB), no {@code _tmp/} left, no open multipart upload.
 *
 * <p>Its 17 cases are split by write mode into two classes ({@link KilledOverwriteTest}, {@link KilledAppendTest}), so
 * that the test JVMs of wrangler-core's build run them side by side: as one class of 17 child JVMs one after the other it
 * was the module's last stretch, one JVM busy while the others were done.
 */
abstract class KilledWriterTest {
    static final List<Order> FIRST = Orders.orders("v1", List.of(LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16)), List.of("RU", "DE"), 2);
    static final List<Order> SECOND = Orders.orders("v2", List.of(LocalDate.of(2024, 1, 16), LocalDate.of(2024, 1, 17)), List.of("RU"), 3);

    static WriteBuilder write(WriteBuilder w, WriteMode mode) {
        return w.partitionBy("dt", "country").mode(mode).maxRowsPerFile(1).tuning(Tunings.smallDeleteBatches());
    }

    /** The cases of one write mode, numbered as in the whole list (rerun and recovery alternate over it). */
    static Stream<Arguments> killsOf(WriteMode of) {
        return kills().filter(a -> a.get()[0] == of);
    }

    private static Stream<Arguments> kills() {
        List<Arguments> out = new ArrayList<>();
        Step[] steps = {Step.STAGED_FILE, Step.MANIFEST_WRITTEN, Step.COPIED_FILE, Step.DELETED_BATCH, Step.BEFORE_CATALOG,
                Step.BEFORE_CLEANUP, Step.STAGING_REMOVED};
        int i = 0;
        for (WriteMode mode : List.of(WriteMode.OVERWRITE_PARTITIONS, WriteMode.APPEND)) {
            for (Step step : steps) {
                if (mode == WriteMode.APPEND && step == Step.DELETED_BATCH) {
                    continue;
                }
                out.add(Arguments.of(mode, step, step == Step.STAGED_FILE || step == Step.COPIED_FILE ? 2 : 1, i++ % 2 == 0,
                        CommitMethod.STAGE_AND_COPY));
            }
        }
        // Deferred uploads killed before the manifest (uploads open at final keys, no _tmp/ folder yet), after it, and
        // between completions.
        out.add(Arguments.of(WriteMode.OVERWRITE_PARTITIONS, Step.STAGED_FILE, 2, false, CommitMethod.DEFERRED_UPLOADS));
        out.add(Arguments.of(WriteMode.OVERWRITE_PARTITIONS, Step.MANIFEST_WRITTEN, 1, true, CommitMethod.DEFERRED_UPLOADS));
        out.add(Arguments.of(WriteMode.OVERWRITE_PARTITIONS, Step.COPIED_FILE, 2, false, CommitMethod.DEFERRED_UPLOADS));
        out.add(Arguments.of(WriteMode.APPEND, Step.COPIED_FILE, 2, false, CommitMethod.DEFERRED_UPLOADS));
        return out.stream();
    }

    /**
     * The table after one clean run of FIRST ("before") and then of SECOND in a mode (by its name): the same for every
     * case of a mode, so made once per mode rather than once per case.
     */
    private static final Map<String, List<List<Object>>> CLEAN = new ConcurrentHashMap<>();

    private static List<List<Object>> clean(WriteMode second) {
        String clean = TestLake.bucket();
        write(S3Parquet.write(FIRST), WriteMode.APPEND).s3(TestLake.s3().client()).to("s3://" + clean + "/t/");
        if (second != null) {
            write(S3Parquet.write(SECOND), second).s3(TestLake.s3().client()).to("s3://" + clean + "/t/");
        }
        return contents(clean);
    }

    private static List<List<Object>> contents(String bucket) {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\" FROM t ORDER BY ALL");
    }

    @ParameterizedTest(name = "{0} killed at {1}#{2}, rerun={3}, {4}")
    @MethodSource("cases")
    void aWriterKilledAtAStepBoundaryIsRepairedByRerunOrRecover(WriteMode mode, Step step, int count, boolean rerun,
                                                              CommitMethod method) throws Exception {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        write(S3Parquet.write(FIRST), WriteMode.APPEND).s3(TestLake.s3().client()).to(table);

        // A short-lived writer: the JIT's first tier and the serial collector start it with the least CPU.
        Process child = ChildJvm.of(CrashWriterMain.class, TestLake.s3().endpoint().toString(), table, mode.name(), step.name(),
                String.valueOf(count), method.name()).jvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC").start();
        String reached = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("AT ") || line.startsWith("FINISHED")) {
                    reached = line;
                    break;
                }
            }
            child.destroyForcibly(); // SIGKILL
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(reached).isEqualTo("AT " + step + " " + count);

        List<List<Object>> before = CLEAN.computeIfAbsent("before", k -> clean(null));
        List<List<Object>> after = CLEAN.computeIfAbsent(mode.name(), k -> clean(mode));
        assertThat(after).isNotEqualTo(before);

        if (rerun) {
            write(S3Parquet.write(SECOND), mode).commitMethod(method).s3(TestLake.s3().client()).to(table);
            assertThat(contents(bucket)).isEqualTo(after);
        } else {
            Tunings.recover(table, TestLake.s3().client());
            boolean committed = mode != WriteMode.APPEND && step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
            assertThat(contents(bucket)).isEqualTo(committed ? after : before);
        }
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }
}
