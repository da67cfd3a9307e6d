package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class DtypeTest {
    record Inner(float x) {
    }

    record Row(String k, int n, float f, List<Inner> items) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final List<Row> rows = List.of(new Row("a", Integer.MIN_VALUE, 0.1f, List.of(new Inner(1.5f))), new Row("b", 3, -2f, List.of()));

    @Test
    void dtypeWidensTheNamedColumnsAtEveryDepth() {
        S3Parquet.write(rows).dtype(Map.of("n", "bigint", "f", "double", "items", "array<struct<x:double>>")).s3(TestLake.memory().client()).to(table);

        assertThat(TestLake.query(bucket, "t/", "SELECT typeof(k), typeof(n), typeof(f), typeof(items) FROM t LIMIT 1"))
                .containsExactly(List.of("VARCHAR", "BIGINT", "DOUBLE", "STRUCT(x DOUBLE)[]"));
        // float to double keeps the float's exact value (0.1f is 0.100000001490116...)
        assertThat(TestLake.query(bucket, "t/", "SELECT k, n, f, CAST(items AS VARCHAR) FROM t ORDER BY k")).containsExactly(
                List.of("a", (long) Integer.MIN_VALUE, (double) 0.1f, "[{'x': 1.5}]"), List.of("b", 3L, -2.0, "[]"));
    }

    @Test
    void aDtypeOfAColumnTheWriteDoesNotHaveIsRefusedBeforeAnyObjectIsWritten() {
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("nn", "bigint")).s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): dtype names the column 'nn', which this write does not have; its "
                        + "columns are [k, n, f, items]. Name the input's columns (or their names in the catalog) in dtype; nothing was "
                        + "written.");
        assertThat(TestLake.keys(bucket, "")).isEmpty();
    }

    @Test
    void aNarrowingOrALossyDtypeIsRefusedBeforeAnyObjectIsWritten() {
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("n", "smallint")).s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'n' as smallint, but 'n' is int in this "
                        + "write, which does not widen to smallint without losing values. " + WIDENINGS);
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("items", "array<struct<x:int>>")).s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'items' as array<struct<x:int>>, but "
                        + "'items.element.x' is float in this write, which does not widen to int without losing values. " + WIDENINGS);
        assertThat(TestLake.keys(bucket, "")).isEmpty();
    }

    @Test
    void aTypeStringThatIsNotAHiveTypeIsRefused() {
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("k", "varchar(3)")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dtype of 'k': 'varchar(3)' is not a Hive type wrangler writes ('varchar' is unknown; char and varchar are not "
                        + "written, use string)");
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("n", "array<int")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dtype of 'n': 'array<int' is not a Hive type ('>' expected at position 9)");
    }

    /** One row per value (null: a null) of a uint64 column {@code u}, a float16 column {@code h} and an int column {@code n}. */
    private static VectorSchemaRoot unrepresentable(BufferAllocator a) {
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("u", FieldType.nullable(new ArrowType.Int(64, false)), null),
                new Field("h", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)), null),
                new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null))), a);
        root.allocateNew();
        UInt8Vector u = (UInt8Vector) root.getVector("u");
        Float2Vector h = (Float2Vector) root.getVector("h");
        IntVector n = (IntVector) root.getVector("n");
        u.setSafe(0, -1L); // 2^64 - 1, the largest unsigned 64-bit value
        u.setSafe(1, 0L);
        u.setNull(2);
        h.setSafeWithPossibleTruncate(0, 65504f); // the largest float16
        h.setSafeWithPossibleTruncate(1, -1.5f);
        h.setNull(2);
        n.setSafe(0, Integer.MIN_VALUE);
        n.setSafe(1, 7);
        n.setNull(2);
        root.setRowCount(3);
        return root;
    }

    @Test
    void dtypeDecimal2000CastsAnUnsigned64BitColumnInsteadOfBeingIgnored() {
        // It was silently ignored: casts named uint64 decimal(20,0) already, so the column stayed an unsigned 64-bit integer.
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot all = unrepresentable(a);
             VectorSchemaRoot root = new VectorSchemaRoot(List.of(all.getVector("u")))) {
            root.setRowCount(3);
            S3Parquet.write(root).dtype(Map.of("u", "decimal(20,0)")).s3(TestLake.memory().client()).to(table);
        }

        assertThat(TestLake.query(bucket, "t/", "SELECT typeof(u), CAST(u AS VARCHAR) FROM t ORDER BY u NULLS LAST")).containsExactly(
                List.of("DECIMAL(20,0)", "0"), List.of("DECIMAL(20,0)", "18446744073709551615"), java.util.Arrays.asList("DECIMAL(20,0)", null));
    }

    @Test
    void dtypeCastsAFloat16ToFloatAndAnIntToADecimalThatHoldsIt() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = unrepresentable(a)) {
            S3Parquet.write(root).dtype(Map.of("u", "decimal(38,2)", "h", "float", "n", "decimal(12,2)")).s3(TestLake.memory().client()).to(table);
        }

        assertThat(TestLake.query(bucket, "t/", "SELECT typeof(u), typeof(h), typeof(n) FROM t LIMIT 1"))
                .containsExactly(List.of("DECIMAL(38,2)", "FLOAT", "DECIMAL(12,2)"));
        assertThat(TestLake.query(bucket, "t/", "SELECT CAST(u AS VARCHAR), h, CAST(n AS VARCHAR) FROM t ORDER BY u NULLS LAST")).containsExactly(
                List.of("0.00", -1.5f, "7.00"), List.of("18446744073709551615.00", 65504f, "-2147483648.00"),
                java.util.Arrays.asList(null, null, null));
    }

    @Test
    void aDtypeThatDoesNotHoldEveryUnsignedOrFloat16ValueIsRefusedNamingTheArrowType() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = unrepresentable(a)) {
            assertThatThrownBy(() -> S3Parquet.write(root).dtype(Map.of("u", "bigint")).s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'u' as bigint, but 'u' is uint64 in "
                            + "this write, which does not widen to bigint without losing values. " + WIDENINGS);
            assertThatThrownBy(() -> S3Parquet.write(root).dtype(Map.of("u", "decimal(19,0)")).s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'u' as decimal(19,0), but 'u' is "
                            + "uint64 in this write, which does not widen to decimal(19,0) without losing values. " + WIDENINGS);
            assertThatThrownBy(() -> S3Parquet.write(root).dtype(Map.of("h", "int")).s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'h' as int, but 'h' is float16 in "
                            + "this write, which does not widen to int without losing values. " + WIDENINGS);
            assertThatThrownBy(() -> S3Parquet.write(root).dtype(Map.of("n", "decimal(11,2)")).s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'n' as decimal(11,2), but 'n' is "
                            + "int in this write, which does not widen to decimal(11,2) without losing values. " + WIDENINGS);
        }
        assertThat(TestLake.keys(bucket, "")).isEmpty();
    }

    private static final String WIDENINGS = "Only widenings are applied (a narrower integer to a wider one or to a decimal with as many "
            + "digits before its point, float16 to float, float to double, a decimal to a wider one of the same scale): cast the column "
            + "before writing.";
}
