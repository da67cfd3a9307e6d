package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random histories of appends, keyed reruns, overwrites of partitions, overwrites and compactions (with and without
 * {@code dedupBy}); after every operation, a read {@code committedAfter} every mark stored so far returns exactly the rows
 * committed since (the model: the table's rows now whose operation number is above the mark's), or a
 * {@link ReplacedSinceMarkException} naming exactly the partitions where a later operation replaced rows that existed at
 * the mark. The table itself is checked against the model through DuckDB after every operation, so the rows a delta is
 * compared with are DuckDB's too.
 *
 * <p>The model of "replaced", per partition, from the rows before each operation after the mark: an overwrite of a
 * partition (or of the table) replaces it when it held rows from before the mark; a keyed rerun when the partition held
 * rows of its key from before the mark; a compaction with {@code dedupBy} of a partition holding rows from before the mark;
 * a compaction without it only when the partition held rows from both sides of the mark (one of rows all from before it
 * only rearranged them, one of rows all since is part of the delta).
 *
 * <pre>
 * mvn -B -pl wrangler-core -am test -Dtest=IncrementalHistoryPropertyTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dwrangler.incr.seeds=50 [-Dwrangler.incr.seed=1]
 * </pre>
 */
class IncrementalHistoryPropertyTest {
    private static final List<LocalDate> DAYS = List.of(LocalDate.of(2024, 1, 1), LocalDate.of(2024, 1, 2), LocalDate.of(2024, 1, 3));
    private static final int OPS = Integer.getInteger("wrangler.incr.ops", 10);

    /** A row: {@code op} is the number of the operation that wrote it, {@code k} its idempotency key ("" for none). */
    record Row(long id, String k, long op, long v, LocalDate dt) {
    }

    enum Kind { APPEND, KEYED, OVERWRITE_PARTITIONS, OVERWRITE, COMPACT, COMPACT_DEDUP }

    /** One operation as it ran: which partitions it wrote or compacted, and the rows before it. */
    record Step(long op, Kind kind, String key, Set<LocalDate> partitions, List<Row> before, CommitMark mark) {
    }

