package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.MemoryS3;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * A read under a row filter judges each file by its footer and bloom filters as the footer arrives, not after every
 * footer is in: a file's bloom filter is fetched while another file's footer is still in flight. It probes each file's
 * bloom filter with one GET, of the one 32-byte block the value hashes to, when the footer records the filter's length
 * (wrangler's files, written by parquet-java); the same files without the length recorded (as writers before it leave
 * them) take the filter's header first, then the block. The rows are DuckDB's.
 */
class JudgeAsFootersArriveTest {
    private static final MemoryS3 S3 = MemoryS3.start();
    private static String bucket;
    private static List<Long> expected;

    @TempDir
    static Path temp;

    /**
     * File d of t/ holds the ids i * 4 + d: every file's statistics admit u-040003, only the last file holds it, and the
     * bloom filters of 20,000 distinct ids (some 32 KiB) lie beyond the footer's GET: judging a file takes GETs. old/
     * holds the same files without their bloom filters' lengths in their footers.
     */
    @BeforeAll
    static void write() throws Exception {
        bucket = TestLake.bucket(S3);
        S3Client s3 = S3.client();
        List<String> days = List.of("2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04");
        for (int d = 0; d < days.size(); d++) {
            List<Event> rows = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                rows.add(new Event(String.format("u-%06d", i * 4 + d), i, days.get(d)));
            }
            S3Parquet.write(rows).options(WriteOptions.builder().bloomFilters("user_id").build()).partitionBy("dt").mode(WriteMode.APPEND)
                    .s3(s3).to("s3://" + bucket + "/t/");
        }
        FilterFixtures.upload(s3, bucket, "old/", FilterFixtures.copy(s3, bucket, "t/", temp.resolve("t")),
                JudgeAsFootersArriveTest::withoutBloomLengths);
        expected = new ArrayList<>();
        for (List<Object> row : TestLake.query(bucket, "t/", "SELECT n FROM t WHERE user_id = 'u-040003' ORDER BY n")) {
            expected.add(((Number) row.get(0)).longValue());
        }
    }

    @AfterAll
    static void stop() {
        S3.close();
    }

    record Event(String user_id, long n, String dt) {
    }

    @Test
    void aFilesBloomFilterIsFetchedWhileAnotherFilesFooterIsInFlight() throws Exception {
        String table = "s3://" + bucket + "/t/";
        S3Client s3 = S3.client();
        Map<String, Long> files = new TreeMap<>(S3.list(bucket, "t/"));
        files.keySet().removeIf(k -> !k.endsWith(".parquet"));
        assertThat(files).hasSize(4);
        assertThat(files.values()).allSatisfy(size -> assertThat(size).isGreaterThan(64 * 1024L));
        String last = new ArrayList<>(files.keySet()).get(3);
        S3.clearRequests();
        MemoryS3.Hold hold = S3.holdOnceWhereKeyContains("GetObject", last);

        CompletableFuture<List<Long>> read = CompletableFuture.supplyAsync(() -> {
            List<Long> out = new ArrayList<>();
            try (ArrowReader r = S3Parquet.read(table).s3(s3).where(RowFilter.eq("user_id", "u-040003")).open()) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot b = r.getVectorSchemaRoot();
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.add((Long) b.getVector("n").getObject(i));
                    }
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
            return out;
        });
        try {
            assertThat(hold.awaitHeld(Duration.ofSeconds(30))).as("the last file's footer GET").isTrue();
            // while it is held: another file's second GET, its bloom filter (after its footer, the file's first GET)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (secondGets(files) == 0) {
                assertThat(System.nanoTime()).as("no file was judged while the last file's footer was in flight; GETs: %s",
                        S3.requests().stream().filter(q -> q.operation().equals("GetObject")).map(MemoryS3.Request::key).toList())
                        .isLessThan(deadline);
                Thread.sleep(10);
            }
        } finally {
            hold.release();
        }
        List<Long> got = read.get(60, TimeUnit.SECONDS);
        assertThat(got).containsExactly(10_000L).isEqualTo(expected);
    }

    @Test
    void aFilesBloomFilterIsProbedByOneGetWhereItsLengthIsRecordedAndByItsHeaderFirstElse() throws Exception {
        for (String prefix : List.of("t/", "old/")) {
            S3.clearRequests();
            List<Long> got = new ArrayList<>();
            try (ArrowReader r = S3Parquet.read("s3://" + bucket + "/" + prefix).s3(S3.client()).where(RowFilter.eq("user_id", "u-040003")).open()) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot b = r.getVectorSchemaRoot();
                    for (int i = 0; i < b.getRowCount(); i++) {
                        got.add((Long) b.getVector("n").getObject(i));
                    }
                }
            }
            assertThat(got).as(prefix).containsExactly(10_000L).isEqualTo(expected);
            // the GETs of under 100 bytes of each file: its bloom filter's header (64 bytes) where it is read, and the block
            // (32 bytes); the file that holds the id then takes its page indexes
            List<Long> probe = prefix.equals("t/") ? List.of(32L) : List.of(64L, 32L);
            Map<String, List<Long>> small = smallGets(prefix);
            assertThat(small).as(prefix).hasSize(4);
            small.forEach((key, sizes) -> assertThat(key.contains("2024-01-04") ? sizes.subList(0, probe.size()) : sizes).as(key).isEqualTo(probe));
        }
    }

    /** The sizes of the GETs of under 100 bytes of each data file under {@code prefix}, in the order sent. */
    private static Map<String, List<Long>> smallGets(String prefix) {
        Map<String, List<Long>> out = new TreeMap<>();
        for (MemoryS3.Request q : S3.requests()) {
            if (q.request() instanceof GetObjectRequest g && q.key().startsWith(prefix) && q.key().endsWith(".parquet") && g.range() != null) {
                String[] r = g.range().substring("bytes=".length()).split("-");
                long size = Long.parseLong(r[1]) - Long.parseLong(r[0]) + 1;
                if (size < 100) {
                    out.computeIfAbsent(q.key(), k -> new ArrayList<>()).add(size);
                }
            }
        }
        return out;
    }

    /** An edit: bloom filters kept, their lengths not recorded (as parquet-java before 1.14 and other writers leave them). */
    static void withoutBloomLengths(FileMetaData meta) {
        for (RowGroup g : meta.getRow_groups()) {
            for (ColumnChunk c : g.getColumns()) {
                c.getMeta_data().unsetBloom_filter_length();
            }
        }
    }

    /** How many GETs of the files came after the file's first GET. */
    private static long secondGets(Map<String, Long> files) {
        Map<String, Integer> seen = new TreeMap<>();
        long second = 0;
        for (MemoryS3.Request q : S3.requests()) {
            if (q.operation().equals("GetObject") && files.containsKey(q.key()) && seen.merge(q.key(), 1, Integer::sum) > 1) {
                second++;
            }
        }
        return second;
    }
}
