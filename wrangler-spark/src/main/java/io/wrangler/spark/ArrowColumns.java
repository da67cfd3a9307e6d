package io.wrangler.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
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
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * ArrowColumns is one column of a batch wrangler-core's reader decoded, as Spark reads a column: the Arrow vector's
 * values in Spark's representations (days, microseconds, unscaled decimals, UTF-8 bytes read in place). Not Spark's own
 * {@code ArrowColumnVector}: that one takes Spark's Arrow classes, and the jar that goes to a cluster relocates
 * wrangler's Arrow (see docs/spark.md, "wrangler-spark and the cluster's jars"), so the vectors here are never Spark's.
 * Valid until the reader loads its next batch; closing it closes nothing (the reader owns the vectors).
 */
final class ArrowColumns extends ColumnVector {
    private final ValueVector vector;
    /** Multiplier (positive) or divisor (negative) from the timestamp's unit to microseconds; 1 otherwise. */
    private final long micros;
    private final ArrowColumns[] children;

    ArrowColumns(ValueVector vector, DataType type) {
        super(type);
        this.vector = vector;
        this.micros = vector.getField().getType() instanceof ArrowType.Timestamp ts ? toMicros(ts.getUnit()) : 1;
        if (vector instanceof MapVector m) {
            StructVector entries = (StructVector) m.getDataVector();
            MapType t = (MapType) type;
            children = new ArrowColumns[] {new ArrowColumns(entries.getChildByOrdinal(0), t.keyType()),
                new ArrowColumns(entries.getChildByOrdinal(1), t.valueType())};
        } else if (vector instanceof ListVector l) {
            children = new ArrowColumns[] {new ArrowColumns(l.getDataVector(), ((ArrayType) type).elementType())};
        } else if (vector instanceof StructVector s) {
            StructType t = (StructType) type;
            children = new ArrowColumns[t.fields().length];
            for (int i = 0; i < children.length; i++) {
                children[i] = new ArrowColumns(s.getChildByOrdinal(i), t.fields()[i].dataType());
            }
        } else {
            children = new ArrowColumns[0];
        }
    }

    private static long toMicros(TimeUnit unit) {
        return switch (unit) {
            case SECOND -> 1_000_000;
            case MILLISECOND -> 1_000;
            case MICROSECOND -> 1;
            case NANOSECOND -> -1_000;
        };
    }

    @Override
    public void close() {
        // the reader owns the vectors
    }

    @Override
    public boolean hasNull() {
        return vector.getNullCount() > 0;
    }

    @Override
    public int numNulls() {
        return vector.getNullCount();
    }

    @Override
    public boolean isNullAt(int rowId) {
        return vector.isNull(rowId);
    }

    @Override
    public boolean getBoolean(int rowId) {
        return ((BitVector) vector).get(rowId) != 0;
    }

    @Override
    public byte getByte(int rowId) {
        return ((TinyIntVector) vector).get(rowId);
    }

    @Override
    public short getShort(int rowId) {
        if (vector instanceof UInt1Vector u) {
            return (short) (u.get(rowId) & 0xFF);
        }
        return ((SmallIntVector) vector).get(rowId);
    }

    @Override
    public int getInt(int rowId) {
        if (vector instanceof DateDayVector d) {
            return d.get(rowId);
        }
        if (vector instanceof UInt2Vector u) {
            return u.get(rowId);
        }
        return ((IntVector) vector).get(rowId);
    }

    @Override
    public long getLong(int rowId) {
        if (vector instanceof TimeStampVector t) {
            long v = t.get(rowId);
            return micros > 0 ? Math.multiplyExact(v, micros) : Math.floorDiv(v, -micros);
        }
        if (vector instanceof UInt4Vector u) {
            return u.get(rowId) & 0xFFFF_FFFFL;
        }
        return ((BigIntVector) vector).get(rowId);
    }

    @Override
    public float getFloat(int rowId) {
        return ((Float4Vector) vector).get(rowId);
    }

    @Override
    public double getDouble(int rowId) {
        return ((Float8Vector) vector).get(rowId);
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
        if (isNullAt(rowId)) {
            return null;
        }
        if (vector instanceof UInt8Vector u) {
            long v = u.get(rowId);
            BigInteger unsigned = v >= 0 ? BigInteger.valueOf(v) : BigInteger.valueOf(v).add(BigInteger.ONE.shiftLeft(64));
            return Decimal.apply(new BigDecimal(unsigned), precision, scale);
        }
        DecimalVector d = (DecimalVector) vector;
        if (precision <= Decimal.MAX_LONG_DIGITS()) {
            // the low 8 bytes of the 16-byte little-endian two's complement hold the whole value
            return Decimal.createUnsafe(d.getDataBuffer().getLong((long) rowId * DecimalVector.TYPE_WIDTH), precision, scale);
        }
        return Decimal.apply(d.getObject(rowId), precision, scale);
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
        if (isNullAt(rowId)) {
            return null;
        }
        BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
        int start = v.getStartOffset(rowId);
        int length = v.getValueLength(rowId);
        return UTF8String.fromAddress(null, v.getDataBuffer().memoryAddress() + start, length);
    }

    @Override
    public byte[] getBinary(int rowId) {
        if (isNullAt(rowId)) {
            return null;
        }
        if (vector instanceof FixedSizeBinaryVector f) {
            return f.get(rowId);
        }
        return ((VarBinaryVector) vector).get(rowId);
    }

    @Override
    public ColumnarArray getArray(int rowId) {
        if (isNullAt(rowId)) {
            return null;
        }
        ListVector l = (ListVector) vector;
        int start = l.getOffsetBuffer().getInt((long) rowId * ListVector.OFFSET_WIDTH);
        int end = l.getOffsetBuffer().getInt((long) (rowId + 1) * ListVector.OFFSET_WIDTH);
        return new ColumnarArray(children[0], start, end - start);
    }

    @Override
    public ColumnarMap getMap(int rowId) {
        if (isNullAt(rowId)) {
            return null;
        }
        MapVector m = (MapVector) vector;
        int start = m.getOffsetBuffer().getInt((long) rowId * MapVector.OFFSET_WIDTH);
        int end = m.getOffsetBuffer().getInt((long) (rowId + 1) * MapVector.OFFSET_WIDTH);
        return new ColumnarMap(children[0], children[1], start, end - start);
    }

    @Override
    public ColumnVector getChild(int ordinal) {
        return children[ordinal];
    }
}
