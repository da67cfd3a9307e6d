package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.MemoryS3;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * String partition values on the write path (a batch of one value coded at once) and on the read path (the value repeated
 * into every row, its end offsets written in place): partitions of one row and of hundreds, values of one byte to two
 * hundred, two-byte characters, values that differ only in their last byte, rows of one partition in one write batch
 * and of several alternating; read back in batches of 37 rows and of 65,536, and with DuckDB.
 */
class PartitionFillReadBackTest {
    record Row(long id, String p) {
    }

    private final MemoryS3 mem = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = mem.client();

    @Test
    void stringPartitionValuesOfEveryLengthAreEveryRowsOwnOnTheWayInAndOut() {
        String longValue = "x".repeat(199);
        String[] values = {"a", "b", "2026-12-07", "2026-12-08", "caf\u00e9-\u00e9t\u00e9", "caf\u00e9-\u00e9t\u00e8", longValue + "1",
            longValue + "2", "z".repeat(64)};
        int[] sizes = {1, 2, 400, 1, 37, 38, 5, 75, 7};
        List<Row> all = new ArrayList<>();
        long id = 0;
        for (int v = 0; v < values.length; v++) {
            List<Row> one = new ArrayList<>();
            for (int i = 0; i < sizes[v]; i++) {
                one.add(new Row(id++, values[v]));
            }
            // a write of one partition (its batch all one value), and for the first three a second write whose rows alternate
            S3Parquet.write(one).partitionBy("p").mode(WriteMode.APPEND).s3(s3).to(table);
            all.addAll(one);
        }
        List<Row> mixed = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            mixed.add(new Row(id++, values[i % 3 == 0 ? 6 : i % 3 == 1 ? 7 : 2]));
        }
        S3Parquet.write(mixed).partitionBy("p").mode(WriteMode.APPEND).s3(s3).to(table);
        all.addAll(mixed);
        all.sort(Comparator.comparingLong(Row::id));
        for (int batch : new int[] {37, 65_536}) {
            List<Row> read = new ArrayList<>(S3Parquet.read(table).s3(s3).batchRows(batch).toList(Row.class));
            read.sort(Comparator.comparingLong(Row::id));
            assertThat(read).as("read in batches of %d", batch).containsExactlyElementsOf(all);
        }
        List<List<Object>> duck = TestLake.query(bucket, "t/", "SELECT id, p FROM t ORDER BY id");
        assertThat(duck).hasSize(all.size());
        for (int i = 0; i < all.size(); i++) {
            assertThat(duck.get(i)).as("DuckDB row %d", i).containsExactly(all.get(i).id(), all.get(i).p());
        }
    }
}
