package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An adversary of the new operations (merge, delete rows, drop partitions): each test tries to make one of them lose,
 * double or bring back a row, and asserts the table DuckDB reads from the objects afterwards.
 */
class NewOperationsAdversaryTest {
    record Row(long id, String user_id, double score, String region) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    private void append(List<Row> rows) {
        S3Parquet.write(rows).partitionBy("region").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    private List<List<Object>> rows(String where) {
        return TestLake.query(bucket, "t/", "SELECT id, user_id, score, region FROM t WHERE " + where + " ORDER BY ALL");
    }

    @Test
    void aMergeIntoTheDefaultPartitionReplacesTheKeyThereNotBesideIt() {
        append(List.of(new Row(1, "a", 1, null), new Row(2, "a", 1, null), new Row(3, "a", 1, "eu")));
        MergeResult r = S3Parquet.merge(List.of(new Row(1, "b", 2, null), new Row(3, "b", 2, "eu"))).on("id").s3(s3).to(table);
        assertThat(r.rowsUpdated()).isEqualTo(2);
        assertThat(rows("true")).containsExactly(List.of(1L, "b", 2.0, "__HIVE_DEFAULT_PARTITION__"), List.of(2L, "a", 1.0, "__HIVE_DEFAULT_PARTITION__"),
                List.of(3L, "b", 2.0, "eu"));
    }

    @Test
    void aMergeOnAFloatingPointKeyMatchesMinusZeroAsZero() {
        append(List.of(new Row(1, "a", 0.0, "eu")));
        MergeResult r = S3Parquet.merge(List.of(new Row(2, "b", -0.0, "eu"))).on("score").s3(s3).to(table);
        // SQL (and DuckDB) compare -0.0 = 0.0: the key is held, its row replaced
        assertThat(rows("true")).extracting(x -> x.subList(0, 2)).containsExactly(List.of(2L, "b"));
        assertThat(r.rowsUpdated()).isEqualTo(1);
    }

    @Test
    void aMergeOnAFloatingPointKeyMatchesNaN() {
        append(List.of(new Row(1, "a", Double.NaN, "eu")));
        S3Parquet.merge(List.of(new Row(2, "b", Double.NaN, "eu"))).on("score").s3(s3).to(table);
        assertThat(rows("true")).hasSize(1);
    }

    @Test
    void aDeleteByKeysGivenAsIntsOfABigintColumnDeletesThem() {
        append(List.of(new Row(1, "a", 1, "eu"), new Row(2, "a", 1, "eu")));
        DeleteResult r = S3Parquet.deleteRows(table).keys("id", List.of(1)).s3(s3).run();
        assertThat(r.rowsDeleted()).isEqualTo(1);
        assertThat(rows("true")).containsExactly(List.of(2L, "a", 1.0, "eu"));
    }

    @Test
    void aDropOfAPartitionWhoseValueNeedsEscapingDropsItAndNothingElse() {
        append(List.of(new Row(1, "a", 1, "a/b=c%d é"), new Row(2, "a", 1, "a"), new Row(3, "a", 1, "b")));
        DropResult r = S3Parquet.dropPartitions(table).filter(PartitionFilter.in("region", "a/b=c%d é")).s3(s3).run();
        assertThat(r.applied()).isTrue();
        assertThat(rows("true")).containsExactly(List.of(2L, "a", 1.0, "a"), List.of(3L, "a", 1.0, "b"));
    }

    @Test
    void aMergeIntoAPartitionWhoseValueNeedsEscapingReplacesTheKeyThere() {
        append(List.of(new Row(1, "a", 1, "a/b=c%d é"), new Row(2, "a", 1, "a/b=c%d é")));
        S3Parquet.merge(List.of(new Row(1, "b", 2, "a/b=c%d é"))).on("id").s3(s3).to(table);
        assertThat(rows("true")).containsExactly(List.of(1L, "b", 2.0, "a/b=c%d é"), List.of(2L, "a", 1.0, "a/b=c%d é"));
    }

    @Test
    void aDeleteByKeysWithALongStringKeyDeletesIt() {
        String longUser = "u".repeat(5000);
        append(List.of(new Row(1, longUser, 1, "eu"), new Row(2, "a", 1, "eu")));
        DeleteResult r = S3Parquet.deleteRows(table).keys("user_id", List.of(longUser)).s3(s3).run();
        assertThat(r.rowsDeleted()).isEqualTo(1);
        assertThat(rows("true")).containsExactly(List.of(2L, "a", 1.0, "eu"));
    }

    @Test
    void aMergeOnALongStringKeyReplacesIt() {
        String longUser = "u".repeat(5000);
        append(List.of(new Row(1, longUser + "x", 1, "eu"), new Row(2, "a", 1, "eu")));
        append(List.of(new Row(3, longUser, 1, "eu")));
        S3Parquet.merge(List.of(new Row(4, longUser, 2, "eu"))).on("user_id").s3(s3).to(table);
        assertThat(rows("true")).extracting(r -> r.get(0)).containsExactly(1L, 2L, 4L);
    }
    private CommitMark mark() {
        ReadBuilder r = S3Parquet.read(table).s3(s3).withMark();
        r.count();
        return r.lastMark();
    }

