package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Every Arrow type the library maps is written and read back by DuckDB with its exact value and type. */
class ArrowTypesTest {
    private static Field f(String name, ArrowType type, Field... children) {
        return new Field(name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static final java.util.Set<String> NESTED = java.util.Set.of("li", "fl", "st", "m", "ls_st");

    /**
     * With nested columns the file goes through the row-wise encoder; without them through the columnar one: both
     * must write every flat type identically.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "flat columns only: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void everyMappedArrowTypeRoundTripsWithExactValues(boolean flatOnly) {
        Field mapEntries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null), f("value", new ArrowType.Int(32, true))));
        Schema schema = new Schema(List.of(
                f("k", new ArrowType.Int(32, true)),
                f("i8", new ArrowType.Int(8, true)), f("i16", new ArrowType.Int(16, true)),
                f("i32", new ArrowType.Int(32, true)), f("i64", new ArrowType.Int(64, true)),
                f("u8", new ArrowType.Int(8, false)), f("u16", new ArrowType.Int(16, false)),
                f("u32", new ArrowType.Int(32, false)), f("u64", new ArrowType.Int(64, false)),
                f("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                f("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                f("b", ArrowType.Bool.INSTANCE),
                f("s", ArrowType.Utf8.INSTANCE), f("ls", ArrowType.LargeUtf8.INSTANCE),
                f("bin", ArrowType.Binary.INSTANCE), f("lbin", ArrowType.LargeBinary.INSTANCE),
                f("fbin", new ArrowType.FixedSizeBinary(3)),
                f("d9", new ArrowType.Decimal(9, 2, 128)), f("d18", new ArrowType.Decimal(18, 4, 128)),
                f("d38", new ArrowType.Decimal(38, 10, 128)),
                f("day", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY)),
                f("dms", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.MILLISECOND)),
                f("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
                f("ts_ms_utc", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
                f("ts_us_utc", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                f("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
                f("li", ArrowType.List.INSTANCE, f("element", new ArrowType.Int(32, true))),
                f("fl", new ArrowType.FixedSizeList(2), f("element", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
                f("st", ArrowType.Struct.INSTANCE, f("a", new ArrowType.Int(64, true)), f("z", ArrowType.Utf8.INSTANCE)),
                new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(mapEntries)),
                f("ls_st", ArrowType.List.INSTANCE, f("element", ArrowType.Struct.INSTANCE,
                        f("x", ArrowType.List.INSTANCE, f("element", ArrowType.Utf8.INSTANCE))))));

        String bucket = TestLake.bucket();
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            root.allocateNew();
            ((IntVector) root.getVector("k")).setSafe(0, 0);
            ((IntVector) root.getVector("k")).setSafe(1, 1);
            ((IntVector) root.getVector("k")).setSafe(2, 2);
            ((TinyIntVector) root.getVector("i8")).setSafe(0, -128);
            ((TinyIntVector) root.getVector("i8")).setSafe(1, 127);
            ((SmallIntVector) root.getVector("i16")).setSafe(0, -32768);
            ((SmallIntVector) root.getVector("i16")).setSafe(1, 32767);
            ((IntVector) root.getVector("i32")).setSafe(0, Integer.MIN_VALUE);
            ((IntVector) root.getVector("i32")).setSafe(1, Integer.MAX_VALUE);
            ((BigIntVector) root.getVector("i64")).setSafe(0, Long.MIN_VALUE);
            ((BigIntVector) root.getVector("i64")).setSafe(1, Long.MAX_VALUE);
            ((UInt1Vector) root.getVector("u8")).setSafe(0, 0);
            ((UInt1Vector) root.getVector("u8")).setSafe(1, 255);
            ((UInt2Vector) root.getVector("u16")).setSafe(0, 0);
            ((UInt2Vector) root.getVector("u16")).setSafe(1, 65535);
            ((UInt4Vector) root.getVector("u32")).setSafe(0, 0);
            ((UInt4Vector) root.getVector("u32")).setSafe(1, -1);
            ((UInt8Vector) root.getVector("u64")).setSafe(0, 0);
            ((UInt8Vector) root.getVector("u64")).setSafe(1, -1L);
            ((Float4Vector) root.getVector("f32")).setSafe(0, 1.5f);
            ((Float4Vector) root.getVector("f32")).setSafe(1, -0.25f);
            ((Float8Vector) root.getVector("f64")).setSafe(0, Math.PI);
            ((Float8Vector) root.getVector("f64")).setSafe(1, -1e300);
            ((BitVector) root.getVector("b")).setSafe(0, 1);
            ((BitVector) root.getVector("b")).setSafe(1, 0);
            ((VarCharVector) root.getVector("s")).setSafe(0, utf8("héllo, 世界"));
            ((VarCharVector) root.getVector("s")).setSafe(1, utf8(""));
            ((LargeVarCharVector) root.getVector("ls")).setSafe(0, utf8("large"));
            ((LargeVarCharVector) root.getVector("ls")).setSafe(1, utf8("ü"));
            ((VarBinaryVector) root.getVector("bin")).setSafe(0, new byte[] {0, 1, 2, (byte) 255});
            ((VarBinaryVector) root.getVector("bin")).setSafe(1, new byte[0]);
            ((LargeVarBinaryVector) root.getVector("lbin")).setSafe(0, new byte[] {65});
            ((LargeVarBinaryVector) root.getVector("lbin")).setSafe(1, new byte[] {66, 67});
            ((FixedSizeBinaryVector) root.getVector("fbin")).setSafe(0, new byte[] {65, 66, 67});
            ((FixedSizeBinaryVector) root.getVector("fbin")).setSafe(1, new byte[] {0, 0, 1});
            ((DecimalVector) root.getVector("d9")).setSafe(0, new BigDecimal("1234567.89"));
            ((DecimalVector) root.getVector("d9")).setSafe(1, new BigDecimal("-0.01"));
            ((DecimalVector) root.getVector("d18")).setSafe(0, new BigDecimal("99999999999999.9999"));
            ((DecimalVector) root.getVector("d18")).setSafe(1, new BigDecimal("-12345678901234.5678"));
            ((DecimalVector) root.getVector("d38")).setSafe(0, new BigDecimal("9999999999999999999999999999.9999999999"));
            ((DecimalVector) root.getVector("d38")).setSafe(1, new BigDecimal("-1234567890123456789.0123456789"));
            ((DateDayVector) root.getVector("day")).setSafe(0, 19737); // 2024-01-15
            ((DateDayVector) root.getVector("day")).setSafe(1, -1);    // 1969-12-31
            ((DateMilliVector) root.getVector("dms")).setSafe(0, 19737L * 86_400_000L);
            ((DateMilliVector) root.getVector("dms")).setSafe(1, -86_400_000L);
            ((TimeStampSecVector) root.getVector("ts_s")).setSafe(0, 1705314600L); // 2024-01-15 10:30:00
            ((TimeStampSecVector) root.getVector("ts_s")).setSafe(1, -1L);
            ((TimeStampMilliTZVector) root.getVector("ts_ms_utc")).setSafe(0, 1705314600123L);
            ((TimeStampMilliTZVector) root.getVector("ts_ms_utc")).setSafe(1, 0L);
            ((TimeStampMicroTZVector) root.getVector("ts_us_utc")).setSafe(0, 1705314600123456L);
            ((TimeStampMicroTZVector) root.getVector("ts_us_utc")).setSafe(1, -1L);
            ((TimeStampNanoVector) root.getVector("ts_ns")).setSafe(0, 1705314600123456000L);
            ((TimeStampNanoVector) root.getVector("ts_ns")).setSafe(1, 1000L);

            ListVector li = (ListVector) root.getVector("li");
            IntVector liData = (IntVector) li.getDataVector();
            int start = li.startNewValue(0);
            liData.setSafe(start, 1);
            liData.setNull(start + 1);
            liData.setSafe(start + 2, 3);
            li.endValue(0, 3);
            li.startNewValue(1);
            li.endValue(1, 0);

            FixedSizeListVector fl = (FixedSizeListVector) root.getVector("fl");
            Float8Vector flData = (Float8Vector) fl.getDataVector();
            fl.setNotNull(0);
            flData.setSafe(0, 0.5);
            flData.setSafe(1, -0.5);
            fl.setNotNull(1);
            flData.setSafe(2, 2.0);
            flData.setSafe(3, 4.0);

            StructVector st = (StructVector) root.getVector("st");
            st.setIndexDefined(0);
            ((BigIntVector) st.getChild("a")).setSafe(0, 42);
            ((VarCharVector) st.getChild("z")).setSafe(0, utf8("x"));
            st.setIndexDefined(1);
            ((BigIntVector) st.getChild("a")).setNull(1);
            ((VarCharVector) st.getChild("z")).setSafe(1, utf8("y"));

            MapVector m = (MapVector) root.getVector("m");
            StructVector entries = (StructVector) m.getDataVector();
            int ms = m.startNewValue(0);
            entries.setIndexDefined(ms);
            ((VarCharVector) entries.getChild("key")).setSafe(ms, utf8("one"));
            ((IntVector) entries.getChild("value")).setSafe(ms, 1);
            entries.setIndexDefined(ms + 1);
            ((VarCharVector) entries.getChild("key")).setSafe(ms + 1, utf8("none"));
            ((IntVector) entries.getChild("value")).setNull(ms + 1);
            m.endValue(0, 2);
            m.startNewValue(1);
            m.endValue(1, 0);

            ListVector lst = (ListVector) root.getVector("ls_st");
            StructVector lstStruct = (StructVector) lst.getDataVector();
            ListVector inner = (ListVector) lstStruct.getChild("x");
            VarCharVector innerData = (VarCharVector) inner.getDataVector();
            int o = lst.startNewValue(0);
            lstStruct.setIndexDefined(o);
            int io = inner.startNewValue(o);
            innerData.setSafe(io, utf8("deep"));
            innerData.setSafe(io + 1, utf8("er"));
            inner.endValue(o, 2);
            lst.endValue(0, 1);
            lst.startNewValue(1);
            lst.endValue(1, 0);

            // Row 2: null in every column but the key.
            for (FieldVector v : root.getFieldVectors()) {
                if (!v.getName().equals("k")) {
                    v.setNull(2);
                }
            }
            root.setRowCount(3);

            List<FieldVector> written = root.getFieldVectors().stream().filter(v -> !flatOnly || !NESTED.contains(v.getName())).toList();
            VectorSchemaRoot view = new VectorSchemaRoot(written);
            view.setRowCount(3);
            S3Parquet.write(view).s3(TestLake.s3().client()).to("s3://" + bucket + "/types/");
        }

        List<String> columns = schema.getFields().stream().map(Field::getName).filter(n -> !n.equals("k"))
                .filter(n -> !flatOnly || !NESTED.contains(n)).toList();
        String select = String.join(", ", columns.stream().map(c -> "typeof(" + c + ") || ' ' || coalesce(CAST(" + c + " AS VARCHAR), 'NULL')").toList());
        List<List<Object>> rows = TestLake.query(bucket, "types/", "SELECT " + select + " FROM t ORDER BY k");
        Map<String, List<String>> actual = new LinkedHashMap<>();
        for (int c = 0; c < columns.size(); c++) {
            List<String> values = new ArrayList<>();
            for (List<Object> row : rows) {
                values.add((String) row.get(c));
            }
            actual.put(columns.get(c), values);
        }
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put("i8", List.of("TINYINT -128", "TINYINT 127", "TINYINT NULL"));
        expected.put("i16", List.of("SMALLINT -32768", "SMALLINT 32767", "SMALLINT NULL"));
        expected.put("i32", List.of("INTEGER -2147483648", "INTEGER 2147483647", "INTEGER NULL"));
        expected.put("i64", List.of("BIGINT -9223372036854775808", "BIGINT 9223372036854775807", "BIGINT NULL"));
        expected.put("u8", List.of("UTINYINT 0", "UTINYINT 255", "UTINYINT NULL"));
        expected.put("u16", List.of("USMALLINT 0", "USMALLINT 65535", "USMALLINT NULL"));
        expected.put("u32", List.of("UINTEGER 0", "UINTEGER 4294967295", "UINTEGER NULL"));
        expected.put("u64", List.of("UBIGINT 0", "UBIGINT 18446744073709551615", "UBIGINT NULL"));
        expected.put("f32", List.of("FLOAT 1.5", "FLOAT -0.25", "FLOAT NULL"));
        expected.put("f64", List.of("DOUBLE 3.141592653589793", "DOUBLE -1e+300", "DOUBLE NULL"));
        expected.put("b", List.of("BOOLEAN true", "BOOLEAN false", "BOOLEAN NULL"));
        expected.put("s", List.of("VARCHAR héllo, 世界", "VARCHAR ", "VARCHAR NULL"));
        expected.put("ls", List.of("VARCHAR large", "VARCHAR ü", "VARCHAR NULL"));
        expected.put("bin", List.of("BLOB \\x00\\x01\\x02\\xFF", "BLOB ", "BLOB NULL"));
        expected.put("lbin", List.of("BLOB A", "BLOB BC", "BLOB NULL"));
        expected.put("fbin", List.of("BLOB ABC", "BLOB \\x00\\x00\\x01", "BLOB NULL"));
        expected.put("d9", List.of("DECIMAL(9,2) 1234567.89", "DECIMAL(9,2) -0.01", "DECIMAL(9,2) NULL"));
        expected.put("d18", List.of("DECIMAL(18,4) 99999999999999.9999", "DECIMAL(18,4) -12345678901234.5678", "DECIMAL(18,4) NULL"));
        expected.put("d38", List.of("DECIMAL(38,10) 9999999999999999999999999999.9999999999",
                "DECIMAL(38,10) -1234567890123456789.0123456789", "DECIMAL(38,10) NULL"));
        expected.put("day", List.of("DATE 2024-01-15", "DATE 1969-12-31", "DATE NULL"));
        expected.put("dms", List.of("DATE 2024-01-15", "DATE 1969-12-31", "DATE NULL"));
        expected.put("ts_s", List.of("TIMESTAMP 2024-01-15 10:30:00", "TIMESTAMP 1969-12-31 23:59:59", "TIMESTAMP NULL"));
        expected.put("ts_ms_utc", List.of("TIMESTAMP WITH TIME ZONE 2024-01-15 10:30:00.123+00",
                "TIMESTAMP WITH TIME ZONE 1970-01-01 00:00:00+00", "TIMESTAMP WITH TIME ZONE NULL"));
        expected.put("ts_us_utc", List.of("TIMESTAMP WITH TIME ZONE 2024-01-15 10:30:00.123456+00",
                "TIMESTAMP WITH TIME ZONE 1969-12-31 23:59:59.999999+00", "TIMESTAMP WITH TIME ZONE NULL"));
        expected.put("ts_ns", List.of("TIMESTAMP 2024-01-15 10:30:00.123456", "TIMESTAMP 1970-01-01 00:00:00.000001", "TIMESTAMP NULL"));
        expected.put("li", List.of("INTEGER[] [1, NULL, 3]", "INTEGER[] []", "INTEGER[] NULL"));
        expected.put("fl", List.of("DOUBLE[] [0.5, -0.5]", "DOUBLE[] [2.0, 4.0]", "DOUBLE[] NULL"));
        expected.put("st", List.of("STRUCT(a BIGINT, z VARCHAR) {'a': 42, 'z': x}", "STRUCT(a BIGINT, z VARCHAR) {'a': NULL, 'z': y}",
                "STRUCT(a BIGINT, z VARCHAR) NULL"));
        expected.put("m", List.of("MAP(VARCHAR, INTEGER) {one=1, none=NULL}", "MAP(VARCHAR, INTEGER) {}", "MAP(VARCHAR, INTEGER) NULL"));
        expected.put("ls_st", List.of("STRUCT(x VARCHAR[])[] [{'x': [deep, er]}]", "STRUCT(x VARCHAR[])[] []", "STRUCT(x VARCHAR[])[] NULL"));
        for (String c : columns) {
            assertThat(actual.get(c)).as(c).isEqualTo(expected.get(c));
        }
        assertThat(columns).hasSize(flatOnly ? 25 : 30);
    }
}
