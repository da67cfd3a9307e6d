package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WriteModesTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private static final LocalDate D17 = LocalDate.of(2024, 1, 17);

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/marts/orders/";

    private WriteResult write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).s3(TestLake.memory().client()).to(table);
    }

    private List<List<Object>> totals() {
        return TestLake.query(bucket, "marts/orders/",
                "SELECT CAST(dt AS VARCHAR), country, count(*), CAST(sum(\"amountCents\") AS BIGINT), min(\"orderId\") FROM t GROUP BY ALL ORDER BY ALL");
    }

    @Test
    void appendAddsRowsNextToExistingOnes() {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2), WriteMode.APPEND);
        WriteResult second = write(Orders.orders("b", List.of(D15), List.of("RU"), 3), WriteMode.APPEND);

        assertThat(second.deletedFiles()).isEmpty();
        assertThat(second.partitions().get(0).replacedFiles()).isEmpty();
        assertThat(TestLake.query(bucket, "marts/orders/", "SELECT \"orderId\" FROM t ORDER BY 1")).extracting(r -> r.get(0))
                .containsExactly("a-2024-01-15-RU-0", "a-2024-01-15-RU-1", "b-2024-01-15-RU-0", "b-2024-01-15-RU-1", "b-2024-01-15-RU-2");
    }

    @Test
    void overwriteReplacesTheWholeTable() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 2), WriteMode.APPEND);
        TestLake.memory().put(bucket, "marts/orders/stray.txt", "not ours".getBytes());
        WriteResult r = write(Orders.orders("b", List.of(D17), List.of("US"), 1), WriteMode.OVERWRITE);

        assertThat(totals()).containsExactly(List.of("2024-01-17", "US", 1L, 100L, "b-2024-01-17-US-0"));
        assertThat(TestLake.keys(bucket, "marts/orders/")).hasSize(1).allMatch(k -> k.startsWith("marts/orders/dt=2024-01-17/country=US/part-"));
        assertThat(r.deletedFiles()).hasSize(5).contains("s3://" + bucket + "/marts/orders/stray.txt");
    }

    @Test
    void overwritePartitionsReplacesOnlyTheTouchedPartitionsAndLeavesTheOthersByteIdentical() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 2), WriteMode.APPEND);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "marts/orders/dt=2024-01-15/");
        Map<String, byte[]> de16 = TestLake.snapshot(bucket, "marts/orders/dt=2024-01-16/country=DE/");

        WriteResult r = write(Orders.orders("b", List.of(D16), List.of("RU"), 5), WriteMode.OVERWRITE_PARTITIONS);

        assertThat(TestLake.snapshot(bucket, "marts/orders/dt=2024-01-15/")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(TestLake.snapshot(bucket, "marts/orders/dt=2024-01-16/country=DE/")).containsExactlyInAnyOrderEntriesOf(de16);
        assertThat(totals()).containsExactly(
                List.of("2024-01-15", "DE", 2L, 700L, "a-2024-01-15-DE-0"),
                List.of("2024-01-15", "RU", 2L, 300L, "a-2024-01-15-RU-0"),
                List.of("2024-01-16", "DE", 2L, 1500L, "a-2024-01-16-DE-0"),
                List.of("2024-01-16", "RU", 5L, 1500L, "b-2024-01-16-RU-0"));
        assertThat(r.partitions()).singleElement().satisfies(p -> {
            assertThat(p.prefix()).isEqualTo(table + "dt=2024-01-16/country=RU/");
            assertThat(p.replacedFiles()).hasSize(1).allMatch(f -> f.startsWith(table + "dt=2024-01-16/country=RU/part-"));
            assertThat(p.rows()).isEqualTo(5);
        });
        assertThat(r.deletedFiles()).isEqualTo(r.partitions().get(0).replacedFiles());
    }

    @Test
    void aWriteWithOneRequestInFlightReplacesPartitionsAsWithMany() {
        // One request thread: every step that overlaps requests (listings while staging, staged copies removed while the old
        // files are deleted, uploads created beside the encoder) must still finish, in both commit methods.
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 2), WriteMode.APPEND);
        for (CommitMethod method : List.of(CommitMethod.STAGE_AND_COPY, CommitMethod.DEFERRED_UPLOADS)) {
            WriteResult r = S3Parquet.write(Orders.orders(method == CommitMethod.STAGE_AND_COPY ? "b" : "c", List.of(D16), List.of("RU", "DE"), 3))
                    .partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).commitMethod(method).concurrency(1)
                    .s3(TestLake.memory().client()).to(table);
            assertThat(r.deletedFiles()).hasSize(2);
        }
        assertThat(totals()).containsExactly(
                List.of("2024-01-15", "DE", 2L, 700L, "a-2024-01-15-DE-0"),
                List.of("2024-01-15", "RU", 2L, 300L, "a-2024-01-15-RU-0"),
                List.of("2024-01-16", "DE", 3L, 1500L, "c-2024-01-16-DE-0"),
                List.of("2024-01-16", "RU", 3L, 600L, "c-2024-01-16-RU-0"));
        assertThat(TestLake.keys(bucket, "marts/orders/_tmp/")).isEmpty();
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void concurrencyBelowOneIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> S3Parquet.write(Orders.orders("a", List.of(D15), List.of("RU"), 1))
                        .concurrency(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("concurrency must be at least 1, got 0");
    }

    @Test
    void rerunOfTheSameOverwriteLeavesIdenticalTotals() {
        List<Order> day = Orders.orders("a", List.of(D15, D16), List.of("RU", "DE", "US"), 4);
        write(day, WriteMode.OVERWRITE_PARTITIONS);
        List<List<Object>> first = totals();
        write(day, WriteMode.OVERWRITE_PARTITIONS);
        write(day, WriteMode.OVERWRITE_PARTITIONS);

        assertThat(totals()).isEqualTo(first).hasSize(6);
        assertThat(TestLake.keys(bucket, "marts/orders/")).hasSize(6);
    }

    @Test
    void overwritingCountryRNeverTouchesCountryRU() {
        write(Orders.orders("a", List.of(D15), List.of("R", "RU", "RUS"), 2), WriteMode.APPEND);
        Map<String, byte[]> ru = TestLake.snapshot(bucket, "marts/orders/dt=2024-01-15/country=RU/");
        Map<String, byte[]> rus = TestLake.snapshot(bucket, "marts/orders/dt=2024-01-15/country=RUS/");

        WriteResult r = write(Orders.orders("b", List.of(D15), List.of("R"), 1), WriteMode.OVERWRITE_PARTITIONS);
        // Two partitions of one day are listed with one listing of the day, filtered to their exact folders.
        WriteResult two = write(Orders.orders("c", List.of(D15), List.of("R", "X"), 1), WriteMode.OVERWRITE_PARTITIONS);

        assertThat(TestLake.snapshot(bucket, "marts/orders/dt=2024-01-15/country=RU/")).containsExactlyInAnyOrderEntriesOf(ru);
        assertThat(TestLake.snapshot(bucket, "marts/orders/dt=2024-01-15/country=RUS/")).containsExactlyInAnyOrderEntriesOf(rus);
        assertThat(r.deletedFiles()).hasSize(1).allMatch(f -> f.contains("/country=R/"));
        assertThat(two.deletedFiles()).hasSize(1).allMatch(f -> f.contains("/country=R/part-") && f.contains(r.writeId()));
        assertThat(totals()).extracting(row -> row.get(1) + ":" + row.get(2)).containsExactly("R:1", "RU:2", "RUS:2", "X:1");
    }

    @Test
    void nothingIsLeftUnderTmpAfterASuccessfulWrite() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 3), WriteMode.OVERWRITE_PARTITIONS);
        write(Orders.orders("b", List.of(D15), List.of("RU"), 3), WriteMode.OVERWRITE_PARTITIONS);
        write(Orders.orders("c", List.of(D17), List.of("RU"), 3), WriteMode.APPEND);

        assertThat(TestLake.keys(bucket, "marts/orders/_tmp/")).isEmpty();
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void resultListsFinalPathsAndPartitionValuesLikeAwswrangler() {
        WriteResult r = write(Orders.orders("a", List.of(D15), List.of("RU", "DE"), 2), WriteMode.APPEND);

        assertThat(r.rows()).isEqualTo(4);
        assertThat(r.partitionValues()).containsExactly(
                Map.entry(table + "dt=2024-01-15/country=RU/", List.of("2024-01-15", "RU")),
                Map.entry(table + "dt=2024-01-15/country=DE/", List.of("2024-01-15", "DE")));
        assertThat(r.paths()).hasSize(2).allMatch(p -> p.startsWith(table) && p.endsWith(r.writeId() + ".snappy.parquet"));
        assertThat(TestLake.keys(bucket, "marts/orders/")).containsExactlyInAnyOrderElementsOf(
                r.paths().stream().map(p -> p.substring(("s3://" + bucket + "/").length())).toList());
        assertThat(r.partitions()).allSatisfy(p -> assertThat(p.bytes()).isPositive());
    }

    @Test
    void tableUriWithoutTrailingSlashAndS3aSchemeNameTheSameTable() {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND);
        S3Parquet.write(Orders.orders("b", List.of(D15), List.of("RU"), 2)).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.memory().client()).to("s3a://" + bucket + "/marts/orders");

        assertThat(totals()).containsExactly(List.of("2024-01-15", "RU", 2L, 300L, "b-2024-01-15-RU-0"));
    }
}
