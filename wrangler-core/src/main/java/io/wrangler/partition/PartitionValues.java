package io.wrangler.partition;

import io.wrangler.hive.HivePaths;
import io.wrangler.input.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** PartitionValues renders one row's value of a partition column as the text of its path segment. */
public final class PartitionValues {
    private static final Set<ArrowType.ArrowTypeID> ALLOWED = Set.of(ArrowType.ArrowTypeID.Utf8, ArrowType.ArrowTypeID.LargeUtf8,
            ArrowType.ArrowTypeID.Int, ArrowType.ArrowTypeID.Bool, ArrowType.ArrowTypeID.Date,
            ArrowType.ArrowTypeID.Timestamp, ArrowType.ArrowTypeID.Decimal);

    private PartitionValues() {
    }

    /** True when a column of this type may be a partition column: string, integer, boolean, date, timestamp, decimal. */
    public static boolean allowed(Field field) {
        return ALLOWED.contains(field.getType().getTypeID());
    }

    /** The row's value as path text, or null for a null or empty value (the default partition). */
    public static String render(FieldVector v, int row) {
        if (v.isNull(row)) {
            return null;
        }
        String s;
        if (v instanceof VarCharVector x) {
            s = text(v, row, x.get(row));
        } else if (v instanceof LargeVarCharVector x) {
            s = text(v, row, x.get(row));
        } else if (v instanceof IntVector x) {
            s = Integer.toString(x.get(row));
        } else if (v instanceof BigIntVector x) {
            s = Long.toString(x.get(row));
        } else if (v instanceof SmallIntVector x) {
            s = Short.toString(x.get(row));
        } else if (v instanceof TinyIntVector x) {
            s = Byte.toString(x.get(row));
        } else if (v instanceof UInt1Vector x) {
            s = Integer.toString(x.get(row) & 0xFF);
        } else if (v instanceof UInt2Vector x) {
            s = Integer.toString(x.get(row));
        } else if (v instanceof UInt4Vector x) {
            s = Integer.toUnsignedString(x.get(row));
        } else if (v instanceof UInt8Vector x) {
            s = Long.toUnsignedString(x.get(row));
        } else if (v instanceof BitVector x) {
            s = x.get(row) == 1 ? "true" : "false";
        } else if (v instanceof DateDayVector x) {
            s = HivePaths.date(x.get(row));
        } else if (v instanceof DateMilliVector x) {
            s = HivePaths.date(Math.floorDiv(x.get(row), 86_400_000L));
        } else if (v instanceof TimeStampVector x) {
            long t = x.get(row);
            TimeUnit unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
            s = switch (unit) {
                case SECOND -> HivePaths.timestamp(t, 0);
                case MILLISECOND -> HivePaths.timestamp(Math.floorDiv(t, 1_000L), (int) Math.floorMod(t, 1_000L) * 1_000_000);
                case MICROSECOND -> HivePaths.timestamp(Math.floorDiv(t, 1_000_000L), (int) Math.floorMod(t, 1_000_000L) * 1_000);
                case NANOSECOND -> HivePaths.timestamp(Math.floorDiv(t, 1_000_000_000L), (int) Math.floorMod(t, 1_000_000_000L));
            };
        } else if (v instanceof DecimalVector x) {
            s = HivePaths.decimal(x.getObject(row));
        } else if (v instanceof Decimal256Vector x) {
            s = HivePaths.decimal(x.getObject(row));
        } else {
            throw new IllegalArgumentException("not a partition column type: " + v.getField().getType());
        }
        return s.isEmpty() ? null : s;
    }

    /**
     * The bytes as text, refused when they are not UTF-8: decoding would replace bad bytes by U+FFFD, and two different
     * values would share one partition.
     */
    private static String text(FieldVector v, int row, byte[] bytes) {
        int bad = Utf8.firstInvalid(bytes);
        if (bad >= 0) {
            throw new IllegalArgumentException("partition column '" + v.getName() + "' holds a value that is not valid UTF-8 (byte "
                    + String.format("%02X", bytes[bad] & 0xFF) + " at byte " + bad + ") at row " + row + " of its batch: decode the "
                    + "source text with its real charset; a folder name must be text");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Why a rendered value cannot name a folder, or null if it can: a {@code .} or {@code ..} path segment
     * (after splitting on {@code /} and {@code \}) looks like a path traversal to tools that unescape paths; a NUL
     * character is not escaped by Hive's rules, and no S3 key that those tools read back can hold it.
     */
    public static String refusal(String value) {
        if (value == null) {
            return null;
        }
        if (value.indexOf('\u0000') >= 0) {
            return "it contains the character U+0000 (NUL), which Hive, Spark and Athena do not escape in paths and which cannot be "
                    + "part of an S3 key that those tools read back";
        }
        for (String segment : value.split("[/\\\\]", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return "it contains the path segment '" + segment + "', which tools that unescape partition paths read as a "
                        + "directory traversal";
            }
        }
        return null;
    }
}
