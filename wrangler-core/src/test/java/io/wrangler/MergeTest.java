package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CrashRecoveryTest.SimulatedCrash;
import io.wrangler.commit.Step;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Merge by key: the table after a merge is what DuckDB computes from the same objects before it (its own anti-join and
 * union), only files holding a matched key are rewritten, a rerun leaves the same table, a crash at any step is
 * recovered to before or after, bad input is refused before anything changes, and plan() is what the merge then does.
 */
class MergeTest {
    record Event(long event_id, String payload, long updated_at, LocalDate event_date) {
    }

    record Seen(long event_id, String payload, long updated_at, String event_date) {
    }

    private static final java.util.Comparator<List<Object>> ROWS = java.util.Comparator.<List<Object>, Long>comparing(r -> (Long) r.get(0))
            .thenComparing(r -> (String) r.get(1)).thenComparing(r -> (Long) r.get(2)).thenComparing(r -> (String) r.get(3));

    private static final LocalDate D1 = LocalDate.of(2024, 1, 1);
    private static final LocalDate D2 = LocalDate.of(2024, 1, 2);
    private static final LocalDate D3 = LocalDate.of(2024, 1, 3);
    private static final String SELECT = "SELECT event_id, payload, updated_at, CAST(event_date AS VARCHAR) FROM t ORDER BY ALL";

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    /** Ids 1-4 on D1, 11-14 on D2, 21-24 on D3; each day written as two files (two appends) so a merge can leave one. */
    private void seed() {
        for (LocalDate d : List.of(D1, D2, D3)) {
            long base = (d.getDayOfMonth() - 1) * 10L;
            write(List.of(new Event(base + 1, "a", 1, d), new Event(base + 2, "a", 1, d)));
            write(List.of(new Event(base + 3, "a", 1, d), new Event(base + 4, "a", 1, d)));
        }
    }

    private void write(List<Event> rows) {
        S3Parquet.write(rows).partitionBy("event_date").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", SELECT);
    }

    /** What DuckDB makes of the table before the merge and the input: its own anti-join and union (input wins). */
    private List<List<Object>> duckMerge(List<Event> input) {
        String values = input.stream().map(e -> "(" + e.event_id() + ", '" + e.payload() + "', " + e.updated_at() + ", DATE '"
                + e.event_date() + "')").collect(Collectors.joining(", "));
        return TestLake.query(bucket, "t/", "WITH i(event_id, payload, updated_at, event_date) AS (VALUES " + values + ") "
                + "SELECT event_id, payload, updated_at, CAST(event_date AS VARCHAR) FROM ("
                + "SELECT event_id, payload, updated_at, CAST(event_date AS DATE) AS event_date FROM t WHERE event_id NOT IN (SELECT event_id FROM i) "
                + "UNION ALL SELECT * FROM i) ORDER BY ALL");
    }

    private MergeBuilder merge(List<Event> input) {
        return S3Parquet.merge(input).on("event_id").s3(s3);
    }

    /** An update on D1, an insert on D2, and id 23 corrected from D3 to D2 (the scope covers D3). */
    private static List<Event> late() {
        return List.of(new Event(2, "b", 2, D1), new Event(15, "new", 2, D2), new Event(23, "moved", 2, D2));
    }

    private static PartitionFilter allDays() {
        return PartitionFilter.where(p -> p.get("event_date").compareTo("2024-01-01") >= 0);
    }

    record Typed(long id, String v, Integer region, LocalDate day) {
    }

