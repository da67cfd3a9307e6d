package io.wrangler;

import io.wrangler.commit.Step;
import io.wrangler.commit.StepHook;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random histories of everything that changes a table, each checked after every step against a model of the rows each
 * partition must hold (a multiset, with the idempotency key that contributed each row) and against DuckDB over the same
 * objects: plain appends, keyed appends (a new key, or a rerun of an earlier key with new values), OVERWRITE_PARTITIONS,
 * OVERWRITE, appends that add a column, compactions with and without {@code dedupBy}, crashes at a random step of any of
 * them (resolved by {@code S3Parquet.recover} or by the next operation), and readers that read while an operation is
 * paused at a random step.
 *
 * <p>The model is the documented behaviour, nothing weaker:
 * <ul>
 *   <li>a keyed append removes, in each partition it writes, the rows an earlier run with its key left there (whatever
 *       compacted or deduplicated them since), and adds its own; rows of other keys and other partitions stay;</li>
 *   <li>a compaction changes no row; with {@code dedupBy(id, order)} it keeps, per partition and id, the row with the
 *       greatest order value, ties broken by commit order (the later write wins); it compacts the partitions with more
 *       than one file;</li>
 *   <li>a column added by a later write reads as null for older rows (the schema is the union by name of the files'),
 *       through wrangler's reader, through DuckDB's {@code union_by_name}, and after a compaction;</li>
 *   <li>a crash leaves the operation applied when it passed its commit point (an overwrite, keyed append or compaction
 *       from {@link Step#MANIFEST_WRITTEN} on), else undone (a plain append until its end), once recovered;</li>
 *   <li>a reader, while an operation is paused at any step or crashed and not yet recovered, sees the table exactly as
 *       before it or exactly as after it;</li>
 *   <li>a compaction that is the next operation after a crash lists the table before its own recovery runs: it either
 *       compacts the recovered table, or (docs/compaction.md: a file that came into a partition after the compaction listed it is not
 *       deleted) the table as it listed it, with the recovered write's new files beside the compacted ones, or is refused
 *       with a {@code WriteNotAppliedException}, nothing changed; any other failure is a defect.</li>
 * </ul>
 * Each row has a unique (dt, id, seq): {@code seq} is the number of the operation that wrote it, so it is also its commit
 * order; ids repeat across writes (a small pool per partition) and values take few values, so that dedup has duplicates
 * and ties to decide. Every dedup compaction is also cross-checked against DuckDB's
 * {@code QUALIFY row_number() OVER (PARTITION BY dt, id ORDER BY order DESC, seq DESC) = 1} over the table before it.
 *
 * <p>Each history starts with an append to every partition, then draws every kind once in a random order, then at
 * random; a keyed rerun of keys a compaction just rewrote, a rerun right after a crash, and faults between delete batches
 * are drawn more often, as that is where the guarantees meet. After the default seeds (all completed), {@code coverage()}
 * checks that they still cover every kind, crashes on either side of the commit point resolved both ways, compaction
 * crashes, paused readers, dedup cross-checks and a keyed rerun over compacted rows.
 *
 * <p>CI runs a short set of seeds. Long runs and reproductions, each seed printing its history:
 * <pre>
 * mvn -B -pl wrangler-core -am test -Dtest=TableHistoryPropertyTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dwrangler.history.seeds=200 [-Dwrangler.history.seed=20261204] [-Dwrangler.history.ops=12]
 * </pre>
 * A failing seed reruns alone with {@code -Dwrangler.history.seed=<seed> -Dwrangler.history.seeds=1}. While bisecting a
 * failure, {@code -Dwrangler.history.kinds=APPEND,KEYED,...} limits the operations drawn (every kind by default).
 */
class TableHistoryPropertyTest {
    private static final long SEED = Long.getLong("wrangler.history.seed", 20261204L);
    private static final int SEEDS = Integer.getInteger("wrangler.history.seeds", 6);
    private static final int OPS = Integer.getInteger("wrangler.history.ops", 12);
    private static final Set<Kind> KINDS = kinds(System.getProperty("wrangler.history.kinds", ""));

    private static final List<LocalDate> DAYS = List.of(LocalDate.of(2024, 1, 1), LocalDate.of(2024, 1, 2), LocalDate.of(2024, 1, 3));
    /** Ids per partition: few, so that writes repeat them and dedup has something to drop. */
    private static final int IDS = 3;
    /** Values: few, so that dedupBy(id, "value") meets ties, which commit order decides. */
    private static final int VALUES = 2;
    private static final String[] KEYS = {"batch-a", "batch-b", "batch-c"};
    /** The steps a crash or a pause falls on, with the how-many-th time it is reached. */
    private static final Object[][] POINTS = {{Step.STARTED, 1}, {Step.STAGED_FILE, 1}, {Step.STAGED_FILE, 2}, {Step.LISTED_OLD_FILES, 1},
        {Step.MANIFEST_WRITTEN, 1}, {Step.COPIED_FILE, 1}, {Step.COPIED_FILE, 2}, {Step.DELETED_BATCH, 1}, {Step.DELETED_BATCH, 2},
        {Step.BEFORE_CATALOG, 1}, {Step.BEFORE_CLEANUP, 1}, {Step.STAGING_REMOVED, 1}};

    private static final ExecutorService PAUSED = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "history-paused-op");
        t.setDaemon(true);
        return t;
    });

    /** What the histories did, for the check that the CI seeds keep covering every case. */
    private static final Map<String, Integer> TALLY = new TreeMap<>();
    private static final java.util.concurrent.atomic.AtomicInteger COMPLETED = new java.util.concurrent.atomic.AtomicInteger();

    static synchronized void count(String what) {
        TALLY.merge(what, 1, Integer::sum);
    }

    @AfterAll
    static void coverage() {
        PAUSED.shutdownNow();
        System.out.println("TableHistoryPropertyTest: " + COMPLETED.get() + " of " + SEEDS + " histories completed; " + TALLY);
        if (COMPLETED.get() == SEEDS && SEEDS >= 6 && KINDS.size() == Kind.values().length) {
            // the histories are what they claim: every kind settled, every way a crash goes and is resolved, paused
            // readers, dedup cross-checked by both orders, a keyed rerun over compacted rows (a failure of a seed fails
            // its own test; this only runs when every history completed)
            List<String> wanted = new ArrayList<>(Stream.of(Kind.values()).map(k -> "settled " + k).toList());
            wanted.addAll(List.of("write crashed", "compaction crashed", "crash past the commit point", "crash before the commit point",
                    "S3Parquet.recover after a crash", "a write recovered a crashed op", "read while paused",
                    "dedup cross-checked with DuckDB",
                    "rows without the added column beside rows with it", "keyed rerun over its compacted rows"));
            List<String> missing = wanted.stream().filter(w -> !TALLY.containsKey(w)).toList();
            if (!missing.isEmpty()) {
                throw new AssertionError("the " + SEEDS + " histories from seed " + SEED + " never had: " + missing + "; tally " + TALLY
                        + ". Run more seeds or another first seed.");
            }
        }
    }

    /** A table's row, as written by the tests' writes. */
    record Plain(long id, long value, long seq, LocalDate dt) {
    }

    /** The same with the column {@code note}, which a later write adds. */
    record Noted(long id, long value, long seq, String note, LocalDate dt) {
    }

    /**
     * One row of the model: its values, the idempotency key of the write that added it (null for other writes),
     * whether the file holding it has the column {@code note} (a compaction gives its partition's files every column
     * one of them had), and whether a compaction rewrote it.
     */
    record Row(LocalDate dt, long id, long value, long seq, String note, String key, boolean noted, boolean compacted) {
        String render() {
            return "dt=" + dt + " id=" + id + " value=" + value + " seq=" + seq + " note=" + note;
        }
    }

    /** What a reader sees: the rows as sorted text (a multiset), and whether the column {@code note} exists. */
    record View(List<String> rows, boolean hasNote) {
        static View of(Collection<Row> rows) {
            return new View(rows.stream().map(Row::render).sorted().toList(), rows.stream().anyMatch(Row::noted));
        }

        @Override
        public String toString() {
            return rows.size() + " rows" + (hasNote ? ", with note" : ", without note");
        }
    }

    enum Kind { APPEND, ADD_COLUMN, KEYED, RERUN, OVERWRITE_PARTITIONS, OVERWRITE, COMPACT, COMPACT_DEDUP }

    enum Fault { NONE, CRASH, PAUSE }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash(Step step, int n) {
            super("simulated crash at " + step + " #" + n);
        }
    }

    /** An operation of a history, as drawn. */
    static final class Op {
        final int index;
        final Kind kind;
        WriteMode mode;
        String key;
        List<Row> rows = List.of();
        String dedupOrder;
        Fault fault = Fault.NONE;
        Step at;
        int count;
        /** What happened to it, for the history. */
        final List<String> notes = new ArrayList<>();

        Op(int index, Kind kind) {
            this.index = index;
            this.kind = kind;
        }

        boolean compaction() {
            return kind == Kind.COMPACT || kind == Kind.COMPACT_DEDUP;
        }

        /** Whether a crash at {@code step} leaves it applied: past the commit point of an overwrite, keyed append or compaction. */
        boolean committedAt(Step step) {
            return mode != WriteMode.APPEND || key != null ? step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal() : false;
        }

        Set<LocalDate> days() {
            return rows.stream().map(Row::dt).collect(Collectors.toCollection(TreeSet::new));
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder("op " + index + ": " + kind);
            if (compaction()) {
                s.append(dedupOrder == null ? "" : " dedupBy(id, " + dedupOrder + ")");
            } else {
                s.append(' ').append(mode).append(key == null ? "" : " key " + key).append(' ').append(days()).append(' ')
                        .append(rows.stream().map(r -> "d" + r.dt().getDayOfMonth() + ":id" + r.id() + "=" + r.value()
                                + (r.noted() ? "," + r.note() : "")).toList());
            }
            if (fault != Fault.NONE) {
                s.append(", ").append(fault.name().toLowerCase()).append(" at ").append(at).append('#').append(count);
            }
            notes.forEach(n -> s.append("; ").append(n));
            return s.toString();
        }
    }

    static Stream<Long> seeds() {
        return LongStream.range(SEED, SEED + SEEDS).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomHistoriesMatchTheModelAndDuckDb(long seed) throws Exception {
        new History(seed).run();
    }

    /** One seed's history: the table, the model, and what happened so far. */
    static final class History {
        final long seed;
        final Random rnd;
        final String bucket = TestLake.memoryBucket();
        final String table = "s3://" + bucket + "/t/";
        final List<Op> done = new ArrayList<>();
        List<Row> model = new ArrayList<>();
        final List<String> usedKeys = new ArrayList<>();
        /** Every kind once, in a random order, drawn first: each history has them all; then random draws. */
        final java.util.Deque<Kind> deck = new java.util.ArrayDeque<>();
        boolean noteExists;
        /** A crashed operation left for the next one to recover: the model before and after it, and which one holds. */
        Pending pending;

        record Pending(Op op, List<Row> before, List<Row> after, boolean committed) {
        }

        History(long seed) {
            this.seed = seed;
            this.rnd = new Random(seed);
            List<Kind> kinds = new ArrayList<>(KINDS);
            kinds.sort(null);
            java.util.Collections.shuffle(kinds, rnd);
            deck.addAll(kinds);
        }

        void run() throws Exception {
            for (int i = 0; i < OPS; i++) {
                Op op = draw(i);
                done.add(op);
                long start = System.nanoTime();
                step(op);
                op.notes.add((System.nanoTime() - start) / 1_000_000 + " ms");
            }
            if (pending != null) {
                Op last = done.get(done.size() - 1);
                recoverExplicitly(last);
                checkSettled(last, "after the final recovery");
            }
            COMPLETED.incrementAndGet();
            System.out.println("TableHistoryPropertyTest seed " + seed + ": " + done.size() + " ops, " + model.size() + " rows\n  "
                    + done.stream().map(Op::toString).collect(Collectors.joining("\n  ")));
        }

        // ---- drawing a history

        Op draw(int i) {
            if (i == 0) {
                Op op = new Op(0, Kind.APPEND);
                op.mode = WriteMode.APPEND;
                op.rows = rows(0, DAYS, false, null);
                return op;
            }
            Kind kind;
            // the keys whose rows a compaction just rewrote: their rerun is where keyed runs and compaction meet
            List<String> compactedKeys = done.get(i - 1).compaction() ? model.stream().filter(r -> r.key() != null && r.compacted())
                    .map(Row::key).distinct().sorted().toList() : List.of();
            String rerunKey = null;
            if (pending != null && pending.op.key != null && rnd.nextBoolean() && KINDS.contains(Kind.RERUN)) {
                kind = Kind.RERUN; // the crashed keyed append rerun, which recovers it first
            } else if (pending != null && pending.op.compaction() && !usedKeys.isEmpty() && rnd.nextBoolean() && KINDS.contains(Kind.RERUN)) {
                kind = Kind.RERUN; // a rerun that finishes or undoes a crashed compaction of its rows
            } else if (pending == null && !compactedKeys.isEmpty() && rnd.nextBoolean() && KINDS.contains(Kind.RERUN)) {
                kind = Kind.RERUN;
                rerunKey = compactedKeys.get(rnd.nextInt(compactedKeys.size()));
            } else {
                kind = deck.isEmpty() ? drawKind() : usable(deck.pop());
                if (!KINDS.contains(kind)) {
                    kind = drawKind();
                }
            }
            Op op = new Op(i, kind);
            boolean noted = kind == Kind.ADD_COLUMN || noteExists && rnd.nextBoolean();
            switch (kind) {
                case APPEND, ADD_COLUMN -> op.mode = WriteMode.APPEND;
                case KEYED -> {
                    op.mode = WriteMode.APPEND;
                    op.key = KEYS[usedKeys.size()];
                }
                case RERUN -> {
                    op.mode = WriteMode.APPEND;
                    op.key = rerunKey != null ? rerunKey
                            : pending != null && pending.op.key != null ? pending.op.key : usedKeys.get(rnd.nextInt(usedKeys.size()));
                }
                case OVERWRITE_PARTITIONS -> op.mode = WriteMode.OVERWRITE_PARTITIONS;
                case OVERWRITE -> op.mode = WriteMode.OVERWRITE;
                case COMPACT -> op.mode = WriteMode.OVERWRITE_PARTITIONS;
                case COMPACT_DEDUP -> {
                    op.mode = WriteMode.OVERWRITE_PARTITIONS;
                    op.dedupOrder = rnd.nextInt(4) != 0 ? "value" : "seq"; // ties happen by value only
                }
                default -> throw new IllegalStateException(kind.name());
            }
            if (!op.compaction()) {
                List<LocalDate> days = new ArrayList<>();
                for (LocalDate d : DAYS) {
                    if (rnd.nextInt(2) == 0) {
                        days.add(d);
                    }
                }
                if (rerunKey != null) {
                    // at least one partition where the key's rows were compacted
                    List<LocalDate> compacted = model.stream().filter(r -> op.key.equals(r.key()) && r.compacted()).map(Row::dt).distinct().toList();
                    LocalDate d = compacted.get(rnd.nextInt(compacted.size()));
                    if (!days.contains(d)) {
                        days.add(d);
                        days.sort(null);
                    }
                }
                if (days.isEmpty()) {
                    days.add(DAYS.get(rnd.nextInt(DAYS.size())));
                }
                op.rows = rows(i, days, noted, op.key);
            }
            // A paused reader needs a settled "before"; a compaction that recovers a crash lists the table before that recovery
            // runs (which the model follows), so its partitions are known only from its result: it does not crash itself.
            int f = rnd.nextInt(10);
            if (f < 3 && !(pending != null && op.compaction())) {
                op.fault = Fault.CRASH;
            } else if (f < 7 && pending == null) {
                op.fault = Fault.PAUSE;
            }
            boolean deletes = op.mode != WriteMode.APPEND || op.key != null;
            if (op.fault != Fault.NONE && deletes && rnd.nextInt(3) == 0) {
                // between delete batches is where a reader's before-or-after is hardest to keep: often there
                op.at = Step.DELETED_BATCH;
                op.count = 1;
            } else if (op.fault != Fault.NONE) {
                Object[] p = POINTS[rnd.nextInt(POINTS.length)];
                op.at = (Step) p[0];
                // a compaction writes one file a partition, in one delete batch or two: its first of each is reached
                op.count = op.compaction() ? 1 : (Integer) p[1];
            }
            return op;
        }

        /** {@code k}, or the keyed kind that can run now: a rerun needs an earlier key, a new key a key left. */
        Kind usable(Kind k) {
            if (k == Kind.KEYED && usedKeys.size() == KEYS.length) {
                return Kind.RERUN;
            }
            if (k == Kind.RERUN && usedKeys.isEmpty()) {
                return Kind.KEYED;
            }
            return k;
        }

        Kind drawKind() {
            // weights: appends and keyed appends often, compactions often enough to meet keyed rows, OVERWRITE rarely
            Kind[] bag = {Kind.APPEND, Kind.APPEND, Kind.ADD_COLUMN, Kind.KEYED, Kind.KEYED, Kind.RERUN, Kind.RERUN, Kind.RERUN,
                Kind.OVERWRITE_PARTITIONS, Kind.OVERWRITE_PARTITIONS, Kind.COMPACT, Kind.COMPACT, Kind.COMPACT_DEDUP, Kind.COMPACT_DEDUP,
                Kind.COMPACT_DEDUP, Kind.OVERWRITE, Kind.OVERWRITE};
            for (int tries = 0; ; tries++) {
                Kind k = usable(bag[rnd.nextInt(bag.length)]);
                if (KINDS.contains(k)) {
                    return k;
                }
                if (tries > 1000) {
                    return Kind.APPEND;
                }
            }
        }

        /** 1 to 3 rows in each of {@code days}, with distinct ids in each partition (so no tie within one write). */
        List<Row> rows(int op, List<LocalDate> days, boolean noted, String key) {
            List<Row> out = new ArrayList<>();
            for (LocalDate d : days) {
                List<Long> ids = new ArrayList<>(LongStream.range(0, IDS).boxed().toList());
                java.util.Collections.shuffle(ids, rnd);
                int n = 1 + rnd.nextInt(3);
                for (int j = 0; j < n; j++) {
                    String note = noted && rnd.nextInt(4) != 0 ? "n" + op + "-" + ids.get(j) : null;
                    out.add(new Row(d, ids.get(j), rnd.nextInt(VALUES), op, note, key, noted, false));
                }
            }
            return out;
        }

        // ---- running a step

        void step(Op op) throws Exception {
            if (op.key != null && model.stream().anyMatch(r -> op.key.equals(r.key()) && r.compacted() && op.days().contains(r.dt()))) {
                count("keyed rerun over its compacted rows");
            }
            // With a crash pending, the model already is what its recovery (this op's, first) leaves.
            List<Row> before = List.copyOf(model);
            List<List<Object>> duckDedup = op.kind == Kind.COMPACT_DEDUP && pending == null ? duckDedup(op.dedupOrder) : null;
            Set<LocalDate> crashPartitions = op.compaction() && op.fault == Fault.CRASH ? partitionsWithManyFiles() : null;
            switch (op.fault) {
                case NONE -> {
                    Object result;
                    try {
                        result = execute(op, StepHook.NONE);
                    } catch (WriteNotAppliedException e) {
                        if (!op.compaction() || pending == null) {
                            throw failure(op, "failed", e);
                        }
                        // A compaction lists the table before its recovery of the crashed op runs; refusing, with nothing
                        // changed, what that recovery changed since is an outcome it may choose.
                        op.notes.add("refused, not applied: " + e.getMessage());
                        Tunings.recover(table, TestLake.memory().client());
                        pending = null;
                        checkSettled(op, "after it was refused");
                        return;
                    } catch (RuntimeException e) {
                        throw failure(op, "failed", e);
                    }
                    settle(op, before, result, duckDedup);
                }
                case PAUSE -> paused(op, before, duckDedup);
                case CRASH -> crashed(op, before, crashPartitions, duckDedup);
                default -> throw new IllegalStateException();
            }
        }

        /** Runs the operation; its result (a WriteResult or a CompactionResult). */
        Object execute(Op op, StepHook hook) {
            if (op.compaction()) {
                CompactBuilder c = S3Parquet.compact(table).s3(TestLake.memory().client()).tuning(Tunings.smallDeleteBatches()).stepHook(hook);
                if (op.dedupOrder != null) {
                    c.dedupBy(List.of("id"), op.dedupOrder);
                }
                return c.run();
            }
            WriteBuilder w = op.rows.get(0).noted()
                    ? S3Parquet.write(op.rows.stream().map(r -> new Noted(r.id(), r.value(), r.seq(), r.note(), r.dt())).toList())
                    : S3Parquet.write(op.rows.stream().map(r -> new Plain(r.id(), r.value(), r.seq(), r.dt())).toList());
            w.partitionBy("dt").mode(op.mode).tuning(Tunings.smallDeleteBatches()).stepHook(hook).s3(TestLake.memory().client());
            if (op.key != null) {
                w.idempotencyKey(op.key);
            }
            return w.to(table);
        }

        /**
         * The operation ran to its end: the model moves on from {@code before} (which includes what its recovery of a
         * crashed operation left), and the table is checked.
         */
        void settle(Op op, List<Row> before, Object result, List<List<Object>> duckDedup) {
            Set<LocalDate> compacted = null;
            if (result instanceof CompactionResult c) {
                compacted = c.partitions().stream().map(p -> day(p)).collect(Collectors.toCollection(TreeSet::new));
                op.notes.add("compacted " + compacted + ", " + c.duplicatesDropped() + " duplicates dropped");
            }
            model = new ArrayList<>(apply(op, before, compacted));
            noteKeys(op);
            List<Row> listedBefore = null;
            int recovered = pending == null ? -1 : pending.op.index;
            if (pending != null && op.compaction() && pending.committed && !pending.op.compaction() && !compacted.isEmpty()) {
                // A compaction lists the table before it takes the lease and recovers the crashed write, then replaces exactly
                // the files it listed: when it listed the table as before that write, the write's files come in after its
                // listing and stay beside the compacted ones (docs/compaction.md: a file that came into a partition after the compaction
                // listed it is not deleted), so its rows are not deduplicated against them.
                listedBefore = apply(pending.op, apply(op, pending.before, compacted), null);
            }
            if (pending != null) {
                if (op.compaction() && compacted.isEmpty()) {
                    // A compaction recovers a crashed write before it lists the table when the crashed writer's lease has run
                    // out (Writes.recoverAbandoned); with nothing to compact it writes nothing, so a crash whose lease it
                    // found still held waits for the next write. Either way an explicit recovery now leaves the same table.
                    op.notes.add("nothing to compact, so op " + pending.op.index + " is recovered explicitly (if the compaction did not)");
                    recoverExplicitly(op, true);
                } else {
                    op.notes.add("recovered op " + pending.op.index + " (" + (pending.committed ? "rolled forward" : "rolled back") + ")");
                    count(op.compaction() ? "a compaction recovered a crashed op" : "a write recovered a crashed op");
                }
                pending = null;
            }
            count("settled " + op.kind);
            if (listedBefore == null) {
                checkSettled(op, "after it");
            } else if (checkSettled(op, "after it", List.of(model, listedBefore)) == 1) {
                op.notes.add("it had listed the table as before op " + recovered);
                model = new ArrayList<>(listedBefore);
                duckDedup = null;
            }
            if (duckDedup != null && compacted != null) {
                crossCheckDedup(op, duckDedup, compacted);
                if (!compacted.isEmpty()) {
                    count("dedup cross-checked with DuckDB");
                    count("dedup by " + op.dedupOrder + " cross-checked with DuckDB");
                }
            }
            if (model.stream().anyMatch(Row::noted) && model.stream().anyMatch(r -> !r.noted())) {
                count("rows without the added column beside rows with it");
            }
        }

        void noteKeys(Op op) {
            if (op.key != null && !usedKeys.contains(op.key)) {
                usedKeys.add(op.key);
            }
            if (op.rows.stream().anyMatch(Row::noted)) {
                noteExists = true;
            }
        }

        /** The operation paused at its step while wrangler's reader reads the table: it must see before or after. */
        void paused(Op op, List<Row> before, List<List<Object>> duckDedup) throws Exception {
            CountDownLatch reached = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean paused = new AtomicBoolean();
            StepHook hook = (step, n) -> {
                if (step == op.at && n == op.count && paused.compareAndSet(false, true)) {
                    reached.countDown();
                    try {
                        release.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            CompletableFuture<Object> running = CompletableFuture.supplyAsync(() -> execute(op, hook), PAUSED);
            running.whenComplete((r, e) -> reached.countDown());
            Object read;
            try {
                if (!reached.await(60, TimeUnit.SECONDS)) {
                    throw failure(op, "did not reach its pause point nor end within 60 s", null);
                }
                read = paused.get() ? readOrFailure() : null;
            } finally {
                release.countDown();
            }
            Object result;
            try {
                result = Stalls.within(running, 60, bucket);
            } catch (ExecutionException e) {
                throw failure(op, "failed", e.getCause());
            }
            if (read == null) {
                op.notes.add("pause point not reached");
            }
            settle(op, before, result, duckDedup);
            if (read != null) {
                count("read while paused");
                List<Row> after = model;
                assertEither(op, "wrangler's read while the op was paused at " + op.at + "#" + op.count, read, before, after);
            }
        }

        /**
         * The operation crashed at its step (an Error from the step hook: no cleanup, as a killed process). A reader sees
         * before or after; then it is recovered, by S3Parquet.recover or by the next operation, and must be applied exactly
         * when it passed its commit point.
         */
        void crashed(Op op, List<Row> before, Set<LocalDate> crashPartitions, List<List<Object>> duckDedup) {
            AtomicBoolean fired = new AtomicBoolean();
            StepHook hook = (step, n) -> {
                if (step == op.at && n == op.count && fired.compareAndSet(false, true)) {
                    throw new Crash(step, n);
                }
            };
            Object result = null;
            try {
                result = execute(op, hook);
            } catch (Crash expected) {
                // as planned
            } catch (RuntimeException | Error e) {
                throw failure(op, "failed instead of crashing at " + op.at + "#" + op.count, e);
            }
            if (!fired.get()) {
                op.notes.add("crash point not reached");
                settle(op, before, result, duckDedup);
                return;
            }
            boolean committed = op.committedAt(op.at);
            count(op.compaction() ? "compaction crashed" : "write crashed");
            count(committed ? "crash past the commit point" : "crash before the commit point");
            List<Row> after = apply(op, before, crashPartitions);
            if (crashPartitions != null) {
                op.notes.add("compacting " + crashPartitions);
            }
            if (pending != null) {
                op.notes.add("recovered op " + pending.op.index + " (" + (pending.committed ? "rolled forward" : "rolled back") + ") first");
                pending = null;
            }
            Object read = readOrFailure();
            assertEither(op, "wrangler's read after the crash, before recovery", read, before, after);
            model = new ArrayList<>(committed ? after : before);
            if (committed) {
                noteKeys(op);
            }
            pending = new Pending(op, before, after, committed);
            if (rnd.nextBoolean()) {
                recoverExplicitly(op);
                count("S3Parquet.recover after a crash");
                checkSettled(op, "after its recovery");
            } else {
                op.notes.add((committed ? "committed" : "not committed") + ", the next op recovers it");
            }
        }

        void recoverExplicitly(Op op) {
            recoverExplicitly(op, false);
        }

        /** Recovers the pending crash; {@code mayBeDone}: a compaction may have recovered it already (then nothing is left). */
        void recoverExplicitly(Op op, boolean mayBeDone) {
            Pending p = pending;
            RecoveryResult r;
            try {
                r = Tunings.recover(table, TestLake.memory().client());
            } catch (RuntimeException e) {
                throw failure(op, "recovery failed", e);
            }
            boolean nothingLeft = r.rolledForward().isEmpty() && r.rolledBack().isEmpty();
            if (mayBeDone && nothingLeft) {
                op.notes.add("the compaction had recovered op " + p.op.index);
                count("a compaction recovered a crashed op");
                pending = null;
                return;
            }
            if (p.op.at.ordinal() >= Step.MANIFEST_WRITTEN.ordinal() && (r.rolledForward().size() != (p.committed ? 1 : 0)
                    || r.rolledBack().size() != (p.committed ? 0 : 1))) {
                throw failure(op, "recovery of op " + p.op.index + " (" + (p.committed ? "committed" : "not committed") + ") reported " + r,
                        null);
            }
            op.notes.add("S3Parquet.recover: " + (p.committed ? "rolled forward" : "rolled back"));
            pending = null;
        }

        // ---- the model

        /**
         * The model after {@code op} from {@code before}: {@code compacted} the partitions a compaction rewrote.
         */
        static List<Row> apply(Op op, List<Row> before, Set<LocalDate> compacted) {
            List<Row> out = new ArrayList<>();
            Set<LocalDate> days = op.days();
            if (op.compaction()) {
                Map<LocalDate, List<Row>> byDay = new TreeMap<>();
                before.forEach(r -> byDay.computeIfAbsent(r.dt(), d -> new ArrayList<>()).add(r));
                byDay.forEach((day, rows) -> {
                    if (!compacted.contains(day)) {
                        out.addAll(rows);
                        return;
                    }
                    boolean noted = rows.stream().anyMatch(Row::noted);
                    List<Row> kept = rows;
                    if (op.dedupOrder != null) {
                        // ties: the later write wins
                        Comparator<Row> order = Comparator.<Row>comparingLong(r -> "value".equals(op.dedupOrder) ? r.value() : r.seq())
                                .thenComparingLong(Row::seq);
                        Map<Long, Row> best = new LinkedHashMap<>();
                        for (Row r : rows) {
                            best.merge(r.id(), r, (a, b) -> order.compare(a, b) >= 0 ? a : b);
                        }
                        kept = new ArrayList<>(best.values());
                    }
                    kept.forEach(r -> out.add(new Row(r.dt(), r.id(), r.value(), r.seq(), r.note(), r.key(), noted, true)));
                });
                return out;
            }
            for (Row r : before) {
                boolean gone = switch (op.mode) {
                    case OVERWRITE -> true;
                    case OVERWRITE_PARTITIONS -> days.contains(r.dt());
                    case APPEND -> op.key != null && op.key.equals(r.key()) && days.contains(r.dt());
                };
                if (!gone) {
                    out.add(r);
                }
            }
            out.addAll(op.rows);
            return out;
        }

        // ---- reading and checking

        /** The table through S3Parquet.read, or the exception the read threw. */
        Object readOrFailure() {
            try {
                return wranglerView();
            } catch (Exception | AssertionError e) {
                return e;
            }
        }

        View wranglerView() throws Exception {
            List<String> rows = new ArrayList<>();
            boolean hasNote;
            try (ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).open()) {
                List<String> names = r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList();
                hasNote = names.contains("note");
                Set<String> expected = new TreeSet<>(List.of("dt", "id", "value", "seq"));
                if (hasNote) {
                    expected.add("note");
                }
                if (!new TreeSet<>(names).equals(expected)) {
                    throw new AssertionError("wrangler's read has the columns " + names);
                }
                while (r.loadNextBatch()) {
                    VectorSchemaRoot b = r.getVectorSchemaRoot();
                    for (int i = 0; i < b.getRowCount(); i++) {
                        rows.add("dt=" + value(b.getVector("dt"), i) + " id=" + value(b.getVector("id"), i) + " value="
                                + value(b.getVector("value"), i) + " seq=" + value(b.getVector("seq"), i) + " note="
                                + (hasNote ? value(b.getVector("note"), i) : null));
                    }
                }
            }
            rows.sort(null);
            return new View(rows, hasNote);
        }

        private static Object value(FieldVector v, int i) {
            if (v.isNull(i)) {
                return null;
            }
            if (v instanceof DateDayVector d) {
                return LocalDate.ofEpochDay(d.get(i));
            }
            return String.valueOf(v.getObject(i));
        }

        View duckView() {
            List<String> rows = new ArrayList<>();
            boolean hasNote = false;
            for (List<Object> r : TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), id, value, seq, "
                    + "json_extract_string(to_json(t), '$.note'), list_contains(json_keys(to_json(t)), 'note') FROM t")) {
                rows.add("dt=" + r.get(0) + " id=" + r.get(1) + " value=" + r.get(2) + " seq=" + r.get(3) + " note=" + r.get(4));
                hasNote = (Boolean) r.get(5);
            }
            rows.sort(null);
            return new View(rows, hasNote);
        }

        /** The table holds the model, through wrangler's reader and through DuckDB, and nothing is left under _tmp/. */
        void checkSettled(Op op, String when) {
            checkSettled(op, when, List.of(model));
        }

        /**
         * As {@link #checkSettled(Op, String)} where the table may hold any one of {@code models}: wrangler's reader must
         * read one of them and DuckDB the same one. Which one, by its index.
         */
        int checkSettled(Op op, String when, List<List<Row>> models) {
            Object read = readOrFailure();
            int which = models.stream().map(View::of).toList().indexOf(read);
            if (which < 0 && models.size() == 1) {
                assertEither(op, "wrangler's read " + when, read, models.get(0), null);
            }
            if (which < 0) {
                if (read instanceof Throwable t) {
                    throw failure(op, "wrangler's read " + when + " failed", t);
                }
                StringBuilder d = new StringBuilder("wrangler's read " + when + " is none of the " + models.size() + " outcomes");
                for (int i = 0; i < models.size(); i++) {
                    d.append("\n against outcome ").append(i + 1).append(":\n").append(diff(View.of(models.get(i)), (View) read));
                }
                throw failure(op, d.toString(), null);
            }
            View expected = View.of(models.get(which));
            View duck;
            try {
                duck = duckView();
            } catch (RuntimeException e) {
                throw failure(op, "DuckDB could not read the table " + when, e);
            }
            if (!duck.equals(expected)) {
                throw failure(op, "DuckDB's read " + when + " differs from the model:\n" + diff(expected, duck), null);
            }
            List<String> left = TestLake.keys(bucket, "t/_tmp/");
            if (!left.isEmpty()) {
                throw failure(op, "left under _tmp/ " + when + ": " + left, null);
            }
            return which;
        }

        /** {@code read} is the model {@code a} or the model {@code b} (b null: only a). */
        void assertEither(Op op, String what, Object read, List<Row> a, List<Row> b) {
            View before = View.of(a);
            View after = b == null ? null : View.of(b);
            if (read instanceof Throwable t) {
                throw failure(op, what + " failed", t);
            }
            View v = (View) read;
            if (v.equals(before) || v.equals(after)) {
                return;
            }
            if (after == null) {
                throw failure(op, what + " differs from the model:\n" + diff(before, v), null);
            }
            throw failure(op, what + " is neither the table before nor the table after.\n against before:\n" + diff(before, v)
                    + "\n against after:\n" + diff(after, v), null);
        }

        /** DuckDB's dedup of every partition, over the table as it is now: (day, row text) pairs. */
        List<List<Object>> duckDedup(String order) {
            return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), id, value, seq, json_extract_string(to_json(t), '$.note') "
                    + "FROM t QUALIFY row_number() OVER (PARTITION BY dt, id ORDER BY " + order + " DESC, seq DESC) = 1");
        }

        /** The model's dedup of the compacted partitions is DuckDB's QUALIFY row_number() over the table before. */
        void crossCheckDedup(Op op, List<List<Object>> duckDedup, Set<LocalDate> compacted) {
            List<String> duck = duckDedup.stream().filter(r -> compacted.contains(LocalDate.parse((String) r.get(0))))
                    .map(r -> "dt=" + r.get(0) + " id=" + r.get(1) + " value=" + r.get(2) + " seq=" + r.get(3) + " note=" + r.get(4))
                    .sorted().toList();
            List<String> mine = model.stream().filter(r -> compacted.contains(r.dt())).map(Row::render).sorted().toList();
            if (!duck.equals(mine)) {
                throw failure(op, "the model's dedup differs from DuckDB's QUALIFY row_number() (a bug of the test):\n"
                        + diff(new View(mine, false), new View(duck, false)), null);
            }
        }

        /** The partitions that hold more than one data file now (what a compaction with the default threshold rewrites). */
        Set<LocalDate> partitionsWithManyFiles() {
            Map<LocalDate, Integer> files = new HashMap<>();
            for (String k : TestLake.keys(bucket, "t/dt=")) {
                if (k.endsWith(".parquet")) {
                    files.merge(LocalDate.parse(k.substring("t/dt=".length(), k.indexOf('/', 2))), 1, Integer::sum);
                }
            }
            return files.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                    .collect(Collectors.toCollection(TreeSet::new));
        }

        private static LocalDate day(String partition) {
            int at = partition.indexOf("dt=");
            return LocalDate.parse(partition.substring(at + 3, at + 13));
        }

        /** The first differences of two views, as rows missing from and rows unexpected in {@code actual}. */
        static String diff(View expected, View actual) {
            Map<String, Integer> count = new TreeMap<>();
            expected.rows().forEach(r -> count.merge(r, 1, Integer::sum));
            actual.rows().forEach(r -> count.merge(r, -1, Integer::sum));
            List<String> missing = new ArrayList<>();
            List<String> unexpected = new ArrayList<>();
            count.forEach((r, n) -> {
                for (int i = 0; i < Math.abs(n); i++) {
                    (n > 0 ? missing : unexpected).add(r);
                }
            });
            return "    expected " + expected + ", actual " + actual + "\n    missing " + first(missing) + "\n    unexpected " + first(unexpected);
        }

        private static String first(List<String> rows) {
            return rows.size() <= 8 ? rows.toString() : rows.subList(0, 8) + " and " + (rows.size() - 8) + " more";
        }

        AssertionError failure(Op op, String what, Throwable cause) {
            String history = done.stream().map(Op::toString).collect(Collectors.joining("\n  "));
            return new AssertionError("seed " + seed + ", op " + op.index + " (" + op.kind + "): " + what
                    + (cause == null ? "" : ": " + cause) + "\nhistory (rerun alone: -Dwrangler.history.seed=" + seed
                    + " -Dwrangler.history.seeds=1):\n  " + history, cause);
        }
    }

    private static Set<Kind> kinds(String property) {
        if (property.isBlank()) {
            return Set.of(Kind.values());
        }
        return Stream.of(property.split(",")).map(String::trim).map(Kind::valueOf).collect(Collectors.toSet());
    }
}
