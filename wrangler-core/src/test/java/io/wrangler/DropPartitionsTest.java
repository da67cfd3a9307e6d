package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A drop of partitions (a retention job): every file of the chosen partitions goes in one commit, a plan is what the drop
 * then does and writes nothing, a filter matching nothing is a no-op, bad input is refused before anything changes, a
 * crash at any step then recovery or a rerun leaves exactly one drop, and a file that came into a dropped partition
 * between the drop's listing and its lease is a conflict, never deleted unseen.
 */
class DropPartitionsTest {
    private static final List<String> DAYS = List.of("2024-01-13", "2024-01-14", "2024-01-15", "2024-01-16", "2024-01-17");

    private final RemovalLake lake = new RemovalLake();
    private final String bucket = lake.bucket;
    private final String table = lake.table;
    private final S3Client s3 = lake.s3;

    private void fill() {
        lake.append(DeleteRowsTest.events(List.of("u-1", "u-2"), DAYS, 2, 0));
        lake.append(DeleteRowsTest.events(List.of("u-3"), DAYS.subList(0, 3), 1, 100));
    }

    /** Days before {@code cutoff}: the retention job's filter. */
    static PartitionFilter olderThan(String cutoff) {
        LocalDate c = LocalDate.parse(cutoff);
        return PartitionFilter.where(p -> LocalDate.parse(p.get("dt")).isBefore(c));
    }

    private List<List<Object>> duckFrom(String cutoff) {
        return TestLake.query(bucket, "t/", "SELECT user_id, amount, CAST(dt AS VARCHAR) FROM t WHERE dt >= DATE '" + cutoff
                + "' ORDER BY ALL");
    }

    /**
     * Found by TableHistoryPropertyTest (seed 30085): once a delete has emptied every partition, the table holds no
     * partition folder, and the listing called the retention job's predicate with no partition values (its
     * {@code p.get("dt")} null: a NullPointerException out of the user's code) instead of finding nothing to drop.
     */
    @Test
    void aRetentionJobOnATableEveryRowOfWhichWasDeletedIsANoOp() {
        fill();
        assertThat(S3Parquet.deleteRows(table).everyRow().s3(s3).run().rowsDeleted()).isEqualTo(2 * 2 * 5 + 3);
        DropResult r = S3Parquet.dropPartitions(table).filter(olderThan("2024-01-15")).s3(s3).run();
        assertThat(r).isEqualTo(new DropResult(table, false, List.of(), List.of(), null));
        assertThat(TestLake.keys(bucket, "t/").stream().filter(k -> k.endsWith(".parquet")).toList()).isEmpty();
    }

    @Test
    void aRetentionJobDropsTheOldDaysAndNothingElse() {
        fill();
        List<List<Object>> expected = duckFrom("2024-01-15");
        Map<String, byte[]> kept = TestLake.snapshot(bucket, "t/dt=2024-01-15/");
        DropResult r = S3Parquet.dropPartitions(table).filter(olderThan("2024-01-15")).s3(s3).run();
        assertThat(r.applied()).isTrue();
        assertThat(r.partitions()).containsExactlyInAnyOrder(table + "dt=2024-01-13/", table + "dt=2024-01-14/");
        assertThat(r.filesDeleted()).hasSize(4);
        assertThat(r.write().partitions()).extracting(PartitionResult::rows).containsOnly(0L);
        assertThat(lake.contents()).isEqualTo(expected).hasSize(3 * 4 + 1);
        assertThat(TestLake.keys(bucket, "t/dt=2024-01-13/")).isEmpty();
        assertThat(TestLake.keys(bucket, "t/dt=2024-01-14/")).isEmpty();
        assertThat(TestLake.snapshot(bucket, "t/dt=2024-01-15/")).containsExactlyInAnyOrderEntriesOf(kept);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        // run again: nothing older is left, a no-op
        DropResult again = S3Parquet.dropPartitions(table).filter(olderThan("2024-01-15")).s3(s3).run();
        assertThat(again).isEqualTo(new DropResult(table, false, List.of(), List.of(), null));
    }

    @Test
    void aPlanIsWhatTheDropThenDoesAndSendsNoRequestThatWrites() {
        fill();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        TestLake.memory().clearRequests();
        DropResult planned = S3Parquet.dropPartitions(table).filter(olderThan("2024-01-16")).s3(s3).plan();
        assertThat(TestLake.memory().requests()).extracting(MemoryS3.Request::operation)
                .allMatch(op -> op.equals("GetObject") || op.equals("ListObjectsV2") || op.equals("HeadObject") || op.equals("HeadBucket"));
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        DropResult done = S3Parquet.dropPartitions(table).filter(olderThan("2024-01-16")).s3(s3).run();
        assertThat(planned.applied()).isFalse();
        assertThat(done.applied()).isTrue();
        assertThat(List.of(done.partitions(), done.filesDeleted())).isEqualTo(List.of(planned.partitions(), planned.filesDeleted()));
        assertThat(planned.partitions()).hasSize(3);
    }