    @Test
    void typedAndNullPartitionValuesOfTheInputAreWrittenAsTheirFoldersText() {
        List<Typed> seed = List.of(new Typed(1, "a", 7, D1), new Typed(2, "a", 7, null), new Typed(3, "a", null, D2));
        S3Parquet.write(seed).partitionBy("region", "day").s3(s3).to(table);
        // updates in each partition (one moving to another), and inserts into a new partition and the null ones
        List<Typed> input = List.of(new Typed(1, "b", 7, D1), new Typed(2, "b", 7, null), new Typed(3, "b", 8, D2),
                new Typed(4, "new", null, null), new Typed(5, "new", 7, D1), new Typed(6, "new", 8, D3));
        MergeResult r = S3Parquet.merge(input).on("id").scope(PartitionFilter.all()).s3(s3).to(table);

        assertThat(r.rowsUpdated()).isEqualTo(3);
        assertThat(r.rowsInserted()).isEqualTo(3);
        String none = "__HIVE_DEFAULT_PARTITION__"; // a null partition value's folder, as DuckDB reads it
        assertThat(TestLake.query(bucket, "t/", "SELECT id, v, CAST(region AS VARCHAR), CAST(day AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(Arrays.asList(1L, "b", "7", "2024-01-01"), Arrays.asList(2L, "b", "7", none),
                        Arrays.asList(3L, "b", "8", "2024-01-02"), Arrays.asList(4L, "new", none, none),
                        Arrays.asList(5L, "new", "7", "2024-01-01"), Arrays.asList(6L, "new", "8", "2024-01-03"));
    }

    @Test
    void aMergeLeavesWhatDuckDbComputesFromTheSameObjectsAndRewritesOnlyFilesHoldingAMatchedKey() {
        seed();
        List<List<Object>> expected = duckMerge(late());
        List<String> d2Before = TestLake.keys(bucket, "t/event_date=2024-01-02/");
        MergeResult r = merge(late()).scope(allDays()).to(table);

        assertThat(contents()).isEqualTo(expected);
        assertThat(r.rowsInserted()).isEqualTo(1);
        assertThat(r.rowsUpdated()).isEqualTo(2);
        assertThat(r.rowsUnchanged()).isZero();
        // one file of D1 (ids 1, 2) and one of D3 (ids 23, 24) held a matched key; D2's files hold none and stay
        assertThat(r.filesRewritten()).hasSize(2).allMatch(f -> f.contains("2024-01-01") || f.contains("2024-01-03"));
        assertThat(TestLake.keys(bucket, "t/event_date=2024-01-02/")).containsAll(d2Before);
        assertThat(r.partitionsTouched()).containsExactlyInAnyOrder(table + "event_date=2024-01-01/", table + "event_date=2024-01-02/",
                table + "event_date=2024-01-03/");
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void withoutAScopeAKeyIsMatchedOnlyInThePartitionsTheInputGoesTo() {
        seed();
        merge(List.of(new Event(23, "moved", 2, D2))).to(table);
        // id 23 stays on D3 and is added to D2: the old partition was not in the scope
        assertThat(TestLake.query(bucket, "t/", "SELECT payload, CAST(event_date AS VARCHAR) FROM t WHERE event_id = 23 ORDER BY ALL"))
                .containsExactly(List.of("a", "2024-01-03"), List.of("moved", "2024-01-02"));
    }

    @Test
    void aMergeRunTwiceWithTheSameInputLeavesTheSameTable() {
        seed();
        merge(late()).scope(allDays()).to(table);
        List<List<Object>> once = contents();
        MergeResult again = merge(late()).scope(allDays()).to(table);
        assertThat(contents()).isEqualTo(once);
        assertThat(again.rowsInserted()).isZero();
        assertThat(again.rowsUpdated()).isEqualTo(3);
    }

    @Test
    void orderByKeepsTheNewerRowAndKeepExistingInsertsOnlyNewKeys() {
        seed();
        // id 1 newer in the input, id 2 older than the table's (updated_at 0 < 1); two input rows of id 3: the newest wins
        List<Event> input = List.of(new Event(1, "newer", 5, D1), new Event(2, "older", 0, D1), new Event(3, "x", 3, D1),
                new Event(3, "y", 4, D1));
        MergeResult r = merge(input).orderBy("updated_at").to(table);
        assertThat(r.rowsUpdated()).isEqualTo(2);
        assertThat(r.rowsUnchanged()).isEqualTo(1);
        assertThat(TestLake.query(bucket, "t/", "SELECT event_id, payload FROM t WHERE event_id < 5 ORDER BY ALL"))
                .containsExactly(List.of(1L, "newer"), List.of(2L, "a"), List.of(3L, "y"), List.of(4L, "a"));

        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        MergeResult kept = merge(List.of(new Event(1, "ignored", 9, D1))).whenMatched(WhenMatched.KEEP_EXISTING).to(table);
        assertThat(kept.rowsUnchanged()).isEqualTo(1);
        assertThat(kept.write()).isNull();
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet().toArray(new String[0]));
        merge(List.of(new Event(1, "ignored", 9, D1), new Event(5, "five", 9, D1))).whenMatched(WhenMatched.KEEP_EXISTING).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT event_id, payload FROM t WHERE event_id IN (1, 5) ORDER BY ALL"))
                .containsExactly(List.of(1L, "newer"), List.of(5L, "five"));
    }

    @Test
    void planIsWhatTheMergeThenDoesAndWritesNothing() {
        seed();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        MergeResult planned = merge(late()).scope(allDays()).plan(table);
        Map<String, byte[]> after = TestLake.snapshot(bucket, "t/");
        assertThat(after.keySet()).isEqualTo(before.keySet());
        after.forEach((k, v) -> assertThat(v).as(k).isEqualTo(before.get(k)));
        assertThat(planned.write()).isNull();

        MergeResult done = merge(late()).scope(allDays()).to(table);
        assertThat(planned.rowsInserted()).isEqualTo(done.rowsInserted());
        assertThat(planned.rowsUpdated()).isEqualTo(done.rowsUpdated());
        assertThat(planned.rowsUnchanged()).isEqualTo(done.rowsUnchanged());
        assertThat(planned.filesRewritten()).isEqualTo(done.filesRewritten());
        assertThat(planned.partitionsTouched()).isEqualTo(done.partitionsTouched());
        assertThat(done.write().deletedFiles().stream().sorted().toList())
                .isEqualTo(planned.filesRewritten().stream().sorted().toList());
    }

    @ParameterizedTest
    @EnumSource(value = Step.class, names = {"STARTED", "STAGED_FILE", "LISTED_OLD_FILES", "MANIFEST_WRITTEN", "COPIED_FILE",
            "DELETED_BATCH", "BEFORE_CATALOG", "BEFORE_CLEANUP", "STAGING_REMOVED"})
    void aCrashAtAnyStepIsRecoveredToBeforeOrAfterAndReadersSeeOneOfThem(Step at) {
        seed();
        List<List<Object>> before = contents();
        List<List<Object>> after = duckMerge(late());
        List<Long> seen = new ArrayList<>();
        assertThatThrownBy(() -> merge(late()).scope(allDays()).stepHook((step, n) -> {
            if (step == at && n == 1) {
                // wrangler's reader (DuckDB over the raw objects knows no manifest) sees the table before or after
                List<List<Object>> now = S3Parquet.read(table).s3(s3).toList(Seen.class).stream()
                        .map(e -> List.<Object>of(e.event_id(), e.payload(), e.updated_at(), e.event_date()))
                        .sorted(ROWS).toList();
                seen.add((long) now.size());
                assertThat(now).isIn(before, after);
                throw new SimulatedCrash(step, n);
            }
        }).to(table)).isInstanceOf(SimulatedCrash.class);
        assertThat(seen).hasSize(1);

        Tunings.recover(table, s3);
        boolean committed = at.compareTo(Step.MANIFEST_WRITTEN) >= 0;
        assertThat(contents()).isEqualTo(committed ? after : before);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));

