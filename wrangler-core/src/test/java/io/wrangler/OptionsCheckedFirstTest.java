package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every option of every operation is checked before anything is changed, whether or not the operation then has anything
 * to do: a typo is refused the first time it runs, not on the day there is work.
 */
class OptionsCheckedFirstTest {
    record Event(long id, long ord, String region, List<String> tags) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    /** One file per partition: nothing to compact. */
    private void oneFilePerPartition() {
        S3Parquet.write(List.of(new Event(1, 1, "EU", List.of("a")), new Event(2, 1, "US", List.of()))).partitionBy("region").s3(s3).to(table);
    }

    @Test
    void dedupByAnUnknownKeyIsRefusedWhenThereIsNothingToCompact() {
        oneFilePerPartition();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(s3).dedupBy(List.of("nope"), "ord").run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot compact " + table + " (step: validate): dedupBy names the column 'nope', which the table does not have; "
                        + "its columns are [id, ord, tags, region]. Name columns of the table in dedupBy; nothing was changed.");
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet());
    }

    @Test
    void dedupByAnUnknownOrderIsRefusedWhenThereIsNothingToCompact() {
        oneFilePerPartition();
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(s3).dedupBy(List.of("id"), "nope").run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot compact " + table + " (step: validate): dedupBy names the column 'nope', which the table does not have; "
                        + "its columns are [id, ord, tags, region]. Name columns of the table in dedupBy; nothing was changed.");
    }

    @Test
    void dedupOrderedByANestedColumnIsRefusedWhenThereIsNothingToCompact() {
        oneFilePerPartition();
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(s3).dedupBy(List.of("id"), "tags").run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageStartingWith("Cannot compact " + table + " (step: validate): dedupBy orders by the column 'tags' of the type ");
    }

    @Test
    void aValidDedupWithNothingToCompactChangesNothing() {
        oneFilePerPartition();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        CompactionResult r = S3Parquet.compact(table).s3(s3).dedupBy(List.of("ID", "region"), "ord").run();
        assertThat(r.partitions()).isEmpty();
        assertThat(r.write()).isNull();
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet());
    }

    @Test
    void aFilterOnAnUnknownColumnIsRefusedWhenThereIsNothingToCompact() {
        oneFilePerPartition();
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(s3).filter(PartitionFilter.in("nope", "x")).run())
                .isInstanceOf(InvalidReadException.class);
    }

    @Test
    void aReadOfAnUnknownColumnIsRefusedWhenTheFilterLeavesNoFile() {
        oneFilePerPartition();
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).filter(PartitionFilter.in("region", "ASIA")).columns("nope").open().close())
                .isInstanceOf(ReadException.class)
                .hasMessageContaining("there is no column 'nope'");
    }

    @Test
    void aReadOfAKnownColumnWhenTheFilterLeavesNoFileIsEmpty() throws Exception {
        oneFilePerPartition();
        assertThat(S3Parquet.read(table).s3(s3).filter(PartitionFilter.in("region", "ASIA")).columns("id").count()).isZero();
    }

    @Test
    void anEmptyWriteIsRefusedItsUnknownColumnsAsAWriteWithRows() {
        oneFilePerPartition();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        List<Function<WriteBuilder, WriteBuilder>> bad = List.of(b -> b.partitionBy("nope"),
                b -> b.partitionBy("region").bucketBy(List.of("nope"), 2), b -> b.partitionBy("region").dtype(Map.of("nope", "bigint")));
        try (BufferAllocator allocator = new RootAllocator();
             VectorSchemaRoot empty = VectorSchemaRoot.create(new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)),
                     Field.nullable("region", ArrowType.Utf8.INSTANCE))), allocator)) {
            for (Function<WriteBuilder, WriteBuilder> option : bad) {
                for (WriteMode mode : List.of(WriteMode.APPEND, WriteMode.OVERWRITE_PARTITIONS)) {
                    assertThatThrownBy(() -> option.apply(S3Parquet.write(empty)).mode(mode).s3(s3).to(table))
                            .isInstanceOf(InvalidWriteException.class).hasMessageContaining("'nope'");
                }
            }
        }
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet());
    }
}
