package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.testkit.S3Fault;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An adversary's review of keyed runs through compaction (issue 23, item 1) and of the reading API (issue 24, item 7):
 * a bucketed keyed table compacted then rerun, dedup of keyed files then reruns of each key, several marked files of
 * evolved schemas rewritten by one rerun, a reader at every step of a rerun that rewrites marked files, the rerun
 * crashed at each step then recovered, a footer GET failing during the rerun, and reads closed early or with extreme
 * batch sizes (no allocator leak). Values are checked through DuckDB and wrangler's reader.
 */
class KeyedRerunAdversaryTest {
    record Row(long id, long v, String tag, String dt) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private void keyed(String key, List<Row> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey(key).s3(TestLake.memory().client()).to(table);
    }

    private void unkeyed(List<Row> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).s3(TestLake.memory().client()).to(table);
    }

    private List<List<Object>> rows() {
        return TestLake.query(bucket, "t/", "SELECT id, v, tag, CAST(dt AS VARCHAR) FROM t ORDER BY ALL");
    }

    @Test
    void aTieWithoutRerunGoesToTheLaterCommit() {
        keyed("k1", List.of(new Row(1, 5, "k1", "d")));
        keyed("k2", List.of(new Row(2, 5, "k2-old", "d")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        unkeyed(List.of(new Row(2, 5, "newer", "d")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(List.of("id"), "v").run();
        assertThat(rows()).containsExactly(List.of(1L, 5L, "k1", "d"), List.of(2L, 5L, "newer", "d"));
    }

    /**
     * A rerun moves the other keys' rows of a compacted file into a rewrite, a new object: those rows keep their commit
     * time (recorded in the rewrite's footer), so an append committed after them still wins a dedup tie.
     */
    @Test
    void aRowARerunMovedStillLosesATieToARowCommittedAfterIt() {
        keyed("k1", List.of(new Row(1, 5, "k1", "d")));
        keyed("k2", List.of(new Row(2, 5, "k2-old", "d")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        unkeyed(List.of(new Row(2, 5, "newer", "d")));
        keyed("k1", List.of(new Row(1, 5, "k1b", "d")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(List.of("id"), "v").run();
        assertThat(rows()).containsExactly(List.of(1L, 5L, "k1b", "d"), List.of(2L, 5L, "newer", "d"));
    }

    /** The rerun's own row is its key's latest commit: it wins a tie against a row its rewrite moved. */
    @Test
    void aRerunsOwnRowWinsATieAgainstARowItsRewriteMoved() {
        keyed("k1", List.of(new Row(1, 5, "k1", "d")));
        keyed("k2", List.of(new Row(2, 5, "k2", "d")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        keyed("k1", List.of(new Row(2, 5, "k1-rerun", "d")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(List.of("id"), "v").run();
        assertThat(rows()).containsExactly(List.of(2L, 5L, "k1-rerun", "d"));
    }

    @Test
    void bucketedKeyedCompactionThenRerun() {
        List<Row> a = List.of(new Row(1, 1, "a", "d"), new Row(2, 1, "a", "d"), new Row(3, 1, "a", "d"), new Row(4, 1, "a", "d"));
        List<Row> b = List.of(new Row(5, 1, "b", "d"), new Row(6, 1, "b", "d"), new Row(7, 1, "b", "d"), new Row(8, 1, "b", "d"));
        S3Parquet.write(a).partitionBy("dt").bucketBy(List.of("id"), 4).mode(WriteMode.APPEND).idempotencyKey("ka").s3(TestLake.memory().client()).to(table);
        S3Parquet.write(b).partitionBy("dt").bucketBy(List.of("id"), 4).mode(WriteMode.APPEND).idempotencyKey("kb").s3(TestLake.memory().client()).to(table);
        S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        assertThat(TestLake.keys(bucket, "t/dt=d/")).hasSize(4).allMatch(k -> k.contains("_k_bucket-"));
        S3Parquet.write(List.of(new Row(1, 2, "a2", "d"))).partitionBy("dt").bucketBy(List.of("id"), 4).mode(WriteMode.APPEND)
                .idempotencyKey("ka").s3(TestLake.memory().client()).to(table);
        List<String> after = TestLake.keys(bucket, "t/dt=d/");
        assertThat(after).allMatch(k -> k.contains("_bucket-"));
        assertThat(rows()).containsExactly(List.of(1L, 2L, "a2", "d"), List.of(5L, 1L, "b", "d"), List.of(6L, 1L, "b", "d"),
                List.of(7L, 1L, "b", "d"), List.of(8L, 1L, "b", "d"));
        // every row lies in the bucket file a fresh write of the same rows puts it in
        String fresh = "s3://" + bucket + "/fresh/";
        S3Parquet.write(List.of(new Row(1, 2, "a2", "d"), new Row(5, 1, "b", "d"), new Row(6, 1, "b", "d"), new Row(7, 1, "b", "d"),
                new Row(8, 1, "b", "d"))).partitionBy("dt").bucketBy(List.of("id"), 4).s3(TestLake.memory().client()).to(fresh);
        String q = "SELECT id, regexp_extract(filename, '_bucket-(\\d+)', 1) FROM t ORDER BY ALL";
        List<List<Object>> freshBuckets = io.wrangler.testkit.DuckReader.query(TestLake.memory(), bucket, "fresh/", q, "filename=true");
        List<List<Object>> ourBuckets = io.wrangler.testkit.DuckReader.query(TestLake.memory(), bucket, "t/", q, "filename=true");
        assertThat(ourBuckets).isEqualTo(freshBuckets);
    }

    @Test
    void aFailingFooterGetDuringARerunIsRetryableAndChangesNothing() {
        // a partition whose file sorts first: the rerun's check of the table reads its footer, not the marked file's
        unkeyed(List.of(new Row(0, 0, "a", "a")));
        keyed("k1", List.of(new Row(1, 5, "k1", "d")));
        keyed("k2", List.of(new Row(2, 5, "k2", "d")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        List<List<Object>> before = rows();
        try {
            TestLake.memory().failWhereKeyContains("GetObject", "_k.", S3Fault.INTERNAL_ERROR);
            assertThatThrownBy(() -> S3Parquet.write(List.of(new Row(1, 6, "k1b", "d"))).partitionBy("dt")
                    .mode(WriteMode.APPEND).idempotencyKey("k1").s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(StorageException.class)
                    .hasMessageStartingWith("Cannot rewrite the files that hold rows of this key for " + table + " (step: stage): S3 answered "
                            + "InternalError (HTTP 500)")
                    .hasMessageEndingWith("Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
        } finally {
            TestLake.memory().clearKeyFaults();
        }
        assertThat(rows()).isEqualTo(before);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void dedupOfKeyedFilesKeepsEachKeptRowsKey() {
        keyed("k1", List.of(new Row(1, 1, "k1", "d"), new Row(2, 9, "k1", "d"), new Row(3, 1, "k1", "d")));
        keyed("k2", List.of(new Row(1, 9, "k2", "d"), new Row(2, 1, "k2", "d"), new Row(4, 1, "k2", "d")));
        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(List.of("id"), "v").run();
        assertThat(r.duplicatesDropped()).isEqualTo(2);
        assertThat(rows()).containsExactly(List.of(1L, 9L, "k2", "d"), List.of(2L, 9L, "k1", "d"), List.of(3L, 1L, "k1", "d"),
                List.of(4L, 1L, "k2", "d"));
        keyed("k1", List.of(new Row(7, 7, "k1b", "d")));
        assertThat(rows()).containsExactly(List.of(1L, 9L, "k2", "d"), List.of(4L, 1L, "k2", "d"), List.of(7L, 7L, "k1b", "d"));
        keyed("k2", List.of(new Row(8, 8, "k2b", "d")));
        assertThat(rows()).containsExactly(List.of(7L, 7L, "k1b", "d"), List.of(8L, 8L, "k2b", "d"));
    }

    @Test
    void aReaderAtEveryStepOfARerunThatRewritesMarkedFilesSeesBeforeOrAfter() {
        keyed("k1", List.of(new Row(1, 1, "k1", "d"), new Row(1, 1, "k1", "e")));
        keyed("k2", List.of(new Row(2, 1, "k2", "d"), new Row(2, 1, "k2", "e")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        List<List<Object>> before = rows();
        List<List<Object>> after = List.of(List.of(2L, 1L, "k2", "d"), List.of(2L, 1L, "k2", "e"), List.of(3L, 3L, "k1b", "d"),
                List.of(3L, 3L, "k1b", "e"), List.of(4L, 3L, "k1b", "d"), List.of(4L, 3L, "k1b", "e"));
        List<String> seen = new java.util.ArrayList<>();
        S3Parquet.write(List.of(new Row(3, 3, "k1b", "d"), new Row(4, 3, "k1b", "d"), new Row(3, 3, "k1b", "e"), new Row(4, 3, "k1b", "e")))
                .partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey("k1").s3(TestLake.memory().client()).stepHook((step, n) -> {
                    List<Record> list = new java.util.ArrayList<>(S3Parquet.read(table).s3(TestLake.memory().client()).toList(Row.class));
                    long count = S3Parquet.read(table).s3(TestLake.memory().client()).count();
                    List<List<Object>> got = list.stream().map(x -> (Row) x).map(x -> List.<Object>of(x.id(), x.v(), x.tag(), x.dt()))
                            .sorted(java.util.Comparator.comparing(Object::toString)).toList();
                    List<List<Object>> b = before.stream().sorted(java.util.Comparator.comparing(Object::toString)).toList();
                    List<List<Object>> a = after.stream().sorted(java.util.Comparator.comparing(Object::toString)).toList();
                    seen.add(step + "#" + n + ":" + (got.equals(b) ? "before" : got.equals(a) ? "after" : "NEITHER " + got) + " count=" + count);
                    assertThat(got).as("%s %d", step, n).isIn(b, a);
                    assertThat(count).as("%s %d", step, n).isEqualTo(got.size());
                }).to(table);
        assertThat(seen).anyMatch(s -> s.contains("after"));
        assertThat(rows()).containsExactlyInAnyOrderElementsOf(after);
    }

    @Test
    void readsClosedEarlyAndHugeBatches() throws Exception {
        for (int i = 0; i < 4; i++) {
            unkeyed(List.of(new Row(i, i, "x" + i, "d"), new Row(i + 10, i, "y" + i, "e"), new Row(i + 20, i, "z" + i, "d")));
        }
        try (org.apache.arrow.memory.RootAllocator a = new org.apache.arrow.memory.RootAllocator()) {
            for (int rows : new int[] {1, 2, 5, Integer.MAX_VALUE}) {
                for (int stop = 0; stop < 3; stop++) {
                    try (org.apache.arrow.vector.ipc.ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).allocator(a).batchRows(rows).open()) {
                        for (int k = 0; k < stop && r.loadNextBatch(); k++) {
                            assertThat(r.getVectorSchemaRoot().getRowCount()).isLessThanOrEqualTo(rows);
                        }
                    }
                    assertThat(a.getAllocatedMemory()).as("rows %d stop %d", rows, stop).isZero();
                }
                long total = 0;
                try (org.apache.arrow.vector.ipc.ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).allocator(a).batchRows(rows).open()) {
                    while (r.loadNextBatch()) {
                        total += r.getVectorSchemaRoot().getRowCount();
                    }
                }
                assertThat(total).isEqualTo(12);
                assertThat(S3Parquet.read(table).s3(TestLake.memory().client()).allocator(a).batchRows(rows).toList(Row.class)).hasSize(12);
                assertThat(a.getAllocatedMemory()).isZero();
            }
        }
    }

    record RowX(long id, long v, String tag, String extra, String dt) {
    }

    @Test
    void aRerunRewritesSeveralMarkedFilesOfEvolvedSchemas() {
        List<Row> k1 = new java.util.ArrayList<>();
        List<Row> k2 = new java.util.ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            k1.add(new Row(i, i, "k1-" + i, "d"));
            k2.add(new Row(10_000 + i, i, "k2-" + i, "d"));
        }
        keyed("k1", k1);
        keyed("k2", k2);
        S3Parquet.write(List.of(new RowX(50_000, 1, "k3", "x3", "d"))).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey("k3")
                .s3(TestLake.memory().client()).to(table);
        S3Parquet.compact(table).s3(TestLake.memory().client()).targetFileSize(16 * 1024).run();
        keyed("k1", List.of(new Row(1, 1, "k1b", "d")));
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t WHERE tag LIKE 'k2-%'"))
                .containsExactly(List.of(3000L, 3000L, 10_000L, 12_999L));
        assertThat(TestLake.query(bucket, "t/", "SELECT id, v, tag, extra FROM t WHERE tag NOT LIKE 'k2-%' ORDER BY ALL"))
                .containsExactly(java.util.Arrays.asList(1L, 1L, "k1b", null), List.of(50_000L, 1L, "k3", "x3"));
        S3Parquet.write(List.of(new RowX(60_000, 2, "k3b", "y", "d"))).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey("k3")
                .s3(TestLake.memory().client()).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, v, tag, extra FROM t WHERE tag NOT LIKE 'k2-%' ORDER BY ALL"))
                .containsExactly(java.util.Arrays.asList(1L, 1L, "k1b", null), List.of(60_000L, 2L, "k3b", "y"));
        assertThat(S3Parquet.read(table).s3(TestLake.memory().client()).count()).isEqualTo(3002);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"STAGED_FILE:2", "LISTED_OLD_FILES:1", "MANIFEST_WRITTEN:1", "COPIED_FILE:1",
            "COPIED_FILE:2", "COPIED_FILE:3", "DELETED_BATCH:1", "BEFORE_CLEANUP:1"})
    void aRerunThatRewritesMarkedFilesCrashedAtAStepReadsAsBeforeOrAfterAndRecovers(String at) {
        io.wrangler.commit.Step crashStep = io.wrangler.commit.Step.valueOf(at.split(":")[0]);
        int crashN = Integer.parseInt(at.split(":")[1]);
        keyed("k1", List.of(new Row(1, 1, "k1", "d"), new Row(1, 1, "k1", "e")));
        keyed("k2", List.of(new Row(2, 1, "k2", "d"), new Row(2, 1, "k2", "e")));
        S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        List<List<Object>> before = rows();
        List<List<Object>> after = List.of(List.of(2L, 1L, "k2", "d"), List.of(2L, 1L, "k2", "e"), List.of(3L, 3L, "k1b", "d"),
                List.of(3L, 3L, "k1b", "e"));
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Row(3, 3, "k1b", "d"), new Row(3, 3, "k1b", "e")))
                .partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey("k1").s3(TestLake.memory().client()).stepHook((step, n) -> {
                    if (step == crashStep && n == crashN) {
                        throw new CrashRecoveryTest.SimulatedCrash(step, n);
                    }
                }).to(table)).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        List<List<Object>> got = S3Parquet.read(table).s3(TestLake.memory().client()).toList(Row.class).stream()
                .map(x -> List.<Object>of(x.id(), x.v(), x.tag(), x.dt())).sorted(java.util.Comparator.comparing(Object::toString)).toList();
        List<List<Object>> b = before.stream().sorted(java.util.Comparator.comparing(Object::toString)).toList();
        List<List<Object>> a = after.stream().sorted(java.util.Comparator.comparing(Object::toString)).toList();
        assertThat(got).isIn(b, a);
        Tunings.recover(table, TestLake.memory().client());
        List<List<Object>> recovered = rows();
        assertThat(recovered).isIn(before, after);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        // and the rerun again, after recovery
        keyed("k1", List.of(new Row(3, 3, "k1b", "d"), new Row(3, 3, "k1b", "e")));
        assertThat(rows()).isEqualTo(after);
    }

    record Opt(long id, String ps) {
    }

    @Test
    void countAndToListAgreeOnTheDefaultPartition() {
        S3Parquet.write(List.of(new Opt(1, null), new Opt(2, ""), new Opt(3, "x"))).partitionBy("ps").s3(TestLake.memory().client()).to(table);
        for (PartitionFilter f : List.of(PartitionFilter.in("ps", null, ""), PartitionFilter.in("ps", ""), PartitionFilter.in("ps", (String) null),
                PartitionFilter.in("ps", "x", null))) {
            List<Opt> list = S3Parquet.read(table).s3(TestLake.memory().client()).filter(f).toList(Opt.class);
            long count = S3Parquet.read(table).s3(TestLake.memory().client()).filter(f).count();
            assertThat(count).isEqualTo(list.size());
        }
    }
}
