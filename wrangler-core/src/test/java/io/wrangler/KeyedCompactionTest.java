package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CrashRecoveryTest.SimulatedCrash;
import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Keyed runs stay keyed through compaction: a compaction merges the files of several keys (and unkeyed rows) into one
 * file per partition, and a later rerun of any one key replaces exactly that key's rows, every other row kept once.
 */
class KeyedCompactionTest {
    record Row(long id, long amount, String source, String dt) {
    }

    private static final List<String> DAYS = List.of("2024-01-15", "2024-01-16", "2024-01-17");

    /** An S3 of this test's own (its request log is this test's alone), keeping Last-Modified to the millisecond. */
    private final MemoryS3 s3 = TestLake.memoryS3();
    private final S3Client client = s3.client();
    private final String bucket = TestLake.bucket(s3);
    private final String table = "s3://" + bucket + "/t/";
    /** The rows each key (and "" for unkeyed appends) has in the table: the model DuckDB must agree with. */
    private final Map<String, List<Row>> model = new TreeMap<>();

    /** {@code n} rows per day of {@code source}, ids from {@code from}, amounts {@code base + id}. */
    private static List<Row> rows(String source, long from, int n, long base, List<String> days) {
        List<Row> out = new ArrayList<>();
        for (String day : days) {
            for (long id = from; id < from + n; id++) {
                out.add(new Row(id, base + id, source, day));
            }
        }
        return out;
    }

    /** One keyed run per day, as the IncrementalLoad example does (one small file per day per run). */
    private void keyed(String key, List<Row> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey(key).s3(client).to(table);
        model.put(key, rows);
    }

