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
