package io.wrangler.input;

import io.wrangler.hive.HiveTypes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Casts are the widenings a write applies to reach the types a table already has or that {@code dtype} asks for: a
 * narrower integer to a wider one, an integer to a decimal with as many digits before its point (an unsigned 64-bit
 * integer, which has no Hive type of its own, to {@code decimal(20,0)}), float16 to float and float to double, a decimal
 * to a wider decimal of the same scale, at any depth inside structs, lists and maps. Each keeps every value exactly; anything else (a narrowing, a change of kind, a date to a
 * timestamp, whose time zone the table does not say) is refused with the column path and both types.
 */
public final class Casts {
    private Casts() {
    }

    /** A cast refused: the column path, its type in the input and the type asked for. */
    public static final class Refused extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        public final String path;
        public final String from;
        public final String to;

        Refused(String path, String from, String to) {
            super("the column '" + path + "' is " + from + " in this write, which does not widen to " + to + " without losing values");
            this.path = path;
            this.from = from;
            this.to = to;
        }
    }

    /**
     * The field {@code from} becomes to take the types of {@code to} (names and nullability of {@code from} kept), or null
     * when nothing changes (the Hive types are equal).
     *
     * @throws Refused when a part of {@code from} does not widen to {@code to}
     */
    public static Field plan(Field from, Field to, String path) {
        // describe, not of: a part without a Hive type (uint64, float16) is never equal to one, and is cast if it widens
        if (HiveTypes.describe(from).equalsIgnoreCase(HiveTypes.describe(to))) {
            return null;
        }
        ArrowType a = from.getType();
        ArrowType b = to.getType();
        if (a instanceof ArrowType.Struct && b instanceof ArrowType.Struct && from.getChildren().size() == to.getChildren().size()) {
            List<Field> children = new ArrayList<>();
            for (int i = 0; i < from.getChildren().size(); i++) {
                Field fc = from.getChildren().get(i);
                Field tc = to.getChildren().get(i);
                if (!fc.getName().toLowerCase(Locale.ROOT).equals(tc.getName().toLowerCase(Locale.ROOT))) {
                    throw new Refused(path, HiveTypes.describe(from), HiveTypes.describe(to));
                }
                Field c = plan(fc, tc, path + "." + fc.getName());
                children.add(c == null ? fc : c);
            }
            return new Field(from.getName(), from.getFieldType(), children);
        }
        if ((a instanceof ArrowType.List || a instanceof ArrowType.FixedSizeList) && b instanceof ArrowType.List) {
            Field element = from.getChildren().get(0);
            Field c = plan(element, to.getChildren().get(0), path + ".element");
            // A fixed-size list becomes a list (Glue's array), its element cast.
            return new Field(from.getName(), new FieldType(from.isNullable(), ArrowType.List.INSTANCE, null, from.getMetadata()),
                    List.of(c == null ? element : c));
        }
        if (a instanceof ArrowType.Map && b instanceof ArrowType.Map) {
            Field entries = from.getChildren().get(0);
            Field toEntries = to.getChildren().get(0);
            Field k = plan(entries.getChildren().get(0), toEntries.getChildren().get(0), path + ".key");
            Field v = plan(entries.getChildren().get(1), toEntries.getChildren().get(1), path + ".value");
            Field newEntries = new Field(entries.getName(), entries.getFieldType(),
                    List.of(k == null ? entries.getChildren().get(0) : k, v == null ? entries.getChildren().get(1) : v));
            return new Field(from.getName(), from.getFieldType(), List.of(newEntries));
        }
        if (widens(a, b)) {
            return new Field(from.getName(), new FieldType(from.isNullable(), b, null, from.getMetadata()), null);
        }
        throw new Refused(path, HiveTypes.describe(from), HiveTypes.describe(to));
    }

    private static boolean widens(ArrowType a, ArrowType b) {
        if (a instanceof ArrowType.Int x && b instanceof ArrowType.Int y) {
            // An unsigned integer needs a signed one of twice its width (Glue's uint8 is a smallint already).
            return y.getIsSigned() && y.getBitWidth() > x.getBitWidth() && (x.getIsSigned() || y.getBitWidth() >= 2 * x.getBitWidth());
        }
        if (a instanceof ArrowType.Int x && b instanceof ArrowType.Decimal y) {
            // a decimal with as many digits before its point as the integer's widest value (uint64: decimal(20,0))
            return y.getBitWidth() == 128 && y.getPrecision() - y.getScale() >= digits(x);
        }
        if (a instanceof ArrowType.FloatingPoint x && b instanceof ArrowType.FloatingPoint y) {
            return x.getPrecision().ordinal() < y.getPrecision().ordinal(); // HALF < SINGLE < DOUBLE, each exact in the next
        }
        if (a instanceof ArrowType.Decimal x && b instanceof ArrowType.Decimal y) {
            return x.getScale() == y.getScale() && y.getPrecision() > x.getPrecision() && y.getBitWidth() == 128;
        }
        return false;
    }

    /** The decimal digits of the widest value of an integer type (int64: 19, uint64: 20). */
    private static int digits(ArrowType.Int t) {
        return switch (t.getBitWidth()) {
            case 8 -> 3;
            case 16 -> 5;
            case 32 -> 10;
            default -> t.getIsSigned() ? 19 : 20;
        };
    }

    /** A new vector of {@code target}'s type holding the first {@code rows} values of {@code from}, widened. */
    public static FieldVector cast(FieldVector from, Field target, int rows, BufferAllocator allocator) {
        FieldVector to = target.createVector(allocator);
        try {
            to.allocateNew();
            copy(from, to, rows);
            return to;
        } catch (RuntimeException e) {
            to.close();
            throw e;
        }
    }

    private static void copy(FieldVector from, FieldVector to, int n) {
        while (to.getValueCapacity() < n) {
            to.reAlloc();
        }
        if (from instanceof StructVector s && to instanceof StructVector t) {
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    t.setNull(i);
                } else {
                    t.setIndexDefined(i);
                }
            }
            List<FieldVector> sc = s.getChildrenFromFields();
            List<FieldVector> tc = t.getChildrenFromFields();
            for (int c = 0; c < sc.size(); c++) {
                copy(sc.get(c), tc.get(c), n);
            }
            t.setValueCount(n);
        } else if (from instanceof ListVector s && to instanceof ListVector t) { // a MapVector is a ListVector
            // The offsets are kept as they are (a null list may span child values), so the child is copied whole.
            for (int i = 0; i <= n; i++) {
                t.getOffsetBuffer().setInt(4L * i, n == 0 ? 0 : s.getOffsetBuffer().getInt(4L * i));
            }
            for (int i = 0; i < n; i++) {
                BitVectorHelper.setValidityBit(t.getValidityBuffer(), i, s.isNull(i) ? 0 : 1);
            }
            int children = n == 0 ? 0 : s.getOffsetBuffer().getInt(4L * n);
            copy(s.getDataVector(), t.getDataVector(), children);
            t.setLastSet(n - 1);
            t.setValueCount(n);
        } else if (from instanceof FixedSizeListVector s && to instanceof ListVector t) {
            int size = s.getListSize();
            for (int i = 0; i <= n; i++) {
                t.getOffsetBuffer().setInt(4L * i, i * size);
            }
            for (int i = 0; i < n; i++) {
                BitVectorHelper.setValidityBit(t.getValidityBuffer(), i, s.isNull(i) ? 0 : 1);
            }
            copy(s.getDataVector(), t.getDataVector(), n * size);
            t.setLastSet(n - 1);
            t.setValueCount(n);
        } else if (from.getField().getType().equals(to.getField().getType())) {
            for (int i = 0; i < n; i++) {
                to.copyFromSafe(i, i, from);
            }
            to.setValueCount(n);
        } else if (from instanceof BaseIntVector && to instanceof DecimalVector t) {
            int scale = t.getScale();
            for (int i = 0; i < n; i++) {
                if (from.isNull(i)) {
                    t.setNull(i);
                } else {
                    long v = integer(from, i);
                    BigInteger unscaled = from instanceof UInt8Vector ? new BigInteger(Long.toUnsignedString(v)) : BigInteger.valueOf(v);
                    t.setSafe(i, new BigDecimal(unscaled).setScale(scale));
                }
            }
            t.setValueCount(n);
        } else if (to instanceof BaseIntVector t) {
            for (int i = 0; i < n; i++) {
                if (from.isNull(i)) {
                    to.setNull(i);
                } else {
                    t.setWithPossibleTruncate(i, integer(from, i));
                }
            }
            to.setValueCount(n);
        } else if (from instanceof Float4Vector s && to instanceof Float8Vector t) {
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    t.setNull(i);
                } else {
                    t.setSafe(i, s.get(i));
                }
            }
            t.setValueCount(n);
        } else if (from instanceof Float2Vector s && to instanceof Float4Vector t) {
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    t.setNull(i);
                } else {
                    t.setSafe(i, s.getValueAsFloat(i));
                }
            }
            t.setValueCount(n);
        } else if (from instanceof Float2Vector s && to instanceof Float8Vector t) {
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    t.setNull(i);
                } else {
                    t.setSafe(i, s.getValueAsDouble(i));
                }
            }
            t.setValueCount(n);
        } else if (from instanceof DecimalVector s && to instanceof DecimalVector t) {
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    t.setNull(i);
                } else {
                    t.setSafe(i, s.getObject(i));
                }
            }
            t.setValueCount(n);
        } else {
            throw new IllegalStateException("no cast from " + from.getField() + " to " + to.getField());
        }
    }

    private static long integer(FieldVector v, int i) {
        if (v instanceof UInt1Vector u) {
            return u.getObjectNoOverflow(i);
        }
        if (v instanceof UInt2Vector u) {
            return u.get(i);
        }
        if (v instanceof UInt4Vector u) {
            return u.getObjectNoOverflow(i);
        }
        return ((BaseIntVector) v).getValueAsLong(i);
    }
}
