package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.model.Partition;

/**
 * Random histories of writes, crashes and operator actions on a table registered in Glue, checked against a model after
 * every step (issue 10). Writes: plain and keyed appends (two keys, so reruns of a key replace its earlier run),
 * partition overwrites and full overwrites, either commit method, crashed at a random step half of the time. After a
 * crash, at random: the same write rerun, {@code S3Parquet.recover} with the catalog, {@code recover} without it (the
 * catalog step stays pending until something recovers with it), or simply the next write. Between writes, at random: the
 * operator copies the table with its {@code _tmp/} to another prefix and recovers the copy (refused while the copy holds
 * an interrupted write's manifest, and nothing of either table is touched), or a parent table whose root holds this
 * table ({@code lake/} over {@code lake/t/}) is written, crashed and recovered (its recovery must leave this table's
 * staging and uploads alone). And the catalog operations, each drawn in turn from a shuffled deck so that a short history
 * has them all ({@link CatalogOp}): a write behind Glue's back then {@code S3Parquet.repairCatalog}, a partition folder
 * deleted by hand then a repair with {@code removeMissing}, {@code S3Parquet.register} of the table already registered (a
 * no-op), {@code S3Parquet.dropTable} from the catalog only then {@code register} again, and {@code dropTable} with the
 * data (every sixth operation; a history of 30, as CI runs, has each once). Register, repair and drop recover a crashed
 * write with the catalog first, whatever the history left pending.
 *
 * <p>Checked after each step: the rows of every partition (read with DuckDB) against the model; the copy and the parent
 * against theirs; Glue's partitions equal the folders S3 holds whenever no catalog step is pending (between a drop from
 * the catalog and the registration after it: no Glue table, the data kept); at the end nothing under {@code _tmp/} and no
 * open upload. Seeded: {@code -Dwrangler.history.seed=N -Dwrangler.history.ops=N} (CI runs
 * a short history).
 */
class OperatorHistoryTest {
    private static final List<LocalDate> DAYS = List.of(LocalDate.of(2024, 5, 1), LocalDate.of(2024, 5, 2), LocalDate.of(2024, 5, 3));
    private static final List<String> COUNTRIES = List.of("RU", "DE");
    private static final Step[] POINTS = {Step.STARTED, Step.STAGED_FILE, Step.LISTED_OLD_FILES, Step.MANIFEST_WRITTEN,
            Step.COPIED_FILE, Step.DELETED_BATCH, Step.BEFORE_CATALOG, Step.STAGING_REMOVED};
    private static final S3Parquet.Tuning TUNING = TestLakes.PAST_LEASES;
    private static final MemoryS3 s3 = TestLakes.memoryS3();
    private static final LocalGlue glue = TestLakes.glue();

    /** A row of the table; names are what the catalog makes of them. */
    public record Row(String id, LocalDate dt, String country, long v) {
    }

    /** A row of the parent table. */
    public record ParentRow(String id, String tbl) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    /** The catalog operations a history draws. */
    enum CatalogOp { REPAIR_ADDS, REPAIR_REMOVES, REGISTER_AGAIN, DROP_AND_REGISTER, DROP_WITH_DATA }

