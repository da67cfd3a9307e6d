package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Random histories of writes (every mode, overlapping and disjoint partitions) with crashes at random steps, each
 * followed by a rerun, a recovery, or simply the next write, checked after every step against a model of what each
 * partition must hold. Seeded and reproducible: {@code -Dwrangler.random.seed=N -Dwrangler.random.ops=N} (CI runs a
 * short history; RELIABILITY.md gives the long runs).
 */
class RandomizedHistoryTest {
    private static final List<LocalDate> DAYS = List.of(LocalDate.of(2024, 1, 1), LocalDate.of(2024, 1, 2), LocalDate.of(2024, 1, 3));
    private static final List<String> COUNTRIES = List.of("RU", "DE");
    private static final Step[] POINTS = {Step.STAGED_FILE, Step.MANIFEST_WRITTEN, Step.LISTED_OLD_FILES, Step.COPIED_FILE,
            Step.DELETED_BATCH, Step.BEFORE_CATALOG, Step.BEFORE_CLEANUP, Step.STAGING_REMOVED};

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    /** What happened, for RELIABILITY.md. */
    record Tally(int writes, int crashes, int reruns, int recoveries, int nextWrites, int checks) {
    }

    @Test
    void randomHistoriesOfWritesAndCrashesMatchTheModel() {
        long seed = Long.getLong("wrangler.random.seed", 20261129L);
        int ops = Integer.getInteger("wrangler.random.ops", 14);
        Tally t = run(seed, ops);
        System.out.println("randomized history: seed " + seed + ", " + t);
        // The history is what it claims: crashes happened (each one's resolution is asserted where it happens), and every
        // write's outcome was checked against the model (one followed by the next write with that one, plus the final recovery).
        assertThat(t.crashes()).as("crashes in %s", t).isPositive();
        assertThat(t.checks()).as("model checks in %s", t).isEqualTo(ops - t.nextWrites() + 1);
        if (seed == 20261129L && ops == 14) {
            // the CI history: it must keep covering each way a crash is resolved
            assertThat(List.of(t.reruns(), t.recoveries(), t.nextWrites())).as("reruns, recoveries, next writes").allMatch(n -> n > 0);
        }
    }

    static Tally run(long seed, int ops) {
        Random random = new Random(seed);
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        Map<String, Set<String>> model = new TreeMap<>();
        int crashes = 0;
        int reruns = 0;
        int recoveries = 0;
        int nextWrites = 0;
        int checks = 0;
        for (int op = 0; op < ops; op++) {
            WriteMode mode = WriteMode.values()[random.nextInt(3)];
            List<Order> rows = new ArrayList<>();
            for (LocalDate d : DAYS) {
                for (String c : COUNTRIES) {
                    if (random.nextInt(3) == 0) {
                        int n = 1 + random.nextInt(3);
                        for (int i = 0; i < n; i++) {
                            rows.add(new Order("op" + op + "-" + d + "-" + c + "-" + i, d, c, op, BigDecimal.ONE));
                        }
                    }
                }
            }
            if (rows.isEmpty()) {
                rows.add(new Order("op" + op + "-only", DAYS.get(0), COUNTRIES.get(0), op, BigDecimal.ONE));
            }
            boolean crash = random.nextBoolean();
            // Either commit method, independently for a write and for its rerun: recovery must resolve both kinds.
            CommitMethod method = random.nextBoolean() ? CommitMethod.STAGE_AND_COPY : CommitMethod.DEFERRED_UPLOADS;
            CommitMethod rerunMethod = random.nextBoolean() ? CommitMethod.STAGE_AND_COPY : CommitMethod.DEFERRED_UPLOADS;
            Step point = POINTS[random.nextInt(POINTS.length)];
            if (mode == WriteMode.APPEND && point == Step.DELETED_BATCH) {
                point = Step.COPIED_FILE;
            }
            // One file a row: a second file exists only with a second row.
            int count = Math.min(point == Step.STAGED_FILE || point == Step.COPIED_FILE ? 1 + random.nextInt(2) : 1, rows.size());
            boolean reachable = point != Step.DELETED_BATCH || hasOldFiles(model, rows, mode);
            if (crash && reachable) {
                crashes++;
                Step at = point;
                assertThatThrownBy(() -> write(rows, mode, at, count, method).to(table)).isInstanceOf(Crash.class);
                int next = random.nextInt(3);
                boolean committed = mode != WriteMode.APPEND && at.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
                if (next == 0) {
                    reruns++;
                    RecoveryResult resolved = write(rows, mode, null, 0, rerunMethod).to(table).recovered();
                    assertResolved(resolved, at, committed, seed, op);
                    apply(model, mode, rows);
                } else {
                    if (committed) {
                        apply(model, mode, rows);
                    }
                    if (next == 1) {
                        recoveries++;
                        assertResolved(Tunings.recover(table, TestLake.memory().client()), at, committed, seed, op);
                    } else {
                        nextWrites++;
                        continue; // the next write recovers first; checked after it
                    }
                }
            } else {
                write(rows, mode, null, 0, method).to(table);
                apply(model, mode, rows);
            }
            assertThat(contents(bucket)).as("seed %d, after op %d (%s)", seed, op, mode).isEqualTo(model);
            assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
            checks++;
        }
        Tunings.recover(table, TestLake.memory().client());
        assertThat(contents(bucket)).isEqualTo(model);
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
        return new Tally(ops, crashes, reruns, recoveries, nextWrites, checks + 1);
    }

