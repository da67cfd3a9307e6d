package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The operator actions and interleavings of commit protocol 2 (issue 10): each scenario lost, reverted or deleted data
 * under protocol 1. A "stalled" writer is held in its step hook while another actor, whose test clock is past every
 * lease ({@link Tunings#pastLeases()}), takes the table over, as it would after the stalled writer's lease expired.
 */
class ProtocolScenariosTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private static WriteBuilder write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).s3(TestLake.memory().client());
    }

    private List<List<Object>> contents(String prefix) {
        return TestLake.query(bucket, prefix, "SELECT CAST(dt AS VARCHAR), country, \"orderId\" FROM t ORDER BY ALL");
    }

    private static StepHookBuilder crashAt(Step step) {
        return new StepHookBuilder(step);
    }

    /** A hook that throws a simulated crash at its step. */
    private record StepHookBuilder(Step at) implements io.wrangler.spi.StepHook {
        @Override
        public void reached(Enum<?> step, int count) {
            if (step == at) {
                throw new CrashRecoveryTest.SimulatedCrash(step, count);
            }
        }
    }

    @Test
    void aKeyedRerunThatCrashesNeverDeletesTheEarlierRunsFiles() {
        List<Order> rows = Orders.orders("a", List.of(D15), List.of("RU", "DE"), 2);
        write(rows, WriteMode.APPEND).idempotencyKey("load-1").to(table);
        List<List<Object>> once = contents("t/");
        for (Step crash : List.of(Step.STAGED_FILE, Step.MANIFEST_WRITTEN, Step.COPIED_FILE, Step.BEFORE_CATALOG)) {
            assertThatThrownBy(() -> write(rows, WriteMode.APPEND).idempotencyKey("load-1").tuning(Tunings.pastLeases())
                    .stepHook(crashAt(crash)).to(table)).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
            Tunings.recover(table, TestLake.memory().client());
            assertThat(contents("t/")).as("after a crash at " + crash + " and recovery").isEqualTo(once);
        }
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aTableCopiedWithItsTmpFolderIsRefusedAndNothingIsTouched() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU"), 2), WriteMode.APPEND).to(table);
        assertThatThrownBy(() -> write(Orders.orders("b", List.of(D15), List.of("RU"), 3), WriteMode.OVERWRITE_PARTITIONS)
                .tuning(Tunings.pastLeases()).stepHook(crashAt(Step.MANIFEST_WRITTEN)).to(table))
                .isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        // The operator copies the table with its _tmp/ (aws s3 sync orders/ orders_backup/).
        for (Map.Entry<String, byte[]> e : TestLake.snapshot(bucket, "t/").entrySet()) {
            TestLake.memory().put(bucket, "t_backup/" + e.getKey().substring(2), e.getValue());
        }
        Map<String, byte[]> everything = TestLake.snapshot(bucket, "");

        assertThatThrownBy(() -> Tunings.recover("s3://" + bucket + "/t_backup/", TestLake.memory().client()))
                .isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("does not belong to this table: it records the table " + table)
                .hasMessageContaining("Nothing was touched.");
        assertThatThrownBy(() -> write(Orders.orders("c", List.of(D15), List.of("RU"), 1), WriteMode.APPEND).tuning(Tunings.pastLeases())
                .to("s3://" + bucket + "/t_backup/")).isInstanceOf(CommitStateUnknownException.class);
        Map<String, byte[]> after = TestLake.snapshot(bucket, "");
        after.keySet().removeIf(k -> k.endsWith("_lease.json"));
        everything.keySet().removeIf(k -> k.endsWith("_lease.json"));
        assertThat(after.keySet()).isEqualTo(everything.keySet());

        // The original still recovers (rolls its committed overwrite forward).
        assertThat(Tunings.recover(table, TestLake.memory().client()).rolledForward()).hasSize(1);
    }

    @Test
    void aStalledOverwriteThatLostItsLeaseStopsAndTheNewHolderFinishesIt() throws Exception {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU"), 2), WriteMode.APPEND).to(table);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> stalled = Stalls.stalledAt(write(Orders.orders("b", List.of(D15), List.of("RU"), 3),
                WriteMode.OVERWRITE_PARTITIONS), table, Step.MANIFEST_WRITTEN, 1, reached, release);
        assertThat(reached.await(60, TimeUnit.SECONDS)).isTrue();

        // Another writer takes the table over: its recovery finishes the stalled overwrite, then it replaces day 16.
        WriteResult second = write(Orders.orders("c", List.of(D16), List.of("RU"), 1), WriteMode.OVERWRITE_PARTITIONS)
                .tuning(Tunings.pastLeases()).to(table);
        assertThat(second.recovered().rolledForward()).hasSize(1);
        release.countDown();

        Throwable failure = Stalls.failureOf(stalled);
        assertThat(failure).isInstanceOf(WriteIncompleteException.class)
                .hasMessageContaining("The write is committed: the holder that took the table over finishes it");
        assertThat(contents("t/")).containsExactly(List.of("2024-01-15", "RU", "b-2024-01-15-RU-0"), List.of("2024-01-15", "RU",
                "b-2024-01-15-RU-1"), List.of("2024-01-15", "RU", "b-2024-01-15-RU-2"), List.of("2024-01-16", "RU", "c-2024-01-16-RU-0"));
        assertThat(Tunings.recover(table, TestLake.memory().client()).isEmpty()).isTrue();
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aStalledWriterBeforeItsCommitPointIsUndoneAndSaysSo() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2), WriteMode.APPEND).to(table);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> stalled = Stalls.stalledAt(write(Orders.orders("b", List.of(D15), List.of("RU"), 3),
                WriteMode.OVERWRITE_PARTITIONS).idempotencyKey("k"), table, Step.LISTED_OLD_FILES, 1, reached, release);
        assertThat(reached.await(60, TimeUnit.SECONDS)).isTrue();

        WriteResult second = write(Orders.orders("c", List.of(D15), List.of("DE"), 1), WriteMode.APPEND).idempotencyKey("k")
                .tuning(Tunings.pastLeases()).to(table);
        assertThat(second.recovered().rolledBack()).hasSize(1);
        release.countDown();

        assertThat(Stalls.failureOf(stalled)).isInstanceOf(CommitConflictException.class)
                .hasMessageContaining("This write stopped before its commit point");
        assertThat(contents("t/")).containsExactly(List.of("2024-01-15", "DE", "c-2024-01-15-DE-0"),
                List.of("2024-01-15", "RU", "a-2024-01-15-RU-0"), List.of("2024-01-15", "RU", "a-2024-01-15-RU-1"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aParentTablesRecoveryLeavesANestedTablesUploadsAloneAndAnOverwriteOverItIsRefused() throws Exception {
        String parent = "s3://" + bucket + "/lake/";
        String child = "s3://" + bucket + "/lake/orders/";
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> nested = Stalls.stalledAt(write(Orders.orders("n", List.of(D15), List.of("RU"), 2), WriteMode.APPEND)
                .commitMethod(CommitMethod.DEFERRED_UPLOADS), child, Step.MANIFEST_WRITTEN, 1, reached, release);
        assertThat(reached.await(60, TimeUnit.SECONDS)).isTrue();
        int open = TestLake.memory().openMultipartUploads(bucket, "lake/orders/").size();
        assertThat(open).isPositive();

        write(Orders.orders("p", List.of(D16), List.of("DE"), 1), WriteMode.APPEND).commitMethod(CommitMethod.DEFERRED_UPLOADS)
                .tuning(Tunings.pastLeases()).to(parent);
        assertThat(TestLake.memory().openMultipartUploads(bucket, "lake/orders/")).hasSize(open);
        assertThatThrownBy(() -> write(Orders.orders("q", List.of(D16), List.of("DE"), 1), WriteMode.OVERWRITE)
                .tuning(Tunings.pastLeases()).to(parent)).isInstanceOf(InvalidWriteException.class)
                .hasMessageContaining("tables must not nest");

        release.countDown();
        assertThat(Stalls.failureOf(nested)).isNull();
        assertThat(contents("lake/orders/")).containsExactly(List.of("2024-01-15", "RU", "n-2024-01-15-RU-0"),
                List.of("2024-01-15", "RU", "n-2024-01-15-RU-1"));
    }
}
