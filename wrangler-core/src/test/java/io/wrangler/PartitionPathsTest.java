package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.hive.HivePaths;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionPathsTest {
    record Event(String tag, long n) {
    }

    record Tagged(String tag, long n) {
    }

    @Test
    void escapesExactlyTheHiveCharacters() {
        assertThat(HivePaths.escape("a/b")).isEqualTo("a%2Fb");
        assertThat(HivePaths.escape("x=1")).isEqualTo("x%3D1");
        assertThat(HivePaths.escape("50%")).isEqualTo("50%25");
        assertThat(HivePaths.escape("2024-01-15 10:30:00")).isEqualTo("2024-01-15 10%3A30%3A00");
        assertThat(HivePaths.escape("\"#%'*/:=?\\{[]^")).isEqualTo("%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5E");
        assertThat(HivePaths.escape("\u0001\u001f\u007f")).isEqualTo("%01%1F%7F");
        assertThat(HivePaths.escape("Москва ü 東京 a-b_c.d~e!f$g&h(i)j+k,l;m@n}o|p<q>r`s"))
                .isEqualTo("Москва ü 東京 a-b_c.d~e!f$g&h(i)j+k,l;m@n}o|p<q>r`s");
        assertThat(HivePaths.unescape(HivePaths.escape("a/b=c%d:e'f?g#h"))).isEqualTo("a/b=c%d:e'f?g#h");
    }

    @Test
    void rendersValuesAsSparkDoes() {
        assertThat(HivePaths.timestamp(1705314600L, 0)).isEqualTo("2024-01-15 10:30:00");
        assertThat(HivePaths.timestamp(1705314600L, 123_000_000)).isEqualTo("2024-01-15 10:30:00.123");
        assertThat(HivePaths.timestamp(1705314600L, 123_456_789)).isEqualTo("2024-01-15 10:30:00.123456789");
        assertThat(HivePaths.timestamp(-1L, 0)).isEqualTo("1969-12-31 23:59:59");
        assertThat(HivePaths.date(19737)).isEqualTo("2024-01-15");
        assertThat(HivePaths.decimal(new BigDecimal("1E+3"))).isEqualTo("1000");
        assertThat(HivePaths.folder(List.of("dt", "c/x"), Arrays.asList("2024-01-15", null))).isEqualTo("dt=2024-01-15/c%2Fx=__HIVE_DEFAULT_PARTITION__/");
        assertThat(HivePaths.folder(List.of("c"), List.of(""))).isEqualTo("c=__HIVE_DEFAULT_PARTITION__/");
    }

    @Test
    void awkwardPartitionValuesRoundTripThroughPathsAndDuckDb() {
        String bucket = TestLake.bucket();
        List<String> tags = List.of("a/b", "x=1", "50%", "10:30", "it's", "why?", "#1", "Москва", "東京", "a b", "");
        List<Event> rows = new ArrayList<>();
        for (int i = 0; i < tags.size(); i++) {
            rows.add(new Event(tags.get(i), i));
        }
        rows.add(new Event(null, 100));
        WriteResult r = S3Parquet.write(rows).partitionBy("tag").s3(TestLake.s3().client()).to("s3://" + bucket + "/t/");

        assertThat(TestLake.keys(bucket, "t/")).extracting(k -> k.substring(2, k.indexOf("/part-")))
                .containsExactlyInAnyOrder("tag=a%2Fb", "tag=x%3D1", "tag=50%25", "tag=10%3A30", "tag=it%27s", "tag=why%3F",
                        "tag=%231", "tag=Москва", "tag=東京", "tag=a b", "tag=__HIVE_DEFAULT_PARTITION__");
        // The empty string and null are one partition, as in Hive and Spark.
        assertThat(r.partitions()).hasSize(11);
        assertThat(r.partitionValues().get("s3://" + bucket + "/t/tag=__HIVE_DEFAULT_PARTITION__/")).containsExactly("__HIVE_DEFAULT_PARTITION__");
        assertThat(r.partitionValues().get("s3://" + bucket + "/t/tag=a%2Fb/")).containsExactly("a/b");

        // DuckDB 1.4 unescapes the values but, unlike Hive, Spark and Athena, reads the default partition as text.
        List<List<Object>> back = TestLake.query(bucket, "t/", "SELECT n, nullif(tag, '__HIVE_DEFAULT_PARTITION__') FROM t ORDER BY n");
        List<List<Object>> expected = new ArrayList<>();
        for (int i = 0; i < tags.size() - 1; i++) {
            expected.add(Arrays.asList((long) i, tags.get(i)));
        }
        expected.add(Arrays.asList(10L, null));
        expected.add(Arrays.asList(100L, null));
        assertThat(back).isEqualTo(expected);
    }

    record Typed(int i, long l, boolean b, LocalDate d, LocalDateTime ts, Instant tsz, BigDecimal dec, String v) {
    }

    @Test
    void everyPartitionColumnTypeRendersAsHiveText() {
        String bucket = TestLake.bucket();
        Typed row = new Typed(-7, 12345678901L, true, LocalDate.of(2024, 1, 15), LocalDateTime.of(2024, 1, 15, 10, 30, 0, 120_000_000),
                Instant.parse("2024-01-15T23:59:59Z"), new BigDecimal("12.50"), "v");
        S3Parquet.write(List.of(row)).partitionBy("i", "l", "b", "d", "ts", "tsz", "dec").s3(TestLake.s3().client()).to("s3://" + bucket + "/t/");

        assertThat(TestLake.keys(bucket, "t/")).singleElement().asString().startsWith(
                "t/i=-7/l=12345678901/b=true/d=2024-01-15/ts=2024-01-15 10%3A30%3A00.12/tsz=2024-01-15 23%3A59%3A59/dec=12.5/part-00000-");
    }
}
