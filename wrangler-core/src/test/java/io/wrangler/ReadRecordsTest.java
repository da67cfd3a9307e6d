package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/**
 * Reading back is as easy as writing: {@code toList} gives the rows as the records that were written, {@code count}
 * counts them from the footers, and {@code open()}'s batches hold exactly {@code batchRows} rows across files.
 */
class ReadRecordsTest {
    enum Color { RED, GREEN }

    record Inner(long a, String z) {
    }

    /** Every component type RecordSource writes; {@code dt} and {@code k} become partition folders. */
    record Every(String s, Color color, UUID id, int i, Integer boxedInt, long l, Long boxedLong, short sh, Short boxedShort,
                 byte b, Byte boxedByte, double d, Double boxedDouble, float f, Float boxedFloat, boolean flag, Boolean boxedFlag,
                 BigDecimal price, LocalDate day, Instant at, LocalDateTime local, byte[] bytes, List<String> tags,
                 List<Integer> nums, Map<String, Long> counts, Inner inner, List<Inner> inners, LocalDate dt, int k) {
    }

    private static List<Every> everyRows() {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("one", 1L);
        counts.put("none", null);
        List<Integer> withNull = new ArrayList<>(List.of(1, 2));
        withNull.add(1, null);
        return List.of(
                new Every("héllo, 世界", Color.RED, UUID.fromString("123e4567-e89b-12d3-a456-426614174000"), Integer.MIN_VALUE, -7,
                        Long.MIN_VALUE, -8L, Short.MIN_VALUE, (short) -9, Byte.MIN_VALUE, (byte) -10, -1e300, -0.5, -1.5f, -0.25f,
                        true, false, new BigDecimal("-12345678901234.56"), LocalDate.of(1969, 12, 31),
                        Instant.parse("1969-12-31T23:59:59.999999Z"), LocalDateTime.of(2024, 1, 15, 10, 30, 0, 123_456_000),
                        new byte[] {0, 1, (byte) 255}, List.of("a", "b"), withNull, counts, new Inner(42, "x"),
                        List.of(new Inner(1, "p"), new Inner(2, null)), LocalDate.of(2024, 1, 15), -3),
                new Every("", Color.GREEN, UUID.fromString("00000000-0000-0000-0000-000000000001"), Integer.MAX_VALUE, 7,
                        Long.MAX_VALUE, 8L, Short.MAX_VALUE, (short) 9, Byte.MAX_VALUE, (byte) 10, Math.PI, 0.5, 1.5f, 0.25f,
                        false, true, new BigDecimal("0.01"), LocalDate.of(2024, 2, 29), Instant.parse("2024-01-15T10:30:00.123456Z"),
                        LocalDateTime.of(1970, 1, 1, 0, 0), new byte[0], List.of(), List.of(), Map.of(), new Inner(-1, ""), List.of(),
                        LocalDate.of(2024, 1, 15), 7),
                new Every(null, null, null, 0, null, 0L, null, (short) 0, null, (byte) 0, null, 0.0, null, 0f, null, false, null, null,
                        null, null, null, null, null, null, null, null, null, LocalDate.of(2024, 1, 16), 7));
    }

    @Test
    void toListReadsBackTheRecordsThatWereWrittenEveryComponentTypeWithPartitionColumns() {
        String uri = "s3://" + TestLake.memoryBucket() + "/every/";
        List<Every> rows = everyRows();
        S3Parquet.write(rows).partitionBy("dt", "k").s3(TestLake.memory().client()).to(uri);

        List<Every> back = new ArrayList<>(S3Parquet.read(uri).s3(TestLake.memory().client()).toList(Every.class));

        back.sort(Comparator.comparingLong(Every::l));
        List<Every> expected = new ArrayList<>(rows);
        expected.sort(Comparator.comparingLong(Every::l));
        assertThat(back).usingRecursiveComparison().isEqualTo(expected);
        // DuckDB reads the same rows: k is an int64 to it (its folders), an int to the record.
        List<List<Object>> duck = TestLake.query(uri.substring(5, uri.indexOf('/', 5)), "every/",
                "SELECT l, s, CAST(dt AS VARCHAR), k FROM t ORDER BY l");
        assertThat(back.stream().map(e -> List.of(e.l(), String.valueOf(e.s()), e.dt().toString(), (long) e.k())).toList())
                .isEqualTo(duck.stream().map(r -> List.of(r.get(0), String.valueOf(r.get(1)), r.get(2), r.get(3))).toList());
    }

    /** Orders as Glue names their columns: lowercased. */
    record LowerOrder(String orderid, LocalDate dt, String country, long amountcents, BigDecimal price) {
    }

    @Test
    void componentsTakeTheirColumnsIgnoringCaseAndOnlyTheirColumns() {
        String uri = "s3://" + TestLake.memoryBucket() + "/lower/";
        List<Order> orders = Orders.orders("t", List.of(LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16)), List.of("DE", "RU"), 2);
        S3Parquet.write(orders.stream().map(o -> new LowerOrder(o.orderId(), o.dt(), o.country(), o.amountCents(), o.price())).toList())
                .partitionBy("dt", "country").s3(TestLake.memory().client()).to(uri);