    /** After a merge that updates, a delete and a drop, an incremental read from before each is refused naming the partition. */
    @Test
    void anIncrementalReadAcrossAMergeADeleteOrADropIsRefusedNeverASilentlyWrongDelta() {
        append(List.of(new Row(1, "a", 1, "eu"), new Row(2, "a", 1, "us")));
        CommitMark m0 = mark();
        S3Parquet.merge(List.of(new Row(1, "b", 2, "eu"))).on("id").s3(s3).to(table);
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).committedAfter(m0).count())
                .isInstanceOfSatisfying(ReplacedSinceMarkException.class, e -> assertThat(e.partitions()).containsExactly("region=eu/"));
        CommitMark m1 = mark();
        S3Parquet.deleteRows(table).keys("id", List.of(2L)).s3(s3).run();
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).committedAfter(m1).count())
                .isInstanceOfSatisfying(ReplacedSinceMarkException.class, e -> assertThat(e.partitions()).containsExactly("region=us/"));
        append(List.of(new Row(3, "a", 1, "us")));
        CommitMark m2 = mark();
        S3Parquet.dropPartitions(table).filter(PartitionFilter.in("region", "us")).s3(s3).run();
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).committedAfter(m2).count())
                .isInstanceOfSatisfying(ReplacedSinceMarkException.class, e -> assertThat(e.partitions()).containsExactly("region=us/"));
        // an insert-only merge is an append: its delta is its rows
        CommitMark m3 = mark();
        S3Parquet.merge(List.of(new Row(9, "n", 1, "eu"))).on("id").s3(s3).to(table);
        assertThat(S3Parquet.read(table).s3(s3).committedAfter(m3).count()).isEqualTo(1);
    }
    record Wider(long id, String user_id, double score, String region, String note) {
    }

    @Test
    void aDeleteOnAColumnOlderFilesLackTreatsTheirRowsAsNull() {
        append(List.of(new Row(1, "a", 1, "eu")));
        S3Parquet.write(List.of(new Wider(2, "a", 1, "eu", "x"), new Wider(3, "a", 1, "eu", null))).partitionBy("region")
                .mode(WriteMode.APPEND).s3(s3).to(table);
        DeleteResult r = S3Parquet.deleteRows(table).where(RowFilter.isNull("note")).s3(s3).run();
        assertThat(r.rowsDeleted()).isEqualTo(2);
        assertThat(rows("true")).containsExactly(List.of(2L, "a", 1.0, "eu"));
    }

    @Test
    void aDeleteByKeysOfAPartitionColumnDeletesThoseRows() {
        append(List.of(new Row(1, "a", 1, "eu"), new Row(2, "a", 1, "us")));
        DeleteResult r = S3Parquet.deleteRows(table).keys("region", List.of("eu")).s3(s3).run();
        assertThat(r.rowsDeleted()).isEqualTo(1);
        assertThat(rows("true")).containsExactly(List.of(2L, "a", 1.0, "us"));
    }

    @Test
    void aDeleteByKeysGivenAsStringsOfABigintColumnIsRefusedNotASilentNoOp() {
        append(List.of(new Row(1, "a", 1, "eu")));
        DeleteResult r;
        try {
            r = S3Parquet.deleteRows(table).keys("id", List.of("1")).s3(s3).run();
        } catch (WranglerException e) {
            assertThat(e).isInstanceOf(InvalidWriteException.class);
            return;
        }
        assertThat(r.rowsDeleted()).as("an erasure of id '1' that matched nothing and said it was done").isEqualTo(1);
    }
    record Small(int id, java.time.LocalDate day, java.math.BigDecimal amount, short tiny, String region) {
    }

    private static List<Small> smalls(String payload) {
        List<Small> out = new java.util.ArrayList<>();
        for (int i = 1; i <= 99; i += 2) {
            out.add(new Small(i, java.time.LocalDate.of(2024, 1, 1).plusDays(i), new java.math.BigDecimal(i + ".25"), (short) i, payload));
        }
        return out;
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"id", "day", "amount", "tiny"})
    void aMergeAndADeleteOnAKeyWithBloomFiltersFindTheKeyInANarrowColumn(String key) {
        S3Parquet.write(smalls("eu")).partitionBy("region").bloomFilters(key).mode(WriteMode.APPEND).s3(s3).to(table);
        Small k = smalls("eu").get(7);
        S3Parquet.merge(List.of(k)).on(key).s3(s3).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t")).containsExactly(List.of(50L));
        Object value = switch (key) {
            case "id" -> k.id();
            case "day" -> k.day();
            case "amount" -> k.amount();
            default -> k.tiny();
        };
        DeleteResult r = S3Parquet.deleteRows(table).keys(key, List.of(value)).s3(s3).run();
        assertThat(r.rowsDeleted()).isEqualTo(1);
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t")).containsExactly(List.of(49L));
    }
    @SuppressWarnings("checkstyle:RecordComponentName")
    record Upper(long ID, String USER_ID, double SCORE, String REGION) {
    }

    @Test
    void aMergeWhoseInputSpellsTheColumnsInAnotherCaseReplacesTheKeyInTheTablesColumns() {
        append(List.of(new Row(1, "a", 1, "eu"), new Row(2, "a", 1, "eu")));
        MergeResult r = S3Parquet.merge(List.of(new Upper(1, "b", 2, "eu"))).on("ID").s3(s3).to(table);
        assertThat(r.rowsUpdated()).isEqualTo(1);
        assertThat(rows("true")).containsExactly(List.of(1L, "b", 2.0, "eu"), List.of(2L, "a", 1.0, "eu"));
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM (DESCRIBE t)")).containsExactly(List.of(4L));
    }
}
