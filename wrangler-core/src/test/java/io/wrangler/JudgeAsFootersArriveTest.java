package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A read under a row filter judges each file by its footer and bloom filters as the footer arrives, not after every
 * footer is in: a file's bloom filter is fetched while another file's footer is still in flight. The rows are DuckDB's.
 */
class JudgeAsFootersArriveTest {
    private static final MemoryS3 S3 = MemoryS3.start();

    @AfterAll
    static void stop() {
        S3.close();
    }

    record Event(String user_id, long n, String payload, String dt) {
    }

    @Test
    void aFilesBloomFilterIsFetchedWhileAnotherFilesFooterIsInFlight() throws Exception {
        String bucket = TestLake.bucket(S3);
        String table = "s3://" + bucket + "/t/";
        S3Client s3 = S3.client();
        java.util.Random rnd = new java.util.Random(34);
        // every file's statistics admit u-150 (u-140..u-160), only its bloom filter rules it out; the last day holds it
        for (String day : List.of("2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04")) {
            List<Event> rows = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                StringBuilder p = new StringBuilder();
                for (int c = 0; c < 40; c++) {
                    p.append((char) ('a' + rnd.nextInt(26)));
                }
                rows.add(new Event(day.endsWith("4") && i % 3 == 0 ? "u-150" : i % 2 == 0 ? "u-140" : "u-160", i, p.toString(), day));
            }
            S3Parquet.write(rows).options(WriteOptions.builder().bloomFilters("user_id").build()).partitionBy("dt").mode(WriteMode.APPEND)
                    .s3(s3).to(table);
        }
        Map<String, Long> files = new TreeMap<>(S3.list(bucket, "t/"));
        files.keySet().removeIf(k -> !k.endsWith(".parquet"));
        assertThat(files).hasSize(4);
        // larger than the first footer GET (16 KiB): a footer's GET is not the whole file
        assertThat(files.values()).allSatisfy(size -> assertThat(size).isGreaterThan(3 * 16 * 1024L));
        String last = new ArrayList<>(files.keySet()).get(3);
        S3.clearRequests();
        MemoryS3.Hold hold = S3.holdOnceWhereKeyContains("GetObject", last);

        CompletableFuture<List<Long>> read = CompletableFuture.supplyAsync(() -> {
            List<Long> out = new ArrayList<>();
            try (ArrowReader r = S3Parquet.read(table).s3(s3).where(RowFilter.eq("user_id", "u-150")).open()) {
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
        List<Long> expected = new ArrayList<>();
        for (List<Object> row : TestLake.query(bucket, "t/", "SELECT n FROM t WHERE user_id = 'u-150' ORDER BY n")) {
            expected.add(((Number) row.get(0)).longValue());
        }
        assertThat(got).hasSize(500).isEqualTo(expected);
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