        List<Order> back = S3Parquet.read(uri).s3(TestLake.memory().client()).toList(Order.class);

        assertThat(back).containsExactlyInAnyOrderElementsOf(orders);
        record Amount(long amountCents, String country) {
        }
        assertThat(S3Parquet.read(uri).s3(TestLake.memory().client()).filter(PartitionFilter.in("country", "DE")).toList(Amount.class))
                .extracting(Amount::amountCents).containsExactlyInAnyOrder(100L, 200L, 500L, 600L);
    }

    record NoColumn(String orderId, long discount) {
    }

    record Narrower(String orderId, int amountCents) {
    }

    record TextDate(String orderId, String dt, LocalDateTime price) {
    }

    record Nested(String orderId, List<Long> price) {
    }

    record NotNull(String orderId, long amountCents) {
    }

    record MaybeNull(String orderId, Long amountCents) {
    }

    @Test
    void aComponentWithoutItsColumnOrThatCannotHoldItIsRefusedBeforeAnyRowIsRead() {
        String uri = "s3://" + TestLake.memoryBucket() + "/refused/";
        S3Parquet.write(Orders.orders("r", List.of(LocalDate.of(2024, 1, 15)), List.of("DE"), 2)).partitionBy("dt")
                .s3(TestLake.memory().client()).to(uri);
        ReadBuilder read = S3Parquet.read(uri).s3(TestLake.memory().client());

        assertThatThrownBy(() -> read.toList(NoColumn.class)).isInstanceOf(ReadException.class).hasMessage("Cannot read " + uri
                + " (step: validate): the component long discount of NoColumn has no column: the read's columns are [orderId, country, "
                + "amountCents, price, dt]. Name the component as its column (case does not matter), or leave it out of the record. "
                + "Nothing was read.");
        assertThatThrownBy(() -> read.toList(Narrower.class)).isInstanceOf(ReadException.class).hasMessage("Cannot read " + uri
                + " (step: validate): the component int amountCents of Narrower cannot hold the column 'amountCents' (Int(64, true)) "
                + "without loss. Declare it as long, or leave the column out of the record. Nothing was read.");
        // dt is a date32 partition column: a String component gets the folder's text.
        assertThatThrownBy(() -> read.toList(TextDate.class)).isInstanceOf(ReadException.class).hasMessage("Cannot read " + uri
                + " (step: validate): the component LocalDateTime price of TextDate cannot hold the column 'price' (Decimal(38, 2, 128)) "
                + "without loss. Declare it as BigDecimal, or leave the column out of the record. Nothing was read.");
        assertThatThrownBy(() -> read.toList(Nested.class)).isInstanceOf(ReadException.class).hasMessage("Cannot read " + uri
                + " (step: validate): the component List<Long> price of Nested cannot hold the column 'price' (Decimal(38, 2, 128)) "
                + "without loss. Declare it as BigDecimal, or leave the column out of the record. Nothing was read.");
        @SuppressWarnings({"rawtypes", "unchecked"})
        Class notARecord = String.class;
        assertThatThrownBy(() -> read.toList(notARecord))
                .isInstanceOf(ReadException.class).hasMessage("Cannot read " + uri + " (step: validate): the class java.lang.String "
                        + "is not a record. Pass a record class (record Order(String orderid, long amountcents) {}), or read the batches "
                        + "with open(). Nothing was read.");
    }

    @Test
    void aNullIntoAPrimitiveComponentFailsNamingItsRowAndColumn() {
        String uri = "s3://" + TestLake.memoryBucket() + "/nulls/";
        S3Parquet.write(List.of(new MaybeNull("a", 1L), new MaybeNull("b", null))).s3(TestLake.memory().client()).to(uri);
        ReadBuilder read = S3Parquet.read(uri).s3(TestLake.memory().client());

        assertThat(read.toList(MaybeNull.class)).containsExactly(new MaybeNull("a", 1L), new MaybeNull("b", null));
        assertThatThrownBy(() -> read.toList(NotNull.class)).isInstanceOf(ReadException.class).hasMessage("Cannot read " + uri
                + " (step: toList): row 2 of the read has null in the column 'amountCents', which the component long amountCents of "
                + "NotNull cannot hold. Declare it as Long, or filter the rows out.");
    }

    record Wide(String id, long k) {
    }

    record Small(String id, int k) {
    }

    @Test
    void anIntegerPartitionColumnFillsAnIntComponentWhenEveryFolderFitsAndFailsClearlyWhenOneDoesNot() {
        String uri = "s3://" + TestLake.memoryBucket() + "/wide/";
        S3Parquet.write(List.of(new Wide("a", 7), new Wide("b", -2))).partitionBy("k").s3(TestLake.memory().client()).to(uri);
        assertThat(S3Parquet.read(uri).s3(TestLake.memory().client()).toList(Small.class)).containsExactlyInAnyOrder(new Small("a", 7),
                new Small("b", -2));

        S3Parquet.write(List.of(new Wide("c", 3_000_000_000L))).partitionBy("k").mode(WriteMode.APPEND).s3(TestLake.memory().client()).to(uri);
        String file = TestLake.keys(uri.substring(5, uri.indexOf('/', 5)), "wide/k=3000000000/").get(0);
        assertThatThrownBy(() -> S3Parquet.read(uri).s3(TestLake.memory().client()).toList(Small.class)).isInstanceOf(ReadException.class)
                .hasMessage("Cannot read " + uri + ": the folder of s3://" + uri.substring(5, uri.indexOf('/', 5)) + "/" + file
                        + " gives the partition column 'k' the value '3000000000', which is not a Int(32, true) (For input string: "
                        + "\"3000000000\"). Fix the folder name or the catalog's type.");
        assertThat(S3Parquet.read(uri).s3(TestLake.memory().client()).toList(Wide.class)).hasSize(3);
    }

    @Test
    void countIsDuckDbsCountWithAndWithoutFilters() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/counted/";
        List<LocalDate> days = List.of(LocalDate.of(2024, 1, 14), LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16));
        for (int run = 1; run <= 3; run++) { // several files per partition
            S3Parquet.write(Orders.orders("c" + run, days, List.of("DE", "RU", "US"), run)).partitionBy("dt", "country")
                    .mode(WriteMode.APPEND).s3(TestLake.memory().client()).to(uri);
        }
        ReadBuilder all = S3Parquet.read(uri).s3(TestLake.memory().client());

        assertThat(all.count()).isEqualTo(54L).isEqualTo(TestLake.query(bucket, "counted/", "SELECT count(*) FROM t").get(0).get(0));
        assertThat(S3Parquet.read(uri).s3(TestLake.memory().client()).filter(PartitionFilter.in("country", "DE")
                        .and(PartitionFilter.where(p -> !"2024-01-14".equals(p.get("dt"))))).count())
                .isEqualTo(12L).isEqualTo(TestLake.query(bucket, "counted/",
                        "SELECT count(*) FROM t WHERE country = 'DE' AND dt <> DATE '2024-01-14'").get(0).get(0));
        assertThat(S3Parquet.read(uri).s3(TestLake.memory().client()).filter(PartitionFilter.in("country", "XX")).count()).isZero();
    }

    /** The row counts of every batch. */
    private static List<Integer> batchSizes(ArrowReader r) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (r) {
            VectorSchemaRoot b = r.getVectorSchemaRoot();
            while (r.loadNextBatch()) {
                out.add(b.getRowCount());
            }
        }
        return out;
    }

    @Test
    void batchesHoldExactlyBatchRowsAcrossManySmallFilesValuesInOrder() throws Exception {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/small/";
        int[] sizes = {7, 3, 11, 1, 5, 2, 9};
        int total = 0;
        for (int run = 0; run < sizes.length; run++) { // one file per append, of these sizes
            List<MaybeNull> rows = new ArrayList<>();
            for (int i = 0; i < sizes[run]; i++) {
                rows.add(new MaybeNull("f" + run + "-" + i, i % 4 == 3 ? null : (long) total + i));
            }
            total += sizes[run];
            S3Parquet.write(rows).mode(WriteMode.APPEND).s3(TestLake.memory().client()).to(uri);
        }
        try (BufferAllocator a = new RootAllocator()) {
            Map<String, List<String>> oneByOne = ReadTest.readAll(S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(1).open());
            assertThat(oneByOne.get("orderId")).hasSize(38);
            for (int n : new int[] {4, 5, 38, 100}) {
                assertThat(batchSizes(S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(n).open())).as("batchRows %d", n)
                        .isEqualTo(expectedSizes(38, n));
                assertThat(ReadTest.readAll(S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(n).open()))
                        .as("batchRows %d", n).isEqualTo(oneByOne);
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    private static List<Integer> expectedSizes(int total, int n) {
        List<Integer> out = new ArrayList<>();
        for (int left = total; left > 0; left -= n) {
            out.add(Math.min(n, left));
        }
        return out;
    }

    @Test
    void batchesOfEveryArrowTypeAreJoinedAcrossFilesWithTheirValues() throws Exception {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/every-type/";
        try (BufferAllocator a = new RootAllocator()) {
            for (int i = 0; i < 4; i++) { // 4 appends of 3 partitions of 1 row: 12 files
                try (VectorSchemaRoot root = VectorSchemaRoot.create(EveryType.schema(), a)) {
                    EveryType.fill(root);
                    S3Parquet.write(root).partitionBy("k").mode(WriteMode.APPEND).s3(TestLake.memory().client()).to(uri);
                }
            }
            Map<String, List<String>> oneByOne = ReadTest.readAll(S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(1).open());
            for (int n : new int[] {2, 5, 7}) {
                assertThat(batchSizes(S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(n).open())).isEqualTo(expectedSizes(12, n));
                Map<String, List<String>> joined = ReadTest.readAll(S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(n).open());
                assertThat(joined).as("batchRows %d", n).isEqualTo(oneByOne);
                assertThat(EveryType.NESTED).allSatisfy(c -> assertThat(joined.get(c)).hasSize(12).contains("null"));
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }
}
