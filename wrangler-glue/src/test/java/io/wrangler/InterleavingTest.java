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
import io.wrangler.testkit.S3Fixture;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.glue.model.PartitionInput;
import software.amazon.awssdk.services.glue.model.Table;

/**
 * Deterministic interleavings of the commit protocol (issue 10): two writers and a recovery on one table with a Glue
 * catalog, the writers paused at every pair of step boundaries of the state table.
 *
 * <p>Each case: a table is seeded; writer A starts and is paused at step {@code a}; writer B starts with the test clock
 * past every lease (so it takes A's lease over at once, as it would once A's lease expired) and is paused at step
 * {@code b} (or runs to its end); an operator's {@code S3Parquet.recover} runs, with the catalog in even cases and
 * without it in odd ones, and takes B's lease over the same way; then A resumes, then B; then the operator recovers with
 * the catalog. B's pause points include the steps of its own recovery of A (a rolled-forward overwrite passes the copy
 * and delete steps inside B's recovery), so the recovery is paused at its step boundaries too.
 *
 * <p>After everything settles: the rows equal the seed followed by exactly the writes that committed, in the order of
 * their commit points (nothing lost, nothing doubled, nothing reverted); every exception is one of the three outcome
 * types and agrees with whether the write committed (never "unknown": a writer that lost its lease knows which side of
 * its commit point it stopped on); nothing outside the table was touched; Glue's partitions are
 * exactly the folders S3 holds; nothing is left under {@code _tmp/} and no upload is open.
 *
 * <p>Every case runs on {@link io.wrangler.testkit.MemoryS3} (the protocol tier: the same library code on the SDK's
 * S3Client, without HTTP): all 540 in CI. There the seed is written once per (mode, method) and each case runs on a
 * copy of it ({@link MemoryS3#copy()}: the same objects byte for byte, ETags, Last-Modified and commit log included;
 * the Glue table and partitions copied into the case's database, checked equal once): the seed's writes were a third of
 * a case's CPU. A sample runs on LocalS3 (S3Mock over HTTP, for the HTTP semantics): 24 of
 * them, for each (mode, method) combination 2 of A's 9 points against 2 of B's 10, shifted per combination; all 540
 * there too on demand with {@code -Dwrangler.interleavings=all}. {@code -Dwrangler.interleavings.only=DEFERRED}, say
 * (any part of "BACKEND KIND METHOD", e.g. {@code MEMORY} or {@code LOCAL OVERWRITE}), runs one part.
 *
 * <p>The cases of each mode and commit method run as a class of their own ({@link InterleavingStagedPartitionsTest},
 * {@link InterleavingDeferredKeyedTest} and four more; {@code -Dtest='Interleaving*Test'} runs them all), so that the
 * module's two test JVMs share them: as one class of 45 s it was the module's last minute on one core, and as two
 * halves the second still ran alone once the first JVM was done.
 *
 * <p>Cases run two at a time (each has its own bucket and Glue database; its writers are threads of their own, never
 * a shared pool's, so that paused writers of one case cannot hold back another's): one case mostly hands its turn from
 * one thread to the next, which leaves a core idle.
 */
@Execution(ExecutionMode.CONCURRENT)
abstract class InterleavingTest {
    private static final LocalDate D1 = LocalDate.of(2024, 3, 1);
    private static final LocalDate D2 = LocalDate.of(2024, 3, 2);
    private static final LocalDate D3 = LocalDate.of(2024, 3, 3);
    private static final String KEY = "nightly-2024-03";
    private static final S3Parquet.Tuning TAKE_OVER = TestLakes.PAST_LEASES;
    /** Pause points: every step boundary a write passes after it holds the lease (BEFORE_CLEANUP and STAGING_REMOVED are one point). */
    private static final List<Step> POINTS = List.of(Step.RECOVER, Step.STARTED, Step.STAGED_FILE, Step.LISTED_OLD_FILES,
            Step.MANIFEST_WRITTEN, Step.COPIED_FILE, Step.DELETED_BATCH, Step.BEFORE_CATALOG, Step.STAGING_REMOVED);
    /** Each writer of a case on a thread of its own. */
    private static final Executor OWN_THREAD = task -> {
        Thread t = new Thread(task, "interleaving-writer");
        t.setDaemon(true);
        t.start();
    };

