package io.wrangler.encoding;

import org.apache.arrow.vector.FieldVector;

/** Validity is the validity bitmap of a run of rows of one Arrow vector, copied out once, with its null count. */
final class Validity {
    private byte[] bits = new byte[1024];
    private int base;
    int nulls;

    /** Loads rows {@code [from, to)} of {@code v}. */
    void load(FieldVector v, int from, int to) {
        base = from & ~7;
        int bytes = ((to - base) + 7) >>> 3;
        if (bits.length < bytes) {
            bits = new byte[Math.max(bytes, 2 * bits.length)];
        }
        v.getValidityBuffer().getBytes(from >>> 3, bits, 0, bytes);
        int set = 0;
        for (int i = 0; i < bytes; i++) {
            set += Integer.bitCount(bits[i] & 0xFF);
        }
        // Bits outside [from, to) in the first and last byte were counted too.
        for (int r = base; r < from; r++) {
            set -= valid(r) ? 1 : 0;
        }
        for (int r = to; r < base + 8 * bytes; r++) {
            set -= valid(r) ? 1 : 0;
        }
        nulls = (to - from) - set;
    }

    boolean valid(int row) {
        int i = row - base;
        return (bits[i >>> 3] >> (i & 7) & 1) != 0;
    }
}
