package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.WriteSpec;
import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.GeneratedReader;
import io.wrangler.testkit.S3Fault;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Streams that interleave more partitions than can stay open are spilled to local disk by partition and encoded into
 * one file per partition; streams that visit partitions one after another are not. Every value is read back by DuckDB.
 */
class StreamingSpillTest {
    private static final int PARTITIONS = 40;
    private final String bucket = TestLake.bucket();
    private final String table = "s3://" + bucket + "/t/";

    @TempDir
    Path temp;

    /**
     * Rows {@code 0..rows-1} in batches; row i belongs to partition {@code partitionOf(i)}, shown as day {@code d<p/4>}
     * and region {@code r<p%4>}. Every fifth name is null; with {@code tags}, a list column makes the row-wise encoder run.
     */
    static GeneratedReader stream(BufferAllocator allocator, long rows, int batch, LongUnaryOperator partitionOf, boolean tags) {
        return new GeneratedReader(allocator, schema(tags), rows, batch, (root, first, n) -> {
            root.allocateNew();
            VarCharVector day = (VarCharVector) root.getVector("day");
            VarCharVector region = (VarCharVector) root.getVector("region");
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            DecimalVector amount = (DecimalVector) root.getVector("amount");
            UnionListWriter list = tags ? ((ListVector) root.getVector("tags")).getWriter() : null;
            for (int r = 0; r < n; r++) {
                long i = first + r;
                int p = (int) partitionOf.applyAsLong(i);
                day.setSafe(r, ("d" + p / 4).getBytes(StandardCharsets.UTF_8));
                region.setSafe(r, ("r" + p % 4).getBytes(StandardCharsets.UTF_8));
                id.setSafe(r, i);
                if (i % 5 != 0) {
                    name.setSafe(r, name(i).getBytes(StandardCharsets.UTF_8));
                }
                amount.setSafe(r, amount(i));
                if (list != null) {
                    list.setPosition(r);
                    list.startList();
                    for (int t = 0; t < i % 3; t++) {
                        byte[] b = ("t" + (i + t)).getBytes(StandardCharsets.UTF_8);
                        try (var buf = allocator.buffer(b.length)) {
                            buf.setBytes(0, b);
                            list.varChar().writeVarChar(0, b.length, buf);
                        }
                    }
                    list.endList();
                }
            }
            if (list != null) {
                list.setValueCount(n);
            }
            root.setRowCount(n);
        });
    }

    static String name(long i) {
        return "name-" + (i * 31 % 1009);
    }

    static BigDecimal amount(long i) {
        return BigDecimal.valueOf(i * 37 % 100_000, 2);
    }