    static LongStream seeds() {
        Long one = Long.getLong("wrangler.incr.seed");
        return one != null ? LongStream.of(one) : LongStream.range(1, 1 + Integer.getInteger("wrangler.incr.seeds", 3));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyMarkReadsExactlyWhatCommittedSinceOrSaysWhatWasReplaced(long seed) {
        Random random = new Random(seed);
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        List<Row> rows = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        StringBuilder history = new StringBuilder("seed " + seed + ":");
        long nextId = 0;
        for (int op = 1; op <= OPS; op++) {
            Kind kind = op == 1 ? Kind.APPEND : draw(random);
            List<Row> before = List.copyOf(rows);
            Set<LocalDate> parts = new TreeSet<>();
            String key = null;
            CommitMark mark;
            if (kind == Kind.COMPACT || kind == Kind.COMPACT_DEDUP) {
                CompactBuilder c = S3Parquet.compact(table).s3(TestLake.memory().client());
                if (kind == Kind.COMPACT_DEDUP) {
                    c.dedupBy(List.of("id"), "v");
                }
                CompactionResult r = c.run();
                r.partitions().forEach(p -> parts.add(LocalDate.parse(p.substring(p.indexOf("dt=") + 3, p.length() - 1))));
                if (kind == Kind.COMPACT_DEDUP) {
                    rows = dedup(rows, parts);
                }
                mark = r.mark() != null ? r.mark() : steps.get(steps.size() - 1).mark();
            } else {
                for (LocalDate d : DAYS) {
                    if (random.nextInt(3) > 0 || kind == Kind.OVERWRITE) {
                        parts.add(d);
                    }
                }
                if (parts.isEmpty()) {
                    parts.add(DAYS.get(random.nextInt(DAYS.size())));
                }
                key = kind == Kind.KEYED ? "key" + random.nextInt(2) : null;
                List<Row> written = new ArrayList<>();
                long idsBefore = nextId;
                for (LocalDate d : parts) {
                    Set<Long> ids = new TreeSet<>();
                    for (int i = 0; i < 1 + random.nextInt(3); i++) {
                        // ids repeat across operations (dedup meets duplicates), never within one operation's partition
                        long id = idsBefore > 0 && random.nextBoolean() ? random.nextInt((int) idsBefore) : nextId++;
                        if (!ids.add(id)) {
                            id = nextId++;
                            ids.add(id);
                        }
                        written.add(new Row(id, key == null ? "" : key, op, random.nextInt(4), d));
                    }
                }
                WriteMode mode = kind == Kind.OVERWRITE ? WriteMode.OVERWRITE
                        : kind == Kind.OVERWRITE_PARTITIONS ? WriteMode.OVERWRITE_PARTITIONS : WriteMode.APPEND;
                WriteBuilder w = S3Parquet.write(written).partitionBy("dt").mode(mode).s3(TestLake.memory().client());
                if (key != null) {
                    w.idempotencyKey(key);
                }
                WriteResult result = w.to(table);
                mark = result.mark();
                String k = key;
                rows.removeIf(r -> switch (kind) {
                    case OVERWRITE -> true;
                    case OVERWRITE_PARTITIONS -> parts.contains(r.dt());
                    case KEYED -> parts.contains(r.dt()) && r.k().equals(k);
                    default -> false;
                });
                rows.addAll(written);
            }
            assertThat(mark).as("%s the mark of op %d", history, op).isNotNull();
            steps.add(new Step(op, kind, key, parts, before, mark));
            history.append(" ").append(op).append(":").append(kind).append(key == null ? "" : "(" + key + ")").append(parts);
            String at = history.toString();
            assertThat(duck(bucket)).as("%s DuckDB's table", at).containsExactlyInAnyOrderElementsOf(rows);
            checkEveryMark(table, steps, rows, at);
            ReadBuilder whole = S3Parquet.read(table).s3(TestLake.memory().client()).withMark();
            assertThat(whole.toList(Row.class)).as(at).containsExactlyInAnyOrderElementsOf(rows);
            assertThat(whole.lastMark()).as("%s a whole read's mark is the last write's", at).isEqualTo(mark);
        }
    }

    private static void checkEveryMark(String table, List<Step> steps, List<Row> now, String at) {
        CommitMark last = steps.get(steps.size() - 1).mark();
        for (Step s : steps) {
            long markOp = s.op();
            Set<String> replaced = replacedSince(steps, markOp);
            ReadBuilder delta = S3Parquet.read(table).s3(TestLake.memory().client()).committedAfter(s.mark().toString());
            String as = at + " after the mark of op " + markOp + " (" + s.mark() + ")";
            if (replaced.isEmpty()) {
                List<Row> expected = now.stream().filter(r -> r.op() > markOp).toList();
                assertThat(delta.toList(Row.class)).as(as).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(delta.lastMark()).as(as).isEqualTo(last);
                assertThat(delta.count()).as(as).isEqualTo(expected.size());
            } else {
                try {
                    delta.toList(Row.class);
                    throw new AssertionError(as + ": expected rows replaced in " + replaced + ", got a delta");
                } catch (ReplacedSinceMarkException e) {
                    assertThat(e.partitions()).as(as).containsExactlyElementsOf(replaced);
                    assertThat(e.mark()).isEqualTo(s.mark());
                }
            }
        }
    }

    /** The partitions whose rows from before the mark of operation {@code markOp} a later operation replaced. */
    private static Set<String> replacedSince(List<Step> steps, long markOp) {
        Set<String> out = new TreeSet<>();
        for (Step s : steps) {
            if (s.op() <= markOp) {
                continue;
            }
            for (LocalDate d : s.kind() == Kind.OVERWRITE ? DAYS : s.partitions()) {
                List<Row> here = s.before().stream().filter(r -> r.dt().equals(d)).toList();
                boolean old = here.stream().anyMatch(r -> r.op() <= markOp);
                boolean since = here.stream().anyMatch(r -> r.op() > markOp);
                boolean replaces = switch (s.kind()) {
                    case OVERWRITE, OVERWRITE_PARTITIONS, COMPACT_DEDUP -> old;
                    case KEYED -> here.stream().anyMatch(r -> r.op() <= markOp && r.k().equals(s.key()));
                    case COMPACT -> old && since;
                    case APPEND -> false;
                };
                if (replaces) {
                    out.add("dt=" + d + "/");
                }
            }
        }
        return out;
    }

    /** dedupBy(id, v) in the partitions compacted: per (dt, id) the greatest v, ties to the later operation. */
    private static List<Row> dedup(List<Row> rows, Set<LocalDate> compacted) {
        List<Row> out = new ArrayList<>(rows.stream().filter(r -> !compacted.contains(r.dt())).toList());
        rows.stream().filter(r -> compacted.contains(r.dt()))
                .collect(Collectors.groupingBy(r -> r.dt() + "/" + r.id(),
                        Collectors.maxBy(Comparator.comparingLong(Row::v).thenComparingLong(Row::op))))
                .values().forEach(r -> out.add(r.orElseThrow()));
        return out;
    }

    private static Kind draw(Random random) {
        int n = random.nextInt(20);
        if (n < 6) {
            return Kind.APPEND;
        }
        if (n < 11) {
            return Kind.KEYED;
        }
        if (n < 14) {
            return Kind.OVERWRITE_PARTITIONS;
        }
        if (n < 15) {
            return Kind.OVERWRITE;
        }
        return n < 18 ? Kind.COMPACT : Kind.COMPACT_DEDUP;
    }

    private static List<Row> duck(String bucket) {
        return TestLake.query(bucket, "t/", "SELECT id, k, op, v, dt FROM t").stream()
                .map(r -> new Row(((Number) r.get(0)).longValue(), (String) r.get(1), ((Number) r.get(2)).longValue(),
                        ((Number) r.get(3)).longValue(), r.get(4) instanceof java.sql.Date d ? d.toLocalDate() : LocalDate.parse(r.get(4).toString())))
                .toList();
    }
}
