package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A writer S stalls at a step boundary; a newcomer (a write W2, or an explicit recover) takes the table over as after S's
 * lease expired; then S resumes. Checked after everything settles and a final recovery: no partition mixes two writes,
 * S's partition D16 holds S's rows exactly when S's outcome says it took effect, W2's partition holds W2 alone, nothing
 * stays under _tmp/.
 */
class StalledWriterTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private static final LocalDate D17 = LocalDate.of(2024, 1, 17);

    enum Writer { OVERWRITE_PARTITIONS, OVERWRITE, KEYED_APPEND, APPEND }

    enum Newcomer { OVERWRITE_D15, RECOVER, KEYED_RERUN }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        String only = System.getProperty("wrangler.stalled.only");
        for (Writer w : Writer.values()) {
            for (CommitMethod cm : CommitMethod.values()) {
                for (Step s : List.of(Step.STARTED, Step.STAGED_FILE, Step.LISTED_OLD_FILES, Step.MANIFEST_WRITTEN, Step.COPIED_FILE,
                        Step.DELETED_BATCH, Step.BEFORE_CATALOG, Step.STAGING_REMOVED)) {
                    if (s == Step.DELETED_BATCH && w == Writer.APPEND) {
                        continue;
                    }
                    for (Newcomer n : Newcomer.values()) {
                        if (n == Newcomer.KEYED_RERUN && w != Writer.KEYED_APPEND) {
                            continue;
                        }
                        String name = w + "/" + cm + "/" + s + "/" + n;
                        if (only == null || name.matches(only)) {
                            out.add(Arguments.of(w, cm, s, n));
                        }
                    }
                }
            }
        }
        return out.stream();
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private static WriteBuilder write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).maxRowsPerFile(1).s3(TestLake.memory().client());
    }

    private static WriteBuilder writer(Writer w, List<Order> rows) {
        return switch (w) {
            case OVERWRITE_PARTITIONS -> write(rows, WriteMode.OVERWRITE_PARTITIONS);
            case OVERWRITE -> write(rows, WriteMode.OVERWRITE);
            case KEYED_APPEND -> write(rows, WriteMode.APPEND).idempotencyKey("load-1");
            case APPEND -> write(rows, WriteMode.APPEND);
        };
    }

    /** partition -> tags of its rows */
    private Map<String, List<String>> partitions() {
        Map<String, List<String>> out = new TreeMap<>();
        if (TestLake.keys(bucket, "t/").stream().noneMatch(k -> k.endsWith(".parquet") && !k.contains("_tmp/"))) {
            return out;
        }
        for (List<Object> r : TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\" FROM t ORDER BY ALL")) {
            out.computeIfAbsent(r.get(0) + "/" + r.get(1), k -> new ArrayList<>()).add(((String) r.get(2)).split("-")[0]);
        }
        return out;
    }

    @ParameterizedTest(name = "{0} {1} stalled at {2}, then {3}")
    @MethodSource("cases")
    void aStalledWriterThatResumesAfterATakeoverLeavesAConsistentTable(Writer w, CommitMethod cm, Step at, Newcomer n) throws Exception {
        // a: the table before (for KEYED_APPEND: run 1 of the key), 3 files per partition D15/RU, D16/RU, plus D17/DE.
        List<Order> a = new ArrayList<>(Orders.orders("a", List.of(D15, D16), List.of("RU"), 3));
        a.addAll(Orders.orders("a", List.of(D17), List.of("DE"), 1));
        (w == Writer.KEYED_APPEND ? writer(w, a) : write(a, WriteMode.APPEND)).to(table);

        // S: writes D15/RU and D16/RU, 2 rows each (tag b; for a keyed append, the same key's rerun).
        List<Order> b = Orders.orders("b", List.of(D15, D16), List.of("RU"), 2);
        if (w == Writer.KEYED_APPEND) {
            b.addAll(Orders.orders("b", List.of(D17), List.of("DE"), 1));
        }
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        WriteBuilder s = writer(w, b).commitMethod(cm).tuning(Tunings.smallDeleteBatches());
        CompletableFuture<WriteResult> stalled = Stalls.stalledAt(s, table, at, 1, reached, release);
        assertThat(reached.await(60, TimeUnit.SECONDS)).as("S reached " + at).isTrue();

        String newcomer;
        try {
            newcomer = switch (n) {
                case OVERWRITE_D15 -> {
                    write(Orders.orders("c", List.of(D15), List.of("RU"), 1), WriteMode.OVERWRITE_PARTITIONS).tuning(Tunings.pastLeases())
                            .to(table);
                    yield "ok";
                }
                case RECOVER -> Tunings.recover(table, TestLake.memory().client()).toString();
                case KEYED_RERUN -> {
                    List<Order> c = Orders.orders("c", List.of(D15), List.of("RU"), 1);
                    write(c, WriteMode.APPEND).idempotencyKey("load-1").tuning(Tunings.pastLeases()).to(table);
                    yield "ok";
                }
            };
        } finally {
            release.countDown();
        }
        Throwable failure = Stalls.failureOf(stalled);
        Map<String, List<String>> afterS = partitions();
        RecoveryResult last = Tunings.recover(table, TestLake.memory().client());
        Map<String, List<String>> after = partitions();
        String story = "S=" + w + " " + cm + " stalled at " + at + ", newcomer " + n + " (" + newcomer + "); S's outcome: "
                + (failure == null ? "success" : failure.getClass().getSimpleName() + ": " + failure.getMessage())
                + "; table after S resumed: " + afterS + "; final recovery " + last + "; table after: " + after;

        assertThat(after).as(story).isEqualTo(afterS);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).as(story).isEmpty();
        // No partition mixes two writes.
        after.forEach((p, tags) -> assertThat(tags.stream().distinct().count()).as(p + ": " + story).isEqualTo(1));
        // D16 is S's alone, or a's alone (with all of a's rows), or for an append a's plus S's.
        List<String> d16 = after.getOrDefault("2024-01-16/RU", List.of());
        boolean applied = d16.contains("b");
        if (failure == null || failure instanceof WriteIncompleteException) {
            assertThat(applied).as("S reported it took effect: " + story).isTrue();
        } else if (failure instanceof WriteNotAppliedException) {
            assertThat(applied).as("S reported it did not take effect: " + story).isFalse();
        }
        if (n == Newcomer.OVERWRITE_D15 || n == Newcomer.KEYED_RERUN) {
            assertThat(after.get("2024-01-15/RU")).as(story).containsExactly("c");
        }
    }
}
