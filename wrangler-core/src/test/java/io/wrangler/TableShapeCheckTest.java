package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Without a catalog a write checks itself against the table's own files (the folders and the footer of its first data
 * file) before any change: other partition columns, or a column type that does not widen to the table's, are refused
 * with the column, the table and the fix; a lossless widening is applied. No write leaves a table a read refuses.
 */
class TableShapeCheckTest {
    record Price(long id, BigDecimal price, String dt) {
    }

    record DeclaredPrice(long id, @Decimal(precision = 38, scale = 2) BigDecimal price, String dt) {
    }

    record Order(long id, String dt, String country) {
    }

    record Narrow(int id, String dt) {
    }

    record Wide(long id, String dt) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    private String firstFile() {
        return "s3://" + bucket + "/" + TestLake.keys(bucket, "t/").stream().filter(k -> !k.startsWith("t/_")).sorted().findFirst().orElseThrow();
    }

    @Test
    void aRecordAppendOfAnotherDecimalScaleIsRefusedNamingDecimalAndTheTableStaysReadable() {
        S3Parquet.write(List.of(new Price(1, new BigDecimal("1.25"), "d"))).partitionBy("dt").s3(s3).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");

        assertThatThrownBy(() -> S3Parquet.write(List.of(new Price(2, new BigDecimal("3.5"), "d"))).partitionBy("dt").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 'price' is decimal(38,2) in the table's files ("
                        + firstFile() + ") but decimal(38,1) in this write, which does not widen to decimal(38,2) without losing values. "
                        + "Cast it to decimal(38,2) before writing (for a record's BigDecimal component: annotate it @Decimal(precision = 38, "
                        + "scale = 2)), or OVERWRITE the table to redefine it.");
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet());

        // the fix the message names
        S3Parquet.write(List.of(new DeclaredPrice(2, new BigDecimal("3.5"), "d"))).partitionBy("dt").s3(s3).to(table);
        assertThat(S3Parquet.read(table).s3(s3).toList(Price.class)).containsExactlyInAnyOrder(new Price(1, new BigDecimal("1.25"), "d"),
                new Price(2, new BigDecimal("3.50"), "d"));
        assertThat(TestLake.query(bucket, "t/", "SELECT id, CAST(price AS VARCHAR) FROM t ORDER BY id"))
                .containsExactly(List.of(1L, "1.25"), List.of(2L, "3.50"));
    }

    @Test
    void aPlanIsRefusedAsTheWriteWould() {
        S3Parquet.write(List.of(new Price(1, new BigDecimal("1.25"), "d"))).partitionBy("dt").s3(s3).to(table);
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Price(2, new BigDecimal("2.125"), "d"))).partitionBy("dt").s3(s3).plan(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageContaining("the column 'price' is decimal(38,2) in the table's files");
    }

    @Test
    void anAppendWithASubsetOfThePartitionColumnsIsRefusedBeforeAnyChange() {
        S3Parquet.write(List.of(new Order(1, "2024-01-15", "DE"))).partitionBy("dt", "country").s3(s3).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        for (WriteMode mode : List.of(WriteMode.APPEND, WriteMode.OVERWRITE_PARTITIONS)) {
            assertThatThrownBy(() -> S3Parquet.write(List.of(new Order(2, "2024-01-15", "FR"))).partitionBy("dt").mode(mode).s3(s3).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): it partitions by [dt] but the table's files lie in folders of "
                            + "[dt, country] (such as " + firstFile() + "), and a read refuses a table whose files lie in folders of "
                            + "different columns. Write with partitionBy(\"dt\", \"country\"), or OVERWRITE the table to redefine it; "
                            + "nothing was written.");
        }
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Order(2, "2024-01-15", "FR"))).partitionBy("country", "dt").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class).hasMessageContaining("it partitions by [country, dt] but");
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Order(2, "2024-01-15", "FR"))).s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class).hasMessageContaining("it partitions by [] but");
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet());
        // OVERWRITE redefines the table
        S3Parquet.write(List.of(new Order(3, "2024-01-16", "FR"))).partitionBy("dt").mode(WriteMode.OVERWRITE).s3(s3).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, CAST(dt AS VARCHAR), country FROM t")).containsExactly(List.of(3L, "2024-01-16", "FR"));
    }

    @Test
    void aNarrowerIntegerIsWidenedToTheTablesTypeAndReadsBack() {
        S3Parquet.write(List.of(new Wide(1L << 40, "d"))).partitionBy("dt").s3(s3).to(table);
        S3Parquet.write(List.of(new Narrow(7, "d"))).partitionBy("dt").s3(s3).to(table);
        assertThat(S3Parquet.read(table).s3(s3).toList(Wide.class)).containsExactlyInAnyOrder(new Wide(1L << 40, "d"), new Wide(7, "d"));
        assertThat(TestLake.query(bucket, "t/", "SELECT typeof(id), id FROM t ORDER BY id")).containsExactly(List.of("BIGINT", 7L),
                List.of("BIGINT", 1L << 40));
    }

    @Test
    void aWiderIntegerIntoANarrowerColumnIsRefused() {
        S3Parquet.write(List.of(new Narrow(7, "d"))).partitionBy("dt").s3(s3).to(table);
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Wide(8, "d"))).partitionBy("dt").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 'id' is int in the table's files (" + firstFile()
                        + ") but bigint in this write, which does not widen to int without losing values. Cast it to int before writing, "
                        + "or OVERWRITE the table to redefine it.");
    }

    record AtInstant(long id, java.time.Instant at, String dt) {
    }

    record AtLocal(long id, java.time.LocalDateTime at, String dt) {
    }

    @Test
    void aTimestampWithoutZoneIntoAUtcColumnIsRefused() {
        S3Parquet.write(List.of(new AtInstant(1, java.time.Instant.parse("2024-01-15T10:00:00Z"), "d"))).partitionBy("dt").s3(s3).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        assertThatThrownBy(() -> S3Parquet.write(List.of(new AtLocal(2, java.time.LocalDateTime.parse("2024-01-15T11:00:00"), "d")))
                .partitionBy("dt").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 'at' is timestamp(MICROSECOND, UTC) in the table's files ("
                        + firstFile() + ") but would be timestamp(MICROSECOND) in this write's files, and a read refuses a column of two types. "
                        + "Write it as the table has it (a record's Instant is a UTC timestamp in microseconds, a LocalDateTime one without "
                        + "zone), or OVERWRITE the table to redefine it; nothing was written.");
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet());
        S3Parquet.write(List.of(new AtInstant(2, java.time.Instant.parse("2024-01-15T11:00:00Z"), "d"))).partitionBy("dt").s3(s3).to(table);
        assertThat(S3Parquet.read(table).s3(s3).toList(AtInstant.class)).hasSize(2);
    }
}
