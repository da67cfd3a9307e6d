package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.spi.DistributedWrite;
import io.wrangler.spi.WriteTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A distributed write (the engine SPI, as wrangler-spark uses it) without a catalog is checked against the table's own
 * files as a single-process write is: its partition columns, and its columns' types, which its tasks cannot widen.
 */
class SpiTableShapeTest {
    private static final Schema SPI_SCHEMA = new Schema(List.of(
            Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(64, true))));

    /** A table of (country, n int) rows, partitioned by {@code partitionBy}, written by a single-process write. */
    private static void table(String uri, String... partitionBy) {
        Schema schema = new Schema(List.of(Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(32, true))));
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            ((VarCharVector) root.getVector("country")).setSafe(0, "RU".getBytes(StandardCharsets.UTF_8));
            ((IntVector) root.getVector("n")).setSafe(0, 7);
            root.setRowCount(1);
            S3Parquet.write(root).s3(TestLake.s3().client()).partitionBy(partitionBy).to(uri);
        }
    }

    private static WriteTarget driver(String uri, String... partitionBy) {
        return new WriteTarget(uri, TestLake.s3().client(), WriteOptions.builder().mode(WriteMode.APPEND).partitionBy(partitionBy)
                .leaseWait(Duration.ofSeconds(30)).concurrency(4).build(), null, null);
    }

    @Test
    void aColumnOfAnotherTypeThanTheTablesFilesIsRefusedBeforeAnyChange() {
        String bucket = TestLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        table(uri, "country");
        List<String> before = TestLake.keys(bucket, "t/");
        assertThatThrownBy(() -> DistributedWrite.begin(driver(uri, "country"), SPI_SCHEMA).close())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageStartingWith("Cannot write " + uri + " (step: validate): the column 'n' is int in the table's files (s3://"
                        + bucket + "/t/country=RU/")
                .hasMessageEndingWith(" but bigint in this write, and a distributed write keeps its tasks' types as they are (a read "
                        + "refuses a column of two types). Cast the column to int before writing (in Spark: col(\"n\").cast(\"int\")), "
                        + "or OVERWRITE the table to redefine it; nothing was written.");
        assertThat(TestLake.keys(bucket, "t/")).isEqualTo(before);
        assertThat(TestLake.query(bucket, "t/", "SELECT country, n FROM t")).containsExactly(List.of("RU", 7));
    }

    @Test
    void otherPartitionColumnsThanTheTablesAreRefusedBeforeAnyChange() {
        String bucket = TestLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        table(uri);
        List<String> before = TestLake.keys(bucket, "t/");
        assertThatThrownBy(() -> DistributedWrite.begin(driver(uri, "country"), SPI_SCHEMA).close())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageContaining("(step: validate): it partitions by [country] but the table's files lie in folders of []");
        assertThat(TestLake.keys(bucket, "t/")).isEqualTo(before);
    }
}