    private static Schema schema(boolean tags) {
        List<Field> fields = new ArrayList<>(List.of(
                new Field("day", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("region", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("amount", FieldType.nullable(new ArrowType.Decimal(12, 2, 128)), null)));
        if (tags) {
            fields.add(new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))));
        }
        return new Schema(fields);
    }

    private static S3Parquet.Tuning tuning(int maxOpenFiles, long openBytes) {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(),
                maxOpenFiles, d.deleteBatch(), d.singleCopyLimit(), d.copyPartSize(), Tunings.longLease().engine().leaseTtl(), openBytes,
                java.time.Duration.ZERO));
    }

    private WriteResult write(long rows, int batch, LongUnaryOperator partitionOf, boolean tags, S3Parquet.Tuning tuning,
                              Path spill, S3Client client) {
        try (BufferAllocator a = new RootAllocator(); GeneratedReader stream = stream(a, rows, batch, partitionOf, tags)) {
            return S3Parquet.write(stream).partitionBy("day", "region").tuning(tuning).spillDirectory(spill).s3(client).to(table);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Every row as DuckDB reads it back, in id order: day, region, id, name, amount. */
    private List<List<Object>> readBack() {
        return TestLake.query(bucket, "t/", "SELECT day, region, id, name, amount FROM t ORDER BY id");
    }

    private static List<List<Object>> expected(long rows, LongUnaryOperator partitionOf) {
        List<List<Object>> out = new ArrayList<>();
        for (long i = 0; i < rows; i++) {
            int p = (int) partitionOf.applyAsLong(i);
            List<Object> row = new ArrayList<>();
            row.add("d" + p / 4);
            row.add("r" + p % 4);
            row.add(i);
            row.add(i % 5 == 0 ? null : name(i));
            row.add(amount(i));
            out.add(row);
        }
        return out;
    }

    private static List<Path> filesIn(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    @Test
    void anInterleavedStreamWithMorePartitionsThanOpenFilesGivesOneFilePerPartition() throws IOException {
        LongUnaryOperator interleaved = i -> i * 7 % PARTITIONS;
        Path spill = temp.resolve("spill");

        WriteResult r = write(20_000, 500, interleaved, false, tuning(8, Long.MAX_VALUE), spill, TestLake.s3().client());

        assertThat(r.rows()).isEqualTo(20_000);
        assertThat(r.partitions()).hasSize(PARTITIONS).allSatisfy(p -> {
            assertThat(p.files()).hasSize(1);
            assertThat(p.rows()).isEqualTo(500);
        });
        assertThat(readBack()).isEqualTo(expected(20_000, interleaved));
        assertThat(filesIn(spill)).as("the spill file is deleted when the write ends").isEmpty();
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aPartitionFinishedEarlyThatComesBackSwitchesToSpillingWithNestedColumns() throws IOException {
        LongUnaryOperator threeWays = i -> i % 3;
        Path spill = temp.resolve("spill");

        // openBytes of 1: every file is finished after the first batch; the second batch brings its partitions back.
        WriteResult r = write(3_000, 300, threeWays, true, tuning(256, 1), spill, TestLake.s3().client());

        assertThat(r.partitions()).hasSize(3).allSatisfy(p -> {
            assertThat(p.files()).as("the first batch's file, then one file of everything spilled").hasSize(2);
            assertThat(p.rows()).isEqualTo(1_000);
        });
        assertThat(readBack()).isEqualTo(expected(3_000, threeWays));
        List<List<Object>> tags = TestLake.query(bucket, "t/", "SELECT id, CAST(tags AS VARCHAR) FROM t WHERE id IN (0, 1, 2, 2998) ORDER BY id");
        assertThat(tags).containsExactly(List.of(0L, "[]"), List.of(1L, "[t1]"), List.of(2L, "[t2, t3]"), List.of(2998L, "[t2998]"));
        assertThat(filesIn(spill)).isEmpty();
    }

    @Test
    void aStreamThatVisitsPartitionsOneAfterAnotherIsNotSpilled() {
        LongUnaryOperator sorted = i -> i / 500;
        Path spill = temp.resolve("never-made");

        WriteResult r = write(20_000, 250, sorted, false, tuning(8, Long.MAX_VALUE), spill, TestLake.s3().client());

        assertThat(r.partitions()).hasSize(PARTITIONS).allSatisfy(p -> assertThat(p.files()).hasSize(1));
        assertThat(readBack()).isEqualTo(expected(20_000, sorted));
        assertThat(spill).as("no spill file was ever made").doesNotExist();
    }

    @Test
    void aFailedUploadOfASpilledPartitionLeavesTheTableUntouchedAndNoSpillBehind() throws IOException {
        LongUnaryOperator interleaved = i -> i * 7 % PARTITIONS;
        Path spill = temp.resolve("spill");
        write(2_000, 500, interleaved, false, tuning(8, Long.MAX_VALUE), spill, TestLake.s3().client());
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");

        try (FaultyS3 proxy = FaultyS3.start(TestLake.s3()); S3Client client = proxy.client(1, Duration.ofSeconds(1))) {
            // The lease takes two PUTs; the tenth PUT is a data file encoded from the spill.
            proxy.failNth("PutObject", 10, S3Fault.ACCESS_DENIED);
            assertThatThrownBy(() -> write(20_000, 500, interleaved, false, tuning(8, Long.MAX_VALUE), spill, client))
                    .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.step()).isEqualTo(WriteStep.STAGE));
        }

        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(filesIn(spill)).isEmpty();
        assertThat(readBack()).isEqualTo(expected(2_000, interleaved));
    }
}
