package io.wrangler.filter;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The domain a column's values are compared in, with the canonical form of its values and literals: {@link #SIGNED}
 * integers as {@code long} (every signed integer, unsigned up to 32 bits, booleans as 0 and 1, dates as days,
 * timestamps in the column's unit), {@link #UNSIGNED} 64-bit integers as the {@code long} of their bits, {@link #FLOAT}
 * as {@code double}, {@link #DECIMAL} as {@code BigDecimal}, {@link #BYTES} (strings as UTF-8, binary) as
 * {@code byte[]} compared unsigned. A literal of an integer domain is a {@link Bound}: a value that may lie just above
 * or below an integer (a timestamp literal finer than the column's unit, or one beyond a {@code long}), so comparisons
 * stay exact without rounding.
 */
enum Kind {
    SIGNED, UNSIGNED, FLOAT, DECIMAL, BYTES;

    /**
     * An integer-domain literal: {@code value}, or just above it ({@code bias} 1) or just below it ({@code bias} -1).
     */
    record Bound(long value, int bias) {
        /** A column value {@code v} compared with this literal, signed or unsigned. */
        int compareFrom(long v, boolean unsigned) {
            if (v != value) {
                return unsigned ? Long.compareUnsigned(v, value) : Long.compare(v, value);
            }
            return -bias;
        }

        /** The exact value, or null when the literal lies between two integers. */
        Long exact() {
            return bias == 0 ? value : null;
        }
    }

    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger ULONG_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** The domain of an Arrow type, or null when wrangler does not filter on it (nested, time of day, intervals...). */
    static Kind of(ArrowType t) {
        if (t instanceof ArrowType.Int i) {
            return !i.getIsSigned() && i.getBitWidth() == 64 ? UNSIGNED : SIGNED;
        }
        if (t instanceof ArrowType.Bool || t instanceof ArrowType.Date || t instanceof ArrowType.Timestamp) {
            return SIGNED;
        }
        if (t instanceof ArrowType.FloatingPoint f && f.getPrecision() != FloatingPointPrecision.HALF) {
            return FLOAT;
        }
        if (t instanceof ArrowType.Decimal) {
            return DECIMAL;
        }
        if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8 || t instanceof ArrowType.Binary
                || t instanceof ArrowType.LargeBinary || t instanceof ArrowType.FixedSizeBinary) {
            return BYTES;
        }
        return null;
    }

    /** What literals a column of type {@code t} takes, for messages. */
    static String accepts(ArrowType t) {
        if (t instanceof ArrowType.Int) {
            return "a Long, Integer, Short, Byte or BigInteger";
        }
        if (t instanceof ArrowType.Bool) {
            return "a Boolean";
        }
        if (t instanceof ArrowType.Date) {
            return "a LocalDate";
        }
        if (t instanceof ArrowType.Timestamp ts) {
            return ts.getTimezone() != null ? "an Instant" : "a LocalDateTime";
        }
        if (t instanceof ArrowType.FloatingPoint) {
            return "a Double or Float (or an integer a double holds exactly)";
        }
        if (t instanceof ArrowType.Decimal) {
            return "a BigDecimal, BigInteger, Long or Integer";
        }
        if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
            return "a String";
        }
        return "a byte[]";
    }

    /** The canonical literal of {@code v} for a column of type {@code t}, or null when {@code v} does not suit it. */
    static Object literal(ArrowType t, Object v) {
        if (t instanceof ArrowType.Int i) {
            BigInteger b = integer(v);
            return b == null ? null : !i.getIsSigned() && i.getBitWidth() == 64 ? unsigned(b) : signed(b);
        }
        if (t instanceof ArrowType.Bool) {
            return v instanceof Boolean b ? new Bound(b ? 1 : 0, 0) : null;
        }
        if (t instanceof ArrowType.Date d) {
            if (!(v instanceof LocalDate day)) {
                return null;
            }
            return d.getUnit() == DateUnit.DAY ? new Bound(day.toEpochDay(), 0) : timestamp(day.atStartOfDay().toInstant(ZoneOffset.UTC),
                    TimeUnit.MILLISECOND);
        }
        if (t instanceof ArrowType.Timestamp ts) {
            if (ts.getTimezone() != null) {
                return v instanceof Instant at ? timestamp(at, ts.getUnit()) : null;
            }
            return v instanceof LocalDateTime local ? timestamp(local.toInstant(ZoneOffset.UTC), ts.getUnit()) : null;
        }
        if (t instanceof ArrowType.FloatingPoint) {
            return floating(v);
        }
        if (t instanceof ArrowType.Decimal) {
            if (v instanceof BigDecimal d) {
                return d;
            }
            BigInteger b = integer(v);
            return b == null ? null : new BigDecimal(b);
        }
        if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
            return v instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : null;
        }
        if (Kind.of(t) == BYTES) {
            return v instanceof byte[] b ? b.clone() : null;
        }
        return null;
    }

    private static BigInteger integer(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return BigInteger.valueOf(((Number) v).longValue());
        }
        return v instanceof BigInteger b ? b : null;
    }

    private static Bound signed(BigInteger b) {
        if (b.compareTo(LONG_MIN) < 0) {
            return new Bound(Long.MIN_VALUE, -1);
        }
        if (b.compareTo(LONG_MAX) > 0) {
            return new Bound(Long.MAX_VALUE, 1);
        }
        return new Bound(b.longValue(), 0);
    }

    private static Bound unsigned(BigInteger b) {
        if (b.signum() < 0) {
            return new Bound(0, -1);
        }
        if (b.compareTo(ULONG_MAX) > 0) {
            return new Bound(-1L, 1);
        }
        return new Bound(b.longValue(), 0);
    }

    private static Double floating(Object v) {
        if (v instanceof Double d) {
            return d;
        }
        if (v instanceof Float f) {
            return (double) f;
        }
        BigInteger b = integer(v);
        if (b == null) {
            return null;
        }
        double d = b.doubleValue();
        return new BigDecimal(b).compareTo(new BigDecimal(d)) == 0 ? d : null;
    }

    /** An instant in a unit since the epoch, exactly: just above the floor when finer than the unit. */
    private static Bound timestamp(Instant at, TimeUnit unit) {
        long perSecond = switch (unit) {
            case SECOND -> 1;
            case MILLISECOND -> 1_000;
            case MICROSECOND -> 1_000_000;
            case NANOSECOND -> 1_000_000_000;
        };
        long nanosPerUnit = 1_000_000_000 / perSecond;
        BigInteger units = BigInteger.valueOf(at.getEpochSecond()).multiply(BigInteger.valueOf(perSecond))
                .add(BigInteger.valueOf(at.getNano() / nanosPerUnit));
        Bound b = signed(units);
        if (b.bias() == 0 && at.getNano() % nanosPerUnit != 0) {
            return new Bound(b.value(), 1);
        }
        return b;
    }

    /** Compares a canonical value of this domain ({@code Long}, {@code Double}, {@code BigDecimal}, {@code byte[]}) with a literal. */
    int compare(Object value, Object literal) {
        return switch (this) {
            case SIGNED -> ((Bound) literal).compareFrom((Long) value, false);
            case UNSIGNED -> ((Bound) literal).compareFrom((Long) value, true);
            case FLOAT -> compareDoubles((Double) value, (Double) literal);
            case DECIMAL -> ((BigDecimal) value).compareTo((BigDecimal) literal);
            case BYTES -> compareBytes((byte[]) value, (byte[]) literal);
        };
    }

    /** Compares two canonical values of this domain (statistics' min and max: never {@link Bound}s). */
    int compareValues(Object a, Object b) {
        return switch (this) {
            case SIGNED -> Long.compare((Long) a, (Long) b);
            case UNSIGNED -> Long.compareUnsigned((Long) a, (Long) b);
            case FLOAT -> compareDoubles((Double) a, (Double) b);
            case DECIMAL -> ((BigDecimal) a).compareTo((BigDecimal) b);
            case BYTES -> compareBytes((byte[]) a, (byte[]) b);
        };
    }

    /** DuckDB's order of doubles: NaN equals NaN and is above every number; -0.0 equals 0.0. */
    static int compareDoubles(double a, double b) {
        if (Double.isNaN(a)) {
            return Double.isNaN(b) ? 0 : 1;
        }
        if (Double.isNaN(b)) {
            return -1;
        }
        return a < b ? -1 : a > b ? 1 : 0;
    }

    /** Unsigned lexicographic order: the order of UTF-8 strings by code point. */
    static int compareBytes(byte[] a, byte[] b) {
        return java.util.Arrays.compareUnsigned(a, b);
    }

    /** True when {@code value} begins with {@code prefix}. */
    static boolean startsWith(byte[] value, byte[] prefix) {
        return value.length >= prefix.length && java.util.Arrays.equals(value, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** The canonical value of row {@code i} of {@code v} (not null there), in this domain. */
    static Object value(FieldVector v, int i) {
        if (v instanceof BaseIntVector n) {
            return n.getValueAsLong(i);
        }
        if (v instanceof BitVector b) {
            return (long) b.get(i);
        }
        if (v instanceof DateDayVector d) {
            return (long) d.get(i);
        }
        if (v instanceof DateMilliVector d) {
            return d.get(i);
        }
        if (v instanceof TimeStampVector ts) {
            return ts.get(i);
        }
        if (v instanceof Float8Vector f) {
            return f.get(i);
        }
        if (v instanceof Float4Vector f) {
            return (double) f.get(i);
        }
        if (v instanceof DecimalVector d) {
            return d.getObject(i);
        }
        if (v instanceof Decimal256Vector d) {
            return d.getObject(i);
        }
        if (v instanceof VarCharVector s) {
            return s.get(i);
        }
        if (v instanceof VarBinaryVector b) {
            return b.get(i);
        }
        if (v instanceof FixedSizeBinaryVector b) {
            return b.get(i);
        }
        if (v instanceof LargeVarCharVector s) {
            return s.get(i);
        }
        if (v instanceof LargeVarBinaryVector b) {
            return b.get(i);
        }
        throw new IllegalStateException("no row filter on a column of " + v.getClass().getSimpleName());
    }
}
