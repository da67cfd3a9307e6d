package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.spi.StepHook;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An adversary of the merge's speed work (h-merge5): the key scan split among threads, the key-hash bits, the kept rows
 * made on a thread of their own, files decoded on the cores with their rows attributed to their file, and the partition
 * coder's reuse of the previous long value's code. Each test tries to make a merge lose, double or resurrect rows, leak
 * a thread or memory, or keep a failure from surfacing; the table is read back with DuckDB against a model. Isolated:
 * the tests look for the merge's threads by name, which another test's merge run meanwhile would also have.
 */
@org.junit.jupiter.api.parallel.Isolated
class MergeSpeedAdversaryTest {
    record Ev(String user, LocalDate seen_on, String payload, long updated_at, String region) {
    }

    record Row(long id, long value, String src, String dt) {
    }

    /** Two long partition values that differ only in their last byte, and one that is a prefix of both. */
    private static final String P1 = "europe-west-region-1";
    private static final String P2 = "europe-west-region-2";
    private static final String P0 = "europe-west-region-";
    private static final LocalDate D = LocalDate.of(2024, 3, 1);

    private final MemoryS3 mem = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = mem.client();

    @AfterEach
    void clearFaults() {
        mem.clearKeyFaults();
    }

    private void append(List<Ev> rows) {
        S3Parquet.write(rows).partitionBy("region").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    private static String row(Ev e) {
        return e.user() + "|" + e.seen_on() + "|" + e.payload() + "|" + e.updated_at() + "|" + e.region();
    }

    private List<String> tableRows() {
        return TestLake.query(bucket, "t/", "SELECT user, CAST(seen_on AS VARCHAR), payload, updated_at, region FROM t").stream()
                .map(r -> r.get(0) + "|" + r.get(1) + "|" + r.get(2) + "|" + r.get(3) + "|" + r.get(4)).sorted().toList();
    }

    /**
     * Many files in three partitions whose long values are equal up to their last byte or a prefix of each other, rows of
     * alternating partitions in one write; each key in several files (so in several scan threads' shares), some twice in
     * one file, some with a null key column; the merge keyed on two columns of two types (string, date), newest wins.
     */
    @Test
    void keysInManyFilesOfSeveralScanThreadsWithTwoColumnsNullsAndDuplicatesMergeAsTheModelSays() {
        List<Ev> model = new ArrayList<>();
        String[] regions = {P1, P2, P0};
        for (int f = 0; f < 12; f++) {
            List<Ev> file = new ArrayList<>();
            for (int k = 0; k < 20; k++) {
                String region = regions[k % 3]; // a user's region fixed by k: consecutive rows alternate partitions
                file.add(new Ev("user-" + k, D.plusDays(k % 2), "f" + f, f * 10 + k % 7, region));
                if (k % 5 == 0) {
                    file.add(new Ev("user-" + k, D.plusDays(k % 2), "f" + f + "-twice", f * 10 + 3, region)); // twice in one file
                }
                if (k % 4 == 0) {
                    file.add(new Ev(null, D, "null-user-" + f, 1, region)); // never matches
                }
            }
            append(file);
            model.addAll(file);
        }
        List<Ev> input = new ArrayList<>();
        for (int k = 0; k < 24; k++) {
            // 0..19 exist; the order value decides: k even newer than every table row (>= 117), k odd older than some
            long order = k % 2 == 0 ? 200 + k : 50;
            input.add(new Ev("user-" + k, D.plusDays(k % 2), "in-" + k, order, regions[k % 3]));
        }
        // the same user on the other date: another key (two-column keys), inserted
        input.add(new Ev("user-3", D.plusDays(5), "in-other-date", 1, regions[0]));

        // the model: newest wins; the table's rows of the key in the input row's partition are the ones replaced
        Map<String, Long> newest = new HashMap<>();
        for (Ev e : model) {
            if (e.user() != null) {
                newest.merge(e.user() + "|" + e.seen_on() + "|" + e.region(), e.updated_at(), Math::max);
            }
        }
        long inserted = 0;
        long updated = 0;
        long unchanged = 0;
        List<Ev> after = new ArrayList<>(model);
        for (Ev in : input) {
            String key = in.user() + "|" + in.seen_on() + "|" + in.region();
            Long max = newest.get(key);
            if (max == null) {
                inserted++;
                after.add(in);
            } else if (in.updated_at() >= max) {
                updated++;
                after.removeIf(e -> Objects.equals(e.user(), in.user()) && e.seen_on().equals(in.seen_on()) && e.region().equals(in.region()));
                after.add(in);
            } else {
                unchanged++;
            }
        }
        MergeResult r = S3Parquet.merge(input).on("user", "seen_on").orderBy("updated_at").s3(s3).to(table);

        assertThat(tableRows()).isEqualTo(after.stream().map(MergeSpeedAdversaryTest::row).sorted().toList());
        assertThat(r.rowsInserted()).isEqualTo(inserted);
        assertThat(r.rowsUpdated()).isEqualTo(updated);
        assertThat(r.rowsUnchanged()).isEqualTo(unchanged);
        assertThat(TestLake.query(bucket, "t/", "SELECT DISTINCT region FROM t ORDER BY ALL"))
                .containsExactly(List.of(P0), List.of(P1), List.of(P2));
        assertNoMergeThreads();
    }

    private static void assertNoMergeThreads() {
        assertThat(running("wrangler-merge-rows") || running("wrangler-merge-scan")).as("a merge thread still runs wrangler's code").isFalse();
    }

    /**
     * Whether a thread named {@code name} still runs wrangler's code (a frame of {@code io.wrangler} on its stack). Not
     * {@code isAlive()} alone: a pool's worker signals the pool's termination from its own exit, so it may still be alive for
     * a moment after {@code awaitTermination} returned, with nothing of wrangler's left on its stack (seen under load).
     */
    static boolean running(String name) {
        return Thread.getAllStackTraces().entrySet().stream().anyMatch(e -> e.getKey().isAlive() && e.getKey().getName().equals(name)
                && java.util.Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().startsWith("io.wrangler.")));
    }

