package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Dedup's tie rule ("the later commit wins") after a delete of rows, a merge, or a compaction rewrote a file: the rows a
 * rewrite moved into a new object keep the commit order they had, so a tie between one of them and a row committed after
 * them goes to the later row, not to the newer object. Each case: write A (id 1 and 2), then B (id 1, the same value),
 * so that B's row of id 1 is the one {@code dedupBy(id, value)} keeps; then rewrite A, then dedup. DuckDB, reading the
 * same objects, sees the table's columns and rows unchanged by what the rewrite records (footer metadata only).
 */
class DedupAfterRewriteTest {
    record Row(long id, long value, String src, String dt) {
    }

    private static final String DAY = "2024-01-01";
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    private void append(Row... rows) {
        S3Parquet.write(List.of(rows)).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    /** A: ids 1 and 2; then B: id 1 with A's value. */
    private void aThenB() {
        append(new Row(1, 5, "a", DAY), new Row(2, 0, "a", DAY));
        append(new Row(1, 5, "b", DAY));
    }

    private CompactionResult dedup() {
        return S3Parquet.compact(table).dedupBy(List.of("id"), "value").s3(s3).run();
    }

    private List<List<Object>> rows() {
        return TestLake.query(bucket, "t/", "SELECT id, value, src, CAST(dt AS VARCHAR) FROM t ORDER BY ALL");
    }

    private List<List<Object>> columns() {
        return TestLake.query(bucket, "t/", "SELECT column_name FROM (DESCRIBE t) ORDER BY ALL");
    }

    @Test
    void aDeleteKeepsTheCommitOrderOfTheRowsItRewrites() {
        aThenB();
        List<List<Object>> columns = columns();
        DeleteResult d = S3Parquet.deleteRows(table).keys("id", List.of(2L)).s3(s3).run();
        assertThat(d.filesRewritten()).hasSize(1); // A, without id 2: a new object, newer than B
        assertThat(columns()).isEqualTo(columns);
        assertThat(rows()).containsExactly(List.of(1L, 5L, "a", DAY), List.of(1L, 5L, "b", DAY));

        assertThat(dedup().duplicatesDropped()).isEqualTo(1);
        assertThat(rows()).containsExactly(List.of(1L, 5L, "b", DAY));
    }

    @Test
    void aMergeKeepsTheCommitOrderOfTheRowsItKeepsAndItsOwnRowsAreNewest() {
        aThenB();
        MergeResult m = S3Parquet.merge(List.of(new Row(2, 7, "m", DAY))).on("id").partitionBy("dt").s3(s3).to(table);
        assertThat(m.rowsUpdated()).isEqualTo(1);
        assertThat(m.filesRewritten()).hasSize(1); // A, its id 1 kept beside the merge's id 2
        assertThat(rows()).containsExactly(List.of(1L, 5L, "a", DAY), List.of(1L, 5L, "b", DAY), List.of(2L, 7L, "m", DAY));
        append(new Row(2, 7, "c", DAY)); // committed after the merge: wins the tie with the merge's row

        dedup();
        assertThat(rows()).containsExactly(List.of(1L, 5L, "b", DAY), List.of(2L, 7L, "c", DAY));
    }

    @Test
    void aCompactionCarriesTheCommitOrderOfRewrittenRowsToTheNextDedup() {
        aThenB();
        S3Parquet.deleteRows(table).keys("id", List.of(2L)).s3(s3).run();
        // A' (rows of A, a newer object) and B compacted without dedup: the new file holds both rows of id 1, which a
        // later dedup must still tell apart by their commits, not by where they stand in the file
        assertThat(S3Parquet.compact(table).s3(s3).run().filesBefore()).isEqualTo(2);
        append(new Row(9, 0, "d", DAY));

        dedup();
        assertThat(rows()).containsExactly(List.of(1L, 5L, "b", DAY), List.of(9L, 0L, "d", DAY));
    }
}
