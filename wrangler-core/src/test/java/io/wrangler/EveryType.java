package io.wrangler;


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

/** Three rows of every Arrow type the library maps (row 2 null in every column but {@code k}), for the type tests. */
final class EveryType {
    static final java.util.Set<String> NESTED = java.util.Set.of("li", "fl", "st", "m", "ls_st");

    private EveryType() {
    }

    private static Field f(String name, ArrowType type, Field... children) {
        return new Field(name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Schema schema() {
        Field mapEntries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null), f("value", new ArrowType.Int(32, true))));
        return new Schema(List.of(
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

    }

    static void fill(VectorSchemaRoot root) {
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
    }
}
