package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A delete of rows (an erasure request): only the files holding a matched row are rewritten, a file every row of which
 * matches is removed, the result is what DuckDB's own filter of the same objects gives, a plan is what the delete then
 * does and writes nothing, bad input is refused before anything changes, and after the delete (or a crash at any step
 * and its recovery or rerun) no object under the table's prefix holds a deleted row.
 */
class DeleteRowsTest {
    record Event(String user_id, long amount, String dt) {
    }

    static final List<String> DAYS = List.of("2024-01-15", "2024-01-16", "2024-01-17");

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    /** {@code n} events per day for each of {@code users}, amounts from {@code base}. */
    static List<Event> events(List<String> users, List<String> days, int n, long base) {
        List<Event> out = new ArrayList<>();
        long a = base;
        for (String day : days) {
            for (String u : users) {
                for (int i = 0; i < n; i++) {
                    out.add(new Event(u, a++, day));
                }
            }
        }
        return out;
    }

    private void append(List<Event> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT user_id, amount, CAST(dt AS VARCHAR) FROM t ORDER BY ALL");
    }

    /** The table as DuckDB's own filter of the same objects gives it without {@code users}' rows. */
    private List<List<Object>> duckWithout(String... users) {
        String in = java.util.Arrays.stream(users).map(u -> "'" + u + "'").collect(Collectors.joining(", "));
        return TestLake.query(bucket, "t/", "SELECT user_id, amount, CAST(dt AS VARCHAR) FROM t WHERE user_id NOT IN (" + in
                + ") ORDER BY ALL");
    }

    /**
     * Every object under the table's prefix, {@code _tmp/} included: no Parquet file holds a row of {@code user}, and no
     * other object holds the user's id at all.
     */
    static void noObjectHolds(String bucket, String prefix, String user) {
        Map<String, byte[]> all = TestLake.snapshot(bucket, prefix);
        assertThat(all).isNotEmpty();
        all.forEach((key, bytes) -> {
            if (key.endsWith(".parquet")) {
                assertThat(TestLake.queryFile(bytes, "SELECT count(*) FROM $file WHERE user_id = '" + user + "'"))
                        .as(key).containsExactly(List.of(0L));
            } else {
                assertThat(new String(bytes, StandardCharsets.ISO_8859_1)).as(key).doesNotContain(user);
            }
        });
    }

    @Test
    void anErasureRewritesOnlyTheFilesThatHoldTheUserAndRemovesThoseHoldingNothingElse() {
        append(events(List.of("u-1", "u-2"), DAYS, 2, 0));      // one file per day, both users
        append(events(List.of("u-3"), DAYS, 2, 100));           // one file per day, never the user
        append(events(List.of("u-2"), DAYS.subList(0, 1), 3, 200)); // a file of the user alone
        List<List<Object>> expected = duckWithout("u-2");
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");

        DeleteResult r = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).run();

