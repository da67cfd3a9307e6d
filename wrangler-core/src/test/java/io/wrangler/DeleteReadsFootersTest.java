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
 * The reads of a delete of one user's rows (an erasure request), counted by the S3 that serves them (a MemoryS3 of this
 * test's own): a file whose footer statistics, dictionary or bloom filter rule the user out has its footer read once (one
 * GET of its tail; and one small GET of its dictionary or bloom filter where its statistics admit the user) and nothing
 * else, and is not rewritten; a file that
 * holds the user has its footer read once too (the plan of the rewrite takes it from the scan), and is the only one
 * rewritten. The files are larger than the footer's GET, so that a GET of the tail is not the whole file.
 */
class DeleteReadsFootersTest {
    private static final MemoryS3 S3 = MemoryS3.start();

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

    /** One file of {@code day}: 1,500 rows of the users {@code users}, each row with 40 random characters. */
    private void file(String day, String... users) {
        List<Event> rows = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            StringBuilder p = new StringBuilder();
            for (int c = 0; c < 40; c++) {
                p.append((char) ('a' + rnd.nextInt(26)));
            }
            rows.add(new Event(users[i % users.length], p.toString(), day));
        }
        S3Parquet.write(rows).options(WriteOptions.builder().bloomFilters("user_id").build()).partitionBy("dt").mode(WriteMode.APPEND)
                .s3(s3).to(table);
    }

    @Test
    void aDeleteOfOneUserReadsEachFooterOnceAndNothingElseOfFilesWithoutTheUser() {
        // per day: a file of u-1xx holding the user on two days, a file of u-2xx (statistics rule u-150 out), and a file of
        // u-140 and u-160 (statistics admit u-150, its bloom filter rules it out)
        for (String day : List.of("2024-01-01", "2024-01-02", "2024-01-03")) {
            file(day, day.endsWith("3") ? new String[] {"u-101", "u-199"} : new String[] {"u-101", "u-150", "u-199"});
            file(day, "u-201", "u-299");
            file(day, "u-140", "u-160");
        }
        Map<String, Long> before = new TreeMap<>(S3.list(bucket, "t/"));
        before.keySet().removeIf(k -> !k.endsWith(".parquet"));
        assertThat(before).hasSize(9);
        List<String> holding = new ArrayList<>();
        for (String key : before.keySet()) {
            long n = (Long) TestLake.queryFile(S3.get(bucket, key), "SELECT count(*) FROM $file WHERE user_id = 'u-150'").get(0).get(0);
            if (n > 0) {
                holding.add(key);
            }
            assertThat(before.get(key)).as(key).isGreaterThan(3 * 16 * 1024L); // a GET of the footer is not the whole file
        }
        assertThat(holding).hasSize(2);
        S3.clearRequests();

        DeleteResult r = S3Parquet.deleteRows(table).keys("user_id", List.of("u-150")).s3(s3).run();

        assertThat(r.rowsDeleted()).isEqualTo(1000);
        assertThat(r.filesRewritten()).containsExactlyInAnyOrderElementsOf(holding.stream().map(k -> "s3://" + bucket + "/" + k).toList());
        Map<String, List<String>> gets = new TreeMap<>();
        for (MemoryS3.Request q : S3.requests()) {
            if (q.operation().equals("GetObject") && before.containsKey(q.key())) {
                gets.computeIfAbsent(q.key(), k -> new ArrayList<>()).add(((GetObjectRequest) q.request()).range());
            }
        }
        for (String key : before.keySet()) {
            List<String> ranges = gets.getOrDefault(key, List.of());
            // the footer: once, the file's first GET, of its tail (16 KiB for the first files, then sized by the
            // longest footer seen: what matters is that it ends at the file's end and is fetched once)
            // (a file holding the user is then read whole for its rewrite, footer included)
            String end = "-" + (before.get(key) - 1);
            assertThat(ranges.get(0)).as(key + ": " + ranges).endsWith(end);
            if (!holding.contains(key)) {
                assertThat(ranges.stream().filter(g -> g.endsWith(end)).count()).as(key + ": " + ranges).isEqualTo(1);
                String user = TestLake.queryFile(S3.get(bucket, key), "SELECT min(user_id) FROM $file").get(0).get(0).toString();
                boolean admitted = !user.equals("u-201"); // u-101..u-199 and u-140..u-160 admit u-150; u-201..u-299 do not
                // ruled out by its statistics: its footer only; admitted by them: then the bloom filter's block and the
                // user_id dictionary (small ranged GETs, under 1 KiB together), which rule it out; never its data
                if (!admitted) {
                    assertThat(ranges).as(key + " of " + user + ", all: " + gets).hasSize(1);
                } else {
                    List<String> rest = ranges.subList(1, ranges.size());
                    assertThat(rest).as(key + " of " + user + ", all: " + gets).isNotEmpty().hasSizeLessThanOrEqualTo(2);
                    long bytes = 0;
                    for (String one : rest) {
                        String[] range = one.substring("bytes=".length()).split("-");
                        bytes += Long.parseLong(range[1]) - Long.parseLong(range[0]) + 1;
                    }
                    assertThat(bytes).as(key + ": " + ranges).isLessThan(1024);
                }
            } else {
                assertThat(ranges.size()).as(key + ": " + ranges).isGreaterThan(1); // the scan's, then the rewrite's reads
            }
        }
        assertThat(S3.list(bucket, "t/").keySet()).containsAll(before.keySet().stream().filter(k -> !holding.contains(k)).toList());
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t WHERE user_id = 'u-150'")).containsExactly(List.of(0L));
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t")).containsExactly(List.of(9 * 1500L - 1000));
    }
}