    /**
     * The rerun's or the recovery's account of the crashed write: a crash before its manifest may leave nothing to
     * resolve; from its manifest on there is exactly one interrupted write, finished when it was committed, else undone.
     */
    private static void assertResolved(RecoveryResult r, Step at, boolean committed, long seed, int op) {
        String as = "seed " + seed + ", op " + op + ": " + r;
        if (at.ordinal() < Step.MANIFEST_WRITTEN.ordinal()) {
            assertThat(r.rolledForward()).as(as).isEmpty();
            assertThat(r.rolledBack()).as(as).hasSizeLessThanOrEqualTo(1);
        } else {
            assertThat(r.rolledForward()).as(as).hasSize(committed ? 1 : 0);
            assertThat(r.rolledBack()).as(as).hasSize(committed ? 0 : 1);
        }
    }

    private static boolean hasOldFiles(Map<String, Set<String>> model, List<Order> rows, WriteMode mode) {
        if (mode == WriteMode.OVERWRITE) {
            return !model.isEmpty();
        }
        return rows.stream().anyMatch(o -> model.containsKey(o.dt() + "/" + o.country()));
    }

    private static WriteBuilder write(List<Order> rows, WriteMode mode, Step crashAt, int count, CommitMethod method) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).tuning(Tunings.smallDeleteBatches()).maxRowsPerFile(1)
                .commitMethod(method)
                .stepHook((step, n) -> {
                    if (step == crashAt && n == count) {
                        throw new Crash();
                    }
                }).s3(TestLake.memory().client());
    }

    private static void apply(Map<String, Set<String>> model, WriteMode mode, List<Order> rows) {
        if (mode == WriteMode.OVERWRITE) {
            model.clear();
        }
        if (mode == WriteMode.OVERWRITE_PARTITIONS) {
            rows.forEach(o -> model.remove(o.dt() + "/" + o.country()));
        }
        rows.forEach(o -> model.computeIfAbsent(o.dt() + "/" + o.country(), k -> new TreeSet<>()).add(o.orderId()));
    }

    private static Map<String, Set<String>> contents(String bucket) {
        Map<String, Set<String>> out = new TreeMap<>();
        if (TestLake.keys(bucket, "t/").stream().noneMatch(k -> k.endsWith(".parquet") && !k.contains("/_tmp/"))) {
            return out;
        }
        for (List<Object> row : TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR) || '/' || country, \"orderId\" FROM t")) {
            out.computeIfAbsent((String) row.get(0), k -> new TreeSet<>()).add((String) row.get(1));
        }
        return out;
    }

    record Tags(long id, BigDecimal price, List<String> tags, String dt, String country) {
    }

    record Attrs(int id, BigDecimal price, Map<String, Long> attrs, String dt, String country) {
    }

    record Inner(String name, BigDecimal weight) {
    }

    record Nested(long id, BigDecimal price, Inner inner, String dt, String country) {
    }

    private static final List<List<String>> LAYOUTS = List.of(List.of("dt", "country"), List.of("dt"), List.of("country", "dt"), List.of());

    /**
     * No sequence of operations that succeed leaves a table that {@code S3Parquet.read} cannot read: random writes of
     * records of different shapes (decimal values of scale 1 to 3 without {@code @Decimal}, an int or a long id, list, map
     * and struct columns, each of the partition layouts and subsets of them, every mode) and compactions, each followed by
     * a read of every batch. An operation may be refused (a typed error, the table unchanged); it may never succeed and
     * leave the table unreadable. Seeded: {@code -Dwrangler.random.seed=N -Dwrangler.random.ops=N}.
     */
    @Test
    void randomHistoriesOfShapesNeverLeaveAnUnreadableTable() throws Exception {
        long seed = Long.getLong("wrangler.random.seed", 20261206L);
        int ops = Integer.getInteger("wrangler.random.ops", 24);
        Random random = new Random(seed);
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        int refused = 0;
        int succeeded = 0;
        for (int op = 0; op < ops; op++) {
            Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
            String as = "seed " + seed + ", op " + op;
            try {
                if (random.nextInt(5) == 0 && !before.isEmpty()) {
                    S3Parquet.compact(table).s3(TestLake.memory().client()).run();
                    as += " (compaction)";
                } else {
                    List<Record> rows = new ArrayList<>();
                    int shape = random.nextInt(3);
                    int scale = 1 + random.nextInt(3);
                    for (int i = 0; i < 1 + random.nextInt(3); i++) {
                        BigDecimal price = BigDecimal.valueOf(op * 1000L + i * 7L + 1, scale);
                        String dt = DAYS.get(random.nextInt(DAYS.size())).toString();
                        String country = COUNTRIES.get(random.nextInt(COUNTRIES.size()));
                        rows.add(switch (shape) {
                            case 0 -> new Tags(op * 10L + i, price, List.of("t" + i), dt, country);
                            case 1 -> new Attrs(op * 10 + i, price, Map.of("k", (long) i), dt, country);
                            default -> new Nested(op * 10L + i, price, new Inner("n" + i, price), dt, country);
                        });
                    }
                    List<String> layout = LAYOUTS.get(random.nextInt(LAYOUTS.size()));
                    WriteMode mode = WriteMode.values()[random.nextInt(10) == 0 ? 2 : random.nextInt(2)];
                    as += " (" + mode + " of " + rows.get(0).getClass().getSimpleName() + " by " + layout + ", scale " + scale + ")";
                    S3Parquet.write(rows).partitionBy(layout.toArray(new String[0])).mode(mode).s3(TestLake.memory().client()).to(table);
                }
                succeeded++;
            } catch (InvalidWriteException | InputException e) {
                refused++;
                assertThat(TestLake.snapshot(bucket, "t/").keySet()).as("%s was refused (%s) and must change nothing", as, e.getMessage())
                        .isEqualTo(before.keySet());
            }
            if (TestLake.keys(bucket, "t/").isEmpty()) {
                continue; // no table yet: the first write was refused
            }
            long rows = 0;
            try (org.apache.arrow.vector.ipc.ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).open()) {
                while (r.loadNextBatch()) {
                    rows += r.getVectorSchemaRoot().getRowCount();
                }
            } catch (RuntimeException e) {
                throw new AssertionError(as + " succeeded and left a table S3Parquet.read cannot read: " + e.getMessage(), e);
            }
            assertThat(rows).as(as).isPositive();
        }
        System.out.println("shape history: seed " + seed + ", " + succeeded + " succeeded, " + refused + " refused");
        assertThat(refused).as("refusals in the history (the cases must bite)").isPositive();
        assertThat(succeeded).as("successes in the history").isGreaterThan(ops / 3);
    }
}
