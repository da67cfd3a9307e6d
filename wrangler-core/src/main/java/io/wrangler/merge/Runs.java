package io.wrangler.merge;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * Copies of a run of rows of one vector into another of the same type, appended at the end of what it holds: for
 * fixed-width values and strings or binary, the values' bytes in one copy (and the offsets shifted), not value by value.
 */
final class Runs {
    private Runs() {
    }

    /**
     * Copies rows {@code start .. start + length - 1} of {@code from} to rows {@code at ..} of {@code to}, where {@code at} is
     * the first row {@code to} does not hold yet; false (nothing copied) when the two vectors are not of one flat type.
     */
    static boolean copy(FieldVector from, int start, int length, FieldVector to, int at) {
        if (from.getClass() != to.getClass() || !from.getField().getType().equals(to.getField().getType())) {
            return false;
        }
        if (from instanceof BaseFixedWidthVector f && !(from instanceof BitVector)) {
            fixed(f, start, length, (BaseFixedWidthVector) to, at);
            return true;
        }
        if (from instanceof BaseVariableWidthVector v) {
            return variable(v, start, length, (BaseVariableWidthVector) to, at);
        }
        return false;
    }

    /**
     * Copies the runs of rows {@code starts[r] .. starts[r] + lengths[r] - 1} ({@code r < runs}) of {@code from}, one after
     * another, to rows {@code 0 ..} of the empty vector {@code to}: as {@link #copy} run by run, the types checked and the
     * target grown once for all the runs, the validity of a column without nulls set in whole bytes; false (nothing
     * copied) when the two vectors are not of one flat type.
     */
    static boolean copyRuns(FieldVector from, int[] starts, int[] lengths, int runs, FieldVector to) {
        if (from.getClass() != to.getClass() || !from.getField().getType().equals(to.getField().getType())
                || !(from instanceof BaseVariableWidthVector || from instanceof BaseFixedWidthVector && !(from instanceof BitVector))) {
            return false;
        }
        int total = 0;
        for (int r = 0; r < runs; r++) {
            total += lengths[r];
        }
        if (from instanceof BaseFixedWidthVector f) {
            BaseFixedWidthVector t = (BaseFixedWidthVector) to;
            while (t.getValueCapacity() < total) {
                t.reAlloc();
            }
            long width = f.getTypeWidth();
            ArrowBuf in = f.getDataBuffer();
            ArrowBuf out = t.getDataBuffer();
            for (int r = 0, at = 0; r < runs; at += lengths[r], r++) {
                out.setBytes(at * width, in, starts[r] * width, lengths[r] * width);
            }
        } else if (!variableRuns((BaseVariableWidthVector) from, starts, lengths, runs, total, (BaseVariableWidthVector) to)) {
            return false;
        }
        if (from.getNullCount() == 0) {
            allValid(to.getValidityBuffer(), total);
        } else {
            for (int r = 0, at = 0; r < runs; at += lengths[r], r++) {
                validity(from.getValidityBuffer(), starts[r], lengths[r], to.getValidityBuffer(), at);
            }
        }
        return true;
    }

    private static boolean variableRuns(BaseVariableWidthVector from, int[] starts, int[] lengths, int runs, int total,
                                        BaseVariableWidthVector to) {
        ArrowBuf offsets = from.getOffsetBuffer();
        long bytes = 0;
        for (int r = 0; r < runs; r++) {
            bytes += offsets.getInt((long) (starts[r] + lengths[r]) * 4) - offsets.getInt((long) starts[r] * 4);
        }
        if (!reserve(to, total, bytes)) {
            return false;
        }
        ArrowBuf out = to.getOffsetBuffer();
        ArrowBuf data = to.getDataBuffer();
        int base = 0;
        out.setInt(0, 0);
        for (int r = 0, at = 0; r < runs; at += lengths[r], r++) {
            int first = offsets.getInt((long) starts[r] * 4);
            int n = offsets.getInt((long) (starts[r] + lengths[r]) * 4) - first;
            data.setBytes(base, from.getDataBuffer(), first, n);
            for (int j = 1; j <= lengths[r]; j++) {
                out.setInt((long) (at + j) * 4, base + offsets.getInt((long) (starts[r] + j) * 4) - first);
            }
            base += n;
        }
        to.setLastSet(total - 1);
        return true;
    }

