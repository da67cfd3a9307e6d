package io.wrangler;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * ArrowValues fills Arrow vectors from plain Java values and reads back what DuckDB returns in the same plain form, so
 * that a test compares what it wrote with what an independent reader sees, value by value.
 *
 * <p>The plain form of a value: null; Long for every integer (an unsigned 64-bit one as its bits), Float, Double,
 * Boolean, String, byte[] (binaries), BigDecimal (of the column's scale), Long days for dates, Long in the written unit
 * for timestamps (see {@link #writtenUnit}); a java.util.List for lists, a List of the fields' values for structs and a
 * List of two-element Lists (key, value) for maps. Timestamps, dates and binaries are compared through {@link #plainSql}.
 */
final class ArrowValues {
    private ArrowValues() {
    }

    /** Fills {@code root} with {@code rows} (each a List of the columns' values) and sets its row count. */
    static void fill(VectorSchemaRoot root, List<List<Object>> rows) {
        root.allocateNew();
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < root.getFieldVectors().size(); c++) {
                set(root.getVector(c), r, rows.get(r).get(c));
            }
        }
        root.setRowCount(rows.size());
    }

    /** Sets slot {@code i} of {@code v} to the plain value {@code o}. */
    @SuppressWarnings("unchecked")
    static void set(FieldVector v, int i, Object o) {
        if (o == null) {
            if (v instanceof ListVector l) {
                l.setNull(i);
            } else if (v instanceof LargeListVector l) {
                l.setNull(i);
            } else if (v instanceof FixedSizeListVector l) {
                l.setNull(i);
                for (int k = 0; k < l.getListSize(); k++) {
                    ensure(l.getDataVector(), i * l.getListSize() + k);
                }
            } else if (v instanceof StructVector s) {
                s.setNull(i);
                for (FieldVector c : s.getChildrenFromFields()) {
                    ensure(c, i);
                }
            } else if (v instanceof BaseFixedWidthVector f) {
                while (f.getValueCapacity() <= i) {
                    f.reAlloc();
                }
                f.setNull(i);
            } else {
                v.setNull(i);
            }
            return;
        }
        if (v instanceof MapVector m) {
            List<List<Object>> entries = (List<List<Object>>) o;
            int start = m.startNewValue(i);
            StructVector kv = (StructVector) m.getDataVector();
            for (int j = 0; j < entries.size(); j++) {
                kv.setIndexDefined(start + j);
                set((FieldVector) kv.getChildByOrdinal(0), start + j, entries.get(j).get(0));
                set((FieldVector) kv.getChildByOrdinal(1), start + j, entries.get(j).get(1));
            }
            m.endValue(i, entries.size());
        } else if (v instanceof ListVector l) {
            List<Object> items = (List<Object>) o;
            int start = l.startNewValue(i);
            for (int j = 0; j < items.size(); j++) {
                set(l.getDataVector(), start + j, items.get(j));
            }
            l.endValue(i, items.size());
        } else if (v instanceof LargeListVector l) {
            List<Object> items = (List<Object>) o;
            long start = l.startNewValue(i);
            for (int j = 0; j < items.size(); j++) {
                set(l.getDataVector(), Math.toIntExact(start + j), items.get(j));
            }
            l.endValue(i, items.size());
        } else if (v instanceof FixedSizeListVector l) {
            List<Object> items = (List<Object>) o;
            l.setNotNull(i);
            for (int j = 0; j < items.size(); j++) {
                set(l.getDataVector(), i * l.getListSize() + j, items.get(j));
            }
        } else if (v instanceof StructVector s) {
            List<Object> fields = (List<Object>) o;
            s.setIndexDefined(i);
            for (int k = 0; k < fields.size(); k++) {
                set((FieldVector) s.getChildByOrdinal(k), i, fields.get(k));
            }
        } else if (v instanceof TinyIntVector x) {
            x.setSafe(i, (byte) (long) (Long) o);
        } else if (v instanceof SmallIntVector x) {
            x.setSafe(i, (short) (long) (Long) o);
        } else if (v instanceof IntVector x) {
            x.setSafe(i, (int) (long) (Long) o);
        } else if (v instanceof BigIntVector x) {
            x.setSafe(i, (Long) o);
        } else if (v instanceof UInt1Vector x) {
            x.setSafe(i, (int) (long) (Long) o);
        } else if (v instanceof UInt2Vector x) {
            x.setSafe(i, (int) (long) (Long) o);
        } else if (v instanceof UInt4Vector x) {
            x.setSafe(i, (int) (long) (Long) o);
        } else if (v instanceof UInt8Vector x) {
            x.setSafe(i, (Long) o);
        } else if (v instanceof Float4Vector x) {
            x.setSafe(i, (Float) o);
        } else if (v instanceof Float8Vector x) {
            x.setSafe(i, (Double) o);
        } else if (v instanceof BitVector x) {
            x.setSafe(i, (Boolean) o ? 1 : 0);
        } else if (v instanceof VarCharVector x) {
            x.setSafe(i, o instanceof byte[] b ? b : ((String) o).getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof LargeVarCharVector x) {
            x.setSafe(i, o instanceof byte[] b ? b : ((String) o).getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof VarBinaryVector x) {
            x.setSafe(i, (byte[]) o);
        } else if (v instanceof LargeVarBinaryVector x) {
            x.setSafe(i, (byte[]) o);
        } else if (v instanceof FixedSizeBinaryVector x) {
            x.setSafe(i, (byte[]) o);
        } else if (v instanceof DecimalVector x) {
            x.setSafe(i, (BigDecimal) o);
        } else if (v instanceof Decimal256Vector x) {
            x.setSafe(i, (BigDecimal) o);
        } else if (v instanceof DateDayVector x) {
            x.setSafe(i, (int) (long) (Long) o);
        } else if (v instanceof DateMilliVector x) {
            x.setSafe(i, (Long) o * 86_400_000L);
        } else if (v instanceof TimeStampVector x) {
            long value = (Long) o;
            // The plain form is in the written unit: seconds are written as milliseconds, nanoseconds (not kept) as micros.
            TimeUnit unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
            x.setSafe(i, unit == TimeUnit.SECOND ? value / 1000 : unit == TimeUnit.NANOSECOND && !KEEP_NANOS.get() ? value * 1000 : value);
        } else {
            throw new IllegalArgumentException("no plain form for " + v.getField());
        }
    }

    /** Whether nanosecond timestamps are written as nanoseconds in the current write (else microseconds). */
    static final ThreadLocal<Boolean> KEEP_NANOS = ThreadLocal.withInitial(() -> false);

    private static void ensure(FieldVector v, int i) {
        if (v instanceof BaseFixedWidthVector f) {
            while (f.getValueCapacity() <= i) {
                f.reAlloc();
            }
        }
    }

    /** The unit in which a timestamp of this type is written, hence read back: seconds become milliseconds. */
    static TimeUnit writtenUnit(ArrowType.Timestamp t, boolean keepNanos) {
        return switch (t.getUnit()) {
            case SECOND, MILLISECOND -> TimeUnit.MILLISECOND;
            case MICROSECOND -> TimeUnit.MICROSECOND;
            case NANOSECOND -> keepNanos ? TimeUnit.NANOSECOND : TimeUnit.MICROSECOND;
        };
    }

    /**
     * A DuckDB expression that turns column {@code x} of type {@code field} into the plain form: timestamps to epoch
     * integers in their written unit, dates to days, binaries to hex, maps to lists of (key, value) structs.
     */
    static String plainSql(Field field, String x, boolean keepNanos) {
        ArrowType t = field.getType();
        return switch (t.getTypeID()) {
            case Timestamp -> switch (writtenUnit((ArrowType.Timestamp) t, keepNanos)) {
                case MILLISECOND -> "epoch_ms(" + x + ")";
                case MICROSECOND -> "epoch_us(" + x + ")";
                default -> "epoch_ns(" + x + ")";
            };
            case Date -> "date_diff('day', DATE '1970-01-01', " + x + ")";
            case Binary, LargeBinary, FixedSizeBinary -> "hex(" + x + ")";
            case List, LargeList, FixedSizeList -> "list_transform(" + x + ", e" + depth(x) + " -> "
                    + plainSql(field.getChildren().get(0), "e" + depth(x), keepNanos) + ")";
            case Map -> {
                Field entries = field.getChildren().get(0);
                String e = "e" + depth(x);
                yield "list_transform(map_entries(" + x + "), " + e + " -> struct_pack(k := " + plainSql(entries.getChildren().get(0),
                        e + ".key", keepNanos) + ", v := " + plainSql(entries.getChildren().get(1), e + ".value", keepNanos) + "))";
            }
            case Struct -> {
                StringBuilder sb = new StringBuilder("CASE WHEN " + x + " IS NULL THEN NULL ELSE struct_pack(");
                for (int k = 0; k < field.getChildren().size(); k++) {
                    Field c = field.getChildren().get(k);
                    sb.append(k == 0 ? "" : ", ").append("f").append(k).append(" := ")
                            .append(plainSql(c, "struct_extract(" + x + ", '" + c.getName().replace("'", "''") + "')", keepNanos));
                }
                yield sb.append(") END").toString();
            }
            default -> x;
        };
    }

    private static int depth(String x) {
        return x.length();
    }

    /** The plain form of what DuckDB returned for a column read through {@link #plainSql}. */
    static Object fromDuck(Object o) {
        if (o == null) {
            return null;
        }
        if (o instanceof java.sql.Array a) {
            try {
                List<Object> out = new ArrayList<>();
                for (Object x : (Object[]) a.getArray()) {
                    out.add(fromDuck(x));
                }
                return out;
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        if (o instanceof java.sql.Struct st) {
            try {
                List<Object> out = new ArrayList<>();
                for (Object x : st.getAttributes()) {
                    out.add(fromDuck(x));
                }
                return out;
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        if (o instanceof Byte || o instanceof Short || o instanceof Integer) {
            return ((Number) o).longValue();
        }
        if (o instanceof java.math.BigInteger b) {
            return b.longValue();
        }
        return o;
    }

    /** The plain form of a value as {@link #plainSql} and {@link #fromDuck} render it, from the value written. */
    @SuppressWarnings("unchecked")
    static Object expected(Field field, Object value, boolean keepNanos) {
        if (value == null) {
            return null;
        }
        ArrowType t = field.getType();
        switch (t.getTypeID()) {
            case Binary, LargeBinary, FixedSizeBinary:
                return HexFormat.of().withUpperCase().formatHex((byte[]) value);
            case List, LargeList, FixedSizeList: {
                List<Object> out = new ArrayList<>();
                for (Object x : (List<Object>) value) {
                    out.add(expected(field.getChildren().get(0), x, keepNanos));
                }
                return out;
            }
            case Map: {
                Field entries = field.getChildren().get(0);
                List<Object> out = new ArrayList<>();
                for (List<Object> kv : (List<List<Object>>) value) {
                    out.add(java.util.Arrays.asList(expected(entries.getChildren().get(0), kv.get(0), keepNanos),
                            expected(entries.getChildren().get(1), kv.get(1), keepNanos)));
                }
                return out;
            }
            case Struct: {
                List<Object> out = new ArrayList<>();
                List<Object> fields = (List<Object>) value;
                for (int k = 0; k < fields.size(); k++) {
                    out.add(expected(field.getChildren().get(k), fields.get(k), keepNanos));
                }
                return out;
            }
            default:
                return value;
        }
    }

    static boolean isDate(ArrowType t) {
        return t instanceof ArrowType.Date d && d.getUnit() == DateUnit.DAY;
    }
}
