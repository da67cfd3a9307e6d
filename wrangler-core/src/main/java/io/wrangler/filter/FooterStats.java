package io.wrangler.filter;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.ColumnOrder;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * FooterStats reads what a Parquet footer says of a row group's columns as {@link ColumnStats} in the read's domain of
 * each column. Only what is certain is used: min and max when the file's column has the same type as the read's (unit
 * and annotation alike; a timestamp written in another unit, INT96, a float16 give none), when the file declares the
 * type-defined order for binary and unsigned columns (old writers ordered bytes signed), and when a float's bounds are
 * not NaN; null counts whenever set. A column the file lacks is all nulls. Bloom filters are asked for literals whose
 * physical value is exact (integers, dates, timestamps, strings, binary, decimals stored as integers), never floats.
 */
public final class FooterStats {
    private FooterStats() {
    }

    /**
     * The stats of each of {@code columns} (the read's name to its type) in {@code block} of a file whose schema is
     * {@code fileSchema}.
     *
     * @param blooms reads a column chunk's bloom filter (null when it has none), or null to ask none: called at most
     *     once per chunk, and only when the bounds leave the answer open
     */
    public static Function<String, ColumnStats> of(BlockMetaData block, MessageType fileSchema, Map<String, Field> columns,
                                                   Function<ColumnChunkMetaData, BloomFilter> blooms) {
        long rows = block.getRowCount();
        return name -> {
            Field want = columns.get(name);
            Type t = find(fileSchema, name);
            if (want == null) {
                return ColumnStats.unknown(rows);
            }
            if (t == null) {
                return ColumnStats.allNull(rows);
            }
            if (!t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
                return ColumnStats.unknown(rows);
            }
            ColumnChunkMetaData chunk = chunk(block, t.getName());
            if (chunk == null) {
                return ColumnStats.unknown(rows);
            }
            return stats(t.asPrimitiveType(), want.getType(), chunk, rows, blooms);
        };
    }

    private static Type find(MessageType schema, String name) {
        for (Type t : schema.getFields()) {
            if (t.getName().equals(name)) {
                return t;
            }
        }
        for (Type t : schema.getFields()) {
            if (t.getName().equalsIgnoreCase(name)) {
                return t;
            }
        }
        return null;
    }

    /** The column chunk of top-level column {@code column} in {@code block}, or null when the row group has none. */
    public static ColumnChunkMetaData chunk(BlockMetaData block, String column) {
        for (ColumnChunkMetaData c : block.getColumns()) {
            String[] path = c.getPath().toArray();
            if (path.length == 1 && path[0].equals(column)) {
                return c;
            }
        }
        return null;
    }

    private static ColumnStats stats(PrimitiveType p, ArrowType want, ColumnChunkMetaData chunk, long rows,
                                     Function<ColumnChunkMetaData, BloomFilter> blooms) {
        Statistics<?> s = chunk.getStatistics();
        long nulls = s != null && !s.isEmpty() && s.isNumNullsSet() ? s.getNumNulls() : -1;
        Function<Object, Object> decode = decoder(p, want);
        Object[] bounds = bounds(p, decode, s);
        Object min = bounds[0];
        Object max = bounds[1];
        boolean nan = nanPossible(p);
        Predicate<Object> bloom = null;
        Function<Object, Object> physical = decode == null ? null : physical(p, want);
        if (blooms != null && physical != null && chunk.getBloomFilterOffset() >= 0) {
            bloom = new Predicate<>() {
                private BloomFilter filter;
                private boolean read;

                @Override
                public synchronized boolean test(Object literal) {
                    if (!read) {
                        read = true;
                        filter = blooms.apply(chunk);
                    }
                    Object v = physical.apply(literal);
                    if (v == NO_VALUE) {
                        return false;
                    }
                    return filter == null || filter.findHash(hash(filter, v));
                }
            };
        }
        return new ColumnStats(min, max, nulls, rows, nan, bloom);
    }

    /** The min and max of {@code s} in the read's domain ({@code decode}), each null where unknown or not certain. */
    private static Object[] bounds(PrimitiveType p, Function<Object, Object> decode, Statistics<?> s) {
        Object min = null;
        Object max = null;
        boolean orderKnown = p.columnOrder() != null && p.columnOrder().getColumnOrderName() == ColumnOrder.ColumnOrderName.TYPE_DEFINED_ORDER;
        boolean needsOrder = p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BINARY
                || p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || unsigned(p);
        if (decode != null && s != null && !s.isEmpty() && s.hasNonNullValue() && (orderKnown || !needsOrder)) {
            min = decode.apply(s.genericGetMin());
            max = decode.apply(s.genericGetMax());
            if (min instanceof Double d && Double.isNaN(d) || max instanceof Double e && Double.isNaN(e)) {
                min = null;
                max = null;
            }
        }
        return new Object[] {min, max};
    }

    private static boolean nanPossible(PrimitiveType p) {
        return p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FLOAT
                || p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.DOUBLE;
    }

    /**
     * The file's column that the read's {@code name} is (its name exactly, else in any case), when it is flat (primitive,
     * not repeated); else null.
     */
    public static PrimitiveType flatColumn(MessageType fileSchema, String name) {
        Type t = find(fileSchema, name);
        return t != null && t.isPrimitive() && !t.isRepetition(Type.Repetition.REPEATED) ? t.asPrimitiveType() : null;
    }

