package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.partition.Buckets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class BucketByTest {
    record Row(Long id, String name, boolean flag, String dt) {
    }

    record Measure(String name, double value) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    /*
     * Expected numbers computed once by hand with a short Python 3 script that implements awswrangler 3.17.1's formula as
     * read in awswrangler/s3/_write_dataset.py (_get_bucket_number, _get_value_hash) with Python's unbounded integers:
     * value hash of an int v: v if -2^31 <= v < 2^31 else (v >> 32) ^ v, then -r - 1 if negative; of a str: h = (31*h +
     * byte) % 2^31 over its UTF-8 bytes; of a bool: 0/1; bucket = fold h = (31*h + hash) % 2^31 over the columns, % n.
     * Each entry: value -> {bucket of 8, bucket of 1000003}.
     */
    private static final Map<Object, int[]> EXPECTED = new LinkedHashMap<>();

    static {
        EXPECTED.put(0L, new int[] {0, 0});
        EXPECTED.put(1L, new int[] {1, 1});
        EXPECTED.put(-1L, new int[] {0, 0});
        EXPECTED.put(7L, new int[] {7, 7});
        EXPECTED.put(-7L, new int[] {6, 6});
        EXPECTED.put(2147483647L, new int[] {7, 477206});
        EXPECTED.put(-2147483648L, new int[] {7, 477206});
        EXPECTED.put(2147483648L, new int[] {0, 0});
        EXPECTED.put(-2147483649L, new int[] {0, 0});
        EXPECTED.put(4294967296L, new int[] {1, 1});
        EXPECTED.put(4294967301L, new int[] {4, 4});
        EXPECTED.put(-4294967296L, new int[] {7, 477206});
        EXPECTED.put(1234567890123L, new int[] {4, 270700});
        EXPECTED.put(-1234567890123L, new int[] {5, 270701});
        EXPECTED.put(Long.MAX_VALUE, new int[] {0, 0});
        EXPECTED.put(Long.MIN_VALUE, new int[] {0, 0});
        EXPECTED.put("", new int[] {0, 0});
        EXPECTED.put("a", new int[] {1, 97});
        EXPECTED.put("abc", new int[] {2, 96354});
        EXPECTED.put("Hello, World", new int[] {4, 637457});
        EXPECTED.put("é", new int[] {6, 6214});
        EXPECTED.put("日本語", new int[] {2, 66032});
        EXPECTED.put("😀", new int[] {7, 307458});
        EXPECTED.put("Straße", new int[] {1, 217115});
        EXPECTED.put(true, new int[] {1, 1});
        EXPECTED.put(false, new int[] {0, 0});
    }

    @Test
    void bucketNumbersAreAwswranglers() {
        EXPECTED.forEach((value, buckets) -> {
            assertThat(Buckets.bucketOf(List.of(value), 8)).as("%s of 8", value).isEqualTo(buckets[0]);
            assertThat(Buckets.bucketOf(List.of(value), 1000003)).as("%s of 1000003", value).isEqualTo(buckets[1]);
        });
        // Several columns, same script: [-7, "日本語"] -> 4, [2^40, True] -> 1, ["abc", -2^63, False] -> 2 (of 8).
        assertThat(Buckets.bucketOf(List.of(-7L, "日本語"), 8)).isEqualTo(4);
        assertThat(Buckets.bucketOf(List.of(1L << 40, true), 8)).isEqualTo(1);
        assertThat(Buckets.bucketOf(List.of("abc", Long.MIN_VALUE, false), 8)).isEqualTo(2);
    }

    private static final Pattern BUCKET_FILE = Pattern.compile("t/dt=(d[12])/part-\\d{5}-000-(.+)_bucket-(\\d{5})\\.snappy\\.parquet");

    /** Every file's rows by its (partition, bucket), read back with DuckDB, after checking the file name. */
    private Map<String, List<List<Object>>> filesByBucket(String writeId, String sql) {
        Map<String, List<List<Object>>> out = new TreeMap<>();
        TestLake.snapshot(bucket, "t/").forEach((key, bytes) -> {
            Matcher m = BUCKET_FILE.matcher(key);
            assertThat(m.matches()).as(key).isTrue();
            assertThat(m.group(2)).isEqualTo(writeId);
            assertThat(out.put(m.group(1) + "/" + Integer.parseInt(m.group(3)), TestLake.queryFile(bytes, sql))).as("one file per bucket").isNull();
        });
        return out;
    }

    @Test
    void eachFileHoldsOnlyItsBucketsRowsByInteger() {
        List<Row> rows = new ArrayList<>();
        Map<String, TreeSet<Long>> expected = new TreeMap<>();
        int i = 0;
        for (Map.Entry<Object, int[]> e : EXPECTED.entrySet()) {
            if (e.getKey() instanceof Long id) {
                String dt = i++ % 2 == 0 ? "d1" : "d2";
                rows.add(new Row(id, "n" + id, false, dt));
                expected.computeIfAbsent(dt + "/" + e.getValue()[0], k -> new TreeSet<>()).add(id);
            }
        }
        WriteResult r = S3Parquet.write(rows).partitionBy("dt").bucketBy(List.of("id"), 8).s3(TestLake.memory().client()).to(table);

        Map<String, List<List<Object>>> files = filesByBucket(r.writeId(), "SELECT id FROM $file ORDER BY id");
        Map<String, TreeSet<Long>> found = new TreeMap<>();
        files.forEach((k, v) -> found.put(k, new TreeSet<>(v.stream().map(row -> ((Number) row.get(0)).longValue()).toList())));
        assertThat(found).isEqualTo(expected);
        // The bucket column stays in the files, and nothing is lost or doubled.
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t"))
                .containsExactly(List.of(16L, 16L, Long.MIN_VALUE, Long.MAX_VALUE));
    }

    @Test
    void eachFileHoldsOnlyItsBucketsRowsByStringAndSeveralColumns() {
        List<Row> rows = new ArrayList<>();
        Map<String, TreeSet<String>> expected = new TreeMap<>();
        for (Map.Entry<Object, int[]> e : EXPECTED.entrySet()) {
            if (e.getKey() instanceof String s) {
                rows.add(new Row(1L, s, true, "d1"));
                expected.computeIfAbsent("d1/" + e.getValue()[0], k -> new TreeSet<>()).add(s);
            }
        }
        WriteResult r = S3Parquet.write(rows).partitionBy("dt").bucketBy(List.of("name"), 8).s3(TestLake.memory().client()).to(table);
        Map<String, TreeSet<String>> found = new TreeMap<>();
        filesByBucket(r.writeId(), "SELECT name FROM $file")
                .forEach((k, v) -> found.put(k, new TreeSet<>(v.stream().map(row -> (String) row.get(0)).toList())));
        assertThat(found).isEqualTo(expected);

        // Three columns, hashed in bucketBy's order: ["abc", -2^63, False] -> bucket 2 of 8 (the script above).
        S3Parquet.write(List.of(new Row(Long.MIN_VALUE, "abc", false, "d2"))).partitionBy("dt").bucketBy(List.of("name", "id", "flag"), 8)
                .mode(WriteMode.OVERWRITE).s3(TestLake.memory().client()).to(table);
        assertThat(TestLake.keys(bucket, "t/")).singleElement().satisfies(k -> assertThat(k).matches("t/dt=d2/part-00000-000-.+_bucket-00002\\.snappy\\.parquet"));
    }

    @Test
    void aKeyedRerunReplacesTheEarlierRunsBucketFiles() {
        List<Row> rows = List.of(new Row(1L, "a", true, "d1"), new Row(2L, "b", true, "d1"), new Row(3L, "c", true, "d1"));
        WriteResult last = null;
        for (int run = 0; run < 2; run++) {
            last = S3Parquet.write(rows).partitionBy("dt").bucketBy(List.of("id"), 4).idempotencyKey("load:7").s3(TestLake.memory().client()).to(table);
        }
        String id = last.writeId();
        assertThat(TestLake.keys(bucket, "t/")).containsExactlyInAnyOrder(
                "t/dt=d1/part-00000-000-" + id + "_bucket-00001.snappy.parquet",
                "t/dt=d1/part-00000-000-" + id + "_bucket-00002.snappy.parquet",
                "t/dt=d1/part-00000-000-" + id + "_bucket-00003.snappy.parquet");
        assertThat(TestLake.query(bucket, "t/", "SELECT id FROM t ORDER BY id")).containsExactly(List.of(1L), List.of(2L), List.of(3L));
    }

    @Test
    void badBucketingIsRefusedBeforeAnyIo() {
        List<Row> rows = List.of(new Row(1L, "a", true, "d1"), new Row(null, "b", true, "d1"));
        assertThatThrownBy(() -> S3Parquet.write(rows).partitionBy("dt").bucketBy(List.of("nope"), 4).s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the bucket column 'nope' is not in the input, whose columns are "
                        + "[id, name, flag, dt]. Pass columns of the input to bucketBy(...).");
        assertThatThrownBy(() -> S3Parquet.write(rows).partitionBy("dt").bucketBy(List.of("dt"), 4).s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the bucket column 'dt' is a partition column, which is not in the "
                        + "files (every row of a partition would hash to one bucket). Bucket by columns that stay in the files.");
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Measure("a", 1.5))).bucketBy(List.of("value"), 4).s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the bucket column 'value' has the type FloatingPoint(DOUBLE), "
                        + "which awswrangler's bucket hash does not cover. Bucket by integer (at most signed 64-bit), string or boolean columns.");
        assertThatThrownBy(() -> S3Parquet.write(rows).partitionBy("dt").bucketBy(List.of("id"), 4).s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the bucket column 'id' is null at row 1, and awswrangler's bucket "
                        + "hash has no number for null (awswrangler refuses such rows). Fill the column, or bucket by columns without nulls; "
                        + "nothing was written.");
        assertThat(TestLake.keys(bucket, "")).isEmpty();

        WriteBuilder w = S3Parquet.write(rows);
        assertThatThrownBy(() -> w.bucketBy(List.of("id"), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bucketBy needs at least 1 bucket, got 0");
        assertThatThrownBy(() -> w.bucketBy(List.of(), 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bucketBy needs at least one column");
        assertThatThrownBy(() -> w.bucketBy(List.of("id", "id"), 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bucketBy names a column twice: [id, id]");
    }
}
