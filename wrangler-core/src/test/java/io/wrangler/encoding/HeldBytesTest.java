package io.wrangler.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Compression;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * An open file's held bytes, which keep many open files within the write's memory budget, count what its column
 * writers hold on the heap, not only the encoded estimate that sets page and row group boundaries. Interleaved input
 * (a Spark task's batches spread over 200 partitions) reaches each file a few hundred rows at a time: a first batch of
 * fewer than 256 rows leaves dictionaries on, and until a column's first page decides for or against its dictionary the
 * values and the hash table are on the heap where the estimate counts 4 bytes a row; a page with a null keeps its
 * definition levels as an int a row, which the estimate does not count at all.
 */
class HeldBytesTest {
    @Test
    void heldBytesCountDictionariesAndLevelsOfAnOpenFirstPage() throws Exception {
        List<Field> fields = List.of(Field.nullable("id", new ArrowType.Int(64, true)), Field.nullable("s", ArrowType.Utf8.INSTANCE));
        int rows = 10_000; // under the first page's 20,000 rows: both dictionaries still open
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator)) {
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector s = (VarCharVector) root.getVector("s");
            for (int i = 0; i < rows; i++) {
                if (i % 50 == 7) {
                    id.setNull(i);
                    s.setNull(i);
                } else {
                    id.setSafe(i, i * 2_654_435_761L);
                    s.setSafe(i, String.format("u%07d", i).getBytes(StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(rows);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            FileEncoder.Settings settings = new FileEncoder.Settings(fields, Compression.SNAPPY, false, false, 128L << 20, 1 << 20);
            try (FileEncoder e = FileEncoder.open(settings, out)) {
                for (int from = 0; from < rows; from += 100) { // a hundred rows at a time, as interleaved input comes
                    e.write(root.getFieldVectors(), from, from + 100);
                }
                long estimate = e.size() - out.size();
                long held = e.heldBytes(out.size());
                // the estimate: 4 bytes a dictionary id and row for each column, no page written yet
                assertThat(estimate).isBetween(7L * rows, 8L * rows + 1024);
                // held: the long dictionary (8-byte values, 4-byte slots at most half full: 16 bytes a value and more), the
                // string one (12 bytes a value as a dictionary page, a start, a hash, two slots: 28), the ids of the open
                // page (4 bytes a row) and the definition levels of both columns (4 bytes a row each)
                assertThat(held).isGreaterThanOrEqualTo((16L + 28 + 4 + 8) * rows);
                assertThat(held).isGreaterThan(5 * estimate);
            }
        }
    }
}
