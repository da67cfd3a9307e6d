package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * A data page whose header states a negative uncompressed size is refused with a ReadException before any codec runs.
 * The reader decompresses a chunk's data pages into one reused array, and snappy-java's native decoder writes what the
 * page's own preamble says whatever the array: a negative size that slipped through would let a crafted page write past
 * the array into the JVM's heap. The page here is the second of its chunk, so the reused array already exists.
 */
class CorruptPagesTest {
    @Test
    void aDataPageStatingANegativeSizeIsRefusedAndTheReaderStaysUsable() throws Exception {
        String table = corrupted(Compression.SNAPPY, size -> -size); // zigzag 2 * size - 1: as many varint bytes as 2 * size
        assertThatThrownBy(() -> sum(table)).isInstanceOf(ReadException.class).hasStackTraceContaining("negative size")
                .hasMessageContaining(table);
        // the JVM's heap is whole: the same table written again reads back
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(
                new org.apache.arrow.vector.types.pojo.Schema(List.of(org.apache.arrow.vector.types.pojo.Field.nullable("id",
                        new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)))), allocator)) {
            root.allocateNew();
            ((BigIntVector) root.getVector("id")).setSafe(0, 5);
            root.setRowCount(1);
            S3Parquet.write(root).mode(WriteMode.OVERWRITE).s3(TestLake.memory().client()).to(table);
        }
        assertThat(sum(table)).isEqualTo(5);
    }

    /** An uncompressed page stating more bytes than it takes is refused before an array of the stated size is made. */
    @Test
    void anUncompressedDataPageStatingMoreThanItHoldsIsRefused() throws Exception {
        String table = corrupted(Compression.NONE, size -> size + 1);
        assertThatThrownBy(() -> sum(table)).isInstanceOf(ReadException.class).hasStackTraceContaining("bytes uncompressed, more than its")
                .hasMessageContaining(table);
    }

    /**
     * A table of 20,000 rows in pages of 8 KiB, written with {@code compression}, whose first column's second data page
     * header states {@code size.apply(its size)} bytes uncompressed (the header keeping its length); returns the table.
     */
    private static String corrupted(Compression compression, java.util.function.IntUnaryOperator size) throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(
                new org.apache.arrow.vector.types.pojo.Schema(List.of(
                        org.apache.arrow.vector.types.pojo.Field.nullable("id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)),
                        org.apache.arrow.vector.types.pojo.Field.nullable("s", org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE))),
                allocator)) {
            int n = 20_000;
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector s = (VarCharVector) root.getVector("s");
            for (int i = 0; i < n; i++) {
                id.setSafe(i, i * 7919L);
                s.setSafe(i, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(n);
            SmallPages.write(root, 64L << 20, 8 * 1024, compression, TestLake.memory().client(), table);
        }
        String key = TestLake.keys(bucket, "t/").stream().filter(k -> k.endsWith(".parquet")).findFirst().orElseThrow();
        byte[] file = TestLake.snapshot(bucket, "t/").get(key);
        assertThat(sum(table)).isEqualTo(7919L * (20_000L * 19_999 / 2));
        // the first column's chunk starts after the magic "PAR1"
        int at = 4;
        int dataPages = 0;
        while (true) {
            ByteArrayInputStream in = new ByteArrayInputStream(file, at, file.length - at);
            PageHeader h = Util.readPageHeader(in);
            int headerLength = file.length - at - in.available();
            if (h.type != PageType.DATA_PAGE || ++dataPages < 2) {
                at += headerLength + h.getCompressed_page_size();
                continue;
            }
            h.setUncompressed_page_size(size.applyAsInt(h.getUncompressed_page_size()));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Util.writePageHeader(h, out);
            assertThat(out.size()).as("the patched header's length").isEqualTo(headerLength);
            System.arraycopy(out.toByteArray(), 0, file, at, headerLength);
            break;
        }
        TestLake.memory().client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(file));
        return table;
    }

    private static long sum(String table) throws Exception {
        long sum = 0;
        try (ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).columns("id").open()) {
            while (r.loadNextBatch()) {
                BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
                for (int i = 0; i < v.getValueCount(); i++) {
                    sum += v.get(i);
                }
            }
        }
        return sum;
    }
}