        assertThat(r.applied()).isTrue();
        assertThat(r.rowsDeleted()).isEqualTo(2 * 3 + 3);
        assertThat(r.filesRewritten()).hasSize(3);
        assertThat(r.filesRemoved()).hasSize(1);
        assertThat(r.partitions()).containsExactlyInAnyOrder(table + "dt=2024-01-15/", table + "dt=2024-01-16/", table + "dt=2024-01-17/");
        assertThat(contents()).isEqualTo(expected).hasSize(2 * 3 + 2 * 3);
        // the files of u-3 are untouched, byte for byte
        Map<String, byte[]> after = TestLake.snapshot(bucket, "t/");
        before.forEach((k, v) -> {
            boolean kept = after.containsKey(k);
            String uri = "s3://" + bucket + "/" + k;
            assertThat(kept).as(k).isEqualTo(!r.filesRewritten().contains(uri) && !r.filesRemoved().contains(uri));
            if (kept) {
                assertThat(after.get(k)).isEqualTo(v);
            }
        });
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        noObjectHolds(bucket, "t/", "u-2");
    }

    @Test
    void aPlanIsWhatTheDeleteThenDoesAndSendsNoRequestThatWrites() {
        append(events(List.of("u-1", "u-2"), DAYS, 2, 0));
        append(events(List.of("u-2"), DAYS.subList(1, 2), 2, 50));
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        TestLake.memory().clearRequests();

        DeleteResult planned = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).filter(PartitionFilter.in("dt",
                "2024-01-16", "2024-01-17")).s3(s3).plan();

        assertThat(TestLake.memory().requests()).extracting(q -> q.operation())
                .allMatch(op -> op.equals("GetObject") || op.equals("ListObjectsV2") || op.equals("HeadObject") || op.equals("HeadBucket"));
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(planned.applied()).isFalse();
        assertThat(planned.write()).isNull();

        DeleteResult done = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).filter(PartitionFilter.in("dt",
                "2024-01-16", "2024-01-17")).s3(s3).run();
        assertThat(done.applied()).isTrue();
        assertThat(List.of(done.rowsDeleted(), done.filesRewritten(), done.filesRemoved(), done.partitions()))
                .isEqualTo(List.of(planned.rowsDeleted(), planned.filesRewritten(), planned.filesRemoved(), planned.partitions()));
        assertThat(planned.rowsDeleted()).isEqualTo(6);
        assertThat(planned.filesRemoved()).hasSize(1);
        // the day outside the filter keeps the user's rows
        assertThat(TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), count(*) FROM t WHERE user_id = 'u-2' GROUP BY ALL"))
                .containsExactly(List.of("2024-01-15", 2L));
    }

    @Test
    void aDeleteThatMatchesNothingIsANoOpThatSaysSo() {
        append(events(List.of("u-1"), DAYS, 2, 0));
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        DeleteResult r = S3Parquet.deleteRows(table).keys("user_id", List.of("nobody")).s3(s3).run();
        assertThat(r).isEqualTo(new DeleteResult(table, false, 0, List.of(), List.of(), List.of(), null));
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void badInputIsRefusedBeforeAnythingChanges() {
        append(events(List.of("u-1"), DAYS, 2, 0));
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        String head = "Cannot delete rows of " + table + " (step: validate): ";
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).s3(s3).run()).isInstanceOf(InvalidWriteException.class)
                .hasMessage(head + "no rows are chosen. Give where(rowFilter) or keys(column, values) for the rows to delete, or everyRow() to delete "
                        + "every row of the partitions filter(...) passes; a delete with no predicate is never assumed; nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user", List.of("u-1")).s3(s3).run()).isInstanceOf(InvalidWriteException.class)
                .hasMessage(head + "the row filter user IN ('u-1') names the column 'user', which the table does not have; its columns are "
                        + "[user_id, amount, dt]. Filter on a column of the table. Nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("amount", List.of("7")).s3(s3).run()).isInstanceOf(InvalidWriteException.class)
                .hasMessage(head + "the row filter amount IN ('7') compares the column 'amount', of type Int(64, true), with the String '7'; "
                        + "that column takes a Long, Integer, Short, Byte or BigInteger. Give the literal that type. Nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user_id", List.of()).s3(s3).run()).isInstanceOf(InvalidWriteException.class)
                .hasMessage(head + "keys(\"user_id\", ...) has no values, so it would match no row. Give at least one value; nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user_id", java.util.Arrays.asList("u-1", null)).s3(s3).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(head + "keys(\"user_id\", ...) holds a null value, and a null matches no row. Leave nulls out, or delete them "
                        + "with where(RowFilter.isNull(...)); nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user_id", List.of("u-1")).everyRow().s3(s3).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(head + "more than one of where(...), keys(...) and everyRow() is given. Give one of them; nothing was changed.");
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
    }

    /** A row filter deletes where it is true and keeps where it is false or unknown, as DuckDB's own DELETE ... WHERE. */
    @Test
    void aRowFilterDeletesExactlyWhatDuckDbsDeleteWhereDeletes() {
        append(events(List.of("u-1", "u-2", "u-3"), DAYS, 3, 0));
        RowFilter f = RowFilter.or(RowFilter.eq("user_id", "u-1"), RowFilter.and(RowFilter.gt("amount", 20L), RowFilter.lt("amount", 25L)));
        List<List<Object>> expected = TestLake.query(bucket, "t/", "SELECT user_id, amount, CAST(dt AS VARCHAR) FROM t WHERE NOT "
                + "(user_id = 'u-1' OR (amount > 20 AND amount < 25)) ORDER BY ALL");
        DeleteResult r = S3Parquet.deleteRows(table).where(f).s3(s3).run();
        assertThat(contents()).isEqualTo(expected);
        assertThat(r.rowsDeleted()).isEqualTo(27 - expected.size());
        noObjectHolds(bucket, "t/", "u-1");
    }

    @Test
    void everyRowOfTheFilteredPartitionsIsDeletedOnlyWhenAskedFor() {
        append(events(List.of("u-1", "u-2"), DAYS, 2, 0));
        DeleteResult r = S3Parquet.deleteRows(table).everyRow().filter(PartitionFilter.in("dt", "2024-01-15")).s3(s3).run();
        assertThat(r.rowsDeleted()).isEqualTo(4);
        assertThat(r.filesRemoved()).hasSize(1);
        assertThat(TestLake.keys(bucket, "t/dt=2024-01-15/")).isEmpty();
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t")).containsExactly(List.of(8L));
    }

    /**
     * A reader of the table while the delete is cut short sees it before (committed, nothing deleted yet: its new files
     * are left out) or after (its deletes started: the files it replaces are left out), never both or neither.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(value = Step.class, names = {"STARTED", "MANIFEST_WRITTEN", "COPIED_FILE", "DELETED_BATCH",
            "BEFORE_CATALOG"})
    void aReaderSeesTheTableBeforeOrAfterTheDelete(Step at) {
        append(events(List.of("u-1", "u-2"), DAYS, 2, 0));
        append(events(List.of("u-2", "u-3"), DAYS, 2, 100));
        append(events(List.of("u-2"), DAYS, 1, 200));
        long all = S3Parquet.read(table).s3(s3).count();
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).tuning(Tunings.smallDeleteBatches())
                .stepHook((step, n) -> {
                    if (step == at) {
                        throw new CrashRecoveryTest.SimulatedCrash(step, n);
                    }
                }).run()).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        boolean after = at == Step.DELETED_BATCH || at == Step.BEFORE_CATALOG;
        assertThat(S3Parquet.read(table).s3(s3).count()).isEqualTo(after ? all - 15 : all);
        Tunings.recover(table, s3);
        assertThat(S3Parquet.read(table).s3(s3).count()).isEqualTo(at == Step.STARTED ? all : all - 15);
    }

    static List<Arguments> crashes() {
        List<Arguments> out = new ArrayList<>();
        for (Step s : List.of(Step.STARTED, Step.STAGED_FILE, Step.LISTED_OLD_FILES, Step.MANIFEST_WRITTEN, Step.COPIED_FILE,
                Step.DELETED_BATCH, Step.BEFORE_CATALOG, Step.BEFORE_CLEANUP, Step.STAGING_REMOVED)) {
            out.add(Arguments.of(s, true));
            out.add(Arguments.of(s, false));
        }
        return out;
    }

    /**
     * A crash at any step, then a recovery (or the delete run again): the table is as one clean delete leaves it, its rows
     * as DuckDB's own filter gives them, and no object under the prefix holds a deleted row.
     */
    @ParameterizedTest(name = "{0}, rerun {1}")
    @MethodSource("crashes")
    void aCrashAtAnyStepThenRecoveryOrRerunLeavesExactlyOneDelete(Step at, boolean rerun) {
        append(events(List.of("u-1", "u-2"), DAYS, 2, 0));
        append(events(List.of("u-2"), DAYS.subList(0, 1), 2, 100));
        append(events(List.of("u-3"), DAYS.subList(0, 2), 1, 200));
        List<List<Object>> expected = duckWithout("u-2");
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).stepHook((step, n) -> {
            if (step == at) {
                throw new CrashRecoveryTest.SimulatedCrash(step, n);
            }
        }).run()).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        boolean committed = at.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
        if (rerun) {
            DeleteResult r = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).tuning(Tunings.pastLeases()).run();
            assertThat(r.applied()).isEqualTo(!committed);
        } else {
            Tunings.recover(table, s3);
        }
        if (committed || rerun) {
            assertThat(contents()).isEqualTo(expected);
            noObjectHolds(bucket, "t/", "u-2");
        } else {
            assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t WHERE user_id = 'u-2'")).containsExactly(List.of(8L));
        }
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