    private void seedTwoFilesOfP1() {
        append(List.of(new Ev("a", D, "a", 1, P1), new Ev("b", D, "a", 1, P1)));
        append(List.of(new Ev("c", D, "a", 1, P1), new Ev("d", D, "a", 1, P1)));
    }

    /**
     * A GET of a file being rewritten fails (after the plan, under the lease): the failure surfaces as a read failure
     * naming the file, nothing is committed, the thread that made the rows is stopped, and no memory is left (the merge's
     * allocator closes without a leak, or its failure would be suppressed into this one).
     */
    @Test
    void aGetFailingOnTheThreadThatMakesTheRowsSurfacesLeavesTheTableAndStopsTheThread() {
        seedTwoFilesOfP1();
        List<String> before = tableRows();
        Map<String, byte[]> objects = TestLake.snapshot(bucket, "t/region=" + P1 + "/");
        Throwable thrown = catchMerge(List.of(new Ev("a", D, "new", 2, P1), new Ev("c", D, "new", 2, P1)), (step, n) -> {
            if (step == Step.STARTED) {
                mem.failWhereKeyContains("GetObject", "region=" + P1 + "/", S3Fault.ACCESS_DENIED);
            }
        });
        mem.clearKeyFaults();
        assertThat(thrown).isInstanceOf(ReadException.class).hasMessageContaining("region=" + P1 + "/").hasMessageContaining("AccessDenied");
        assertThat(thrown.getSuppressed()).isEmpty();
        assertThat(tableRows()).isEqualTo(before);
        assertThat(TestLake.snapshot(bucket, "t/region=" + P1 + "/")).containsOnlyKeys(objects.keySet().toArray(new String[0]));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));
        assertNoMergeThreads();
        // and the merge then succeeds
        S3Parquet.merge(List.of(new Ev("a", D, "new", 2, P1), new Ev("c", D, "new", 2, P1))).on("user", "seen_on").s3(s3).to(table);
        assertThat(tableRows()).containsExactly("a|2024-03-01|new|2|" + P1, "b|2024-03-01|a|1|" + P1, "c|2024-03-01|new|2|" + P1,
                "d|2024-03-01|a|1|" + P1);
    }

    /** A rewritten file deleted after the plan (the read threads find it gone): a conflict, nothing committed, no thread left. */
    @Test
    void aRewrittenFileDeletedAfterThePlanIsAConflictOnTheRowsThread() {
        seedTwoFilesOfP1();
        List<String> files = TestLake.keys(bucket, "t/region=" + P1 + "/");
        Throwable thrown = catchMerge(List.of(new Ev("a", D, "new", 2, P1), new Ev("c", D, "new", 2, P1)), (step, n) -> {
            if (step == Step.STARTED) {
                s3.deleteObject(b -> b.bucket(bucket).key(files.get(1)));
            }
        });
        assertThat(thrown).isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot merge into " + table + " (step: stage): a file it listed was removed by another write");
        assertThat(thrown.getSuppressed()).isEmpty();
        assertThat(TestLake.keys(bucket, "t/region=" + P1 + "/")).containsExactly(files.get(0));
        assertNoMergeThreads();
    }

    /**
     * The two files of a partition swap their bytes (the same length) after the plan: the rewrite, which drops the rows
     * the scan found by their place in the file, must not drop the row now there (another key's): a conflict, nothing
     * committed (h-merge6). Since round 10 the rewrite's GET carries If-Match on the listed ETag and is refused first (412);
     * the check of each dropped row's key remains for a file listed without an ETag.
     */
    @Test
    void aRewrittenFileReplacedUnderItsNameByOtherRowsOfItsLengthIsAConflictNotAWrongRowDropped() {
        seedTwoFilesOfP1();
        List<String> files = TestLake.keys(bucket, "t/region=" + P1 + "/");
        Map<String, byte[]> objects = TestLake.snapshot(bucket, "t/region=" + P1 + "/");
        byte[] first = objects.get(files.get(0));
        byte[] second = objects.get(files.get(1));
        assertThat(first).hasSameSizeAs(second); // the precondition: a swap keeps each file's listed length
        Throwable thrown = catchMerge(List.of(new Ev("a", D, "new", 2, P1)), (step, n) -> {
            if (step == Step.STARTED) {
                s3.putObject(b -> b.bucket(bucket).key(files.get(0)), software.amazon.awssdk.core.sync.RequestBody.fromBytes(second));
                s3.putObject(b -> b.bucket(bucket).key(files.get(1)), software.amazon.awssdk.core.sync.RequestBody.fromBytes(first));
            }
        });
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessageStartingWith("Cannot merge into " + table
                + " (step: stage): the file s3://" + bucket + "/").hasMessageEndingWith(" changed since it was listed (another "
                + "object was put under its name; its GET on the listed ETag answered 412 PreconditionFailed). Nothing was changed; "
                + "run the merge again.");
        assertThat(TestLake.keys(bucket, "t/region=" + P1 + "/")).containsExactlyElementsOf(files);
        assertThat(tableRows()).containsExactly("a|2024-03-01|a|1|" + P1, "b|2024-03-01|a|1|" + P1, "c|2024-03-01|a|1|" + P1,
                "d|2024-03-01|a|1|" + P1);
        assertNoMergeThreads();
    }

    /** A merge input of more keys than KeyFilter.EARLY_KEYS: its key filter made on a thread of its own while the table is listed. */
    private static List<Ev> manyKeys(int n, long updatedAt) {
        List<Ev> in = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            in.add(new Ev("u" + i, D, "new", updatedAt, i % 2 == 0 ? P1 : P2));
        }
        return in;
    }

    /** A large input (its key filter made early) merges as the model says: its keys replaced, the others kept (h-merge6). */
    @Test
    void aLargeInputWhoseKeyFilterIsMadeWhileTheTableIsListedMergesAsTheModelSays() {
        append(List.of(new Ev("u1", D, "old", 1, P2), new Ev("u7", D, "old", 1, P2), new Ev("x", D, "old", 1, P2),
                new Ev("u4", D, "old", 1, P1), new Ev("y", D, "old", 1, P1)));
        MergeResult r = S3Parquet.merge(manyKeys(5000, 2)).on("user", "seen_on").s3(s3).to(table);
        assertThat(r.rowsUpdated()).isEqualTo(3);
        assertThat(r.rowsInserted()).isEqualTo(4997);
        List<String> rows = tableRows();
        assertThat(rows).hasSize(5002).contains("u1|2024-03-01|new|2|" + P2, "u4|2024-03-01|new|2|" + P1, "u7|2024-03-01|new|2|" + P2,
                "x|2024-03-01|old|1|" + P2, "y|2024-03-01|old|1|" + P1).noneMatch(x -> x.contains("|old|") && x.startsWith("u"));
        assertThat(running("wrangler-merge-filter")).as("the key filter's thread still runs").isFalse();
    }

    record Texted(String user, String seen_on, String payload, long updated_at, String region) {
    }

    /**
     * A large input refused by the table's schema while its key filter is being made: the typed refusal, nothing changed,
     * the filter's thread ended before the input was closed (h-merge6).
     */
    @Test
    void aLargeInputRefusedWhileItsKeyFilterIsMadeEndsTheFiltersThreadFirst() {
        append(List.of(new Ev("u1", D, "old", 1, P2)));
        List<String> before = tableRows();
        List<Texted> in = manyKeys(5000, 2).stream().map(e -> new Texted(e.user(), e.seen_on().toString(), e.payload(), e.updated_at(),
                e.region())).toList();
        assertThatThrownBy(() -> S3Parquet.merge(in).on("user", "seen_on").s3(s3).to(table)).isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot merge into " + table + " (step: validate): the key column 'seen_on' is Utf8 in the input and "
                        + "Date(DAY) in the table. Give it the table's type; nothing was changed.");
        assertThat(tableRows()).isEqualTo(before);
        assertThat(running("wrangler-merge-filter")).as("the key filter's thread still runs").isFalse();
    }

    /**
     * The caller is interrupted while a GET of a rewritten file is held: the merge fails (it does not hang, nor commit), and
     * stops its threads.
     */
    @Test
    void aMergeWhoseCallerIsInterruptedDuringTheRewriteStopsWithoutCommitting() throws Exception {
        seedTwoFilesOfP1();
        List<String> before = tableRows();
        List<String> files = TestLake.keys(bucket, "t/region=" + P1 + "/");
        AtomicReference<MemoryS3.Hold> hold = new AtomicReference<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread caller = new Thread(() -> thrown.set(catchMerge(List.of(new Ev("a", D, "new", 2, P1), new Ev("c", D, "new", 2, P1)),
                (step, n) -> {
                    if (step == Step.STARTED) {
                        hold.set(mem.holdOnceWhereKeyContains("GetObject", files.get(0)));
                    }
                })), "adv38-caller");
        caller.start();
        while (hold.get() == null) {
            assertThat(caller.isAlive()).as("the merge ended before its rewrite: %s", thrown.get()).isTrue();
            Thread.sleep(5);
        }
        assertThat(hold.get().awaitHeld(Duration.ofSeconds(30))).as("the rewrite's GET was held").isTrue();
        caller.interrupt();
        hold.get().release();
        caller.join(30_000);
        assertThat(caller.isAlive()).as("the merge hangs after its caller was interrupted").isFalse();
        // The caller's interrupt, not the input's failure: the message says so and sends no one to fix the input. Which
        // batch the interrupt meets depends on how far the merge got (the only part of the message left open).
        assertThat(thrown.get()).isInstanceOf(InputException.class).hasMessageMatching(java.util.regex.Pattern.quote("Cannot merge into "
                + table + " (step: stage): interrupted while batch ") + "\\d+" + java.util.regex.Pattern.quote(" of its rows was read "
                + "(java.io.InterruptedIOException: interrupted while the merge's rows were read). Nothing of the table was changed; "
                + "this merge's staged files were removed. Rerun the merge."));
        assertThat(tableRows()).isEqualTo(before);
        assertNoMergeThreads();
    }

    private Throwable catchMerge(List<Ev> input, StepHook hook) {
        try {
            S3Parquet.merge(input).on("user", "seen_on").stepHook(hook).s3(s3).to(table);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * Three keyed writes and two unkeyed ones in one partition, each holding an updated key: the merge rewrites all five
     * at once (decoded on several threads); each kept row must keep its own file's idempotency key, so each rerun replaces
     * exactly its own rows.
     */
    @Test
    void keyedRerunsAfterAMergeRewritingSeveralKeyedFilesOnThreadsReplaceExactlyTheirOwnRows() {
        for (String k : List.of("batch-a", "batch-b", "batch-c")) {
            List<Ev> rows = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                rows.add(new Ev(k + "-" + i, D, k, 1, P1));
            }
            S3Parquet.write(rows).partitionBy("region").mode(WriteMode.APPEND).idempotencyKey(k).s3(s3).to(table);
            append(List.of(new Ev("plain-" + k, D, "plain", 1, P1), new Ev("plain2-" + k, D, "plain", 1, P1)));
        }
        MergeResult r = S3Parquet.merge(List.of(new Ev("batch-a-0", D, "m", 2, P1), new Ev("batch-b-1", D, "m", 2, P1),
                new Ev("batch-c-2", D, "m", 2, P1), new Ev("plain-batch-a", D, "m", 2, P1), new Ev("plain-batch-c", D, "m", 2, P1)))
                .on("user", "seen_on").s3(s3).to(table);
        assertThat(r.filesRewritten()).hasSize(5);
        S3Parquet.write(List.of(new Ev("batch-b-9", D, "rerun-b", 3, P1))).partitionBy("region").mode(WriteMode.APPEND)
                .idempotencyKey("batch-b").s3(s3).to(table);
        List<String> expected = new ArrayList<>();
        for (String k : List.of("batch-a", "batch-b", "batch-c")) {
            for (int i = 0; i < 5; i++) {
                String merged = k.equals("batch-a") && i == 0 || k.equals("batch-b") && i == 1 || k.equals("batch-c") && i == 2 ? "m" : null;
                if (merged != null) {
                    expected.add(k + "-" + i + "|2024-03-01|m|2|" + P1);
                } else if (!k.equals("batch-b")) {
                    expected.add(k + "-" + i + "|2024-03-01|" + k + "|1|" + P1);
                }
            }
            expected.add("plain-" + k + "|2024-03-01|" + (k.equals("batch-b") ? "plain|1|" : "m|2|") + P1);
            expected.add("plain2-" + k + "|2024-03-01|plain|1|" + P1);
        }
        expected.add("batch-b-9|2024-03-01|rerun-b|3|" + P1);
        assertThat(tableRows()).isEqualTo(expected.stream().sorted().toList());
    }

    private void appendRows(Row... rows) {
        S3Parquet.write(List.of(rows)).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    /**
     * Files O (no id 1), then A, B, C each holding id 1 with the same value and an id of their own; the merge updates those
     * ids, rewriting A, B and C at once (decoded on threads) into one file beside O. The kept rows of id 1 must keep their
     * own commit stamps: dedupBy then keeps C's row (the last committed), and with only A and B rewritten, B's.
     */
    @Test
    void commitStampsOfRowsKeptFromSeveralFilesRewrittenOnThreadsFollowTheirFile() {
        String day = "2024-01-01";
        appendRows(new Row(9, 0, "o", day));
        appendRows(new Row(1, 5, "a", day), new Row(2, 0, "a", day));
        appendRows(new Row(1, 5, "b", day), new Row(3, 0, "b", day));
        MergeResult r = S3Parquet.merge(List.of(new Row(2, 1, "m", day), new Row(3, 1, "m", day))).on("id").s3(s3).to(table);
        assertThat(r.filesRewritten()).hasSize(2);
        assertThat(TestLake.keys(bucket, "t/dt=" + day + "/")).hasSize(2);
        CompactionResult c = S3Parquet.compact(table).dedupBy(List.of("id"), "value").s3(s3).run();
        assertThat(c.duplicatesDropped()).isEqualTo(1);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, value, src FROM t ORDER BY ALL"))
                .containsExactly(List.of(1L, 5L, "b"), List.of(2L, 1L, "m"), List.of(3L, 1L, "m"), List.of(9L, 0L, "o"));
    }

    @Test
    void commitStampsOfRowsKeptFromThreeFilesRewrittenOnThreadsFollowTheirFile() {
        String day = "2024-01-01";
        appendRows(new Row(9, 0, "o", day));
        appendRows(new Row(1, 5, "a", day), new Row(2, 0, "a", day));
        appendRows(new Row(1, 5, "b", day), new Row(3, 0, "b", day));
        appendRows(new Row(1, 5, "c", day), new Row(4, 0, "c", day));
        MergeResult r = S3Parquet.merge(List.of(new Row(2, 1, "m", day), new Row(3, 1, "m", day), new Row(4, 1, "m", day))).on("id")
                .s3(s3).to(table);
        assertThat(r.filesRewritten()).hasSize(3);
        CompactionResult c = S3Parquet.compact(table).dedupBy(List.of("id"), "value").s3(s3).run();
        assertThat(c.duplicatesDropped()).isEqualTo(2);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, value, src FROM t WHERE id = 1")).containsExactly(List.of(1L, 5L, "c"));
    }

    /**
     * An S3 client of the MemoryS3 whose GETs of {@code blocked} made by the merge's scan threads wait, deaf to interrupts
     * as a socket read is, until {@code release} or until {@code caller} waits for the scan's threads to end (as a read
     * ends at its socket timeout while the caller waits); and whose scan GETs of {@code failing} answer AccessDenied once the
     * blocked one waits.
     */
    private S3Client scanGets(String failing, String blocked, java.util.concurrent.CountDownLatch waiting,
            java.util.concurrent.CountDownLatch release, Thread caller) {
        return gets("wrangler-merge-scan", failing, blocked, waiting, release, caller);
    }

    private S3Client gets(String thread, String failing, String blocked, java.util.concurrent.CountDownLatch waiting,
            java.util.concurrent.CountDownLatch release, Thread caller) {
        S3Client to = mem.client();
        return (S3Client) java.lang.reflect.Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                (proxy, method, args) -> {
                    if (args != null && args.length > 0 && args[0] instanceof software.amazon.awssdk.services.s3.model.GetObjectRequest g
                            && Thread.currentThread().getName().equals(thread)) {
                        if (g.key().equals(blocked)) {
                            waiting.countDown();
                            untilReleasedOrAwaited(release, caller);
                        } else if (g.key().equals(failing)) {
                            uninterruptibly(waiting);
                            throw software.amazon.awssdk.services.s3.model.S3Exception.builder().statusCode(403)
                                    .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
                                            .errorCode("AccessDenied").errorMessage("Access Denied").build())
                                    .message("Access Denied").build();
                        }
                    }
                    try {
                        return method.invoke(to, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static void untilReleasedOrAwaited(java.util.concurrent.CountDownLatch release, Thread caller) throws InterruptedException {
        for (int i = 0; i < 3000; i++) {
            if (release.getCount() == 0 || java.util.Arrays.stream(caller.getStackTrace())
                    .anyMatch(f -> f.getMethodName().equals("awaitTermination"))) {
                return;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                // deaf to interrupts, as a socket read
            }
        }
        throw new IllegalStateException("the blocked GET was never released");
    }

    private static void uninterruptibly(java.util.concurrent.CountDownLatch latch) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new IllegalStateException("a latch of the test was never counted down");
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Four files scanned by two threads (files 0 and 2 on one, 1 and 3 on the other): file 0 fails while the other
     * thread waits in its GET of file 1, which an interrupt does not end (a socket read). The merge's failure must not
     * come back while its scan thread still runs, about to decode on the merge's allocator once its GET ends (after the
     * allocator was closed): the thread ended, nothing leaked (a leak shows as an allocator failure suppressed into the
     * failure), nothing committed. Failed before the fix: the merge threw while the scan thread still ran.
     */
    @Test
    void aScanThreadFailingWhileAnotherIsInAGetLeavesNoScanThreadRunningNorMemoryLeaked() throws Exception {
        for (int f = 0; f < 4; f++) {
            append(List.of(new Ev("a", D, "f" + f, 1, P1), new Ev("x" + f, D, "f" + f, 1, P1)));
        }
        List<String> files = TestLake.keys(bucket, "t/region=" + P1 + "/").stream().sorted().toList();
        assertThat(files).hasSize(4);
        List<String> before = tableRows();
        java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        S3Client client = scanGets(files.get(0), files.get(1), waiting, release, Thread.currentThread());
        Throwable thrown;
        boolean scanRunning;
        try {
            try {
                S3Parquet.merge(List.of(new Ev("a", D, "new", 2, P1))).on("user", "seen_on").s3(client).to(table);
                thrown = null;
            } catch (Throwable t) {
                thrown = t;
            }
            scanRunning = running("wrangler-merge-scan");
        } finally {
            release.countDown();
        }
        assertThat(waiting.getCount()).as("the other scan thread reached its GET of file 1").isZero();
        assertThat(thrown).isInstanceOf(ReadException.class).hasMessageContaining("Access Denied");
        assertThat(scanRunning).as("a scan thread still runs after the merge failed").isFalse();
        assertThat(thrown.getSuppressed()).as("suppressed into the merge's failure").isEmpty();
        assertThat(tableRows()).isEqualTo(before);
    }

    /**
     * The rows thread's read decodes the rewritten files on threads; one of them is in a GET that an interrupt does not
     * end (a socket read) when the merge's caller is interrupted. The merge must not come back while that thread still
     * runs (it would decode on the merge's allocator after it closed): the interrupt the caller got must not cut short the
     * wait for the read's threads.
     */
    @Test
    void aCallerInterruptedWhileADecodeThreadIsInAGetGetsItsFailureOnlyAfterTheReadThreadsEnded() throws Exception {
        seedTwoFilesOfP1();
        List<String> before = tableRows();
        List<String> files = TestLake.keys(bucket, "t/region=" + P1 + "/").stream().sorted().toList();
        java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> readRunning = new AtomicReference<>();
        AtomicReference<Thread> callerRef = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            S3Client client = gets("wrangler-read", "none", files.get(0), waiting, release, callerRef.get());
            try {
                S3Parquet.merge(List.of(new Ev("a", D, "new", 2, P1), new Ev("c", D, "new", 2, P1))).on("user", "seen_on").s3(client)
                        .to(table);
            } catch (Throwable t) {
                thrown.set(t);
            }
            readRunning.set(running("wrangler-read"));
        }, "adv38-caller");
        callerRef.set(caller);
        try {
            caller.start();
            assertThat(waiting.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("a decode thread reached its GET").isTrue();
            caller.interrupt();
            caller.join(30_000);
        } finally {
            release.countDown();
        }
        assertThat(caller.isAlive()).as("the merge hangs after its caller was interrupted").isFalse();
        // The caller's interrupt, not the input's failure: the message says so and sends no one to fix the input. Which
        // batch the interrupt meets depends on how far the merge got (the only part of the message left open).
        assertThat(thrown.get()).isInstanceOf(InputException.class).hasMessageMatching(java.util.regex.Pattern.quote("Cannot merge into "
                + table + " (step: stage): interrupted while batch ") + "\\d+" + java.util.regex.Pattern.quote(" of its rows was read "
                + "(java.io.InterruptedIOException: interrupted while the merge's rows were read). Nothing of the table was changed; "
                + "this merge's staged files were removed. Rerun the merge."));
        assertThat(readRunning.get()).as("a read thread still runs after the merge failed").isFalse();
        assertThat(thrown.get().getSuppressed()).as("suppressed into the merge's failure").isEmpty();
        assertThat(tableRows()).isEqualTo(before);
    }
}