    /** What happened. */
    record Tally(int writes, int crashes, int reruns, int recoveries, int recoveriesWithoutCatalog, int nextWrites, int copies,
                 int copiesRefused, int parentWrites, int checks, Map<CatalogOp, Integer> catalogOps) {
        int catalogOpsRun() {
            return catalogOps.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    @Test
    void randomHistoriesOfWritesCrashesAndOperatorActionsMatchTheModel() {
        long seed = Long.getLong("wrangler.history.seed", 2L);
        int ops = Integer.getInteger("wrangler.history.ops", 30);
        Tally t = new History(seed).run(ops);
        System.out.println("operator history: seed " + seed + ", " + t);
        assertThat(t.writes() + t.copies() + t.parentWrites() + t.catalogOpsRun()).isEqualTo(ops);
        assertThat(t.checks()).isGreaterThanOrEqualTo(ops / 2);
        if (t.catalogOpsRun() >= CatalogOp.values().length) {
            assertThat(t.catalogOps().keySet()).as("the deck deals every catalog operation").containsExactly(CatalogOp.values());
        }
    }

    private static final class History {
        private final long seed;
        private final Random random;
        private final String bucket;
        private final String db;
        private final String table;
        private final String parent;
        private final GlueTable catalog;
        /** partition "dt/country" to the ids it holds. */
        private final Map<String, Set<String>> model = new TreeMap<>();
        /** id to the idempotency key of the run that wrote it (absent for plain writes). */
        private final Map<String, String> keyOf = new TreeMap<>();
        private final Set<String> parentModel = new TreeSet<>();
        private int crashes;
        private int reruns;
        private int recoveries;
        private int recoveriesWithoutCatalog;
        private int nextWrites;
        private int copies;
        private int copiesRefused;
        private int parentWrites;
        private int writes;
        private int checks;
        private final Map<CatalogOp, Integer> catalogOps = new java.util.EnumMap<>(CatalogOp.class);
        /** The catalog operations still to deal before the deck is shuffled again. */
        private final java.util.Deque<CatalogOp> deck = new java.util.ArrayDeque<>();

        History(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.bucket = TestLakes.bucket("hist", s3);
            this.db = TestLakes.database(bucket);
            this.table = "s3://" + bucket + "/lake/t/";
            this.parent = "s3://" + bucket + "/lake/";
            this.catalog = GlueCatalog.of(glue.client()).table(db, "t");
        }

        Tally run(int ops) {
            for (int op = 0; op < ops; op++) {
                if (op % 6 == 5) {
                    catalogOperation(op); // every sixth: a history of 30 has each catalog operation once
                    continue;
                }
                int action = random.nextInt(10);
                if (action == 0) {
                    copyTheTable(op);
                } else if (action == 1) {
                    writeTheParent(op);
                } else {
                    writeTheTable(op);
                }
            }
            S3Parquet.recover(table, s3.client(), catalog, TUNING);
            S3Parquet.recover(parent, s3.client(), null, TUNING);
            check("at the end");
            assertThat(s3.list(bucket, "lake/t/_tmp/")).as("seed %d: nothing left under _tmp/", seed).isEmpty();
            assertThat(s3.openMultipartUploads(bucket, "")).as("seed %d: no open upload", seed).isEmpty();
            return new Tally(writes, crashes, reruns, recoveries, recoveriesWithoutCatalog, nextWrites, copies, copiesRefused,
                    parentWrites, checks, catalogOps);
        }

        private void writeTheTable(int op) {
            writes++;
            int m = random.nextInt(4);
            WriteMode mode = m == 3 ? WriteMode.APPEND : WriteMode.values()[m];
            String key = m == 3 ? "key-" + random.nextInt(2) : null;
            List<Row> rows = new ArrayList<>();
            for (LocalDate d : DAYS) {
                for (String c : COUNTRIES) {
                    if (random.nextInt(3) == 0) {
                        int n = 1 + random.nextInt(2);
                        for (int i = 0; i < n; i++) {
                            rows.add(new Row("op" + op + "-" + d + "-" + c + "-" + i, d, c, op));
                        }
                    }
                }
            }
            if (rows.isEmpty()) {
                rows.add(new Row("op" + op + "-only", DAYS.get(0), COUNTRIES.get(0), op));
            }
            CommitMethod method = random.nextBoolean() ? CommitMethod.STAGE_AND_COPY : CommitMethod.DEFERRED_UPLOADS;
            CommitMethod rerunMethod = random.nextBoolean() ? CommitMethod.STAGE_AND_COPY : CommitMethod.DEFERRED_UPLOADS;
            Step point = POINTS[random.nextInt(POINTS.length)];
            int count = Math.min(point == Step.STAGED_FILE || point == Step.COPIED_FILE ? 1 + random.nextInt(2) : 1, rows.size());
            String story = "seed " + seed + ", op " + op + " " + mode + (key == null ? "" : " key " + key) + " " + method;
            if (!random.nextBoolean()) {
                write(rows, mode, key, method).to(table);
                apply(mode, key, rows);
                check(story);
                return;
            }
            crashes++;
            boolean[] reached = new boolean[1];
            try {
                write(rows, mode, key, method).stepHook((step, n) -> {
                    if (step == point && n == count) {
                        reached[0] = true;
                        throw new Crash();
                    }
                }).to(table);
            } catch (Crash e) {
                // the simulated crash
            }
            if (!reached[0]) {
                apply(mode, key, rows); // the write never passed that point (no old files to delete): it ran to its end
                check(story + " (crash point not reached)");
                return;
            }
            boolean committed = (mode != WriteMode.APPEND || key != null) && point.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
            story += ", crashed at " + point + " #" + count;
            switch (random.nextInt(4)) {
                case 0 -> {
                    reruns++;
                    write(rows, mode, key, rerunMethod).to(table);
                    apply(mode, key, rows);
                    check(story + ", rerun");
                }
                case 1 -> {
                    recoveries++;
                    S3Parquet.recover(table, s3.client(), catalog, TUNING);
                    if (committed) {
                        apply(mode, key, rows);
                    }
                    check(story + ", recovered with the catalog");
                }
                case 2 -> {
                    recoveriesWithoutCatalog++;
                    S3Parquet.recover(table, s3.client(), null, TUNING);
                    if (committed) {
                        apply(mode, key, rows);
                    }
                    check(story + ", recovered without the catalog");
                }
                default -> {
                    nextWrites++;
                    if (committed) {
                        apply(mode, key, rows);
                    }
                    // the next write recovers first; checked after it
                }
            }
        }

        private WriteBuilder write(List<Row> rows, WriteMode mode, String key, CommitMethod method) {
            WriteBuilder w = S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).commitMethod(method).maxRowsPerFile(1)
                    .catalog(catalog).tuning(TUNING).leaseWait(Duration.ofSeconds(10)).s3(s3.client());
            return key == null ? w : w.idempotencyKey(key);
        }

        private void apply(WriteMode mode, String key, List<Row> rows) {
            if (mode == WriteMode.OVERWRITE) {
                model.clear();
            }
            Set<String> touched = new TreeSet<>();
            rows.forEach(r -> touched.add(r.dt() + "/" + r.country()));
            for (String p : touched) {
                Set<String> held = model.computeIfAbsent(p, k -> new TreeSet<>());
                if (mode == WriteMode.OVERWRITE_PARTITIONS) {
                    held.clear();
                } else if (key != null) {
                    held.removeIf(id -> key.equals(keyOf.get(id)));
                }
            }
            for (Row r : rows) {
                model.get(r.dt() + "/" + r.country()).add(r.id());
                if (key != null) {
                    keyOf.put(r.id(), key);
                }
            }
            model.values().removeIf(Set::isEmpty);
        }

        /** The next catalog operation of the deck, run and checked; see {@link CatalogOp} and the class comment. */
        private void catalogOperation(int op) {
            if (deck.isEmpty()) {
                List<CatalogOp> all = new ArrayList<>(List.of(CatalogOp.values()));
                java.util.Collections.shuffle(all, random);
                deck.addAll(all);
            }
            CatalogOp kind = deck.poll();
            catalogOps.merge(kind, 1, Integer::sum);
            String story = "seed " + seed + ", op " + op + " " + kind;
            switch (kind) {
                case REPAIR_ADDS -> {
                    // a write behind Glue's back (its new day is not registered), then the repair adds it
                    List<Row> rows = List.of(new Row("op" + op + "-behind", LocalDate.of(2024, 6, 1 + op % 28), COUNTRIES.get(op % 2), op));
                    S3Parquet.write(rows).partitionBy("dt", "country").mode(WriteMode.APPEND).tuning(TUNING).s3(s3.client()).to(table);
                    apply(WriteMode.APPEND, null, rows);
                    registerOrRepair(false);
                    check(story);
                }
                case REPAIR_REMOVES -> {
                    // a partition's folder deleted by hand (after a recovery: no crashed write may publish there again),
                    // then the repair with removeMissing removes it from Glue
                    S3Parquet.recover(table, s3.client(), catalog, TUNING);
                    if (!model.isEmpty()) {
                        String gone = new ArrayList<>(model.keySet()).get(random.nextInt(model.size()));
                        String[] dc = gone.split("/");
                        CatalogLake.deleteFolder(s3, bucket, "lake/t/dt=" + dc[0] + "/country=" + dc[1] + "/");
                        model.remove(gone);
                        story += " (" + gone + ")";
                    }
                    registerOrRepair(true);
                    check(story);
                }
                case REGISTER_AGAIN -> {
                    if (!model.isEmpty()) {
                        // registered already (or, after a drop with the data and a write behind Glue's back, not yet): the
                        // registration creates or finds the same table and registers whatever partition Glue lacks
                        register();
                    }
                    check(story);
                }
                case DROP_AND_REGISTER -> {
                    S3Parquet.dropTable(table).catalog(catalog).tuning(TUNING).s3(s3.client()).run();
                    assertThat(catalogTable()).as(story + ": no Glue table after the drop from the catalog").isFalse();
                    checkRows(story + ", dropped from the catalog: the data stays");
                    if (!model.isEmpty()) {
                        register();
                    }
                    check(story + ", registered again");
                }
                case DROP_WITH_DATA -> {
                    S3Parquet.dropTable(table).catalog(catalog).deleteData(true).tuning(TUNING).s3(s3.client()).run();
                    model.clear();
                    check(story);
                    assertThat(s3.list(bucket, "lake/t/")).as(story + ": nothing left under the table").isEmpty();
                    assertThat(s3.openMultipartUploads(bucket, "lake/t/")).as(story + ": no open upload").isEmpty();
                }
                default -> throw new IllegalStateException(kind.name());
            }
        }

        /**
         * Registers the table when Glue lacks it and S3 holds data (a drop with the data, then a write behind Glue's back),
         * else repairs it; either recovers a crashed write with the catalog first.
         */
        private void registerOrRepair(boolean removeMissing) {
            if (!catalogTable()) {
                if (!model.isEmpty()) {
                    register();
                }
            } else {
                S3Parquet.repairCatalog(table).catalog(catalog).removeMissing(removeMissing).tuning(TUNING).s3(s3.client()).run();
            }
        }

        /** Registers the table's objects in Glue, its day typed as a write types it. */
        private void register() {
            S3Parquet.register(table).catalog(catalog).partitionTypes(Map.of("dt", "date")).tuning(TUNING).s3(s3.client()).run();
        }

        private boolean catalogTable() {
            return CatalogLake.exists(glue, db, "t");
        }

        /** The operator copies the table with its _tmp/ and recovers the copy; then removes the copy. */
        private void copyTheTable(int op) {
            copies++;
            Map<String, byte[]> before = s3.snapshot(bucket, "lake/");
            for (Map.Entry<String, byte[]> e : s3.snapshot(bucket, "lake/t/").entrySet()) {
                s3.put(bucket, "copy/t/" + e.getKey().substring("lake/t/".length()), e.getValue());
            }
            Map<String, byte[]> copy = s3.snapshot(bucket, "copy/");
            boolean interrupted = copy.keySet().stream().anyMatch(k -> k.endsWith("/_manifest.json"));
            String copyUri = "s3://" + bucket + "/copy/t/";
            if (interrupted) {
                copiesRefused++;
                assertThatThrownBy(() -> S3Parquet.recover(copyUri, s3.client(), null, TUNING))
                        .as("seed %d, op %d: recovering a copy that holds another table's manifest", seed, op)
                        .isInstanceOf(CommitStateUnknownException.class).hasMessageContaining("does not belong to this table");
            } else {
                assertThat(S3Parquet.recover(copyUri, s3.client(), null, TUNING).isEmpty()).isTrue();
            }
            Map<String, byte[]> copyAfter = s3.snapshot(bucket, "copy/");
            copyAfter.keySet().removeIf(k -> k.endsWith("_lease.json"));
            copy.keySet().removeIf(k -> k.endsWith("_lease.json"));
            assertThat(copyAfter.keySet()).as("seed %d, op %d: the copy is untouched", seed, op).isEqualTo(copy.keySet());
            Map<String, byte[]> after = s3.snapshot(bucket, "lake/");
            assertThat(after.keySet()).as("seed %d, op %d: the table is untouched by recovering its copy", seed, op)
                    .isEqualTo(before.keySet());
            List<software.amazon.awssdk.services.s3.model.ObjectIdentifier> copied = s3.list(bucket, "copy/").keySet().stream()
                    .map(k -> software.amazon.awssdk.services.s3.model.ObjectIdentifier.builder().key(k).build()).toList();
            if (!copied.isEmpty()) {
                s3.client().deleteObjects(d -> d.bucket(bucket).delete(x -> x.objects(copied)));
            }
        }

        /** A table over this one (lake/ holds lake/t/) is written, half the time crashed and recovered. */
        private void writeTheParent(int op) {
            parentWrites++;
            List<ParentRow> rows = List.of(new ParentRow("p" + op, "p"));
            WriteMode mode = random.nextBoolean() ? WriteMode.APPEND : WriteMode.OVERWRITE_PARTITIONS;
            CommitMethod method = random.nextBoolean() ? CommitMethod.STAGE_AND_COPY : CommitMethod.DEFERRED_UPLOADS;
            Map<String, Long> tableBefore = s3.list(bucket, "lake/t/");
            List<String> uploadsBefore = s3.openMultipartUploads(bucket, "lake/t/");
            boolean crash = random.nextBoolean();
            Step point = crash ? Step.MANIFEST_WRITTEN : null;
            try {
                S3Parquet.write(rows).partitionBy("tbl").mode(mode).commitMethod(method).tuning(TUNING).s3(s3.client())
                        .stepHook((step, n) -> {
                            if (step == point) {
                                throw new Crash();
                            }
                        }).to(parent);
                if (mode == WriteMode.OVERWRITE_PARTITIONS) {
                    parentModel.clear();
                }
                parentModel.add("p" + op);
            } catch (Crash e) {
                S3Parquet.recover(parent, s3.client(), null, TUNING);
                if (mode == WriteMode.OVERWRITE_PARTITIONS) {
                    parentModel.clear();
                    parentModel.add("p" + op);
                }
            }
            String story = "seed " + seed + ", op " + op + ": parent " + mode + " " + method + (crash ? " crashed and recovered" : "");
            assertThat(s3.list(bucket, "lake/t/")).as(story + ": the nested table's objects").isEqualTo(tableBefore);
            assertThat(s3.openMultipartUploads(bucket, "lake/t/")).as(story + ": the nested table's uploads")
                    .containsExactlyInAnyOrderElementsOf(uploadsBefore);
            Set<String> parentRows = new TreeSet<>();
            if (s3.list(bucket, "lake/tbl=p/").keySet().stream().anyMatch(k -> k.endsWith(".parquet"))) {
                for (List<Object> r : DuckReader.query(s3, bucket, "lake/tbl=p/", "SELECT id FROM t")) {
                    parentRows.add((String) r.get(0));
                }
            }
            assertThat(parentRows).as(story + ": the parent's rows").isEqualTo(parentModel);
        }

        private void check(String story) {
            checkRows(story);
            if (s3.list(bucket, "lake/t/_tmp/").isEmpty()) {
                assertThat(gluePartitions()).as(story + ": Glue's partitions").isEqualTo(s3Partitions());
            }
        }

        /** The rows DuckDB reads from the objects equal the model. */
        private void checkRows(String story) {
            checks++;
            Map<String, Set<String>> rows = new TreeMap<>();
            if (s3.list(bucket, "lake/t/").keySet().stream().anyMatch(k -> k.endsWith(".parquet") && !k.contains("/_tmp/"))) {
                for (List<Object> r : DuckReader.query(s3, bucket, "lake/t/", "SELECT CAST(dt AS VARCHAR) || '/' || country, id FROM t")) {
                    assertThat(rows.computeIfAbsent((String) r.get(0), k -> new TreeSet<>()).add((String) r.get(1)))
                            .as(story + ": row " + r + " is read once").isTrue();
                }
            }
            assertThat(rows).as(story).isEqualTo(model);
        }

        private Set<String> gluePartitions() {
            Set<String> out = new TreeSet<>();
            if (glue.client().getTables(x -> x.databaseName(db)).tableList().stream().noneMatch(t -> t.name().equals("t"))) {
                return out;
            }
            glue.client().getPartitionsPaginator(x -> x.databaseName(db).tableName("t"))
                    .forEach(page -> page.partitions().stream().map(Partition::storageDescriptor).forEach(sd -> out.add(sd.location())));
            return out;
        }

        private Set<String> s3Partitions() {
            Set<String> out = new TreeSet<>();
            for (String k : s3.list(bucket, "lake/t/").keySet()) {
                if (k.endsWith(".parquet") && !k.contains("/_tmp/")) {
                    out.add("s3://" + bucket + "/" + k.substring(0, k.lastIndexOf('/') + 1));
                }
            }
            return out;
        }
    }
}