    /** A LocalGlue of these classes alone: they run beside the module's other classes (see TestLakes.concurrentGlue). */
    private static final LocalGlue glue = TestLakes.concurrentGlue();
    /** The S3 of the running case. */
    private S3Fixture s3;

    /** A row; names are already what the catalog makes of them. */
    public record Row(String id, LocalDate dt, String country, long v) {
    }

    /** Where a case runs: MemoryS3 (every case) or LocalS3 (a sample unless all are asked for). */
    enum Backend {
        MEMORY, LOCAL
    }

    /** A mode under test: OVERWRITE_PARTITIONS, OVERWRITE, or an APPEND with an idempotency key. */
    enum Kind {
        OVERWRITE_PARTITIONS, OVERWRITE, KEYED_APPEND;

        WriteMode mode() {
            return this == KEYED_APPEND ? WriteMode.APPEND : WriteMode.valueOf(name());
        }
    }

    /** The cases of {@code kind} and {@code commitMethod}, numbered as among every case (even numbers recover with the catalog). */
    static Stream<Arguments> casesOf(Kind ofKind, CommitMethod commitMethod) {
        boolean all = "all".equals(System.getProperty("wrangler.interleavings"));
        String only = System.getProperty("wrangler.interleavings.only", "");
        List<Arguments> out = new ArrayList<>();
        List<Step> bPoints = new ArrayList<>(POINTS);
        bPoints.add(null);
        for (Backend backend : Backend.values()) {
            int combo = 0;
            for (Kind kind : Kind.values()) {
                for (CommitMethod method : CommitMethod.values()) {
                    if (!(backend + " " + kind + " " + method).contains(only)) {
                        combo++;
                        continue;
                    }
                    for (int i = 0; i < POINTS.size(); i++) {
                        for (int j = 0; j < bPoints.size(); j++) {
                            // Every pair on MemoryS3. LocalS3 in CI: two of A's points against two of B's, shifted per
                            // combination so that together they meet every offset; every pair there on demand.
                            int offset = (j - i + bPoints.size()) % bPoints.size();
                            boolean sampled = (i == combo % POINTS.size() || i == (combo + 4) % POINTS.size())
                                    && (offset == combo % bPoints.size() || offset == (combo + 5) % bPoints.size());
                            if (all || backend == Backend.MEMORY || sampled) {
                                out.add(Arguments.of(backend, kind, method, POINTS.get(i), bPoints.get(j), out.size() + 1));
                            }
                        }
                    }
                    combo++;
                }
            }
        }
        return out.stream().filter(c -> c.get()[1] == ofKind && c.get()[2] == commitMethod);
    }

    private static List<Row> rows(String tag, LocalDate... days) {
        List<Row> out = new ArrayList<>();
        for (LocalDate d : days) {
            out.add(new Row(tag + "-" + d, d, "RU", d.getDayOfMonth()));
        }
        return out;
    }