        // the rerun after the crash leaves the merged table either way
        merge(late()).scope(allDays()).tuning(Tunings.pastLeases()).to(table);
        assertThat(contents()).isEqualTo(after);
    }

    @Test
    void aWriteThatAddsAFileToAMatchedPartitionAfterThePlanIsAConflictAndNothingChanges() {
        seed();
        assertThatThrownBy(() -> merge(late()).scope(allDays()).stepHook((step, n) -> {
            if (step == Step.STARTED) {
                // a writer without the lease (as one that committed between the merge's plan and its lease)
                S3Parquet.write(List.of(new Event(2, "racer", 3, D1))).partitionBy("event_date").mode(WriteMode.APPEND).lease(false)
                        .s3(s3).to(table);
            }
        }).to(table)).isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot merge into " + table + " (step: commit): another write changed the partitions the "
                        + "merge matches in after it planned (new: " + table + "event_date=2024-01-01/")
                .hasMessageEndingWith("Nothing was changed: the merge's new files were removed before its commit point; rerun the merge.");
        assertThat(TestLake.query(bucket, "t/", "SELECT payload FROM t WHERE event_id = 2 ORDER BY ALL"))
                .containsExactly(List.of("a"), List.of("racer"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));
        // rerun: the racer's row of id 2 is replaced too
        merge(late()).scope(allDays()).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT payload FROM t WHERE event_id = 2")).containsExactly(List.of("b"));
    }

    @Test
    void aCompactionThatReplacedAMatchedFileAfterThePlanIsAConflictAndNothingOfTheMergeApplies() {
        seed();
        List<List<Object>> before = contents();
        assertThatThrownBy(() -> merge(late()).scope(allDays()).stepHook((step, n) -> {
            if (step == Step.STARTED) {
                // a compaction of D1's two files, as one that committed between the merge's plan and its lease
                S3Parquet.compact(table).filter(PartitionFilter.in("event_date", "2024-01-01")).lease(false).s3(s3).run();
            }
        }).to(table)).isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot merge into " + table + " (step: stage): a file it listed was removed by another write "
                        + "before the merge could read it (").hasMessageEndingWith("Nothing was changed; rerun the merge.");
        assertThat(contents()).isEqualTo(before);
        assertThat(TestLake.keys(bucket, "t/event_date=2024-01-01/")).hasSize(1);
        merge(late()).scope(allDays()).to(table);
        assertThat(contents()).isNotEqualTo(before);
        assertThat(TestLake.query(bucket, "t/", "SELECT payload FROM t WHERE event_id = 2")).containsExactly(List.of("b"));
    }

    @Test
    void aKeyedRerunAfterAMergeReplacesExactlyItsOwnRows() {
        List<Event> batchA = List.of(new Event(1, "a", 1, D1), new Event(2, "a", 1, D1), new Event(3, "a", 1, D1));
        S3Parquet.write(batchA).partitionBy("event_date").mode(WriteMode.APPEND).idempotencyKey("batch-a").s3(s3).to(table);
        write(List.of(new Event(9, "u", 1, D1)));
        // the merge rewrites batch-a's file: id 2 becomes the merge's row, ids 1 and 3 stay batch-a's
        merge(List.of(new Event(2, "merged", 2, D1))).to(table);
        assertThat(TestLake.keys(bucket, "t/event_date=2024-01-01/")).anyMatch(k -> k.contains("_k."));
        // batch-a rerun with new values: its rows (1 and 3, and 2 again as it writes it) replace its own, nothing else
        List<Event> rerun = List.of(new Event(1, "a2", 3, D1), new Event(2, "a2", 3, D1), new Event(3, "a2", 3, D1));
        S3Parquet.write(rerun).partitionBy("event_date").mode(WriteMode.APPEND).idempotencyKey("batch-a").s3(s3).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT event_id, payload FROM t ORDER BY ALL")).containsExactly(List.of(1L, "a2"),
                List.of(2L, "a2"), List.of(2L, "merged"), List.of(3L, "a2"), List.of(9L, "u"));
    }

    @Test
    void anInputColumnTheTableLacksIsAddedAndTheTableRowsReadItAsNull() {
        seed();
        record Wide(long event_id, String payload, long updated_at, LocalDate event_date, String note) {
        }
        S3Parquet.merge(List.of(new Wide(1, "w", 2, D1, "fixed"))).on("event_id").s3(s3).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT event_id, note FROM t WHERE event_date = DATE '2024-01-01' ORDER BY ALL"))
                .containsExactly(Arrays.asList(1L, "fixed"), Arrays.asList(2L, null), Arrays.asList(3L, null), Arrays.asList(4L, null));
    }

    @Test
    void aMergeIntoNoTableCreatesIt() {
        MergeResult r = merge(late()).partitionBy("event_date").to(table);
        assertThat(r.rowsInserted()).isEqualTo(3);
        assertThat(contents()).containsExactly(List.of(2L, "b", 2L, "2024-01-01"), List.of(15L, "new", 2L, "2024-01-02"),
                List.of(23L, "moved", 2L, "2024-01-02"));
    }
}
