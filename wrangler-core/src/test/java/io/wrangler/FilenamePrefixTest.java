package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FilenamePrefixTest {
    record Row(String id, String dt) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    @Test
    void everyDataFileStartsWithThePrefix() {
        WriteResult r = S3Parquet.write(List.of(new Row("a", "2024-01-01"), new Row("b", "2024-01-02"))).partitionBy("dt")
                .filenamePrefix("job42-").s3(TestLake.memory().client()).to(table);

        assertThat(TestLake.keys(bucket, "t/")).hasSize(2).allMatch(k -> k.matches(
                "t/dt=2024-01-0[12]/job42-part-\\d{5}-000-" + r.writeId() + "\\.snappy\\.parquet"));
        assertThat(r.paths()).allMatch(p -> p.contains("/job42-part-"));
        assertThat(TestLake.query(bucket, "t/", "SELECT id, CAST(dt AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(List.of("a", "2024-01-01"), List.of("b", "2024-01-02"));
    }

    @Test
    void aKeyedRerunReplacesTheEarlierRunsPrefixedFiles() {
        for (String prefix : List.of("first-", "second-")) {
            S3Parquet.write(List.of(new Row("a", "2024-01-01"), new Row("b", "2024-01-01"))).partitionBy("dt").idempotencyKey("load:1")
                    .filenamePrefix(prefix).s3(TestLake.memory().client()).to(table);
        }
        assertThat(TestLake.keys(bucket, "t/")).singleElement().satisfies(k -> assertThat(k).startsWith("t/dt=2024-01-01/second-part-"));
        assertThat(TestLake.query(bucket, "t/", "SELECT id FROM t ORDER BY id")).containsExactly(List.of("a"), List.of("b"));
    }

    @Test
    void aPrefixThatHidesTheFilesOrMakesAFolderIsRefused() {
        WriteBuilder w = S3Parquet.write(List.of(new Row("a", "2024-01-01")));
        assertThatThrownBy(() -> w.filenamePrefix("_tmp")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filenamePrefix '_tmp' starts with '_', which makes Hive, Spark, Athena and Trino skip the files as hidden: "
                        + "start it with a letter or digit");
        assertThatThrownBy(() -> w.filenamePrefix(".x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filenamePrefix '.x' starts with '.', which makes Hive, Spark, Athena and Trino skip the files as hidden: "
                        + "start it with a letter or digit");
        assertThatThrownBy(() -> w.filenamePrefix("a/b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filenamePrefix 'a/b' holds '/', which would make a folder: use a prefix without it");
        assertThatThrownBy(() -> w.filenamePrefix("a\tb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filenamePrefix 'a?b' holds the control character U+0009: use a prefix without it");
    }
}