    /**
     * What a page's entry of a column index says of {@code rows} rows in it (all of the page's, or some): its bounds
     * ({@code min} and {@code max} as the column index stores them, read with the same care as a chunk's statistics),
     * and {@code nulls} (-1: unknown). Bloom filters are per chunk: none here.
     *
     * @param want the read's type of the column
     */
    public static ColumnStats page(PrimitiveType p, ArrowType want, byte[] min, byte[] max, long nulls, long rows) {
        Statistics<?> s = Statistics.getBuilderForReading(p).withMin(min).withMax(max).build();
        Object[] bounds = bounds(p, decoder(p, want), s);
        return new ColumnStats(bounds[0], bounds[1], nulls, rows, nanPossible(p), null);
    }

    private static boolean unsigned(PrimitiveType p) {
        return p.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && !i.isSigned();
    }

    /**
     * The converter of the column's statistics values (Integer, Long, Float, Double, Boolean, Binary) to the read's
     * canonical domain, or null when the file's type is not exactly the read's.
     */
    private static Function<Object, Object> decoder(PrimitiveType p, ArrowType want) {
        LogicalTypeAnnotation ann = p.getLogicalTypeAnnotation();
        switch (p.getPrimitiveTypeName()) {
            case BOOLEAN:
                return want instanceof ArrowType.Bool ? v -> (Boolean) v ? 1L : 0L : null;
            case INT32:
                if (ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
                    return want instanceof ArrowType.Decimal ? v -> BigDecimal.valueOf((Integer) v, d.getScale()) : null;
                }
                if (ann instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
                    return want instanceof ArrowType.Date w && w.getUnit() == DateUnit.DAY ? v -> (long) (Integer) v : null;
                }
                if (ann == null || ann instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation) {
                    if (!(want instanceof ArrowType.Int) || Kind.of(want) != Kind.SIGNED) {
                        return null;
                    }
                    return unsigned(p) ? v -> Integer.toUnsignedLong((Integer) v) : v -> (long) (Integer) v;
                }
                return null;
            case INT64:
                return int64(ann, want);
            case FLOAT:
            case DOUBLE:
                return want instanceof ArrowType.FloatingPoint && ann == null ? v -> ((Number) v).doubleValue() : null;
            case BINARY:
            case FIXED_LEN_BYTE_ARRAY:
                if (ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
                    return want instanceof ArrowType.Decimal ? v -> new BigDecimal(new BigInteger(((Binary) v).getBytes()), d.getScale()) : null;
                }
                if (Kind.of(want) != Kind.BYTES || ann instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation) {
                    return null;
                }
                return v -> ((Binary) v).getBytes();
            default:
                return null; // INT96: its statistics order nothing
        }
    }

    private static Function<Object, Object> int64(LogicalTypeAnnotation ann, ArrowType want) {
        if (ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
            return want instanceof ArrowType.Decimal ? v -> BigDecimal.valueOf((Long) v, d.getScale()) : null;
        }
        if (ann instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
            TimeUnit unit = switch (ts.getUnit()) {
                case MILLIS -> TimeUnit.MILLISECOND;
                case MICROS -> TimeUnit.MICROSECOND;
                case NANOS -> TimeUnit.NANOSECOND;
            };
            return want instanceof ArrowType.Timestamp w && w.getUnit() == unit ? v -> (Long) v : null;
        }
        if (ann == null || ann instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation) {
            boolean unsigned = ann instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && !i.isSigned();
            Kind k = Kind.of(want);
            return want instanceof ArrowType.Int && (unsigned ? k == Kind.UNSIGNED : k == Kind.SIGNED) ? v -> (Long) v : null;
        }
        return null;
    }

    /** The converter of a canonical literal to the value a bloom filter hashes, or null when it has no exact one. */
    private static Function<Object, Object> physical(PrimitiveType p, ArrowType want) {
        LogicalTypeAnnotation ann = p.getLogicalTypeAnnotation();
        boolean decimal = ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
        switch (p.getPrimitiveTypeName()) {
            case INT32:
                if (decimal) {
                    int scale = ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) ann).getScale();
                    return lit -> unscaled(lit, scale, 32);
                }
                return lit -> {
                    Long v = ((Kind.Bound) lit).exact();
                    boolean fits = v != null && (unsigned(p) ? v >= 0 && v <= 0xFFFFFFFFL : v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE);
                    return fits ? (Object) (int) (long) v : NO_VALUE;
                };
            case INT64:
                if (decimal) {
                    int scale = ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) ann).getScale();
                    return lit -> unscaled(lit, scale, 64);
                }
                return lit -> {
                    Long v = ((Kind.Bound) lit).exact();
                    return v == null ? NO_VALUE : (Object) v;
                };
            case BINARY:
                return decimal ? null : lit -> Binary.fromConstantByteArray((byte[]) lit);
            case FIXED_LEN_BYTE_ARRAY:
                return decimal ? null : lit -> ((byte[]) lit).length == p.getTypeLength() ? Binary.fromConstantByteArray((byte[]) lit) : NO_VALUE;
            default:
                return null;
        }
    }

    /** A literal no value of the column can equal: a bloom filter need not be asked, the answer is no. */
    private static final Object NO_VALUE = new Object();

    private static Object unscaled(Object lit, int scale, int bits) {
        BigDecimal d = (BigDecimal) lit;
        BigInteger u;
        try {
            u = d.setScale(scale).unscaledValue();
        } catch (ArithmeticException e) {
            return NO_VALUE; // more digits than the column's scale: equal to no value of it
        }
        if (u.bitLength() >= bits) {
            return NO_VALUE;
        }
        return bits == 32 ? (Object) u.intValue() : (Object) u.longValue();
    }

    private static long hash(BloomFilter f, Object v) {
        if (v instanceof Integer i) {
            return f.hash(i.intValue());
        }
        if (v instanceof Long l) {
            return f.hash(l.longValue());
        }
        return f.hash((Binary) v);
    }
}