    /**
     * Sets rows {@code 0 .. values.length - 1} of the empty vector {@code to} to {@code values} (null: a null), the target
     * grown once, the offsets and bytes written straight (not {@code setSafe} row by row); false (nothing set) when the
     * vector is not empty or the values pass 2 GiB.
     */
    static boolean texts(BaseVariableWidthVector to, byte[][] values) {
        int n = values.length;
        long bytes = 0;
        boolean nulls = false;
        for (byte[] v : values) {
            bytes += v == null ? 0 : v.length;
            nulls |= v == null;
        }
        if (!reserve(to, n, bytes)) {
            return false;
        }
        java.nio.IntBuffer offsets = to.getOffsetBuffer().nioBuffer(0, 4 * (n + 1)).order(java.nio.ByteOrder.LITTLE_ENDIAN).asIntBuffer();
        java.nio.ByteBuffer data = to.getDataBuffer().nioBuffer(0, (int) bytes);
        ArrowBuf validity = to.getValidityBuffer();
        int at = 0;
        offsets.put(0, 0);
        for (int i = 0; i < n; i++) {
            byte[] v = values[i];
            if (v != null) {
                data.put(at, v);
                at += v.length;
                if (nulls) {
                    BitVectorHelper.setBit(validity, i);
                }
            }
            offsets.put(i + 1, at);
        }
        if (!nulls) {
            allValid(validity, n);
        }
        to.setLastSet(n - 1);
        return true;
    }

    /**
     * Grows the empty vector {@code to} once for {@code rows} values of {@code bytes} bytes in all; false (nothing grown)
     * when it is not empty or the bytes pass 2 GiB.
     */
    private static boolean reserve(BaseVariableWidthVector to, int rows, long bytes) {
        if (bytes > Integer.MAX_VALUE || to.getLastSet() != -1) {
            return false;
        }
        while (to.getValueCapacity() < rows) {
            to.reallocValidityAndOffsetBuffers();
        }
        while (to.getDataBuffer().capacity() < bytes) {
            to.reallocDataBuffer();
        }
        return true;
    }

    /** Sets rows {@code 0 .. total - 1} valid: whole bytes at once, then the last bits. */
    private static void allValid(ArrowBuf validity, int total) {
        int whole = total >>> 3;
        validity.setOne(0, whole);
        for (int i = whole << 3; i < total; i++) {
            BitVectorHelper.setBit(validity, i);
        }
    }

    private static void fixed(BaseFixedWidthVector from, int start, int length, BaseFixedWidthVector to, int at) {
        while (to.getValueCapacity() < at + length) {
            to.reAlloc();
        }
        long width = from.getTypeWidth();
        to.getDataBuffer().setBytes(at * width, from.getDataBuffer(), start * width, length * width);
        validity(from.getValidityBuffer(), start, length, to.getValidityBuffer(), at);
    }

    private static boolean variable(BaseVariableWidthVector from, int start, int length, BaseVariableWidthVector to, int at) {
        ArrowBuf offsets = from.getOffsetBuffer();
        int first = offsets.getInt((long) start * 4);
        int bytes = offsets.getInt((long) (start + length) * 4) - first;
        if (bytes < 0 || at != to.getLastSet() + 1) {
            return false;
        }
        while (to.getValueCapacity() < at + length) {
            to.reallocValidityAndOffsetBuffers();
        }
        int base = to.getOffsetBuffer().getInt((long) at * 4);
        while (to.getDataBuffer().capacity() < (long) base + bytes) {
            to.reallocDataBuffer();
        }
        to.getDataBuffer().setBytes(base, from.getDataBuffer(), first, bytes);
        ArrowBuf out = to.getOffsetBuffer();
        for (int j = 1; j <= length; j++) {
            out.setInt((long) (at + j) * 4, base + offsets.getInt((long) (start + j) * 4) - first);
        }
        validity(from.getValidityBuffer(), start, length, to.getValidityBuffer(), at);
        to.setLastSet(at + length - 1);
        return true;
    }

    private static void validity(ArrowBuf from, int start, int length, ArrowBuf to, int at) {
        for (int j = 0; j < length; j++) {
            BitVectorHelper.setValidityBit(to, at + j, BitVectorHelper.get(from, start + j));
        }
    }
}
