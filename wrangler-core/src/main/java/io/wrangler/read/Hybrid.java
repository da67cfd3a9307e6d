package io.wrangler.read;

import java.util.Arrays;
import org.apache.parquet.io.ParquetDecodingException;

/**
 * Parquet's RLE/bit-packed hybrid (levels, dictionary ids, RLE booleans): runs of one repeated value and groups of
 * eight bit-packed values; or, for {@link #legacy} levels, the deprecated BIT_PACKED encoding (one bit a value, the
 * first in the high bit).
 */
final class Hybrid {
    private final byte[] b;
    private int pos;
    private final int end;
    private final int width;
    private final boolean legacy;
    /** The value of the run {@link #run} returned last. */
    int value;
    private int repeatLeft;
    private int packedLeft;
    private final int[] group = new int[8];
    private int groupPos = 8;
    private long legacyBit;

    Hybrid(byte[] b, int from, int to, int width) {
        this(b, from, to, width, false);
    }

    private Hybrid(byte[] b, int from, int to, int width, boolean legacy) {
        this.b = b;
        this.pos = from;
        this.end = to;
        this.width = width;
        this.legacy = legacy;
    }

    static Hybrid legacy(byte[] b, int from, int to) {
        return new Hybrid(b, from, to, 1, true);
    }

    private void nextRun() {
        do {
            if (pos >= end) {
                throw new ParquetDecodingException("RLE/bit-packed values end before the page's values do");
            }
            int header = 0;
            int shift = 0;
            int x;
            do {
                if (pos >= end || shift > 28) {
                    throw new ParquetDecodingException("a malformed RLE/bit-packed run header");
                }
                x = b[pos++];
                header |= (x & 0x7F) << shift;
                shift += 7;
            } while ((x & 0x80) != 0);
            if ((header & 1) == 0) {
                repeatLeft = header >>> 1;
                int v = 0;
                for (int i = 0; i < (width + 7) / 8; i++) {
                    v |= (pos < end ? b[pos] & 0xFF : 0) << (8 * i);
                    pos++;
                }
                value = v;
            } else {
                packedLeft = (header >>> 1) * 8;
                groupPos = 8;
            }
        } while (repeatLeft == 0 && packedLeft == 0);
    }

    /** Unpacks the next eight values, least significant bits first. */
    private void unpack() {
        long acc = 0;
        int bits = 0;
        long mask = (1L << width) - 1;
        for (int j = 0; j < 8; j++) {
            while (bits < width) {
                acc |= (long) (pos < end ? b[pos] & 0xFF : 0) << bits;
                pos++;
                bits += 8;
            }
            group[j] = (int) (acc & mask);
            acc >>>= width;
            bits -= width;
        }
        groupPos = 0;
    }

    /** The length (at most {@code max}) of the next run of equal values; its value in {@link #value}. */
    int run(int max) {
        if (legacy) {
            int v = legacyAt(legacyBit);
            int n = 1;
            while (n < max && legacyAt(legacyBit + n) == v) {
                n++;
            }
            legacyBit += n;
            value = v;
            return n;
        }
        if (repeatLeft == 0 && packedLeft == 0) {
            nextRun();
        }
        if (repeatLeft > 0) {
            int n = Math.min(max, repeatLeft);
            repeatLeft -= n;
            return n;
        }
        if (groupPos == 8) {
            unpack();
        }
        int v = group[groupPos++];
        packedLeft--;
        int n = 1;
        while (n < max && groupPos < 8 && group[groupPos] == v) {
            groupPos++;
            packedLeft--;
            n++;
        }
        value = v;
        return n;
    }

    private int legacyAt(long i) {
        int p = pos + (int) (i >> 3);
        if (p >= end) {
            throw new ParquetDecodingException("BIT_PACKED levels end before the page's values do");
        }
        return b[p] >> (7 - (i & 7)) & 1;
    }

    /** The next {@code len} values into {@code out}. */
    void read(int[] out, int len) {
        int i = 0;
        while (i < len) {
            if (repeatLeft == 0 && packedLeft == 0) {
                nextRun();
            }
            if (repeatLeft > 0) {
                int n = Math.min(len - i, repeatLeft);
                Arrays.fill(out, i, i + n, value);
                repeatLeft -= n;
                i += n;
            } else {
                if (groupPos == 8) {
                    unpack();
                }
                int n = Math.min(len - i, Math.min(8 - groupPos, packedLeft));
                System.arraycopy(group, groupPos, out, i, n);
                groupPos += n;
                packedLeft -= n;
                i += n;
            }
        }
    }
}
