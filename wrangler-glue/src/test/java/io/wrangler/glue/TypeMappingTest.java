package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import io.wrangler.InvalidWriteException;
import io.wrangler.S3Parquet;
import io.wrangler.input.Casts;
import io.wrangler.hive.HiveTypes;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;

/**
 * The one rule from Arrow to Hive types ({@link HiveTypes#of}), over every Arrow type id and each of its units,
 * precisions and widths: the Hive type casts compare, the type the Glue table registered through the real GlueClient
 * (LocalGlue) says, and, where there is one, what DuckDB reads back from the file written; where there is none, the
 * write is refused before any object is written and no table is registered.
 */
class TypeMappingTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final GlueClient glue = Lake.glue().client();

    /** A column type, the Hive type (null: refused) and what DuckDB reads of a row holding {@link #fill}'s value. */
    private record Case(String label, Field field, String hive, String duckType, String duckValue) {
    }

    private static Field f(String name, ArrowType type, Field... children) {
        return new Field(name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
    }

    private static Field c(ArrowType type, Field... children) {
        return f("c", type, children);
    }

    private static Case ok(String label, Field field, String hive, String duckType, String duckValue) {
        return new Case(label, field, hive, duckType, duckValue);
    }

    private static Case refused(String label, Field field) {
        return new Case(label, field, null, null, null);
    }

    private static final Field INT = f("element", new ArrowType.Int(32, true));

    private static List<Case> cases() {
        Field mapEntries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null), f("value", new ArrowType.Int(32, true))));
        List<Case> cases = new ArrayList<>(List.of(
                refused("null", c(ArrowType.Null.INSTANCE)),
                ok("struct", c(ArrowType.Struct.INSTANCE, f("a", new ArrowType.Int(32, true)), f("b", ArrowType.Utf8.INSTANCE)),
                        "struct<a:int,b:string>", "STRUCT(a INTEGER, b VARCHAR)", "{'a': -7, 'b': héllo}"),
                ok("list", c(ArrowType.List.INSTANCE, INT), "array<int>", "INTEGER[]", "[-7]"),
                ok("large list", c(ArrowType.LargeList.INSTANCE, INT), "array<int>", "INTEGER[]", "[-7]"),
                ok("fixed-size list", c(new ArrowType.FixedSizeList(2), INT), "array<int>", "INTEGER[]", "[-7, -7]"),
                refused("sparse union", c(new ArrowType.Union(UnionMode.Sparse, new int[] {0}), f("i", new ArrowType.Int(32, true)))),
                refused("dense union", c(new ArrowType.Union(UnionMode.Dense, new int[] {0}), f("i", new ArrowType.Int(32, true)))),
                ok("map", new Field("c", FieldType.nullable(new ArrowType.Map(false)), List.of(mapEntries)), "map<string,int>",
                        "MAP(VARCHAR, INTEGER)", "{héllo=-7}"),
                ok("int8", c(new ArrowType.Int(8, true)), "tinyint", "TINYINT", "-7"),
                ok("int16", c(new ArrowType.Int(16, true)), "smallint", "SMALLINT", "-7"),
                ok("int32", c(new ArrowType.Int(32, true)), "int", "INTEGER", "-7"),
                ok("int64", c(new ArrowType.Int(64, true)), "bigint", "BIGINT", "-7"),
                ok("uint8", c(new ArrowType.Int(8, false)), "smallint", "UTINYINT", "255"),
                ok("uint16", c(new ArrowType.Int(16, false)), "int", "USMALLINT", "65535"),
                ok("uint32", c(new ArrowType.Int(32, false)), "bigint", "UINTEGER", "4294967295"),
                refused("uint64", c(new ArrowType.Int(64, false))),
                refused("float16", c(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF))),
                ok("float32", c(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), "float", "FLOAT", "1.5"),
                ok("float64", c(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), "double", "DOUBLE", "1.5"),
                ok("utf8", c(ArrowType.Utf8.INSTANCE), "string", "VARCHAR", "héllo"),
                refused("utf8 view", c(ArrowType.Utf8View.INSTANCE)),
                ok("large utf8", c(ArrowType.LargeUtf8.INSTANCE), "string", "VARCHAR", "héllo"),
                ok("binary", c(ArrowType.Binary.INSTANCE), "binary", "BLOB", "h\\xC3\\xA9llo"),
                refused("binary view", c(ArrowType.BinaryView.INSTANCE)),
                ok("large binary", c(ArrowType.LargeBinary.INSTANCE), "binary", "BLOB", "h\\xC3\\xA9llo"),
                ok("fixed-size binary", c(new ArrowType.FixedSizeBinary(3)), "binary", "BLOB", "\\x01\\x02\\x03"),
                ok("bool", c(ArrowType.Bool.INSTANCE), "boolean", "BOOLEAN", "true"),
                ok("decimal(9,2)", c(new ArrowType.Decimal(9, 2, 128)), "decimal(9,2)", "DECIMAL(9,2)", "-12.34"),
                ok("decimal(18,4)", c(new ArrowType.Decimal(18, 4, 128)), "decimal(18,4)", "DECIMAL(18,4)", "-12.3400"),
                ok("decimal(38,10)", c(new ArrowType.Decimal(38, 10, 128)), "decimal(38,10)", "DECIMAL(38,10)", "-12.3400000000"),
                ok("decimal256(38,2)", c(new ArrowType.Decimal(38, 2, 256)), "decimal(38,2)", "DECIMAL(38,2)", "-12.34"),
                refused("decimal256(40,2)", c(new ArrowType.Decimal(40, 2, 256))),
                ok("date day", c(new ArrowType.Date(DateUnit.DAY)), "date", "DATE", "2024-01-15"),
                ok("date milli", c(new ArrowType.Date(DateUnit.MILLISECOND)), "date", "DATE", "2024-01-15"),
                refused("interval year-month", c(new ArrowType.Interval(IntervalUnit.YEAR_MONTH))),
                refused("interval day-time", c(new ArrowType.Interval(IntervalUnit.DAY_TIME))),
                refused("interval month-day-nano", c(new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO))),
                refused("list view", c(ArrowType.ListView.INSTANCE, INT)),
                refused("large list view", c(ArrowType.LargeListView.INSTANCE, INT)),
                refused("run-end encoded", c(ArrowType.RunEndEncoded.INSTANCE,
                        new Field("run_ends", FieldType.notNullable(new ArrowType.Int(32, true)), null), f("values", new ArrowType.Int(32, true))))));
        for (TimeUnit unit : TimeUnit.values()) {
            int bits = unit == TimeUnit.SECOND || unit == TimeUnit.MILLISECOND ? 32 : 64;
            cases.add(refused("time " + unit, c(new ArrowType.Time(unit, bits))));
            cases.add(refused("duration " + unit, c(new ArrowType.Duration(unit))));
            // seconds are written as milliseconds, nanoseconds as microseconds (the value has none below them)
            cases.add(ok("timestamp " + unit, c(new ArrowType.Timestamp(unit, null)), "timestamp", "TIMESTAMP", "2024-01-15 10:30:45"));
            cases.add(ok("timestamp " + unit + " UTC", c(new ArrowType.Timestamp(unit, "UTC")), "timestamp", "TIMESTAMP WITH TIME ZONE",
                    "2024-01-15 10:30:45+00"));
        }
        return cases;
    }

    @Test
    void everyArrowTypeIdIsMapped() {
        Set<ArrowTypeID> covered = EnumSet.noneOf(ArrowTypeID.class);
        cases().forEach(c -> covered.add(c.field.getType().getTypeID()));
        assertThat(covered).isEqualTo(EnumSet.complementOf(EnumSet.of(ArrowTypeID.NONE)));
    }

    @Test
    void castsGlueAndDuckDbAgreeOnEveryArrowType() {
        List<Case> cases = cases();
        SoftAssertions soft = new SoftAssertions();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            String name = "t" + i;
            String table = "s3://" + bucket + "/" + name + "/";
            if (c.hive == null) {
                Throwable mapped = catchThrowable(() -> HiveTypes.of(c.field));
                soft.assertThat(mapped).as(c.label).isInstanceOf(HiveTypes.Unsupported.class);
                soft.assertThat(mapped).as(c.label).hasMessage(REFUSALS.getOrDefault(c.label, "column 'c' has the Arrow type " + c.field.getType()
                        + ", which no Glue type holds: cast it to a supported type"));
                // nested, the path names where it is
                Field nested = new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(c.field));
                soft.assertThat(catchThrowable(() -> HiveTypes.of(nested))).as(c.label).hasMessageStartingWith("column 's.c' ");
                soft.assertThat(catchThrowable(() -> write(c, name, table))).as(c.label).isInstanceOf(InvalidWriteException.class)
                        .hasMessageStartingWith("Cannot write " + table + " (step: validate): ");
                soft.assertThat(catchThrowable(() -> glue.getTable(b -> b.databaseName(db).name(name)))).as(c.label)
                        .isInstanceOf(EntityNotFoundException.class);
                soft.assertThat(Lake.list(bucket, name + "/")).as(c.label).isEmpty();
                continue;
            }
            soft.assertThat(HiveTypes.of(c.field)).as(c.label).isEqualTo(c.hive);
            // the casts: the Hive type read back is this type again, and a column of this type needs no cast to reach it
            Field parsed = HiveTypes.parse("c", c.hive);
            soft.assertThat(HiveTypes.of(parsed)).as(c.label).isEqualTo(c.hive);
            soft.assertThat(Casts.plan(c.field, parsed, "c")).as(c.label).isNull();
            Throwable failed = catchThrowable(() -> write(c, name, table));
            soft.assertThat(failed).as(c.label).isNull();
            if (failed != null) {
                continue;
            }
            List<Column> columns = glue.getTable(b -> b.databaseName(db).name(name)).table().storageDescriptor().columns();
            soft.assertThat(columns).as(c.label).extracting(Column::name, Column::type).containsExactly(tuple("c", c.hive));
            soft.assertThat(Lake.query(bucket, name + "/", "SELECT typeof(c), CAST(c AS VARCHAR) FROM t ORDER BY c IS NULL")).as(c.label)
                    .containsExactly(List.of(c.duckType, c.duckValue), Arrays.asList(c.duckType, null));
        }
        soft.assertAll();
    }

    /** The refusals that say more than "no Glue type holds it". */
    private static final Map<String, String> REFUSALS = Map.of(
            "null", "column 'c' has no type (Arrow null): give it a type, for example a nullable Utf8",
            "uint64", "column 'c' is an unsigned 64-bit integer, which no Glue or Athena type holds: cast it to a signed 64-bit integer if "
                    + "its values fit, or ask for decimal(20,0) with dtype, which holds every value",
            "float16", "column 'c' is a float16, which no Glue or Athena type holds: cast it to float32, or ask for float or double with dtype",
            "decimal256(40,2)", "column 'c' is decimal(40,2), but Glue, Athena and Spark hold at most 38 digits: reduce the precision to 38 "
                    + "or less");

    @Test
    void anUnsigned64BitColumnIsRegisteredAsDecimal2000WhenDtypeAsksForIt() {
        // Before one rule, casts took uint64 for decimal(20,0) already and skipped the cast; Glue then refused the column.
        String table = "s3://" + bucket + "/big/";
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                c(new ArrowType.Int(64, false)))), a)) {
            root.allocateNew();
            ((UInt8Vector) root.getVector(0)).setSafe(0, -1L);
            root.setRowCount(2);
            S3Parquet.write(root).dtype(Map.of("c", "decimal(20,0)")).catalog(GlueCatalog.of(glue).table(db, "big"))
                    .s3(Lake.s3().client()).to(table);
        }
        assertThat(glue.getTable(b -> b.databaseName(db).name("big")).table().storageDescriptor().columns())
                .extracting(Column::name, Column::type).containsExactly(tuple("c", "decimal(20,0)"));
        assertThat(Lake.query(bucket, "big/", "SELECT typeof(c), CAST(c AS VARCHAR) FROM t ORDER BY c NULLS LAST"))
                .containsExactly(List.of("DECIMAL(20,0)", "18446744073709551615"), Arrays.asList("DECIMAL(20,0)", null));

        // the next append without dtype takes the table's decimal(20,0)
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                c(new ArrowType.Int(64, false)))), a)) {
            root.allocateNew();
            ((UInt8Vector) root.getVector(0)).setSafe(0, 1L << 63);
            root.setRowCount(1);
            S3Parquet.write(root).catalog(GlueCatalog.of(glue).table(db, "big")).s3(Lake.s3().client()).to(table);
        }
        assertThat(Lake.query(bucket, "big/", "SELECT CAST(c AS VARCHAR) FROM t WHERE c IS NOT NULL ORDER BY c"))
                .containsExactly(List.of("9223372036854775808"), List.of("18446744073709551615"));
    }

    @Test
    void aFloat16ColumnIsRegisteredAsDoubleWhenDtypeAsksForIt() {
        String table = "s3://" + bucket + "/half/";
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                c(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)))), a)) {
            root.allocateNew();
            ((Float2Vector) root.getVector(0)).setSafeWithPossibleTruncate(0, -2.5f);
            root.setRowCount(2);
            S3Parquet.write(root).dtype(Map.of("c", "double")).catalog(GlueCatalog.of(glue).table(db, "half")).s3(Lake.s3().client()).to(table);
        }
        assertThat(glue.getTable(b -> b.databaseName(db).name("half")).table().storageDescriptor().columns())
                .extracting(Column::name, Column::type).containsExactly(tuple("c", "double"));
        assertThat(Lake.query(bucket, "half/", "SELECT typeof(c), c FROM t ORDER BY c NULLS LAST"))
                .containsExactly(List.of("DOUBLE", -2.5), Arrays.asList("DOUBLE", null));
    }

    /** Writes one column of the case's type through Glue: its value in row 0, a null in row 1; one null for a refused type. */
    private void write(Case c, String name, String table) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(c.field)), a)) {
            root.allocateNew();
            if (c.hive != null) {
                fill(root.getVector(0), 0);
            }
            root.setRowCount(c.hive == null ? 1 : 2); // an empty append writes nothing, refuses nothing
            S3Parquet.write(root).catalog(GlueCatalog.of(glue).table(db, name)).s3(Lake.s3().client()).to(table);
        }
    }

    /** Sets row {@code row} of {@code v} to a value of its type, children included (lists get one element, fixed-size ones all). */
    private static void fill(FieldVector v, int row) {
        if (v instanceof StructVector s) {
            s.setIndexDefined(row);
            s.getChildrenFromFields().forEach(child -> fill(child, row));
        } else if (v instanceof FixedSizeListVector l) {
            l.setNotNull(row);
            for (int i = 0; i < l.getListSize(); i++) {
                fill(l.getDataVector(), row * l.getListSize() + i);
            }
        } else if (v instanceof ListVector l) { // a MapVector too: its element is the entries struct
            int at = l.startNewValue(row);
            fill(l.getDataVector(), at);
            l.endValue(row, 1);
        } else if (v instanceof LargeListVector l) {
            long at = l.startNewValue(row);
            fill(l.getDataVector(), (int) at);
            l.endValue(row, 1);
        } else if (v instanceof UInt1Vector u) {
            u.setSafe(row, 0xFF);
        } else if (v instanceof UInt2Vector u) {
            u.setSafe(row, 0xFFFF);
        } else if (v instanceof UInt4Vector u) {
            u.setSafe(row, -1);
        } else if (v instanceof UInt8Vector u) {
            u.setSafe(row, -1L);
        } else if (v instanceof BaseIntVector x) {
            x.setWithPossibleTruncate(row, -7);
        } else if (v instanceof FloatingPointVector x) {
            x.setSafeWithPossibleTruncate(row, 1.5);
        } else if (v instanceof BitVector b) {
            b.setSafe(row, 1);
        } else if (v instanceof FixedSizeBinaryVector b) {
            b.setSafe(row, new byte[] {1, 2, 3});
        } else if (v instanceof BaseVariableWidthVector b) {
            b.setSafe(row, "héllo".getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof BaseLargeVariableWidthVector b) {
            b.setSafe(row, "héllo".getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof DecimalVector d) {
            d.setSafe(row, new BigDecimal("-12.34").setScale(d.getScale()));
        } else if (v instanceof Decimal256Vector d) {
            d.setSafe(row, new BigDecimal("-12.34").setScale(d.getScale()));
        } else if (v instanceof DateDayVector d) {
            d.setSafe(row, 19_737); // 2024-01-15
        } else if (v instanceof DateMilliVector d) {
            d.setSafe(row, 19_737L * 86_400_000L);
        } else if (v instanceof TimeStampVector t) {
            long seconds = 1_705_314_645L; // 2024-01-15T10:30:45Z
            TimeUnit unit = ((ArrowType.Timestamp) t.getField().getType()).getUnit();
            t.setSafe(row, switch (unit) {
                case SECOND -> seconds;
                case MILLISECOND -> seconds * 1_000L;
                case MICROSECOND -> seconds * 1_000_000L;
                case NANOSECOND -> seconds * 1_000_000_000L;
            });
        } else {
            throw new IllegalStateException("no value for " + v.getField());
        }
    }
}
