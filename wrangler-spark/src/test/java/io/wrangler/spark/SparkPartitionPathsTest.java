package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Partition folders of a Spark write are core's: Hive escaping, date and integer values, nulls in the default partition. */
class SparkPartitionPathsTest {
    record Row(long id, LocalDate d, Integer n, String s) {
    }

    private static TreeSet<String> folders(String bucket, String prefix) {
        TreeSet<String> out = new TreeSet<>();
        for (String k : SparkLake.keys(bucket, prefix)) {
            out.add(k.substring(prefix.length(), k.lastIndexOf('/') + 1));
        }
        return out;
    }

    @Test
    void foldersEqualThoseOfASingleProcessWrite() {
        String bucket = SparkLake.bucket();
        SparkParquet.write(SparkLake.spark().sql("SELECT * FROM VALUES "
                        + "(1L, DATE'2024-01-15', 3, 'a/b c'), (2L, DATE'2024-01-15', NULL, 'x=y:z%'), (3L, NULL, -7, ''), "
                        + "(4L, DATE'1999-12-31', 0, 'é#?') AS v(id, d, n, s)"))
                .partitionBy("d", "n", "s").mode(WriteMode.OVERWRITE_PARTITIONS).s3(SparkLake.settings()).to("s3://" + bucket + "/spark/");
        S3Parquet.write(List.of(new Row(1, LocalDate.of(2024, 1, 15), 3, "a/b c"), new Row(2, LocalDate.of(2024, 1, 15), null, "x=y:z%"),
                        new Row(3, null, -7, ""), new Row(4, LocalDate.of(1999, 12, 31), 0, "é#?")))
                .partitionBy("d", "n", "s").mode(WriteMode.OVERWRITE_PARTITIONS).s3(SparkLake.s3().client()).to("s3://" + bucket + "/jvm/");
        TreeSet<String> spark = folders(bucket, "spark/");
        assertThat(spark).hasSize(4).contains("d=2024-01-15/n=3/s=a%2Fb c/", "d=__HIVE_DEFAULT_PARTITION__/n=-7/s=__HIVE_DEFAULT_PARTITION__/");
        assertThat(spark).isEqualTo(folders(bucket, "jvm/"));
        assertThat(SparkLake.query(bucket, "spark/", "SELECT id, CAST(d AS VARCHAR), CAST(n AS VARCHAR), s FROM t ORDER BY id").get(0))
                .isEqualTo(Arrays.asList(1L, "2024-01-15", "3", "a/b c"));
    }
}