    @Test
    void badInputIsRefusedAndAFilterMatchingNothingIsANoOp() {
        fill();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        assertThatThrownBy(() -> S3Parquet.dropPartitions(table).s3(s3).run()).isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot drop partitions of " + table + " (step: validate): no filter(...) was given. Give the partitions to "
                        + "drop with filter(...), or filter(PartitionFilter.all()) to drop every partition; nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.dropPartitions(table).filter(PartitionFilter.in("user_id", "u-1")).s3(s3).run())
                .isInstanceOf(InvalidReadException.class)
                .hasMessageStartingWith("Cannot drop partitions of " + table + " (step: list): the partition filter ");
        assertThat(S3Parquet.dropPartitions(table).filter(PartitionFilter.in("dt", "1999-01-01")).s3(s3).run())
                .isEqualTo(new DropResult(table, false, List.of(), List.of(), null));
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);

        String flat = "s3://" + bucket + "/flat/";
        S3Parquet.write(DeleteRowsTest.events(List.of("u-1"), DAYS, 1, 0)).s3(s3).to(flat);
        assertThatThrownBy(() -> S3Parquet.dropPartitions(flat).filter(PartitionFilter.all()).s3(s3).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot drop partitions of " + flat + " (step: validate): the table has no partition columns. Delete its "
                        + "rows with deleteRows(...), or overwrite it; nothing was changed.");
    }

    @ParameterizedTest(name = "{0}, rerun {1}")
    @MethodSource("io.wrangler.RemovalLake#crashes")
    void aCrashAtAnyStepThenRecoveryOrRerunLeavesExactlyOneDrop(Step at, boolean rerun) {
        fill();
        List<List<Object>> before = lake.contents();
        List<List<Object>> expected = duckFrom("2024-01-15");
        assertThatThrownBy(() -> S3Parquet.dropPartitions(table).filter(olderThan("2024-01-15")).s3(s3).tuning(Tunings.smallDeleteBatches())
                .stepHook(RemovalLake.crashAt(at)).run()).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        boolean committed = at.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
        if (rerun) {
            DropResult r = S3Parquet.dropPartitions(table).filter(olderThan("2024-01-15")).s3(s3).tuning(Tunings.pastLeases()).run();
            assertThat(r.applied()).isEqualTo(!committed);
        } else {
            Tunings.recover(table, s3);
        }
        assertThat(lake.contents()).isEqualTo(committed || rerun ? expected : before);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    /**
     * An append to a partition being dropped commits while the drop, having listed the table, waits for the lease: the
     * drop's look under the lease finds the new file and refuses (a conflict, nothing changed), never deleting a file it
     * did not list; run again, it drops the partition with the appended rows.
     */
    @Test
    void aFileThatCameIntoADroppedPartitionBeforeTheLeaseIsAConflict() throws Exception {
        fill();
        String prefix = "t/_tmp/_lease.json";
        MemoryS3.Hold lease = TestLake.memory().holdOnceWhereKeyContains("PutObject", prefix);
        CompletableFuture<DropResult> drop = CompletableFuture.supplyAsync(() -> S3Parquet.dropPartitions(table)
                .filter(olderThan("2024-01-15")).leaseWait(Duration.ofSeconds(60)).s3(s3).run());
        try {
            assertThat(lease.awaitHeld(Duration.ofSeconds(60))).as("the drop asked for the lease").isTrue();
            lake.append(DeleteRowsTest.events(List.of("u-9"), DAYS.subList(0, 1), 1, 900));
        } finally {
            lease.release();
        }
        Throwable failure = Stalls.failureOf(drop);
        assertThat(failure).isInstanceOf(CommitConflictException.class);
        assertThat(failure.getMessage()).startsWith("Cannot drop partitions of " + table + " (step: check): the file s3://" + bucket
                + "/t/dt=2024-01-13/").endsWith(" came into a partition it drops after it listed the table and before it took the "
                + "lease. Nothing was changed: its staging was removed before the commit point; run it again.");
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t WHERE dt < DATE '2024-01-15'")).containsExactly(List.of(11L));
        assertThat(S3Parquet.dropPartitions(table).filter(olderThan("2024-01-15")).s3(s3).run().filesDeleted()).hasSize(5);
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t WHERE dt < DATE '2024-01-15'")).containsExactly(List.of(0L));
    }
}