    /** The model: partition (dt) to the ids it holds. */
    private static void apply(Map<String, Set<String>> model, Kind kind, List<Row> rows, Set<String> keyedTags) {
        Map<String, List<String>> byPartition = new TreeMap<>();
        rows.forEach(r -> byPartition.computeIfAbsent(r.dt().toString(), k -> new ArrayList<>()).add(r.id()));
        if (kind == Kind.OVERWRITE) {
            model.clear();
        }
        for (Map.Entry<String, List<String>> e : byPartition.entrySet()) {
            Set<String> held = model.computeIfAbsent(e.getKey(), k -> new TreeSet<>());
            if (kind == Kind.OVERWRITE_PARTITIONS) {
                held.clear();
            } else if (kind == Kind.KEYED_APPEND) {
                held.removeIf(id -> keyedTags.contains(id.substring(0, id.indexOf('-'))));
            }
            held.addAll(e.getValue());
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}: A paused at {3}, B at {4}")
    @MethodSource("cases")
    void twoWritersAndARecoveryLoseNothingDoubleNothingAndLeaveGlueEqualToS3(Backend backend, Kind kind, CommitMethod method, Step a,
                                                                            Step b, int n) throws Exception {
        String bucket;
        String db;
        Map<String, Set<String>> model;
        if (backend == Backend.MEMORY) {
            // The seeded lake of (kind, method), written once, and a copy of it for this case: the same objects byte for
            // byte (ETags, Last-Modified and commit log included) and the same Glue table and partitions.
            Seeded seeded = seeded(kind, method);
            s3 = seeded.s3().copy();
            bucket = seeded.bucket();
            db = "ilcase_" + n;
            glue.client().createDatabase(x -> x.databaseInput(d -> d.name(db)));
            copyGlueTable(seeded.db(), db);
            model = copy(seeded.model());
        } else {
            s3 = TestLakes.s3();
            bucket = TestLakes.bucket("il", s3, glue);
            db = TestLakes.database(bucket);
            model = seed(s3, bucket, GlueCatalog.of(glue.client()).table(db, "t"), kind, method);
        }
        String table = "s3://" + bucket + "/t/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "t");
        Set<String> keyed = Set.of("k1", "a", "b");
        Map<String, byte[]> outside = outside(s3, bucket);

        List<String> commits = new ArrayList<>();
        Map<String, List<Row>> input = new LinkedHashMap<>();
        input.put("A", rows("a", D1, D2));
        input.put("B", rows("b", D2, D3));
        Actor actorA = new Actor("A", a, commits);
        Actor actorB = new Actor("B", b, commits);

        CompletableFuture<WriteResult> fa = CompletableFuture.supplyAsync(() -> keyedIfNeeded(
                write(input.get("A"), kind.mode(), method), kind).catalog(catalog).stepHook(actorA).to(table), OWN_THREAD);
        awaitReached(actorA, fa, "A");
        CompletableFuture<WriteResult> fb = CompletableFuture.supplyAsync(() -> keyedIfNeeded(
                write(input.get("B"), kind.mode(), method), kind).catalog(catalog).stepHook(actorB).tuning(TAKE_OVER)
                .leaseWait(Duration.ofSeconds(10)).to(table), OWN_THREAD);
        if (b != null) {
            awaitReached(actorB, fb, "B");
        } else {
            outcome(fb, "B");
        }
        RecoveryResult operator = S3Parquet.recover(table, s3.client(), n % 2 == 0 ? catalog : null, TAKE_OVER);
        actorA.release.countDown();
        Throwable outcomeA = outcome(fa, "A");
        actorB.release.countDown();
        Throwable outcomeB = outcome(fb, "B");
        S3Parquet.recover(table, s3.client(), catalog, TAKE_OVER);

        String story = backend + " " + kind + " " + method + ", A at " + a + " -> " + describe(outcomeA) + ", B at " + b + " -> "
                + describe(outcomeB) + ", operator " + (n % 2 == 0 ? "with" : "without") + " catalog -> " + operator
                + ", commits " + commits;
        // Each outcome is one of the three, and agrees with whether that write passed its commit point.
        checkOutcome(outcomeA, commits.contains("A"), story);
        checkOutcome(outcomeB, commits.contains("B"), story);

        for (String w : commits) {
            apply(model, kind, input.get(w), keyed);
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

    private WriteBuilder write(List<Row> rows, WriteMode mode, CommitMethod method) {
        return write(rows, mode, method, s3);
    }

    private static WriteBuilder write(List<Row> rows, WriteMode mode, CommitMethod method, S3Fixture s3) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).commitMethod(method).s3(s3.client());
    }

    /**
     * Seeds the table {@code t/} of {@code bucket}: objects outside it, then plain rows in all three days; for keyed
     * appends, also the key's first run in days 1 and 2. Returns the model of what it holds.
     */
    private static Map<String, Set<String>> seed(S3Fixture s3, String bucket, GlueTable catalog, Kind kind, CommitMethod method) {
        String table = "s3://" + bucket + "/t/";
        s3.put(bucket, "t_backup/sentinel", new byte[] {1});
        s3.put(bucket, "sentinel", new byte[] {2});
        Map<String, Set<String>> model = new TreeMap<>();
        List<Row> seed = rows("s", D1, D2, D3);
        write(seed, WriteMode.APPEND, method, s3).catalog(catalog).to(table);
        apply(model, Kind.KEYED_APPEND, seed, Set.of()); // a plain append: a keyed one that replaces no tag
        if (kind == Kind.KEYED_APPEND) {
            List<Row> first = rows("k1", D1, D2);
            write(first, WriteMode.APPEND, method, s3).idempotencyKey(KEY).catalog(catalog).to(table);
            apply(model, Kind.KEYED_APPEND, first, Set.of("k1", "a", "b"));
        }
        return model;
    }

    /** A seeded lake on MemoryS3: its S3, its bucket, its Glue database and the model of its table. */
    private record Seeded(MemoryS3 s3, String bucket, String db, Map<String, Set<String>> model) {
    }

    private static final Map<String, Seeded> SEEDED = new HashMap<>();

    /** The lake of (kind, method) seeded once per test JVM; cases copy it and never change it. */
    private static Seeded seeded(Kind kind, CommitMethod method) {
        synchronized (SEEDED) {
            return SEEDED.computeIfAbsent(kind + " " + method, k -> {
                MemoryS3 memory = MemoryS3.start();
                String bucket = TestLakes.bucket("il-seed", memory, glue);
                String db = TestLakes.database(bucket);
                Map<String, Set<String>> model = seed(memory, bucket, GlueCatalog.of(glue.client()).table(db, "t"), kind, method);
                // The copy of the Glue table is the table, but for its database and times.
                String check = db + "_copy";
                glue.client().createDatabase(x -> x.databaseInput(d -> d.name(check)));
                copyGlueTable(db, check);
                assertThat(glueTable(check)).as("a copy of " + k + "'s Glue table").isEqualTo(glueTable(db));
                return new Seeded(memory, bucket, db, model);
            });
        }
    }

    private static Map<String, Set<String>> copy(Map<String, Set<String>> model) {
        Map<String, Set<String>> out = new TreeMap<>();
        model.forEach((k, v) -> out.put(k, new TreeSet<>(v)));
        return out;
    }

    /** The table {@code db.t} and its partitions, without its database's name and the times of its entries. */
    private static List<Object> glueTable(String db) {
        Table t = glue.client().getTable(x -> x.databaseName(db).name("t")).table();
        List<Object> out = new ArrayList<>(List.of(t.toBuilder().databaseName(null).createTime(null).updateTime(null).build()));
        glue.client().getPartitionsPaginator(x -> x.databaseName(db).tableName("t")).forEach(page -> page.partitions().forEach(
                p -> out.add(p.toBuilder().databaseName(null).creationTime(null).build())));
        out.subList(1, out.size()).sort(Comparator.comparing(Object::toString));
        return out;
    }

    /** Creates {@code to.t} as {@code from.t} is: the same table input and the same partitions. */
    private static void copyGlueTable(String from, String to) {
        Table t = glue.client().getTable(x -> x.databaseName(from).name("t")).table();
        glue.client().createTable(x -> x.databaseName(to).tableInput(i -> i.name(t.name()).description(t.description())
                .owner(t.owner()).retention(t.retention()).storageDescriptor(t.storageDescriptor()).partitionKeys(t.partitionKeys())
                .tableType(t.tableType()).parameters(t.parameters()).viewOriginalText(t.viewOriginalText())
                .viewExpandedText(t.viewExpandedText()).targetTable(t.targetTable())));
        List<PartitionInput> partitions = new ArrayList<>();
        glue.client().getPartitionsPaginator(x -> x.databaseName(from).tableName("t")).forEach(page -> page.partitions().forEach(p -> partitions.add(
                PartitionInput.builder().values(p.values()).storageDescriptor(p.storageDescriptor()).parameters(p.parameters())
                        .lastAccessTime(p.lastAccessTime()).lastAnalyzedTime(p.lastAnalyzedTime()).build())));
        if (!partitions.isEmpty()) {
            glue.client().batchCreatePartition(x -> x.databaseName(to).tableName("t").partitionInputList(partitions));
        }
    }

    private static WriteBuilder keyedIfNeeded(WriteBuilder w, Kind kind) {
        return kind == Kind.KEYED_APPEND ? w.idempotencyKey(KEY) : w;
    }

}
