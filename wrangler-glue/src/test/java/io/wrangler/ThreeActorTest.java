package io.wrangler;

import static io.wrangler.PausedActors.awaitReached;
import static io.wrangler.PausedActors.checkOutcome;
import static io.wrangler.PausedActors.contents;
import static io.wrangler.PausedActors.describe;
import static io.wrangler.PausedActors.gluePartitions;
import static io.wrangler.PausedActors.outcome;
import static io.wrangler.PausedActors.outside;
import static io.wrangler.PausedActors.s3Partitions;
import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.PausedActors.Actor;
import io.wrangler.commit.Step;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Three actors on one table with a Glue catalog, on MemoryS3 (the protocol tier): a writer W, a compaction C and an
 * operator's recovery R, paused at pairs of step boundaries.
 *
 * <p>Each case: a table is seeded with two files per partition; W (a keyed append, or an overwrite of partitions, both
 * with an idempotency key, so that its commit point is its manifest's commit) starts and is paused at step {@code w}; C starts with
 * the test clock past every lease (so it takes W's lease over at once, and recovers W's write first, as a compaction
 * does) and is paused at step {@code c} (or runs to its end); R recovers with the catalog and takes C's lease over the
 * same way; then W resumes, then C; then R recovers again. After everything settles: the rows equal the seed plus W's
 * rows exactly when W passed its commit point (a compaction changes files, never rows: nothing lost, nothing doubled);
 * W's outcome is one of the outcome types and agrees with its commit point; C either succeeded or stopped with one of
 * them; Glue's partitions are exactly the folders S3 holds; nothing is left under {@code _tmp/} and no upload is open;
 * nothing outside the table was touched; a last recovery finds nothing to do.
 *
 * <p>CI runs 72 of the 360 cases: for each writer mode and commit method, each of W's 9 points against 2 of C's 10,
 * shifted per point; every case on demand with {@code -Dwrangler.interleavings=all}.
 */
class ThreeActorTest {
    private static final LocalDate D1 = LocalDate.of(2024, 3, 1);
    private static final LocalDate D2 = LocalDate.of(2024, 3, 2);
    private static final S3Parquet.Tuning TAKE_OVER = TestLakes.PAST_LEASES;
    /** W's idempotency key: a keyed append's and an overwrite's commit point is its manifest's CAS to COMMITTED. */
    private static final String KEY = "nightly-2024-03";
    private static final List<Step> POINTS = List.of(Step.RECOVER, Step.STARTED, Step.STAGED_FILE, Step.LISTED_OLD_FILES,
            Step.MANIFEST_WRITTEN, Step.COPIED_FILE, Step.DELETED_BATCH, Step.BEFORE_CATALOG, Step.STAGING_REMOVED);

    private static final LocalGlue glue = TestLakes.glue();
    private static final MemoryS3 s3 = TestLakes.memoryS3();

    /** A row; names are already what the catalog makes of them. */
    public record Row(String id, LocalDate dt, String country, long v) {
    }

    static Stream<Arguments> cases() {
        boolean all = "all".equals(System.getProperty("wrangler.interleavings"));
        List<Step> cPoints = new ArrayList<>(POINTS);
        cPoints.add(null);
        List<Arguments> out = new ArrayList<>();
        for (WriteMode mode : List.of(WriteMode.APPEND, WriteMode.OVERWRITE_PARTITIONS)) {
            for (CommitMethod method : CommitMethod.values()) {
                for (int i = 0; i < POINTS.size(); i++) {
                    for (int j = 0; j < cPoints.size(); j++) {
                        int offset = (j - i + cPoints.size()) % cPoints.size();
                        if (all || offset % 5 == 0) {
                            out.add(Arguments.of(mode, method, POINTS.get(i), cPoints.get(j)));
                        }
                    }
                }
            }
        }
        return out.stream();
    }

    private static List<Row> rows(String tag, LocalDate... days) {
        List<Row> out = new ArrayList<>();
        for (LocalDate d : days) {
            out.add(new Row(tag + "-" + d, d, "RU", d.getDayOfMonth()));
        }
        return out;
    }

    private static void apply(Map<String, Set<String>> model, WriteMode mode, List<Row> rows) {
        for (Row r : rows) {
            model.computeIfAbsent(r.dt().toString(), k -> new TreeSet<>());
        }
        if (mode == WriteMode.OVERWRITE_PARTITIONS) {
            rows.forEach(r -> model.get(r.dt().toString()).clear());
        }
        rows.forEach(r -> model.get(r.dt().toString()).add(r.id()));
    }

    @ParameterizedTest(name = "W {0} {1} paused at {2}, compaction at {3}")
    @MethodSource("cases")
    void aWriterACompactionAndARecoveryLoseNothingDoubleNothingAndLeaveGlueEqualToS3(WriteMode mode, CommitMethod method, Step w,
                                                                                    Step c) throws Exception {
        String bucket = TestLakes.bucket("three", s3);
        String db = TestLakes.database(bucket);
        String table = "s3://" + bucket + "/t/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "t");
        s3.put(bucket, "sentinel", new byte[] {2});

        Map<String, Set<String>> model = new TreeMap<>();
        for (String tag : List.of("s1", "s2")) {
            List<Row> seed = rows(tag, D1, D2);
            write(seed, WriteMode.APPEND, method).catalog(catalog).to(table);
            apply(model, WriteMode.APPEND, seed);
        }
        Map<String, byte[]> outside = outside(s3, bucket);

        List<String> commits = new ArrayList<>();
        List<Row> input = rows("w", D1);
        Actor writer = new Actor("W", w, commits);
        Actor compaction = new Actor("C", c, commits);
        CompletableFuture<WriteResult> fw = CompletableFuture.supplyAsync(() -> write(input, mode, method).idempotencyKey(KEY)
                .catalog(catalog).stepHook(writer).to(table));
        awaitReached(writer, fw, "W");
        CompletableFuture<CompactionResult> fc = CompletableFuture.supplyAsync(() -> S3Parquet.compact(table).s3(s3.client())
                .catalog(catalog).whenMoreFilesThan(1).stepHook(compaction).tuning(TAKE_OVER).leaseWait(Duration.ofSeconds(10)).run());
        if (c != null) {
            awaitReached(compaction, fc, "C");
        } else {
            outcome(fc, "C");
        }
        RecoveryResult operator = S3Parquet.recover(table, s3.client(), catalog, TAKE_OVER);
        writer.release.countDown();
        Throwable outcomeW = outcome(fw, "W");
        compaction.release.countDown();
        Throwable outcomeC = outcome(fc, "C");
        S3Parquet.recover(table, s3.client(), catalog, TAKE_OVER);

        String story = "W " + mode + " " + method + " at " + w + " -> " + describe(outcomeW) + ", compaction at " + c + " -> "
                + describe(outcomeC) + ", operator -> " + operator + ", commits " + commits;
        checkOutcome(outcomeW, commits.contains("W"), story);
        if (outcomeC != null) {
            assertThat(outcomeC).as(story).isInstanceOfAny(WriteNotAppliedException.class, WriteIncompleteException.class,
                    CommitConflictException.class);
        }
        if (commits.contains("W")) {
            apply(model, mode, input);
        }
        assertThat(contents(s3, bucket)).as(story).isEqualTo(model);
        assertThat(s3.list(bucket, "t/_tmp/")).as(story).isEmpty();
        assertThat(s3.openMultipartUploads(bucket, "")).as(story).isEmpty();
        assertThat(outside(s3, bucket)).as(story + ": objects outside the table").containsOnlyKeys(outside.keySet());
        outside.forEach((k, v) -> assertThat(s3.get(bucket, k)).as(story + ": " + k).isEqualTo(v));
        assertThat(gluePartitions(glue.client(), db)).as(story + ": Glue's partitions").isEqualTo(s3Partitions(s3, bucket));
        assertThat(S3Parquet.recover(table, s3.client(), catalog, TAKE_OVER).isEmpty()).as(story + ": recovery has nothing left")
                .isTrue();
    }

    private static WriteBuilder write(List<Row> rows, WriteMode mode, CommitMethod method) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).commitMethod(method).s3(s3.client());
    }

}
