package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A crash at every step boundary of the commit protocol, then a rerun of the same write or a recovery, gives
 * the result of one clean run. The crash is simulated in-process by an Error thrown from the step hook: the
 * write does no cleanup after an Error, as a killed process would not.
 */
class CrashRecoveryTest {
    static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;

        SimulatedCrash(Enum<?> step, int count) {
            super("simulated crash at " + step + " #" + count);
        }
    }

    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private static final LocalDate D17 = LocalDate.of(2024, 1, 17);
    private static final List<Order> FIRST = Orders.orders("v1", List.of(D15, D16), List.of("RU", "DE"), 2);
    private static final List<Order> SECOND = Orders.orders("v2", List.of(D16, D17), List.of("RU"), 3);

    record Point(Step step, int count) {
        @Override
        public String toString() {
            return step + "#" + count;
        }
    }

    static Stream<Arguments> crashes() {
        List<Point> points = List.of(new Point(Step.STAGED_FILE, 1), new Point(Step.STAGED_FILE, 4), new Point(Step.MANIFEST_WRITTEN, 1),
                new Point(Step.LISTED_OLD_FILES, 1), new Point(Step.COPIED_FILE, 1), new Point(Step.COPIED_FILE, 5),
                new Point(Step.DELETED_BATCH, 1), new Point(Step.BEFORE_CATALOG, 1), new Point(Step.BEFORE_CLEANUP, 1),
                new Point(Step.STAGING_REMOVED, 1));
        List<Arguments> out = new ArrayList<>();
        for (WriteMode mode : WriteMode.values()) {
            int i = 0;
            for (Point p : points) {
                if (mode == WriteMode.APPEND && p.step == Step.DELETED_BATCH) {
                    continue; // an append deletes nothing
                }
                out.add(Arguments.of(mode, p, true, CommitMethod.STAGE_AND_COPY));
                out.add(Arguments.of(mode, p, false, CommitMethod.STAGE_AND_COPY));
                // Deferred uploads at every point too, rerun and recovery taking turns (each case waits out a lease).
                out.add(Arguments.of(mode, p, i++ % 2 == 0, CommitMethod.DEFERRED_UPLOADS));
            }
        }
        return out.stream();
    }

    private static WriteResult write(String table, List<Order> rows, WriteMode mode, Point crashAt) {
        return write(table, rows, mode, crashAt, CommitMethod.STAGE_AND_COPY);
    }

    private static WriteResult write(String table, List<Order> rows, WriteMode mode, Point crashAt, CommitMethod method) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).maxRowsPerFile(1).commitMethod(method)
                .tuning(Tunings.smallDeleteBatches())
                .stepHook((step, n) -> {
                    if (crashAt != null && step == crashAt.step && n == crashAt.count) {
                        throw new SimulatedCrash(step, n);
                    }
                })
                .s3(TestLake.memory().client()).to(table);
    }

    private static List<List<Object>> contents(String bucket) {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\", \"amountCents\" FROM t ORDER BY ALL");
    }

    /** {@link #clean} by its arguments: the same for every crash point, so each is written and read once per JVM. */
    private static final Map<List<Object>, List<List<Object>>> CLEAN = new ConcurrentHashMap<>();

    /** The table after the first write, and after the first then the second, each run cleanly (once, then remembered). */
    private static List<List<Object>> clean(WriteMode mode, boolean withSecond) {
        return CLEAN.computeIfAbsent(List.of(withSecond ? mode : WriteMode.APPEND, withSecond), k -> cleanRun(mode, withSecond));
    }

    private static List<List<Object>> cleanRun(WriteMode mode, boolean withSecond) {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        write(table, FIRST, WriteMode.APPEND, null);
        if (withSecond) {
            write(table, SECOND, mode, null);
        }
        return contents(bucket);
    }

    @ParameterizedTest(name = "{0} crash at {1}, rerun={2}, {3}")
    @MethodSource("crashes")
    void crashThenRerunOrRecoverGivesACleanRun(WriteMode mode, Point crashAt, boolean rerun, CommitMethod method) {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        TestLake.memory().put(bucket, "t_backup/sentinel", new byte[] {1});
        TestLake.memory().put(bucket, "sentinel", new byte[] {2});
        write(table, FIRST, WriteMode.APPEND, null);

        assertThatThrownBy(() -> write(table, SECOND, mode, crashAt, method)).isInstanceOf(SimulatedCrash.class);

        List<List<Object>> before = clean(mode, false);
        List<List<Object>> after = clean(mode, true);
        if (rerun) {
            WriteResult r = write(table, SECOND, mode, null, method);
            assertThat(contents(bucket)).isEqualTo(after);
            assertThat(r.rows()).isEqualTo(SECOND.size());
            // The rerun found the crashed write and resolved it before its own: past the commit point an overwrite is
            // finished (rolled forward), anything else undone.
            if (mode != WriteMode.APPEND && crashAt.step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal()) {
                assertThat(r.recovered().rolledForward()).hasSize(1);
                assertThat(r.recovered().rolledBack()).isEmpty();
            } else {
                assertThat(r.recovered().rolledForward()).isEmpty();
                assertThat(r.recovered().rolledBack()).hasSizeLessThanOrEqualTo(1);
                if (crashAt.step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal()) {
                    assertThat(r.recovered().rolledBack()).hasSize(1);
                }
            }
        } else {
            RecoveryResult r = Tunings.recover(table, TestLake.memory().client());
            // Overwrites are committed by their manifest; appends and anything before the manifest are undone.
            boolean committed = mode != WriteMode.APPEND && crashAt.step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
            assertThat(contents(bucket)).isEqualTo(committed ? after : before);
            if (committed) {
                assertThat(r.rolledForward()).hasSize(1);
                assertThat(r.rolledBack()).isEmpty();
            } else {
                assertThat(r.rolledForward()).isEmpty();
                // Uploads run in the background: a crash while staging may leave nothing staged at all.
                assertThat(r.rolledBack()).hasSizeLessThanOrEqualTo(1);
                if (crashAt.step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal()) {
                    assertThat(r.rolledBack()).hasSize(1);
                }
            }
            assertThat(Tunings.recover(table, TestLake.memory().client()).isEmpty()).as("recovery is idempotent").isTrue();
        }
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(TestLake.keys(bucket, "")).contains("t_backup/sentinel", "sentinel");
    }
}
