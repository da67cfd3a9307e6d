package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.DeleteRowsTest.Event;
import io.wrangler.commit.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The adversarial side of a delete of rows: every way a deleted row could come back. Keyed runs keep their keys through
 * the delete's rewrite (a later rerun of one key replaces exactly its rows, and brings back none of another key's deleted
 * rows); a write that crashed before the delete, committed or not, is finished or undone by the delete's recovery before
 * it lists the table; a compaction that meets the delete on the lease either commits first (the delete then refuses, a
 * conflict, and its rerun deletes the compacted rows) or finds the delete's removed files gone (a conflict, nothing
 * changed). After each, no object under the table's prefix holds the deleted user.
 */
class DeleteResurrectionTest {
    private static final List<String> DAYS = DeleteRowsTest.DAYS;

    private final RemovalLake lake = new RemovalLake();
    private final String bucket = lake.bucket;
    private final String table = lake.table;
    private final S3Client s3 = lake.s3;

    private static List<List<Object>> sorted(List<Event> rows) {
        List<List<Object>> out = new ArrayList<>();
        rows.forEach(e -> out.add(List.of(e.user_id(), e.amount(), e.dt())));
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }

    private List<List<Object>> sortedContents() {
        List<List<Object>> out = new ArrayList<>(lake.contents());
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }

    private static List<Event> without(List<Event> rows, String user) {
        return rows.stream().filter(e -> !e.user_id().equals(user)).toList();
    }

    @Test
    void aKeyedRerunAfterADeleteReplacesItsOwnRowsAndBringsBackNoDeletedRow() {
        List<Event> k1 = DeleteRowsTest.events(List.of("u-1", "u-2"), DAYS, 2, 0);
        List<Event> k2 = DeleteRowsTest.events(List.of("u-2", "u-3"), DAYS, 2, 100);
        lake.keyed("load-1", k1);
        lake.keyed("load-2", k2);
        DeleteResult d = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).run();
        assertThat(d.rowsDeleted()).isEqualTo(12);
        // the rewritten files hold rows of both keys: marked, their key runs in their footers
        assertThat(TestLake.keys(bucket, "t/dt=")).allMatch(k -> k.contains("_k."));
        assertThat(sortedContents()).isEqualTo(sorted(concat(without(k1, "u-2"), without(k2, "u-2"))));