    private void unkeyed(List<Row> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).s3(client).to(table);
        model.computeIfAbsent("", k -> new ArrayList<>()).addAll(rows);
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT id, amount, source, CAST(dt AS VARCHAR) FROM t ORDER BY ALL");
    }

    private List<List<Object>> expected() {
        List<List<Object>> out = new ArrayList<>();
        model.values().forEach(rows -> rows.forEach(r -> out.add(List.of(r.id(), r.amount(), r.source(), r.dt()))));
        out.sort(Comparator.<List<Object>, Long>comparing(r -> (Long) r.get(0)).thenComparing(r -> (Long) r.get(1))
                .thenComparing(r -> (String) r.get(2)).thenComparing(r -> (String) r.get(3)));
        return out;
    }

    private void assertModel() {
        assertThat(contents()).isEqualTo(expected());
        // The keys are in the footers and the names, never a column: every engine sees the table's schema as written.
        assertThat(TestLake.query(bucket, "t/", "SELECT column_name FROM (DESCRIBE t) ORDER BY ALL"))
                .containsExactly(List.of("amount"), List.of("dt"), List.of("id"), List.of("source"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    private List<String> files(String day) {
        return TestLake.keys(bucket, "t/dt=" + day + "/");
    }

    /** Two keys, several days, unkeyed rows between them. */
    private void seed() {
        keyed("batch-a", rows("a", 1, 3, 100, DAYS));
        unkeyed(rows("u", 50, 2, 500, DAYS));
        keyed("batch-b", rows("b", 10, 4, 200, DAYS));
        assertModel();
    }

    private CompactionResult compact() {
        return S3Parquet.compact(table).s3(client).run();
    }

    @Test
    void aRerunAfterACompactionReplacesExactlyItsKeysRowsInTheMergedFiles() {
        seed();
        CompactionResult compacted = compact();
        assertThat(compacted.filesBefore()).isEqualTo(9);
        assertThat(compacted.filesAfter()).isEqualTo(3);
        // One file per day holds the rows of both keys and the unkeyed ones, marked as recording its rows' keys.
        for (String day : DAYS) {
            assertThat(files(day)).singleElement().asString().contains("_k.");
        }
        assertModel();

        // The rerun of batch-a with changed values: its old rows leave the merged files, its new rows come once.
        keyed("batch-a", rows("a", 1, 3, 1000, DAYS));
        assertModel();
        // The rewritten files still record batch-b's rows: its rerun (one day fewer) replaces them in the days it writes.
        keyed("batch-b", rows("b", 10, 2, 2000, DAYS.subList(0, 2)));
        model.put("batch-b-kept", rows("b", 10, 4, 200, DAYS.subList(2, 3)));
        assertModel();
        // And batch-a again, now spread over its own plain files and nothing else.
        keyed("batch-a", rows("a", 1, 1, 3000, DAYS));
        assertModel();
        // A rerun of a key the merged files do not hold changes none of them.
        List<String> before = files(DAYS.get(2));
        keyed("batch-c", rows("c", 90, 1, 900, DAYS.subList(2, 3)));
        assertThat(files(DAYS.get(2))).containsAll(before).hasSize(before.size() + 1);
        assertModel();
    }

    @Test
    void aCompactionThatCrashedAfterItsCommitPointIsFinishedByTheRerunsRecoveryAndTheRerunStillReplacesItsRows() {
        seed();
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(client).stepHook((step, n) -> {
            if (step == Step.COPIED_FILE && n == 1) {
                throw new SimulatedCrash(step, n);
            }
        }).run()).isInstanceOf(SimulatedCrash.class);

        // The rerun waits out the crashed compaction's lease, recovers it (rolled forward), then replaces its rows.
        WriteResult rerun = S3Parquet.write(rows("a", 1, 3, 1000, DAYS)).partitionBy("dt").mode(WriteMode.APPEND)
                .idempotencyKey("batch-a").tuning(Tunings.pastLeases()).s3(client).to(table);
        model.put("batch-a", rows("a", 1, 3, 1000, DAYS));
        assertThat(rerun.recovered().rolledForward()).hasSize(1);
        assertModel();
        for (String day : DAYS) {
            assertThat(files(day)).hasSize(2).anySatisfy(f -> assertThat(f).contains("-k-batch-a-").contains("_k."));
        }
    }

    @Test
    void aRerunThatWaitedOnTheCompactionsLeaseReplacesItsRowsInTheNewFiles() throws Exception {
        seed();
        CountDownLatch compactionHeld = new CountDownLatch(1);
        CountDownLatch releaseCompaction = new CountDownLatch(1);
        CompletableFuture<CompactionResult> compaction = CompletableFuture.supplyAsync(() -> S3Parquet.compact(table)
                .s3(client).stepHook((step, n) -> {
                    if (step == Step.LISTED_OLD_FILES) {
                        compactionHeld.countDown();
                        try {
                            releaseCompaction.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }).run());
        assertThat(compactionHeld.await(60, TimeUnit.SECONDS)).isTrue();
        long held = LeaseWatch.creates(s3, bucket);
        List<Row> again = rows("a", 1, 2, 1000, DAYS);
        CompletableFuture<WriteResult> rerun = CompletableFuture.supplyAsync(() -> S3Parquet.write(again).partitionBy("dt")
                .mode(WriteMode.APPEND).idempotencyKey("batch-a").leaseWait(Duration.ofSeconds(60)).s3(client).to(table));
        LeaseWatch.awaitCreateAfter(s3, bucket, held, "the rerun waits for the compaction's lease");
        assertThat(rerun).isNotDone();
        releaseCompaction.countDown();

        assertThat(Stalls.within(compaction, 60, bucket).filesAfter()).isEqualTo(3);
        Stalls.within(rerun, 60, bucket);
        model.put("batch-a", again);
        assertModel();
    }

    @Test
    void aFileCompactedTwiceKeepsItsRunsAndEachKeyStaysRerunnable() {
        seed();
        compact();
        keyed("batch-c", rows("c", 20, 2, 300, DAYS));
        unkeyed(rows("u", 60, 1, 600, DAYS));
        CompactionResult second = compact();
        assertThat(second.filesBefore()).isEqualTo(9);
        assertThat(second.filesAfter()).isEqualTo(3);
        assertModel();

        keyed("batch-a", rows("a", 1, 2, 1000, DAYS));
        assertModel();
        keyed("batch-c", rows("c", 20, 3, 3000, DAYS));
        assertModel();
        compact();
        keyed("batch-b", rows("b", 10, 1, 2000, DAYS));
        assertModel();
        // Every key's rows are still whose they were: each rerun found its own rows, and only those.
        assertThat(TestLake.query(bucket, "t/", "SELECT source, count(*) FROM t GROUP BY ALL ORDER BY ALL"))
                .containsExactly(List.of("a", 6L), List.of("b", 3L), List.of("c", 9L), List.of("u", 9L));
    }

    @Test
    void aCompactionOfMarkedFilesFetchesEachFileItReadsTwiceItsFooterOnceBeforeTheLeaseAndTheFileOnceWhenItIsRead() {
        seed();
        compact();
        keyed("batch-c", rows("c", 20, 2, 300, DAYS));
        List<String> read = new ArrayList<>();
        DAYS.forEach(day -> read.addAll(files(day)));
        // One marked file per day (the first compaction's), one keyed file per day (batch-c's).
        assertThat(read.stream().filter(k -> k.contains("_k.")).count()).as(read.toString()).isEqualTo(3);
        s3.clearRequests();

        CompactionResult second = S3Parquet.compact(table).s3(client).run();
        List<String> gets = s3.requests().stream().filter(r -> r.operation().equals("GetObject")).map(MemoryS3.Request::key).toList();

        assertThat(second.filesBefore()).isEqualTo(6);
        assertThat(second.filesAfter()).isEqualTo(3);
        assertModel();
        // The files are small: the footer pass fetches each whole, and so does its read. The commit order and the key runs
        // of the marked files come from that one footer, as the schema and the encodings do: no GET of their own.
        for (String key : read) {
            assertThat(gets.stream().filter(key::equals).count()).as(key + " in " + gets).isEqualTo(2);
        }
    }

    @Test
    void runsCutAcrossSeveralCompactedFilesAreEachRewrittenAndAPrefixIsKept() {
        seed();
        // Four rows per file: the runs of one day (3 a, 2 u, 4 b) are cut across three files, a key's rows in two of them.
        CompactionResult compacted = S3Parquet.compact(table).options(WriteOptions.builder().maxRowsPerFile(4).filenamePrefix("c-").build())
                .s3(client).run();
        assertThat(compacted.filesAfter()).isEqualTo(9);
        assertModel();
        keyed("batch-b", rows("b", 10, 1, 2000, DAYS));
        assertModel();
        keyed("batch-a", rows("a", 1, 5, 1000, DAYS));
        assertModel();
        for (String day : DAYS) {
            // Marked files remain (rewrites, "r<n>-", and compacted files no rerun touched, "c-"), each a wrangler name.
            assertThat(files(day)).filteredOn(f -> f.contains("_k.")).isNotEmpty()
                    .allSatisfy(f -> assertThat(f.substring(f.lastIndexOf('/') + 1)).matches("(r\\d+-)?(c-)?part-.*"));
        }
    }

    @Test
    void aRerunWithDeferredUploadsPublishesItsRewritesWithItsOwnFiles() {
        seed();
        compact();
        List<Row> again = rows("a", 1, 2, 1000, DAYS);
        WriteResult rerun = S3Parquet.write(again).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey("batch-a")
                .commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(client).to(table);
        model.put("batch-a", again);
        assertModel();
        // Per day: its own file (an upload completed at publish) and the rewrite of the compacted file (a staged copy).
        assertThat(rerun.partitions()).allSatisfy(p -> assertThat(p.files()).hasSize(2));
        assertThat(rerun.partitions()).allSatisfy(p -> assertThat(p.replacedFiles()).singleElement().asString().contains("_k."));
        assertThat(client.listMultipartUploads(b -> b.bucket(bucket)).uploads()).isEmpty();
    }

    @Test
    void aMarkedFileWithoutKeyRunsIsRefusedByTheRerunAndTheCompactionChangingNothing() {
        seed();
        // An unkeyed file renamed as a marked one (another tool's doing): whose its rows are is not known.
        String plain = files(DAYS.get(0)).stream().filter(f -> !f.contains("-k-")).findFirst().orElseThrow();
        String marked = plain.replace(".snappy.parquet", "_k.snappy.parquet");
        client.copyObject(b -> b.sourceBucket(bucket).sourceKey(plain).destinationBucket(bucket).destinationKey(marked));
        client.deleteObject(b -> b.bucket(bucket).key(plain));
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");

        assertThatThrownBy(() -> keyed("batch-a", rows("a", 1, 3, 1000, DAYS)))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: stage): this keyed rerun removes its key's rows from the files that record "
                        + "their rows' keys, but s3://" + bucket + "/" + marked + " is marked as recording its rows' keys but its footer "
                        + "has no wrangler.keys. Nothing of the table was changed; this write's staged files were removed. If another "
                        + "tool wrote that file, rename it (a wrangler write id followed by _k names a file with key runs), then rerun.");
        assertThatThrownBy(this::compact)
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot compact " + table + " (step: validate): s3://" + bucket + "/" + marked + " is marked as recording its "
                        + "rows' keys but its footer has no wrangler.keys, so whose rows it holds is not known. Nothing was changed; "
                        + "leave its partition out (filter) and report it.");
        assertThat(TestLake.snapshot(bucket, "t/").keySet()).isEqualTo(before.keySet());
        model.put("batch-a", rows("a", 1, 3, 100, DAYS));
        assertModel();
    }

    @Test
    void anUnpartitionedTableKeepsItsKeyedRunsAtItsRoot() {
        record Plain(long id, String source) {
        }
        for (String key : List.of("a", "b")) {
            S3Parquet.write(List.of(new Plain(1, key), new Plain(2, key))).mode(WriteMode.APPEND).idempotencyKey("batch-" + key)
                    .s3(client).to(table);
        }
        S3Parquet.write(List.of(new Plain(3, "u"))).mode(WriteMode.APPEND).s3(client).to(table);
        assertThat(compact().filesAfter()).isEqualTo(1);
        S3Parquet.write(List.of(new Plain(7, "a"))).mode(WriteMode.APPEND).idempotencyKey("batch-a").s3(client).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, source FROM t ORDER BY ALL"))
                .containsExactly(List.of(1L, "b"), List.of(2L, "b"), List.of(3L, "u"), List.of(7L, "a"));
    }

    record Event(long id, java.time.Instant at, java.math.BigDecimal price, String dt) {
    }

    @Test
    void aRewriteKeepsTheOtherRowsValuesAndTypes() {
        java.time.Instant t0 = java.time.Instant.parse("2024-01-15T10:00:00.123456Z");
        List<Event> a = List.of(new Event(1, t0, new java.math.BigDecimal("1.50"), DAYS.get(0)));
        List<Event> b = List.of(new Event(2, t0.plusSeconds(60), new java.math.BigDecimal("12345678.99"), DAYS.get(0)),
                new Event(3, null, null, DAYS.get(0)));
        for (var run : Map.of("batch-a", a, "batch-b", b).entrySet()) {
            S3Parquet.write(run.getValue()).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey(run.getKey())
                    .s3(client).to(table);
        }
        String types = "SELECT DISTINCT typeof(\"at\"), typeof(price) FROM t";
        List<List<Object>> typed = TestLake.query(bucket, "t/", types);
        compact();
        S3Parquet.write(List.of(new Event(1, t0.plusSeconds(1), new java.math.BigDecimal("2.50"), DAYS.get(0)))).partitionBy("dt")
                .mode(WriteMode.APPEND).idempotencyKey("batch-a").s3(client).to(table);
        assertThat(TestLake.query(bucket, "t/", types)).isEqualTo(typed);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, CAST(\"at\" AS VARCHAR), CAST(price AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(List.of(1L, "2024-01-15 10:00:01.123456+00", "2.50"),
                        List.of(2L, "2024-01-15 10:01:00.123456+00", "12345678.99"), Arrays.asList(3L, null, null));
    }

    @Test
    void rowsThatDeduplicationDropsAreNotCountedInTheRuns() {
        // batch-b holds newer rows of ids 2 and 3 of batch-a: dedup keeps batch-b's, so batch-a keeps ids 1 only.
        keyed("batch-a", rows("a", 1, 3, 100, DAYS));
        keyed("batch-b", rows("b", 2, 3, 200, DAYS));
        unkeyed(rows("u", 50, 2, 500, DAYS));
        CompactionResult compacted = S3Parquet.compact(table).s3(client).dedupBy(List.of("id"), "amount").run();
        assertThat(compacted.duplicatesDropped()).isEqualTo(6);
        model.put("batch-a", rows("a", 1, 1, 100, DAYS));
        assertModel();

        // The rerun of batch-a replaces its one surviving row per day, and leaves batch-b's ids 2 and 3 alone.
        keyed("batch-a", rows("a", 1, 3, 1000, DAYS));
        assertModel();
        keyed("batch-b", rows("b", 2, 1, 2000, DAYS));
        assertModel();
    }

    /** The table as wrangler's own reader shows it (which hides a write between its commit point and its end). */
    private List<List<Object>> read() throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (ArrowReader r = S3Parquet.read(table).s3(client).columns("id", "amount", "source", "dt").open()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(List.of(b.getVector(0).getObject(i), b.getVector(1).getObject(i), String.valueOf(b.getVector(2).getObject(i)),
                            day(b.getVector(3).getObject(i))));
                }
            }
        }
        out.sort(Comparator.<List<Object>, Long>comparing(r -> (Long) r.get(0)).thenComparing(r -> (Long) r.get(1))
                .thenComparing(r -> (String) r.get(2)).thenComparing(r -> (String) r.get(3)));
        return out;
    }

    /** A partition value as DuckDB's query shows it: the reader types {@code dt} as a date (days since the epoch). */
    private static String day(Object v) {
        return v instanceof Integer days ? java.time.LocalDate.ofEpochDay(days).toString() : String.valueOf(v);
    }

    enum RerunCrash {
        LISTED(Step.LISTED_OLD_FILES), MANIFEST_WRITTEN(Step.MANIFEST_WRITTEN), COPIED_FILE(Step.COPIED_FILE),
        DELETED_BATCH(Step.DELETED_BATCH), BEFORE_CLEANUP(Step.BEFORE_CLEANUP);

        final Step step;

        RerunCrash(Step step) {
            this.step = step;
        }
    }

    @ParameterizedTest
    @EnumSource(RerunCrash.class)
    void aRerunThatCrashesAtAnyStepIsRecoveredToBeforeOrAfterWithEveryOtherRowOnce(RerunCrash crash) {
        seed();
        compact();
        List<List<Object>> before = expected();
        List<Row> again = rows("a", 1, 2, 1000, DAYS);
        assertThatThrownBy(() -> S3Parquet.write(again).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey("batch-a")
                .tuning(Tunings.smallDeleteBatches()).s3(client).stepHook((step, n) -> {
                    if (step == crash.step && n == 1) {
                        throw new SimulatedCrash(step, n);
                    }
                }).to(table)).isInstanceOf(SimulatedCrash.class);
        RecoveryResult recovered = Tunings.recover(table, client);
        boolean committed = crash.step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
        model.put("batch-a", again);
        assertThat(recovered.rolledForward()).hasSize(committed ? 1 : 0);
        if (committed) {
            assertModel();
        } else {
            assertThat(contents()).isEqualTo(before);
        }
        // The rerun once more: the key's rows once, whatever the crash left.
        keyed("batch-a", rows("a", 1, 3, 3000, DAYS));
        assertModel();
    }

    @Test
    void aReaderDuringTheRerunSeesTheTableBeforeItThenAfterIt() throws Exception {
        seed();
        compact();
        List<List<Object>> before = expected();
        assertThat(read()).isEqualTo(before);
        List<Row> again = rows("a", 1, 2, 1000, DAYS);
        for (Step at : List.of(Step.COPIED_FILE, Step.DELETED_BATCH)) {
            CountDownLatch reached = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<WriteResult> rerun = Stalls.stalledAt(S3Parquet.write(again).partitionBy("dt").mode(WriteMode.APPEND)
                    .idempotencyKey("batch-a").tuning(Tunings.smallDeleteBatches()).s3(client), table, at, 1, reached,
                    release);
            assertThat(reached.await(60, TimeUnit.SECONDS)).isTrue();
            List<List<Object>> shown = read();
            release.countDown();
            Stalls.within(rerun, 60, bucket);
            // Past its commit point with the rewrites copied but nothing deleted: before; once a replaced file is gone: after.
            model.put("batch-a", again);
            assertThat(shown).as("at " + at).isEqualTo(at == Step.COPIED_FILE ? before : expected());
            assertModel();
            before = expected();
        }
    }
}
