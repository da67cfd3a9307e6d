package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An append with an idempotency key adds its rows once however often it is rerun. */
class IdempotencyKeyTest {
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private WriteResult append(List<Orders.Order> rows, String key, long maxRows) {
        return S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey(key).maxRowsPerFile(maxRows)
                .s3(TestLake.memory().client()).to(table);
    }

    private List<List<Object>> perDay() {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), count(*), count(DISTINCT \"orderId\") FROM t GROUP BY ALL ORDER BY ALL");
    }

    @Test
    void rerunningAKeyedAppendDoesNotDoubleRows() {
        var day15 = Orders.orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU", "DE"), 5);
        var day16 = Orders.orders("b", List.of(LocalDate.of(2024, 1, 16)), List.of("RU"), 3);
        append(day15, "batch-1", 3);
        WriteResult first = append(day16, "batch-2", 100);
        WriteResult again = append(day16, "batch-2", 100);
        // The rerun splits its rows differently: files the first run wrote and this one does not are replaced.
        WriteResult fewerFiles = append(day15, "batch-1", 4);

        // Every run has a write id of its own (so that undoing one never deletes another's files); a rerun replaces every
        // file an earlier run with the same key left in its partitions.
        assertThat(fewerFiles.deletedFiles()).hasSize(4).allSatisfy(f -> assertThat(f).contains("-k-batch-1-"));
        assertThat(again.writeId()).isNotEqualTo(first.writeId()).startsWith("k-batch-2-");
        assertThat(again.deletedFiles()).containsExactlyInAnyOrderElementsOf(first.paths());
        assertThat(perDay()).containsExactly(List.of("2024-01-15", 10L, 10L), List.of("2024-01-16", 3L, 3L));
        assertThat(TestLake.keys(bucket, "t/dt=2024-01-15/")).hasSize(3);

        WriteResult other = append(Orders.orders("c", List.of(LocalDate.of(2024, 1, 16)), List.of("DE"), 2), "batch-3", 100);
        assertThat(other.deletedFiles()).isEmpty();
        assertThat(perDay()).containsExactly(List.of("2024-01-15", 10L, 10L), List.of("2024-01-16", 5L, 5L));
    }

    @Test
    void aKeyWhoseFileNamesWouldReadAsAnotherWriteIdIsRefusedBeforeAnyWrite() {
        // A key is free text; its letters, digits and '-' go into every file name, after "part-<p>-<n>-".
        String key = "part-00000-000-k-x";
        var day16 = Orders.orders("b", List.of(LocalDate.of(2024, 1, 16)), List.of("RU"), 3);
        // Its files' names would read as carrying another write id, so that a rerun would replace none of them: refused
        // before any I/O instead.
        for (int run = 0; run < 2; run++) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> append(day16, key, 100))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessageStartingWith("Cannot write " + table + " (step: validate): the file names of this write (part-00000-000-k-"
                            + "part-00000-000-k-x-")
                    .hasMessageEndingWith(") hold what reads as another write id, from its idempotencyKey. Use a key without 'part-' "
                            + "followed by digits. Nothing was written.");
        }
        assertThat(TestLake.keys(bucket, "t/")).isEmpty();
    }
}