        // load-1 runs again with corrected rows (and without the erased user): its rows are replaced, nothing else
        List<Event> k1again = DeleteRowsTest.events(List.of("u-1"), DAYS, 3, 500);
        lake.keyed("load-1", k1again);
        assertThat(sortedContents()).isEqualTo(sorted(concat(k1again, without(k2, "u-2"))));
        // load-2 runs again with the erased user's rows removed from its input, as the erasure requires of the source
        List<Event> k2again = without(k2, "u-2");
        lake.keyed("load-2", k2again);
        assertThat(sortedContents()).isEqualTo(sorted(concat(k1again, k2again)));
        DeleteRowsTest.noObjectHolds(bucket, "t/", "u-2");
    }

    @Test
    void aWriteThatCrashedPastItsCommitPointBeforeTheDeleteIsFinishedFirstThenItsRowsDeleted() {
        List<Event> first = DeleteRowsTest.events(List.of("u-1", "u-2"), DAYS, 2, 0);
        S3Parquet.write(first).partitionBy("dt").s3(s3).to(table);
        List<Event> late = DeleteRowsTest.events(List.of("u-2", "u-3"), DAYS.subList(1, 3), 2, 100);
        assertThatThrownBy(() -> S3Parquet.write(late).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3)
                .stepHook(RemovalLake.crashAt(Step.COPIED_FILE)).to(table)).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);

        DeleteResult d = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).tuning(Tunings.pastLeases()).run();

        // the overwrite was rolled forward first (days 16 and 17 are its rows), then u-2 deleted everywhere
        assertThat(sortedContents()).isEqualTo(sorted(concat(without(first.subList(0, 4), "u-2"), without(late, "u-2"))));
        assertThat(d.rowsDeleted()).isEqualTo(2 + 4);
        DeleteRowsTest.noObjectHolds(bucket, "t/", "u-2");
    }

    @Test
    void aWriteThatCrashedBeforeItsCommitPointLeavesNoStagedRowOfTheUser() {
        S3Parquet.write(DeleteRowsTest.events(List.of("u-1", "u-2"), DAYS, 2, 0)).partitionBy("dt").s3(s3).to(table);
        assertThatThrownBy(() -> S3Parquet.write(DeleteRowsTest.events(List.of("u-2"), DAYS, 1, 100)).partitionBy("dt")
                .mode(WriteMode.APPEND).s3(s3).stepHook(RemovalLake.crashAt(Step.MANIFEST_WRITTEN)).to(table))
                .isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).anyMatch(k -> k.endsWith(".parquet"));

        S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).tuning(Tunings.pastLeases()).run();

        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t")).containsExactly(List.of(6L));
        DeleteRowsTest.noObjectHolds(bucket, "t/", "u-2");
    }

    /**
     * A compaction holds the lease with the user's rows staged; the delete lists the table meanwhile and waits for the
     * lease. The compaction commits first: the files the delete chose are gone, so the delete refuses (a conflict,
     * nothing changed) rather than leave the compacted copy of the rows; run again, it deletes them.
     */
    @Test
    void aCompactionThatCommitsWhileTheDeleteWaitsMakesTheDeleteAConflictNeverAResurrection() throws Exception {
        S3Client local = s3;
        for (int run = 0; run < 2; run++) {
            S3Parquet.write(DeleteRowsTest.events(List.of("u-1", "u-2"), DAYS.subList(0, 1), 2, run * 10L)).partitionBy("dt")
                    .mode(WriteMode.APPEND).s3(local).to(table);
        }
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<CompactionResult> compaction = CompletableFuture.supplyAsync(() -> S3Parquet.compact(table).s3(local)
                .stepHook(RemovalLake.holdAt(Step.LISTED_OLD_FILES, held, release)).run());
        assertThat(held.await(60, TimeUnit.SECONDS)).isTrue();
        TestLake.memory().clearRequests();
        CompletableFuture<DeleteResult> delete = CompletableFuture.supplyAsync(() -> S3Parquet.deleteRows(table)
                .keys("user_id", List.of("u-2")).leaseWait(Duration.ofSeconds(60)).s3(local).run());
        lake.awaitSecondAcquire("the delete waits for the lease");
        release.countDown();
        assertThat(Stalls.within(compaction, 60, bucket).filesBefore()).isEqualTo(2);
        Throwable failure = Stalls.failureOf(delete);
        assertThat(failure).isInstanceOf(CommitConflictException.class);
        assertThat(failure.getMessage()).startsWith("Cannot delete rows of " + table + " (step: ");
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t WHERE user_id = 'u-2'")).containsExactly(List.of(4L));

        DeleteResult d = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(local).run();
        assertThat(d.rowsDeleted()).isEqualTo(4);
        assertThat(TestLake.query(bucket, "t/", "SELECT user_id, count(*) FROM t GROUP BY ALL")).containsExactly(List.of("u-1", 4L));
        DeleteRowsTest.noObjectHolds(bucket, "t/", "u-2");
    }

    /**
     * The delete holds the lease past its staging; a compaction lists the table (the files the delete replaces among them)
     * and waits. Once the delete commits, the compaction finds those files gone: a conflict, nothing changed, no row back.
     */
    @Test
    void aCompactionThatListedBeforeTheDeleteCommittedFindsItsFilesGoneAndChangesNothing() throws Exception {
        S3Client local = s3;
        for (int run = 0; run < 2; run++) {
            S3Parquet.write(DeleteRowsTest.events(List.of("u-1", "u-2"), DAYS.subList(0, 1), 2, run * 10L)).partitionBy("dt")
                    .mode(WriteMode.APPEND).s3(local).to(table);
        }
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<DeleteResult> delete = CompletableFuture.supplyAsync(() -> S3Parquet.deleteRows(table)
                .keys("user_id", List.of("u-2")).s3(local).stepHook(RemovalLake.holdAt(Step.LISTED_OLD_FILES, held, release)).run());
        assertThat(held.await(60, TimeUnit.SECONDS)).isTrue();
        TestLake.memory().clearRequests();
        CompletableFuture<CompactionResult> compaction = CompletableFuture.supplyAsync(() -> S3Parquet.compact(table)
                .leaseWait(Duration.ofSeconds(60)).s3(local).run());
        lake.awaitSecondAcquire("the compaction waits for the lease");
        release.countDown();
        assertThat(Stalls.within(delete, 60, bucket).rowsDeleted()).isEqualTo(4);
        Throwable failure = Stalls.failureOf(compaction);
        assertThat(failure).isInstanceOf(CommitConflictException.class);
        assertThat(TestLake.query(bucket, "t/", "SELECT user_id, count(*) FROM t GROUP BY ALL")).containsExactly(List.of("u-1", 4L));
        DeleteRowsTest.noObjectHolds(bucket, "t/", "u-2");
    }

    @SafeVarargs
    private static List<Event> concat(List<Event>... parts) {
        List<Event> out = new ArrayList<>();
        for (List<Event> p : parts) {
            out.addAll(p);
        }
        return out;
    }
}
