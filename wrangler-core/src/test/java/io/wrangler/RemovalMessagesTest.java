package io.wrangler;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The messages of a delete of rows and of a drop of partitions name the operation the user called, not the compaction
 * whose path they share: a file marked as recording its rows' keys whose footer does not record them stops either one
 * before anything changes, with a message that says which.
 */
class RemovalMessagesTest {
    record Event(String user_id, long amount, String dt) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    /** The table with one plain file in dt=2024-01-01 and a copy of it named as a marked file: its footer has no key runs. */
    private String marked() {
        S3Parquet.write(List.of(new Event("u-1", 1, "2024-01-01"), new Event("u-2", 2, "2024-01-01"))).partitionBy("dt")
                .mode(WriteMode.APPEND).s3(s3).to(table);
        String plain = TestLake.keys(bucket, "t/dt=2024-01-01/").stream().filter(k -> k.endsWith(".parquet")).findFirst().orElseThrow();
        String marked = plain.replace(".snappy.parquet", "_k.snappy.parquet");
        TestLake.memory().put(bucket, marked, TestLake.memory().get(bucket, plain));
        return marked;
    }

    @Test
    void aDeleteOfRowsSaysItIsADelete() {
        String marked = marked();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user_id", List.of("u-1")).s3(s3).run())
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot delete rows of " + table + " (step: validate): s3://" + bucket + "/" + marked + " is marked as "
                        + "recording its rows' keys but its footer has no wrangler.keys, so whose rows it holds is not known. Nothing was "
                        + "changed; leave its partition out (filter) and report it.");
        org.assertj.core.api.Assertions.assertThat(TestLake.snapshot(bucket, "")).containsOnlyKeys(before.keySet());
    }

    @Test
    void aDropOfPartitionsSaysItIsADrop() {
        String marked = marked();
        assertThatThrownBy(() -> S3Parquet.dropPartitions(table).filter(PartitionFilter.in("dt", "2024-01-01")).s3(s3).run())
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot drop partitions of " + table + " (step: validate): s3://" + bucket + "/" + marked + " is marked as "
                        + "recording its rows' keys but its footer has no wrangler.keys, so whose rows it holds is not known. Nothing was "
                        + "changed; leave its partition out (filter) and report it.");
    }
}
