package io.wrangler.input;

import io.wrangler.encoding.TimestampPolicy;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * ValueChecks checks every value of a batch against its declared type before the batch reaches the encoders, so that no
 * value is truncated, merged, corrupted or read past its vector's end, and no bad value fails a write half-way.
 *
 * <p>Checked, at every depth of nesting: each column's value count against the batch's row count (and a nested
 * column's against the offsets that point into it); offsets that run backwards or past their data; a decimal's digits
 * against its precision (Arrow's setters do not check, and the Parquet encodings by precision would keep only the low
 * bits); UTF-8 validity of strings (readers refuse a whole file over one bad string); null map keys; seconds timestamps
 * that the millisecond Parquet timestamp cannot hold; nanosecond timestamps with digits below the microsecond when
 * they are written as microseconds; date64 values that are not whole days or beyond a DATE's 32-bit days. Only values under non-null parents are looked at: what a null list
 * or struct slot holds is never written.
 *
 * <p>A failure is an {@link IllegalArgumentException} whose message names the column path (as {@code a.element.b}), the
 * input row and what to do.
 */
final class ValueChecks {
    private static final long[] POW10 = new long[19];
    /** Offsets read at a time by the bounds check of strings. */
    private static final int BLOCK = 8192;
    private static final BigInteger[] BIG_POW10 = new BigInteger[77];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
        for (int i = 0; i < BIG_POW10.length; i++) {
            BIG_POW10[i] = BigInteger.TEN.pow(i);
        }
    }

    private ValueChecks() {
    }

    /**
     * Checks every value of {@code batch}.
     *
     * @param firstRow the input row of the batch's first row (rows of earlier batches of a stream), for messages
     * @param keepNanos nanosecond timestamps are written as such; else each must be a whole number of microseconds
     */
    static void check(VectorSchemaRoot batch, long firstRow, boolean keepNanos) {
        checkCounts(batch);
        for (FieldVector v : batch.getFieldVectors()) {
            new Column(v.getName(), firstRow, keepNanos).check(v, Range.of(batch.getRowCount()));
        }
    }

    /**
     * Checks that every column holds exactly the batch's rows, and that a batch of no rows has no value set: Arrow's
     * {@code setSafe} sets a value without counting it, so a root filled with {@code setSafe} whose {@code setRowCount}
     * was never called has a row count and value counts of 0, and would otherwise be written as an empty batch.
     */
    static void checkCounts(VectorSchemaRoot batch) {
        int rows = batch.getRowCount();
        List<FieldVector> vectors = batch.getFieldVectors();
        for (FieldVector v : vectors) {
            if (rows == 0 && v.getValueCount() == 0 && holdsValues(v)) {
                throw new IllegalArgumentException("the batch's row count is 0 but its column '" + v.getName() + "' has values set "
                        + "(with setSafe, which does not count them): call setRowCount(<rows>) on the VectorSchemaRoot after filling it, "
                        + "or reset() its vectors to send a batch of no rows");
            }
            if (v.getValueCount() != rows) {
                if (rows == 0) {
                    throw new IllegalArgumentException("the batch's row count is 0 but its column '" + v.getName() + "' holds "
                            + v.getValueCount() + " values: call setRowCount(" + v.getValueCount() + ") on the VectorSchemaRoot "
                            + "after filling it (its vectors' value counts alone are not its rows)");
                }
                throw new IllegalArgumentException("the batch has " + rows + " rows but its column '" + v.getName() + "' holds "
                        + v.getValueCount() + " values: give every vector the batch's row count (VectorSchemaRoot.setRowCount "
                        + "after filling the vectors)");
            }
        }
    }

    /** True when a validity bit of {@code v} (or of a variable-width vector, a last set slot) is set: a value was set. */
    private static boolean holdsValues(FieldVector v) {
        if (v instanceof BaseVariableWidthVector w && w.getLastSet() >= 0 || v instanceof BaseLargeVariableWidthVector l && l.getLastSet() >= 0) {
            return true;
        }
        ArrowBuf validity;
        try {
            validity = v.getValidityBuffer();
        } catch (UnsupportedOperationException e) {
            return false; // a null or union vector: no validity buffer
        }
        if (validity == null) {
            return false;
        }
        long bytes = validity.capacity();
        for (long i = 0; i + 8 <= bytes; i += 8) {
            if (validity.getLong(i) != 0) {
                return true;
            }
        }
        for (long i = bytes & ~7L; i < bytes; i++) {
            if (validity.getByte(i) != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The slots of a vector to look at: {@code [from, to)} when {@code slots} is null, else the listed slots in order;
     * {@code rowOf} gives each listed slot's top-level row (null: the slot is the row).
     */
    private record Range(int from, int to, int[] slots, int[] rowOf) {
        static Range of(int rows) {
            return new Range(0, rows, null, null);
        }

        int size() {
            return slots == null ? to - from : slots.length;
        }

        int slot(int i) {
            return slots == null ? from + i : slots[i];
        }

        int row(int i) {
            return rowOf == null ? slot(i) : rowOf[i];
        }
    }

    /** Checks one vector; {@code path} is its column path, {@code firstRow} the input row of the batch's row 0. */
    private record Column(String path, long firstRow, boolean keepNanos) {
        private IllegalArgumentException bad(String what, int row, String todo) {
            return new IllegalArgumentException("column '" + path + "' " + what + " at row " + (firstRow + row) + ": " + todo);
        }

        private Column child(String name) {
            return new Column(path + "." + name, firstRow, keepNanos);
        }

        void check(FieldVector v, Range range) {
            ArrowType type = v.getField().getType();
            if (v instanceof BaseFixedWidthVector f) {
                fixedWidth(f, type, range);
            } else if (v instanceof BaseVariableWidthVector s) {
                variableWidth(s, type instanceof ArrowType.Utf8, range);
            } else if (v instanceof BaseLargeVariableWidthVector s) {
                largeVariableWidth(s, type instanceof ArrowType.LargeUtf8, range);
            } else if (v instanceof ListVector l) {
                list(l, range);
            } else if (v instanceof LargeListVector l) {
                largeList(l, range);
            } else if (v instanceof FixedSizeListVector l) {
                fixedSizeList(l, range);
            } else if (v instanceof NonNullableStructVector s) {
                struct(s, range);
            }
            // Other types are refused by the schema check before any batch is read.
        }

        private void fixedWidth(BaseFixedWidthVector v, ArrowType type, Range range) {
            int n = range.size();
            if (n == 0) {
                return;
            }
            int maxSlot = range.slots == null ? range.to - 1 : max(range.slots);
            long needBits = maxSlot + 1L;
            long needBytes = v instanceof BitVector ? (needBits + 7) / 8 : needBits * v.getTypeWidth();
            if (v.getValueCount() <= maxSlot || v.getDataBuffer().capacity() < needBytes
                    || v.getValidityBuffer().capacity() < (needBits + 7) / 8) {
                throw bad("holds " + v.getValueCount() + " values where " + (maxSlot + 1) + " are needed", range.row(n - 1),
                        "the vector is shorter than its rows (or than the offsets of its parent list); set its values and value count");
            }
            if (v instanceof DecimalVector || v instanceof Decimal256Vector) {
                decimals(v, (ArrowType.Decimal) type, range);
            } else if (v instanceof DateMilliVector d) {
                for (int i = 0; i < n; i++) {
                    int s = range.slot(i);
                    if (d.isNull(s)) {
                        continue;
                    }
                    long ms = d.get(s);
                    if (ms % 86_400_000L != 0) {
                        throw bad("holds the date64 " + ms + " ms, which is not a whole day", range.row(i), "a date is written "
                                + "as whole days and the time of day would be lost; truncate the values to midnight UTC, or use a "
                                + "timestamp column");
                    }
                    if (ms / 86_400_000L != (int) (ms / 86_400_000L)) {
                        throw bad("holds the date64 " + ms + " ms", range.row(i), "a Parquet DATE holds 32-bit days from 1970-01-01 "
                                + "(about 5.8 million years either side); correct the value or make it null");
                    }
                }
            } else if (!keepNanos && type instanceof ArrowType.Timestamp ts && ts.getUnit() == TimeUnit.NANOSECOND) {
                TimeStampVector t = (TimeStampVector) v;
                for (int i = 0; i < n; i++) {
                    int s = range.slot(i);
                    if (!t.isNull(s) && !TimestampPolicy.wholeMicros(t.get(s))) {
                        throw bad("holds the nanosecond timestamp " + t.get(s), range.row(i), "a microsecond timestamp cannot hold "
                                + "it without losing digits; " + TimestampPolicy.LOSSY_NANOS_TODO);
                    }
                }
            } else if (type instanceof ArrowType.Timestamp ts && ts.getUnit() == TimeUnit.SECOND) {
                TimeStampVector t = (TimeStampVector) v;
                for (int i = 0; i < n; i++) {
                    int s = range.slot(i);
                    if (!t.isNull(s)) {
                        long seconds = t.get(s);
                        if (seconds > Long.MAX_VALUE / 1000 || seconds < Long.MIN_VALUE / 1000) {
                            throw bad("holds the seconds timestamp " + seconds, range.row(i), "it is written in milliseconds (Parquet "
                                    + "has no seconds unit), which cannot hold more than " + Long.MAX_VALUE / 1000 + " seconds either "
                                    + "side of 1970 (about 292 million years); correct the value or make it null");
                        }
                    }
                }
            }
        }

        private void decimals(BaseFixedWidthVector v, ArrowType.Decimal type, Range range) {
            int precision = type.getPrecision();
            int width = v.getTypeWidth();
            ArrowBuf data = v.getDataBuffer();
            for (int i = 0; i < range.size(); i++) {
                int s = range.slot(i);
                if (v.isNull(s)) {
                    continue;
                }
                long low = data.getLong((long) s * width);
                boolean fitsLong = true;
                for (int w = 8; w < width; w += 8) {
                    if (data.getLong((long) s * width + w) != (low >> 63)) {
                        fitsLong = false;
                        break;
                    }
                }
                if (fitsLong && (precision >= 19 || (low != Long.MIN_VALUE && Math.abs(low) < POW10[precision]))) {
                    continue;
                }
                BigDecimal value = v instanceof DecimalVector d ? d.getObject(s) : ((Decimal256Vector) v).getObject(s);
                if (value.unscaledValue().abs().compareTo(BIG_POW10[precision]) >= 0) {
                    throw bad("holds " + value.toPlainString() + ", which has " + value.unscaledValue().abs().toString().length()
                            + " digits, more than the " + precision + " of its type decimal(" + precision + "," + type.getScale() + ")",
                            range.row(i), "Arrow's setters do not check the precision; round the value or declare a wider decimal");
                }
            }
        }

        private void variableWidth(BaseVariableWidthVector v, boolean utf8, Range range) {
            int n = range.size();
            if (n == 0) {
                return;
            }
            ArrowBuf offsets = v.getOffsetBuffer();
            int maxSlot = range.slots == null ? range.to - 1 : max(range.slots);
            if (v.getValueCount() <= maxSlot || offsets.capacity() < 4L * (maxSlot + 2)
                    || v.getValidityBuffer().capacity() < (maxSlot + 8L) / 8) {
                throw bad("holds " + v.getValueCount() + " values where " + (maxSlot + 1) + " are needed", range.row(n - 1),
                        "the vector is shorter than its rows (or than the offsets of its parent list); set its values and value count");
            }
            ArrowBuf data = v.getDataBuffer();
            if (range.slots == null && intOffsetsInOrder(offsets, range.from, range.to, data.capacity())) {
                // every slot's offsets lie inside the data, in order: no value can fail the bounds check below
                if (!utf8 || Utf8.allAscii(data, offsets.getInt(4L * range.from), offsets.getInt(4L * range.to))) {
                    return;
                }
            } else if (utf8 && range.slots == null
                    && Utf8.allAscii(data, offsets.getInt(4L * range.from), offsets.getInt(4L * range.to))) {
                utf8 = false; // every byte of the rows' span is ASCII, so every value is well-formed whatever its bounds
            }
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (v.isNull(s)) {
                    continue;
                }
                long start = offsets.getInt(4L * s);
                long end = offsets.getInt(4L * s + 4);
                if (start < 0 || end < start || end > data.capacity()) {
                    throw bad("has the offsets " + start + " to " + end + " over a data buffer of " + data.capacity() + " bytes",
                            range.row(i), "the vector is malformed; build it with Arrow's setters");
                }
                if (utf8) {
                    utf8(data, start, end, range.row(i));
                }
            }
        }

        private void largeVariableWidth(BaseLargeVariableWidthVector v, boolean utf8, Range range) {
            int n = range.size();
            if (n == 0) {
                return;
            }
            ArrowBuf offsets = v.getOffsetBuffer();
            int maxSlot = range.slots == null ? range.to - 1 : max(range.slots);
            if (v.getValueCount() <= maxSlot || offsets.capacity() < 8L * (maxSlot + 2)
                    || v.getValidityBuffer().capacity() < (maxSlot + 8L) / 8) {
                throw bad("holds " + v.getValueCount() + " values where " + (maxSlot + 1) + " are needed", range.row(n - 1),
                        "the vector is shorter than its rows (or than the offsets of its parent list); set its values and value count");
            }
            ArrowBuf data = v.getDataBuffer();
            if (range.slots == null && longOffsetsInOrder(offsets, range.from, range.to, data.capacity())) {
                if (!utf8 || Utf8.allAscii(data, offsets.getLong(8L * range.from), offsets.getLong(8L * range.to))) {
                    return; // as in variableWidth
                }
            } else if (utf8 && range.slots == null
                    && Utf8.allAscii(data, offsets.getLong(8L * range.from), offsets.getLong(8L * range.to))) {
                utf8 = false; // as in variableWidth
            }
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (v.isNull(s)) {
                    continue;
                }
                long start = offsets.getLong(8L * s);
                long end = offsets.getLong(8L * s + 8);
                if (start < 0 || end < start || end > data.capacity()) {
                    throw bad("has the offsets " + start + " to " + end + " over a data buffer of " + data.capacity() + " bytes",
                            range.row(i), "the vector is malformed; build it with Arrow's setters");
                }
                if (utf8) {
                    utf8(data, start, end, range.row(i));
                }
            }
        }

        /**
         * Whether the offsets of slots {@code [from, to)} (the {@code to - from + 1} ints from {@code from}, inside the
         * buffer: checked before) start at 0 or later, never decrease and end within {@code capacity}: then every slot,
         * null or not, holds a span inside the data. Read in blocks through an NIO view, not an ArrowBuf get per slot.
         */
        private static boolean intOffsetsInOrder(ArrowBuf offsets, int from, int to, long capacity) {
            int[] block = new int[Math.min(to - from + 1, BLOCK)];
            int previous = 0;
            for (int at = from; at <= to; at += block.length) {
                int n = Math.min(block.length, to + 1 - at);
                offsets.nioBuffer(4L * at, 4 * n).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(block, 0, n);
                int bad = 0;
                for (int i = 0; i < n; i++) {
                    int x = block[i];
                    bad |= (x - previous) | x; // negative when an offset runs backwards or is negative
                    previous = x;
                }
                if (bad < 0) {
                    return false;
                }
            }
            return previous <= capacity;
        }

        /** {@link #intOffsetsInOrder} for 8-byte offsets. */
        private static boolean longOffsetsInOrder(ArrowBuf offsets, int from, int to, long capacity) {
            long[] block = new long[Math.min(to - from + 1, BLOCK)];
            long previous = 0;
            for (int at = from; at <= to; at += block.length) {
                int n = Math.min(block.length, to + 1 - at);
                offsets.nioBuffer(8L * at, 8 * n).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(block, 0, n);
                long bad = 0;
                for (int i = 0; i < n; i++) {
                    long x = block[i];
                    bad |= (x - previous) | x;
                    previous = x;
                }
                if (bad < 0) {
                    return false;
                }
            }
            return previous <= capacity;
        }

        private void utf8(ArrowBuf data, long start, long end, int row) {
            long bad = Utf8.firstInvalid(data, start, end);
            if (bad >= 0) {
                StringBuilder hex = new StringBuilder();
                for (long p = bad; p < Math.min(end, bad + 4); p++) {
                    hex.append(hex.length() == 0 ? "" : " ").append(String.format("%02X", data.getByte(p) & 0xFF));
                }
                throw bad("holds a string that is not valid UTF-8 (bytes " + hex + " at byte " + (bad - start) + " of the value)", row,
                        "Parquet strings must be UTF-8 and readers refuse the whole file over one bad value; decode the source "
                                + "text with its real charset, or store the column as binary");
            }
        }

        private void list(ListVector v, Range range) {
            int n = range.size();
            if (n == 0) {
                return;
            }
            checkLength(v, range, 4);
            ArrowBuf offsets = v.getOffsetBuffer();
            boolean map = v instanceof MapVector;
            int total = 0;
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (!v.isNull(s)) {
                    int start = offsets.getInt(4L * s);
                    int end = offsets.getInt(4L * s + 4);
                    if (start < 0 || end < start) {
                        throw bad("has the offsets " + start + " to " + end, range.row(i), "the vector is malformed; build it with Arrow's setters");
                    }
                    total = Math.addExact(total, end - start);
                }
            }
            int[] slots = new int[total];
            int[] rowOf = new int[total];
            int e = 0;
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (!v.isNull(s)) {
                    for (int j = offsets.getInt(4L * s); j < offsets.getInt(4L * s + 4); j++) {
                        slots[e] = j;
                        rowOf[e++] = range.row(i);
                    }
                }
            }
            Range elements = new Range(0, 0, slots, rowOf);
            if (map) {
                StructVector entries = (StructVector) v.getDataVector();
                FieldVector keys = (FieldVector) entries.getChildByOrdinal(0);
                checkPresent(entries, elements);
                child("key").check(keys, elements);
                for (int i = 0; i < total; i++) {
                    if (keys.isNull(slots[i])) {
                        throw child("key").bad("is null", rowOf[i], "Parquet, Spark and Athena maps cannot hold null keys; "
                                + "drop or replace those entries");
                    }
                }
                child("value").check((FieldVector) entries.getChildByOrdinal(1), elements);
            } else {
                child("element").check(v.getDataVector(), elements);
            }
        }

        private void largeList(LargeListVector v, Range range) {
            int n = range.size();
            if (n == 0) {
                return;
            }
            checkLength(v, range, 8);
            ArrowBuf offsets = v.getOffsetBuffer();
            long total = 0;
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (!v.isNull(s)) {
                    long start = offsets.getLong(8L * s);
                    long end = offsets.getLong(8L * s + 8);
                    if (start < 0 || end < start || end > Integer.MAX_VALUE) {
                        throw bad("has the offsets " + start + " to " + end, range.row(i), "the vector is malformed or too large for "
                                + "one batch; build it with Arrow's setters, in smaller batches");
                    }
                    total += end - start;
                }
            }
            int[] slots = new int[Math.toIntExact(total)];
            int[] rowOf = new int[slots.length];
            int e = 0;
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (!v.isNull(s)) {
                    for (long j = offsets.getLong(8L * s); j < offsets.getLong(8L * s + 8); j++) {
                        slots[e] = (int) j;
                        rowOf[e++] = range.row(i);
                    }
                }
            }
            child("element").check(v.getDataVector(), new Range(0, 0, slots, rowOf));
        }

        private void fixedSizeList(FixedSizeListVector v, Range range) {
            int n = range.size();
            if (n == 0) {
                return;
            }
            checkPresent(v, range);
            int size = v.getListSize();
            int count = 0;
            for (int i = 0; i < n; i++) {
                if (!v.isNull(range.slot(i))) {
                    count++;
                }
            }
            int[] slots = new int[Math.multiplyExact(count, size)];
            int[] rowOf = new int[slots.length];
            int e = 0;
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (!v.isNull(s)) {
                    for (int k = 0; k < size; k++) {
                        slots[e] = s * size + k;
                        rowOf[e++] = range.row(i);
                    }
                }
            }
            child("element").check(v.getDataVector(), new Range(0, 0, slots, rowOf));
        }

        private void struct(NonNullableStructVector v, Range range) {
            int n = range.size();
            if (n == 0) {
                return;
            }
            checkPresent(v, range);
            int[] slots = new int[n];
            int[] rowOf = new int[n];
            int e = 0;
            for (int i = 0; i < n; i++) {
                int s = range.slot(i);
                if (!v.isNull(s)) {
                    slots[e] = s;
                    rowOf[e++] = range.row(i);
                }
            }
            Range present = new Range(0, 0, Arrays.copyOf(slots, e), Arrays.copyOf(rowOf, e));
            for (int c = 0; c < v.size(); c++) {
                FieldVector child = (FieldVector) v.getChildByOrdinal(c);
                child(child.getName()).check(child, present);
            }
        }

        /** The vector holds every slot of the range, with its validity. */
        private void checkPresent(ValueVector v, Range range) {
            int maxSlot = range.slots == null ? range.to - 1 : max(range.slots);
            boolean validity = !(v instanceof NonNullableStructVector) || v instanceof StructVector;
            if (range.size() > 0 && (v.getValueCount() <= maxSlot
                    || (validity && v.getValidityBuffer().capacity() < (maxSlot + 8L) / 8))) {
                throw bad("holds " + v.getValueCount() + " values where " + (maxSlot + 1) + " are needed", range.row(range.size() - 1),
                        "the vector is shorter than its rows (or than the offsets of its parent list); set its values and value count");
            }
        }

        private void checkLength(FieldVector v, Range range, int offsetWidth) {
            checkPresent(v, range);
            int maxSlot = range.slots == null ? range.to - 1 : max(range.slots);
            if (v.getOffsetBuffer().capacity() < (long) offsetWidth * (maxSlot + 2)) {
                throw bad("has offsets for fewer than its " + (maxSlot + 1) + " values", range.row(range.size() - 1),
                        "the vector is malformed; build it with Arrow's setters");
            }
        }

        private static int max(int[] slots) {
            int m = -1;
            for (int s : slots) {
                m = Math.max(m, s);
            }
            return m;
        }
    }
}
