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
        Schema schema = EveryType.schema();
        String bucket = TestLake.memoryBucket();
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            EveryType.fill(root);

            List<FieldVector> written = root.getFieldVectors().stream().filter(v -> !flatOnly || !NESTED.contains(v.getName())).toList();
            VectorSchemaRoot view = new VectorSchemaRoot(written);
            view.setRowCount(3);
            S3Parquet.write(view).s3(TestLake.memory().client()).to("s3://" + bucket + "/types/");
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
