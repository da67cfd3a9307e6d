package io.wrangler.read;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * ParquetArrow maps Parquet types to Arrow fields, and builds the parquet-java converters that decode a file's values
 * straight into Arrow vectors: the inverse of {@code io.wrangler.encoding.ArrowSchemas}. Integers keep their width and
 * signedness, decimals their precision and scale (256-bit above 38 digits), timestamps their unit and their zone
 * ({@code UTC} when adjusted to UTC), INT96 becomes nanoseconds; lists and maps in the standard three-level form,
 * structs, to any depth. Every field is nullable except map keys.
 */
final class ParquetArrow {
    private ParquetArrow() {
    }

    /** Thrown for a Parquet type with no Arrow mapping here; the message names the column. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String message) {
            super(message);
        }
    }

    /**
     * The name of a list's element field, whatever the file calls it ({@code element}, pyarrow's older {@code item},
     * {@code array}): Parquet's LIST spec names it {@code element}, and wrangler writes that name.
     */
    static final String ELEMENT = "element";

    static Field field(Type t) {
        return field(t, t.getName(), true);
    }

    private static Field field(Type t, String name, boolean nullable) {
        if (t.isPrimitive()) {
            return new Field(name, new FieldType(nullable, arrowType(t.asPrimitiveType()), null), null);
        }
        GroupType g = t.asGroupType();
        LogicalTypeAnnotation ann = g.getLogicalTypeAnnotation();
        if (ann instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation && g.getFieldCount() == 1 && !g.getType(0).isPrimitive()
                && g.getType(0).isRepetition(Type.Repetition.REPEATED) && g.getType(0).asGroupType().getFieldCount() == 1) {
            Type element = g.getType(0).asGroupType().getType(0);
            return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null),
                    List.of(field(element, ELEMENT, !element.isRepetition(Type.Repetition.REQUIRED))));
        }
        if (ann instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation && g.getFieldCount() == 1 && !g.getType(0).isPrimitive()
                && g.getType(0).asGroupType().getFieldCount() == 2) {
            GroupType kv = g.getType(0).asGroupType();
            Field key = field(kv.getType(0), "key", false);
            Field value = field(kv.getType(1), "value", !kv.getType(1).isRepetition(Type.Repetition.REQUIRED));
            Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
            return new Field(name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
        }
        if (ann != null) {
            throw new Unsupported("the column '" + name + "' is a Parquet group annotated " + ann + ", which wrangler does not read");
        }
        List<Field> children = new ArrayList<>();
        for (Type c : g.getFields()) {
            if (c.isRepetition(Type.Repetition.REPEATED)) {
                throw new Unsupported("the field '" + c.getName() + "' of '" + name + "' is a bare repeated field (Parquet's legacy "
                        + "list form), which wrangler does not read");
            }
            children.add(field(c, c.getName(), !c.isRepetition(Type.Repetition.REQUIRED)));
        }
        return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
    }

    /** The Arrow type of an INT64 annotated {@code ann}, or null when wrangler does not read it. */
    private static ArrowType int64Type(LogicalTypeAnnotation ann) {
        if (ann instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i) {
            return new ArrowType.Int(64, i.isSigned());
        }
        if (ann instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
            TimeUnit unit = switch (ts.getUnit()) {
                case MILLIS -> TimeUnit.MILLISECOND;
                case MICROS -> TimeUnit.MICROSECOND;
                case NANOS -> TimeUnit.NANOSECOND;
            };
            return new ArrowType.Timestamp(unit, ts.isAdjustedToUTC() ? "UTC" : null);
        }
        if (ann == null) {
            return new ArrowType.Int(64, true);
        }
        return null;
    }

    private static ArrowType arrowType(PrimitiveType p) {
        LogicalTypeAnnotation ann = p.getLogicalTypeAnnotation();
        if (ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
            return new ArrowType.Decimal(d.getPrecision(), d.getScale(), d.getPrecision() > 38 ? 256 : 128);
        }
        if (p.isRepetition(Type.Repetition.REPEATED)) {
            throw new Unsupported("the column '" + p.getName() + "' is a bare repeated field (Parquet's legacy list form), which "
                    + "wrangler does not read");
        }
        switch (p.getPrimitiveTypeName()) {
            case BOOLEAN:
                return ArrowType.Bool.INSTANCE;
            case INT32:
                if (ann instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i) {
                    return new ArrowType.Int(i.getBitWidth(), i.isSigned());
                }
                if (ann instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
                    return new ArrowType.Date(DateUnit.DAY);
                }
                if (ann == null) {
                    return new ArrowType.Int(32, true);
                }
                break;
            case INT64:
                ArrowType t = int64Type(ann);
                if (t != null) {
                    return t;
                }
                break;
            case INT96:
                return new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
            case FLOAT:
                return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case DOUBLE:
                return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case BINARY:
                if (ann instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation || ann instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
                        || ann instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
                    return ArrowType.Utf8.INSTANCE;
                }
                if (ann == null) {
                    return ArrowType.Binary.INSTANCE;
                }
                break;
            case FIXED_LEN_BYTE_ARRAY:
                if (ann == null || ann instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
                    return new ArrowType.FixedSizeBinary(p.getTypeLength());
                }
                break;
            default:
                break;
        }
        throw new Unsupported("the column '" + p.getName() + "' is Parquet " + p.getPrimitiveTypeName() + " " + ann
                + ", which wrangler does not read");
    }

    // ---- converters: each writes at the index its parent gives it ----

    /** Where the next value of a vector goes: the row for a top-level column, the element for a list's. */
    interface Index {
        int get();
    }

    static Converter converter(Type t, FieldVector v, Index at) {
        if (t.isPrimitive()) {
            return primitive(t.asPrimitiveType(), v, at);
        }
        ArrowType type = v.getField().getType();
        if (type instanceof ArrowType.List || type instanceof ArrowType.Map) {
            return new ListConverter(t.asGroupType(), (ListVector) v, at);
        }
        return new StructConverter(t.asGroupType(), (StructVector) v, at);
    }

    private static final class StructConverter extends GroupConverter {
        private final StructVector v;
        private final Index at;
        private final Converter[] children;

        StructConverter(GroupType g, StructVector v, Index at) {
            this.v = v;
            this.at = at;
            this.children = new Converter[g.getFieldCount()];
            for (int i = 0; i < children.length; i++) {
                children[i] = converter(g.getType(i), (FieldVector) v.getChildrenFromFields().get(i), at);
            }
        }

        @Override
        public Converter getConverter(int i) {
            return children[i];
        }

        @Override
        public void start() {
            v.setIndexDefined(at.get());
        }

        @Override
        public void end() {
        }
    }

    /** A list or map: the outer group is the value, its repeated group one element (a map's: one key-value struct). */
    private static final class ListConverter extends GroupConverter implements Index {
        private final ListVector v;
        private final Index at;
        private final GroupConverter repeated;
        private int start;
        private int count;
        private int row;

        ListConverter(GroupType g, ListVector v, Index at) {
            this.v = v;
            this.at = at;
            GroupType rep = g.getType(0).asGroupType();
            FieldVector data = v.getDataVector();
            boolean map = v.getField().getType() instanceof ArrowType.Map;
            Converter[] inner = new Converter[rep.getFieldCount()];
            for (int i = 0; i < inner.length; i++) {
                FieldVector target = map ? (FieldVector) ((StructVector) data).getChildrenFromFields().get(i) : data;
                inner[i] = converter(rep.getType(i), target, this);
            }
            this.repeated = new GroupConverter() {
                @Override
                public Converter getConverter(int i) {
                    return inner[i];
                }

                @Override
                public void start() {
                    if (map) {
                        ((StructVector) data).setIndexDefined(start + count);
                    }
                }

                @Override
                public void end() {
                    count++;
                }
            };
        }

        @Override
        public int get() {
            return start + count;
        }

        @Override
        public Converter getConverter(int i) {
            return repeated;
        }

        @Override
        public void start() {
            row = at.get();
            start = v.startNewValue(row);
            count = 0;
        }

        @Override
        public void end() {
            v.endValue(row, count);
        }
    }

    private static PrimitiveConverter primitive(PrimitiveType p, FieldVector v, Index at) {
        ArrowType t = v.getField().getType();
        if (t instanceof ArrowType.Decimal) {
            return decimal(p, v, at);
        }
        if (p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96) {
            return int96((TimeStampVector) v, at);
        }
        if (v instanceof BitVector b) {
            return new PrimitiveConverter() {
                @Override
                public void addBoolean(boolean value) {
                    b.setSafe(at.get(), value ? 1 : 0);
                }
            };
        }
        PrimitiveConverter integer = integers(v, at);
        if (integer != null) {
            return integer;
        }
        if (v instanceof Float4Vector x) {
            return new PrimitiveConverter() {
                @Override
                public void addFloat(float value) {
                    x.setSafe(at.get(), value);
                }
            };
        }
        if (v instanceof Float8Vector x) {
            return new PrimitiveConverter() {
                @Override
                public void addDouble(double value) {
                    x.setSafe(at.get(), value);
                }
            };
        }
        if (v instanceof VarCharVector x) {
            return binaries(b -> {
                ByteBuffer bb = b.toByteBuffer();
                x.setSafe(at.get(), bb, bb.position(), bb.remaining());
            });
        }
        if (v instanceof VarBinaryVector x) {
            return binaries(b -> {
                ByteBuffer bb = b.toByteBuffer();
                x.setSafe(at.get(), bb, bb.position(), bb.remaining());
            });
        }
        if (v instanceof FixedSizeBinaryVector x) {
            return binaries(b -> x.setSafe(at.get(), b.getBytes()));
        }
        throw new Unsupported("the column '" + p.getName() + "' reads into " + v.getClass().getSimpleName() + ", which wrangler cannot fill");
    }

    /** The converter of INT96 timestamps (Julian day, nanoseconds of the day) into nanoseconds since the epoch. */
    private static PrimitiveConverter int96(TimeStampVector ts, Index at) {
        return new PrimitiveConverter() {
            @Override
            public void addBinary(Binary value) {
                ByteBuffer b = value.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                long nanosOfDay = b.getLong();
                long julianDay = b.getInt() & 0xFFFFFFFFL;
                ts.setSafe(at.get(), (julianDay - 2_440_588L) * 86_400_000_000_000L + nanosOfDay);
            }
        };
    }

    /** The converter into an integer, date or timestamp vector {@code v}, or null for another vector. */
    private static PrimitiveConverter integers(FieldVector v, Index at) {
        if (v instanceof TinyIntVector x) {
            return ints(i -> x.setSafe(at.get(), (byte) i));
        }
        if (v instanceof SmallIntVector x) {
            return ints(i -> x.setSafe(at.get(), (short) i));
        }
        if (v instanceof IntVector x) {
            return ints(i -> x.setSafe(at.get(), i));
        }
        if (v instanceof DateDayVector x) {
            return ints(i -> x.setSafe(at.get(), i));
        }
        if (v instanceof UInt1Vector x) {
            return ints(i -> x.setSafe(at.get(), (byte) i));
        }
        if (v instanceof UInt2Vector x) {
            return ints(i -> x.setSafe(at.get(), (char) i));
        }
        if (v instanceof UInt4Vector x) {
            return ints(i -> x.setSafe(at.get(), i));
        }
        if (v instanceof BigIntVector x) {
            return longs(l -> x.setSafe(at.get(), l));
        }
        if (v instanceof UInt8Vector x) {
            return longs(l -> x.setSafe(at.get(), l));
        }
        if (v instanceof TimeStampVector x) {
            return longs(l -> x.setSafe(at.get(), l));
        }
        return null;
    }

    private static PrimitiveConverter decimal(PrimitiveType p, FieldVector v, Index at) {
        return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
                addLong(value);
            }

            @Override
            public void addLong(long value) {
                if (v instanceof DecimalVector d) {
                    d.setSafe(at.get(), value);
                } else {
                    ((Decimal256Vector) v).setSafe(at.get(), value);
                }
            }

            @Override
            public void addBinary(Binary value) {
                byte[] bytes = value.getBytes();
                int width = v instanceof DecimalVector ? 16 : 32;
                if (bytes.length > width) {
                    // Wider than the vector only by sign extension: keep the low bytes.
                    bytes = Arrays.copyOfRange(bytes, bytes.length - width, bytes.length);
                }
                if (v instanceof DecimalVector d) {
                    d.setBigEndianSafe(at.get(), bytes);
                } else {
                    ((Decimal256Vector) v).setBigEndianSafe(at.get(), bytes);
                }
            }
        };
    }

    private interface IntSink {
        void accept(int value);
    }

    private interface LongSink {
        void accept(long value);
    }

    private interface BinarySink {
        void accept(Binary value);
    }

    private static PrimitiveConverter ints(IntSink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
                sink.accept(value);
            }
        };
    }

    private static PrimitiveConverter longs(LongSink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addLong(long value) {
                sink.accept(value);
            }
        };
    }

    private static PrimitiveConverter binaries(BinarySink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addBinary(Binary value) {
                sink.accept(value);
            }
        };
    }

}
