package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.MemoryS3;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * The reads of a merge's plan, counted by the S3 that serves them (a MemoryS3 of this test's own): each file of the
 * matched partitions has its footer fetched once, by one GET of its tail (not the file whole, though it is small enough
 * for a read to fetch whole), and then only its key column's bytes for the scan of keys: the other columns of a file
 * that holds no updated key are never fetched. The files are several times the footer's GET, so that a GET of the tail is
 * not the whole file, and their key column a small part of them.
 */
class MergeReadsFootersAndKeysTest {
    private static final MemoryS3 S3 = MemoryS3.start();
    /** The most a GET of a footer asks for (S3InputFile.FOOTER_GET). */
    private static final long TAIL = 16 * 1024;

    @AfterAll
    static void close() {
        S3.close();
    }

    record Event(String user_id, String payload, String dt) {
    }

    private final String bucket = TestLake.bucket(S3);
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = S3.client();
    private final Random rnd = new Random(35);

    /** One file of {@code day}: 8,000 rows of the users {@code users}, each row with 60 random characters. */
    private void file(String day, String... users) {
        List<Event> rows = new ArrayList<>();
        for (int i = 0; i < 8000; i++) {
            StringBuilder p = new StringBuilder();
            for (int c = 0; c < 60; c++) {
                p.append((char) ('a' + rnd.nextInt(26)));
            }
            rows.add(new Event(users[i % users.length], p.toString(), day));
        }
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    @Test
    void aMergePlanFetchesEachFooterByItsTailThenOnlyTheKeyColumn() {
        for (String day : List.of("2024-01-01", "2024-01-02")) {
            file(day, "u-101", "u-150", "u-199");
            file(day, "u-140", "u-160");
        }
        Map<String, Long> files = new TreeMap<>(S3.list(bucket, "t/"));
        files.keySet().removeIf(k -> !k.endsWith(".parquet"));
        assertThat(files).hasSize(4);
        files.forEach((key, size) -> assertThat(size).as(key).isGreaterThan(3 * TAIL));
        S3.clearRequests();

        MergeResult r = S3Parquet.merge(List.of(new Event("u-150", "new", "2024-01-01"), new Event("u-199", "new", "2024-01-02")))
                .on("user_id").s3(s3).plan(table);

        assertThat(r.rowsUpdated()).isEqualTo(2);
        assertThat(r.filesRewritten()).hasSize(2);
        Map<String, List<long[]>> gets = new TreeMap<>();
        for (MemoryS3.Request q : S3.requests()) {
            if (q.operation().equals("GetObject") && files.containsKey(q.key())) {
                String[] range = ((GetObjectRequest) q.request()).range().substring("bytes=".length()).split("-");
                gets.computeIfAbsent(q.key(), k -> new ArrayList<>()).add(new long[] {Long.parseLong(range[0]), Long.parseLong(range[1])});
            }
        }
        assertThat(gets.keySet()).isEqualTo(files.keySet());
        gets.forEach((key, ranges) -> {
            long size = files.get(key);
            long[] footer = ranges.get(0);
            assertThat(footer[1]).as(key + ": the footer's GET ends at the file's end").isEqualTo(size - 1);
            assertThat(footer[1] - footer[0] + 1).as(key + ": the footer's GET is of the tail, not the file").isLessThanOrEqualTo(TAIL);
            long bytes = 0;
            for (long[] g : ranges) {
                bytes += g[1] - g[0] + 1;
            }
            // the footer and the user_id column (a dictionary of a few values): well under the 60 random characters a row
            assertThat(bytes).as(key + ": bytes fetched by the plan").isLessThan(size / 2);
            assertThat(ranges.stream().filter(g -> g[1] == size - 1).count()).as(key + ": the footer fetched once").isEqualTo(1);
        });
    }
}
