package io.wrangler.partition;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Gather copies chosen rows of a vector, in a chosen order, into an empty vector of the same field: {@code to[t] =
 * from[rows[t]]}, nested types included, to any depth.
 *
 * <p>It works on the buffers of every type a write accepts rather than through Arrow's {@code copyFromSafe}, which
 * supports neither zoned timestamps nor fixed-size binaries inside lists, maps and structs, and which checks capacity
 * value by value. A list's elements are gathered with the list: its child gets the element rows of the chosen rows, in
 * order.
 */
final class Gather {
    private Gather() {
    }

    /** Fills {@code to} (new, empty, of {@code from}'s field) with {@code from}'s rows {@code rows}, and sets its value count. */
    static void gather(FieldVector from, FieldVector to, int[] rows) {
        fill(from, to, rows);
        to.setValueCount(rows.length);
    }

    private static void fill(FieldVector from, FieldVector to, int[] rows) {
        int n = rows.length;
        if (from instanceof BitVector f) {
            to.setInitialCapacity(Math.max(n, 1));
            to.allocateNew();
            BitVector t = (BitVector) to;
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (!f.isNull(r)) {
                    t.set(i, f.get(r));
                }
            }
        } else if (from instanceof BaseFixedWidthVector f) {
            to.setInitialCapacity(Math.max(n, 1));
            to.allocateNew();
            fixedWidth(f, (BaseFixedWidthVector) to, rows);
        } else if (from instanceof BaseVariableWidthVector f) {
            variableWidth(f, (BaseVariableWidthVector) to, rows); // allocates the target for the rows' bytes
        } else if (from instanceof BaseLargeVariableWidthVector f) {
            BaseLargeVariableWidthVector t = (BaseLargeVariableWidthVector) to;
            long bytes = 0;
            for (int r : rows) {
                bytes += f.getOffsetBuffer().getLong(8L * r + 8) - f.getOffsetBuffer().getLong(8L * r);
            }
            t.allocateNew(Math.max(1, bytes), Math.max(n, 1));
            largeVariableWidth(f, t, rows);
        } else if (from instanceof ListVector f) {
            // MapVector is a ListVector of key-value structs.
            ListVector t = (ListVector) to;
            t.setInitialCapacity(Math.max(n, 1));
            t.allocateNew();
            ArrowBuf offsets = f.getOffsetBuffer();
            long total = 0;
            for (int r : rows) {
                if (!f.isNull(r)) {
                    total += offsets.getInt(4L * r + 4) - offsets.getInt(4L * r);
                }
            }
            int[] elements = new int[Math.toIntExact(total)];
            int e = 0;
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (f.isNull(r)) {
                    t.setNull(i);
                    continue;
                }
                int start = offsets.getInt(4L * r);
                int end = offsets.getInt(4L * r + 4);
                t.startNewValue(i);
                for (int j = start; j < end; j++) {
                    elements[e++] = j;
                }
                t.endValue(i, end - start);
            }
            fill(f.getDataVector(), t.getDataVector(), elements);
            t.getDataVector().setValueCount(elements.length);
        } else if (from instanceof LargeListVector f) {
            LargeListVector t = (LargeListVector) to;
            t.setInitialCapacity(Math.max(n, 1));
            t.allocateNew();
            ArrowBuf offsets = f.getOffsetBuffer();
            long total = 0;
            for (int r : rows) {
                if (!f.isNull(r)) {
                    total += offsets.getLong(8L * r + 8) - offsets.getLong(8L * r);
                }
            }
            int[] elements = new int[Math.toIntExact(total)];
            int e = 0;
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (f.isNull(r)) {
                    t.setNull(i);
                    continue;
                }
                long start = offsets.getLong(8L * r);
                long end = offsets.getLong(8L * r + 8);
                t.startNewValue(i);
                for (long j = start; j < end; j++) {
                    elements[e++] = Math.toIntExact(j);
                }
                t.endValue(i, end - start);
            }
            fill(f.getDataVector(), t.getDataVector(), elements);
            t.getDataVector().setValueCount(elements.length);
        } else if (from instanceof FixedSizeListVector f) {
            FixedSizeListVector t = (FixedSizeListVector) to;
            t.setInitialCapacity(Math.max(n, 1));
            t.allocateNew();
            int size = f.getListSize();
            int[] elements = new int[Math.multiplyExact(n, size)];
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (f.isNull(r)) {
                    t.setNull(i);
                } else {
                    t.setNotNull(i);
                }
                for (int k = 0; k < size; k++) {
                    elements[i * size + k] = r * size + k;
                }
            }
            fill(f.getDataVector(), t.getDataVector(), elements);
            t.getDataVector().setValueCount(elements.length);
        } else if (from instanceof NonNullableStructVector f) {
            // StructVector (nullable) is a NonNullableStructVector with a validity buffer.
            NonNullableStructVector t = (NonNullableStructVector) to;
            t.setInitialCapacity(Math.max(n, 1));
            t.allocateNew();
            if (f instanceof StructVector fs) {
                StructVector ts = (StructVector) t;
                for (int i = 0; i < n; i++) {
                    if (fs.isNull(rows[i])) {
                        ts.setNull(i);
                    } else {
                        ts.setIndexDefined(i);
                    }
                }
            }
            for (int c = 0; c < f.size(); c++) {
                FieldVector child = (FieldVector) f.getChildByOrdinal(c);
                FieldVector target = (FieldVector) t.getChildByOrdinal(c);
                fill(child, target, rows);
                target.setValueCount(n);
            }
        } else {
            throw new IllegalArgumentException("cannot regroup a column of the Arrow type " + from.getField().getType()
                    + " by partition");
        }
    }

    /**
     * Copies fixed-width values buffer to buffer, 8, 4, 2 or 1 bytes at a time (or the type's width), and their validity bits.
     * The common widths go through NIO views of the two buffers: one bounds check per buffer access that the JIT folds,
     * instead of ArrowBuf's bounds and reference-count checks on every get and set.
     */
    static void fixedWidth(BaseFixedWidthVector from, BaseFixedWidthVector to, int[] sourceRow) {
        ArrowBuf src = from.getDataBuffer();
        ArrowBuf dst = to.getDataBuffer();
        int width = from.getTypeWidth();
        int rows = sourceRow.length;
        if (width <= 8 && Integer.bitCount(width) == 1 && src.capacity() <= Integer.MAX_VALUE && rows > 0) {
            ByteBuffer in = src.nioBuffer(0, (int) src.capacity()).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer out = dst.nioBuffer(0, Math.multiplyExact(width, rows)).order(ByteOrder.LITTLE_ENDIAN);
            switch (width) {
                case 8 -> {
                    LongBuffer i = in.asLongBuffer();
                    LongBuffer o = out.asLongBuffer();
                    for (int t = 0; t < rows; t++) {
                        o.put(t, i.get(sourceRow[t]));
                    }
                }
                case 4 -> {
                    IntBuffer i = in.asIntBuffer();
                    IntBuffer o = out.asIntBuffer();
                    for (int t = 0; t < rows; t++) {
                        o.put(t, i.get(sourceRow[t]));
                    }
                }
                case 2 -> {
                    ShortBuffer i = in.asShortBuffer();
                    ShortBuffer o = out.asShortBuffer();
                    for (int t = 0; t < rows; t++) {
                        o.put(t, i.get(sourceRow[t]));
                    }
                }
                default -> {
                    for (int t = 0; t < rows; t++) {
                        out.put(t, in.get(sourceRow[t]));
                    }
                }
            }
            validity(from.getValidityBuffer(), to.getValidityBuffer(), sourceRow);
            return;
        }
        switch (width) {
            case 8 -> {
                for (int t = 0; t < rows; t++) {
                    dst.setLong(8L * t, src.getLong(8L * sourceRow[t]));
                }
            }
            case 4 -> {
                for (int t = 0; t < rows; t++) {
                    dst.setInt(4L * t, src.getInt(4L * sourceRow[t]));
                }
            }
            case 2 -> {
                for (int t = 0; t < rows; t++) {
                    dst.setShort(2L * t, src.getShort(2L * sourceRow[t]));
                }
            }
            case 1 -> {
                for (int t = 0; t < rows; t++) {
                    dst.setByte(t, src.getByte(sourceRow[t]));
                }
            }
            default -> {
                for (int t = 0; t < rows; t++) {
                    dst.setBytes((long) width * t, src, (long) width * sourceRow[t], width);
                }
            }
        }
        validity(from.getValidityBuffer(), to.getValidityBuffer(), sourceRow);
    }

    /** Gathers validity bits into a local array first and writes the target's bitmap once. */
    private static void validity(ArrowBuf src, ArrowBuf dst, int[] sourceRow) {
        if (src.capacity() > Integer.MAX_VALUE) {
            for (int t = 0; t < sourceRow.length; t++) {
                BitVectorHelper.setValidityBit(dst, t, BitVectorHelper.get(src, sourceRow[t]));
            }
            return;
        }
        ByteBuffer in = src.nioBuffer(0, (int) src.capacity());
        byte[] bits = new byte[(sourceRow.length + 7) / 8];
        for (int t = 0; t < sourceRow.length; t++) {
            int r = sourceRow[t];
            bits[t >>> 3] |= (byte) (((in.get(r >>> 3) >> (r & 7)) & 1) << (t & 7));
        }
        dst.setBytes(0, bits, 0, bits.length);
    }

    /**
     * Allocates {@code to} for the chosen rows' bytes and copies variable-width values (strings, binaries) into it: offsets
     * and bytes directly, without the per-value capacity checks of copyFromSafe. Through NIO views of both vectors' buffers,
     * a value of at most 8 bytes as one 8-byte read and write (the target has 8 bytes to spare past the last value).
     */
    static void variableWidth(BaseVariableWidthVector from, BaseVariableWidthVector to, int[] sourceRow) {
        ArrowBuf srcOffsets = from.getOffsetBuffer();
        ArrowBuf srcData = from.getDataBuffer();
        int rows = sourceRow.length;
        if (srcData.capacity() <= Integer.MAX_VALUE - 8 && srcOffsets.capacity() <= Integer.MAX_VALUE && rows > 0) {
            IntBuffer offsets = srcOffsets.nioBuffer(0, (int) srcOffsets.capacity()).order(ByteOrder.LITTLE_ENDIAN)
                    .asIntBuffer();
            long total = 0;
            for (int t = 0; t < rows; t++) {
                int r = sourceRow[t];
                total += offsets.get(r + 1) - offsets.get(r);
            }
            if (total <= Integer.MAX_VALUE - 8) {
                to.allocateNew(total + 8, rows);
                ByteBuffer data = srcData.nioBuffer(0, (int) srcData.capacity()).order(ByteOrder.LITTLE_ENDIAN);
                int dataEnd = (int) srcData.capacity() - 8;
                ByteBuffer bytes = to.getDataBuffer().nioBuffer(0, (int) total + 8).order(ByteOrder.LITTLE_ENDIAN);
                IntBuffer out = to.getOffsetBuffer().nioBuffer(0, 4 * (rows + 1)).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
                int position = 0;
                out.put(0, 0);
                for (int t = 0; t < rows; t++) {
                    int r = sourceRow[t];
                    int start = offsets.get(r);
                    int length = offsets.get(r + 1) - start;
                    if (length > 0) {
                        if (length <= 8 && start >= 0 && start <= dataEnd) {
                            bytes.putLong(position, data.getLong(start));
                        } else {
                            bytes.put(position, data, start, length);
                        }
                        position += length;
                    }
                    out.put(t + 1, position);
                }
                validity(from.getValidityBuffer(), to.getValidityBuffer(), sourceRow);
                to.setLastSet(rows - 1);
                return;
            }
        }
        long total = 0;
        for (int r : sourceRow) {
            total += srcOffsets.getInt(4L * r + 4) - srcOffsets.getInt(4L * r);
        }
        to.allocateNew(Math.max(1, total), Math.max(rows, 1));
        ArrowBuf dstOffsets = to.getOffsetBuffer();
        ArrowBuf dstData = to.getDataBuffer();
        int position = 0;
        dstOffsets.setInt(0, 0);
        for (int t = 0; t < sourceRow.length; t++) {
            int r = sourceRow[t];
            int start = srcOffsets.getInt(4L * r);
            int length = srcOffsets.getInt(4L * r + 4) - start;
            if (length > 0) {
                dstData.setBytes(position, srcData, start, length);
                position += length;
            }
            dstOffsets.setInt(4L * t + 4, position);
        }
        validity(from.getValidityBuffer(), to.getValidityBuffer(), sourceRow);
        to.setLastSet(sourceRow.length - 1);
    }

    private static void largeVariableWidth(BaseLargeVariableWidthVector from, BaseLargeVariableWidthVector to, int[] sourceRow) {
        ArrowBuf srcOffsets = from.getOffsetBuffer();
        ArrowBuf srcData = from.getDataBuffer();
        ArrowBuf dstOffsets = to.getOffsetBuffer();
        ArrowBuf dstData = to.getDataBuffer();
        long position = 0;
        dstOffsets.setLong(0, 0);
        for (int t = 0; t < sourceRow.length; t++) {
            int r = sourceRow[t];
            long start = srcOffsets.getLong(8L * r);
            long length = srcOffsets.getLong(8L * r + 8) - start;
            if (length > 0) {
                dstData.setBytes(position, srcData, start, length);
                position += length;
            }
            dstOffsets.setLong(8L * t + 8, position);
        }
        validity(from.getValidityBuffer(), to.getValidityBuffer(), sourceRow);
        to.setLastSet(sourceRow.length - 1);
    }
}
