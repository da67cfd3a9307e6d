package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;

/** S3Parquet.read gives back what wrangler wrote: every type with its values, partition columns restored, filters. */
class ReadTest {
    /** Every column as "type value" strings per row, rows in the reader's order. */
    static Map<String, List<String>> readAll(ArrowReader r) throws Exception {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (r) {
            for (Field f : r.getVectorSchemaRoot().getSchema().getFields()) {
                out.put(f.getName(), new ArrayList<>());
            }
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (FieldVector v : b.getFieldVectors()) {
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.get(v.getName()).add(render(v, i));
                    }
                }
            }
        }
        return out;
    }

    static String render(FieldVector v, int i) {
        if (v.isNull(i)) {
            return "null";
        }
        if (v instanceof org.apache.arrow.vector.UInt1Vector u) {
            return String.valueOf(u.getObjectNoOverflow(i));
        }
        if (v instanceof org.apache.arrow.vector.UInt2Vector u) {
            return String.valueOf((int) u.get(i));
        }
        if (v instanceof org.apache.arrow.vector.UInt4Vector u) {
            return String.valueOf(u.getObjectNoOverflow(i));
        }
        if (v instanceof org.apache.arrow.vector.UInt8Vector u) {
            return String.valueOf(u.getObjectNoOverflow(i));
        }
        Object o = v.getObject(i);
        if (o instanceof byte[] b) {
            return "0x" + HexFormat.of().formatHex(b);
        }
        return String.valueOf(o);
    }

    static Map<String, String> types(ArrowReader r) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        for (Field f : r.getVectorSchemaRoot().getSchema().getFields()) {
            out.put(f.getName(), f.getType() + (f.getChildren().isEmpty() ? "" : " " + f.getChildren()));
        }
        return out;
    }

    @Test
    void everyTypeReadsBackWithItsValuesWithAndWithoutFilterAndSelection() throws Exception {
        String bucket = TestLake.bucket();
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(EveryType.schema(), a)) {
            EveryType.fill(root);
            S3Parquet.write(root).partitionBy("k").s3(TestLake.s3().client()).to("s3://" + bucket + "/types/");
        }
        ArrowReader all = S3Parquet.read("s3://" + bucket + "/types/").s3(TestLake.s3().client()).open();
        Map<String, String> expectedTypes = new LinkedHashMap<>();
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expect(expectedTypes, expected, "i8", "Int(8, true)", "-128", "127");
        expect(expectedTypes, expected, "i16", "Int(16, true)", "-32768", "32767");
        expect(expectedTypes, expected, "i32", "Int(32, true)", "-2147483648", "2147483647");
        expect(expectedTypes, expected, "i64", "Int(64, true)", "-9223372036854775808", "9223372036854775807");
        expect(expectedTypes, expected, "u8", "Int(8, false)", "0", "255");
        expect(expectedTypes, expected, "u16", "Int(16, false)", "0", "65535");
        expect(expectedTypes, expected, "u32", "Int(32, false)", "0", "4294967295");
        expect(expectedTypes, expected, "u64", "Int(64, false)", "0", "18446744073709551615");
        expect(expectedTypes, expected, "f32", "FloatingPoint(SINGLE)", "1.5", "-0.25");
        expect(expectedTypes, expected, "f64", "FloatingPoint(DOUBLE)", "3.141592653589793", "-1.0E300");
        expect(expectedTypes, expected, "b", "Bool", "true", "false");
        expect(expectedTypes, expected, "s", "Utf8", "héllo, 世界", "");
        expect(expectedTypes, expected, "ls", "Utf8", "large", "ü");
        expect(expectedTypes, expected, "bin", "Binary", "0x000102ff", "0x");
        expect(expectedTypes, expected, "lbin", "Binary", "0x41", "0x4243");
        expect(expectedTypes, expected, "fbin", "FixedSizeBinary(3)", "0x414243", "0x000001");
        expect(expectedTypes, expected, "d9", "Decimal(9, 2, 128)", "1234567.89", "-0.01");
        expect(expectedTypes, expected, "d18", "Decimal(18, 4, 128)", "99999999999999.9999", "-12345678901234.5678");
        expect(expectedTypes, expected, "d38", "Decimal(38, 10, 128)", "9999999999999999999999999999.9999999999",
                "-1234567890123456789.0123456789");
        expect(expectedTypes, expected, "day", "Date(DAY)", "19737", "-1");
        // Arrow date64 is written as Parquet DATE, seconds as milliseconds, nanoseconds as microseconds (the write's default).
        expect(expectedTypes, expected, "dms", "Date(DAY)", "19737", "-1");
        expect(expectedTypes, expected, "ts_s", "Timestamp(MILLISECOND, null)", "2024-01-15T10:30", "1969-12-31T23:59:59");
        expect(expectedTypes, expected, "ts_ms_utc", "Timestamp(MILLISECOND, UTC)", "1705314600123", "0");
        expect(expectedTypes, expected, "ts_us_utc", "Timestamp(MICROSECOND, UTC)", "1705314600123456", "-1");
        expect(expectedTypes, expected, "ts_ns", "Timestamp(MICROSECOND, null)", "2024-01-15T10:30:00.123456", "1970-01-01T00:00:00.000001");
        expect(expectedTypes, expected, "li", "List [element: Int(32, true)]", "[1,null,3]", "[]");
        expect(expectedTypes, expected, "fl", "List [element: FloatingPoint(DOUBLE)]", "[0.5,-0.5]", "[2.0,4.0]");
        expect(expectedTypes, expected, "st", "Struct [a: Int(64, true), z: Utf8]", "{\"a\":42,\"z\":\"x\"}", "{\"z\":\"y\"}");
        expect(expectedTypes, expected, "m", "Map(false) [entries: Struct<key: Utf8 not null, value: Int(32, true)> not null]",
                "[{\"key\":\"one\",\"value\":1},{\"key\":\"none\"}]", "[]");
        expect(expectedTypes, expected, "ls_st", "List [element: Struct<x: List<element: Utf8>>]", "[{\"x\":[\"deep\",\"er\"]}]", "[]");
        expectedTypes.put("k", "Int(64, true)"); // a partition column read without a catalog: typed by its folders' values
        expected.put("k", List.of("0", "1", "2"));
        assertThat(types(all)).isEqualTo(expectedTypes);
        assertThat(readAll(all)).isEqualTo(expected);

        ArrowReader one = S3Parquet.read("s3://" + bucket + "/types/").s3(TestLake.s3().client()).columns("m", "k", "s", "d38")
                .filter(PartitionFilter.in("k", "1")).open();
        Map<String, List<String>> selected = new LinkedHashMap<>();
        selected.put("m", List.of("[]"));
        selected.put("k", List.of("1"));
        selected.put("s", List.of(""));
        selected.put("d38", List.of("-1234567890123456789.0123456789"));
        assertThat(readAll(one)).isEqualTo(selected);

        ArrowReader nulls = S3Parquet.read("s3://" + bucket + "/types/").s3(TestLake.s3().client()).columns("k", "st", "li")
                .filter(PartitionFilter.where(p -> p.get("k").equals("2"))).open();
        assertThat(readAll(nulls)).containsExactly(Map.entry("k", List.of("2")), Map.entry("st", List.of("null")),
                Map.entry("li", List.of("null")));
    }

    /** A column's type and its values in rows 0 and 1; row 2 is null. */
    private static void expect(Map<String, String> types, Map<String, List<String>> rows, String column, String type, String row0,
                               String row1) {
        types.put(column, type);
        rows.put(column, List.of(row0, row1, "null"));
    }

    record Sale(String sku, long qty, java.time.LocalDate dt, String region) {
    }

    @Test
    void partitionValuesComeBackUnescapedTypedAndNullForTheDefaultPartition() throws Exception {
        String bucket = TestLake.bucket();
        java.time.LocalDate d1 = java.time.LocalDate.of(2024, 1, 15);
        java.time.LocalDate d2 = java.time.LocalDate.of(2024, 1, 16);
        List<Sale> sales = new ArrayList<>();
        sales.add(new Sale("a", 1, d1, "a/b"));
        sales.add(new Sale("b", 2, d1, "50%"));
        sales.add(new Sale("c", 3, d2, null));
        sales.add(new Sale("d", 4, d2, "x=1 y:2"));
        S3Parquet.write(sales).partitionBy("dt", "region").s3(TestLake.s3().client()).to("s3://" + bucket + "/sales/");
        assertThat(TestLake.keys(bucket, "sales/")).anyMatch(k -> k.startsWith("sales/dt=2024-01-15/region=a%2Fb/"))
                .anyMatch(k -> k.startsWith("sales/dt=2024-01-16/region=__HIVE_DEFAULT_PARTITION__/"));

        ArrowReader r = S3Parquet.read("s3://" + bucket + "/sales/").s3(TestLake.s3().client()).open();
        assertThat(types(r)).containsExactly(Map.entry("sku", "Utf8"), Map.entry("qty", "Int(64, true)"), Map.entry("dt", "Date(DAY)"),
                Map.entry("region", "Utf8"));
        Map<String, List<String>> rows = readAll(r);
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < rows.get("sku").size(); i++) {
            seen.add(rows.get("sku").get(i) + " " + rows.get("qty").get(i) + " " + rows.get("dt").get(i) + " " + rows.get("region").get(i));
        }
        assertThat(seen).containsExactlyInAnyOrder("a 1 19737 a/b", "b 2 19737 50%", "c 3 19738 null", "d 4 19738 x=1 y:2");

        ArrowReader nullOnly = S3Parquet.read("s3://" + bucket + "/sales/").s3(TestLake.s3().client())
                .filter(PartitionFilter.in("region", (String) null)).columns("sku", "region").open();
        assertThat(readAll(nullOnly)).containsExactly(Map.entry("sku", List.of("c")), Map.entry("region", List.of("null")));
    }

    record Typed(long id, long n, boolean flag, String s, java.time.LocalDate d, java.time.Instant t) {
    }

    /**
     * A file's partition values are repeated into every row of each batch (in bulk, not row by row): every row of
     * batches of odd sizes, a vector reused from a longer batch to a shorter one, gets its own file's values, typed.
     */
    @Test
    void partitionValuesOfEveryKindFillEveryRowOfBatchesOfAnySize() throws Exception {
        String bucket = TestLake.memoryBucket(); // about 420 partitions: the MemoryS3, as no HTTP is in question
        List<Typed> rows = new ArrayList<>();
        for (long id = 0; id < 3_000; id++) {
            rows.add(typed(id));
        }
        S3Parquet.write(rows).partitionBy("n", "flag", "s", "d", "t").s3(TestLake.memory().client()).to("s3://" + bucket + "/typed/");
        for (int batch : new int[] {1, 77, 4096}) {
            int seen = 0;
            try (ArrowReader r = S3Parquet.read("s3://" + bucket + "/typed/").s3(TestLake.memory().client()).batchRows(batch).open()) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot b = r.getVectorSchemaRoot();
                    for (int i = 0; i < b.getRowCount(); i++) {
                        Typed want = typed(((org.apache.arrow.vector.BigIntVector) b.getVector("id")).get(i));
                        assertThat(b.getVector("n").getObject(i)).as("batch of %d, id %d", batch, want.id()).isEqualTo(want.n());
                        assertThat(b.getVector("flag").getObject(i)).isEqualTo(want.flag());
                        assertThat(b.getVector("s").getObject(i).toString()).isEqualTo(want.s());
                        assertThat(((org.apache.arrow.vector.DateDayVector) b.getVector("d")).get(i)).isEqualTo((int) want.d().toEpochDay());
                        assertThat(((org.apache.arrow.vector.TimeStampVector) b.getVector("t")).get(i))
                                .isEqualTo(want.t().getEpochSecond() * 1_000_000);
                        seen++;
                    }
                }
            }
            assertThat(seen).as("rows read in batches of %d", batch).isEqualTo(rows.size());
        }
    }

    private static Typed typed(long id) {
        return new Typed(id, id % 3 - 1_000_000_000_000L, id % 2 == 0, "value-" + "x".repeat((int) (id % 5)),
                java.time.LocalDate.of(2024, 1, 1).plusDays(id % 4), java.time.Instant.parse("2024-03-01T10:00:00Z").plusSeconds(id % 7 * 3_601));
    }

    @Test
    void unknownColumnIsRefusedWithTheTablesColumns() {
        String bucket = TestLake.bucket();
        S3Parquet.write(List.of(new Sale("a", 1, java.time.LocalDate.of(2024, 1, 15), "EU"))).partitionBy("dt").s3(TestLake.s3().client())
                .to("s3://" + bucket + "/sales/");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> S3Parquet.read("s3://" + bucket + "/sales/").s3(TestLake.s3().client())
                        .columns("sku", "amount").open())
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot read s3://" + bucket + "/sales/: there is no column 'amount'; the table's columns are [sku, qty, "
                        + "region, dt]. Select columns of the table.");
    }

    /** Two selections of one column would be two decoders taking turns on one column chunk and one vector. */
    @Test
    void aColumnSelectedTwiceIsRefused() {
        assertThatThrownBy(() -> S3Parquet.read("s3://bucket/sales/").columns("sku", "qty", "sku"))
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot read s3://bucket/sales/: the column 'sku' is selected twice. Select each column once.");
    }

    @Test
    void anInvalidUriIsRefusedAsAReadBeforeAnyRequest() {
        S3Client none = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                throw new AssertionError("a request was sent: " + context.request());
            }
        })));
        Map<String, String> messages = new LinkedHashMap<>();
        messages.put("gs://bucket/t/", "Cannot read gs://bucket/t/: the scheme is not s3:// or s3a://. Pass the table root as s3://bucket/prefix/.");
        messages.put("s3://Bad_Bucket/t/", "Cannot read s3://Bad_Bucket/t/: 'Bad_Bucket' is not a valid bucket name (3 to 63 characters of "
                + "a-z, 0-9, '.' and '-'). Check the URI.");
        messages.put("s3://bucket//t/", "Cannot read s3://bucket//t/: the prefix has an empty path segment ('//'). Remove the extra slash.");
        messages.put("s3://bucket/t/../u/", "Cannot read s3://bucket/t/../u/: the prefix has a '..' segment, which S3 keeps literally but "
                + "other tools resolve. Use a plain prefix.");
        messages.forEach((uri, message) -> assertThatThrownBy(() -> S3Parquet.read(uri).s3(none).open())
                .isInstanceOf(InvalidWriteException.class).hasMessage(message));
    }
}
