package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The default partition ({@code __HIVE_DEFAULT_PARTITION__}, where null and "" partition values go) is compacted like any
 * other: the write's rule against a partition column null in every row is for user input, not for the table's own rows.
 */
class DefaultPartitionCompactionTest {
    record Row(long id, String payload, String p) {
    }

    @Test
    void onlyTheDefaultPartitionWithTwoFilesIsCompactedAndKeepsItsValues() {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Row(1, "a1", "a"), new Row(2, "n1", null))).partitionBy("p").s3(TestLake.memory().client()).to(table);
        S3Parquet.write(List.of(new Row(3, "e1", ""), new Row(4, "b1", "b"))).partitionBy("p").s3(TestLake.memory().client()).to(table);
        assertThat(TestLake.keys(bucket, "t/p=__HIVE_DEFAULT_PARTITION__/")).hasSize(2);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).run();

        assertThat(r.partitions()).containsExactly(table + "p=__HIVE_DEFAULT_PARTITION__/");
        assertThat(r.filesBefore()).isEqualTo(2);
        assertThat(r.filesAfter()).isEqualTo(1);
        assertThat(TestLake.keys(bucket, "t/p=__HIVE_DEFAULT_PARTITION__/")).hasSize(1);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, payload, p FROM t ORDER BY id")).containsExactly(
                List.of(1L, "a1", "a"), List.of(2L, "n1", "__HIVE_DEFAULT_PARTITION__"), List.of(3L, "e1", "__HIVE_DEFAULT_PARTITION__"),
                List.of(4L, "b1", "b"));
        assertThat(S3Parquet.read(table).s3(TestLake.memory().client()).toList(Row.class)).containsExactlyInAnyOrder(
                new Row(1, "a1", "a"), new Row(2, "n1", null), new Row(3, "e1", null), new Row(4, "b1", "b"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
