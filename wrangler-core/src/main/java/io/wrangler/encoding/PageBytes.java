package io.wrangler.encoding;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * PageBytes is a growable byte array that a page is assembled in, with the little-endian and varint writes of the
 * Parquet encodings, and the RLE / bit-packing hybrid of definition levels and dictionary ids. Reused page after page.
 */
final class PageBytes {
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** Groups of eight values per bit-packed run at most: the one-byte run header parquet-java writes, which every reader has met. */
    private static final int MAX_GROUPS = 63;

    byte[] buf;
    int size;

    PageBytes(int capacity) {
        buf = new byte[Math.max(capacity, 64)];
    }

    void reset() {
        size = 0;
    }

    void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(size + more, buf.length + (buf.length >> 1)));
        }
    }

    void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void writeInt(int v) {
        ensure(4);
        INTS.set(buf, size, v);
        size += 4;
    }

    void writeLong(long v) {
        ensure(8);
        LONGS.set(buf, size, v);
        size += 8;
    }

    void write(byte[] src, int from, int length) {
        ensure(length);
        System.arraycopy(src, from, buf, size, length);
        size += length;
    }

    void writeVarint(int v) {
        ensure(5);
        while ((v & ~0x7F) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    /** One RLE run: {@code count} times {@code value}, the value in as many bytes as {@code bitWidth} needs. */
    void rleRun(int count, int value, int bitWidth) {
        writeVarint(count << 1);
        for (int b = 0; b < (bitWidth + 7) / 8; b++) {
            write(value >>> (8 * b));
        }
    }

    /**
     * The RLE / bit-packing hybrid of {@code values[0, n)} at {@code bitWidth} bits each: a run of eight or more equal
     * values becomes an RLE run, the rest bit-packed in groups of eight (the last group padded with zeros, which a
     * reader stops before: it knows the value count).
     */
    void hybrid(int[] values, int n, int bitWidth) {
        int literal = 0; // start of the values not yet written
        int i = 0;
        while (i < n) {
            int v = values[i];
            int j = i + 1;
            while (j < n && values[j] == v) {
                j++;
            }
            // A bit-packed run holds whole groups of eight: lend the run's first values to the pending ones to round them up.
            int pad = (8 - (i - literal) % 8) % 8;
            if (j - i - pad >= 8) {
                bitPacked(values, literal, i + pad, bitWidth);
                rleRun(j - i - pad, v, bitWidth);
                literal = j;
            }
            i = j;
        }
        bitPacked(values, literal, n, bitWidth);
    }

    /** Definition levels of a page without nulls: a single run of ones. */
    void allDefined(int n) {
        rleRun(n, 1, 1);
    }

    private void bitPacked(int[] values, int from, int to, int bitWidth) {
        while (from < to) {
            int groups = Math.min(MAX_GROUPS, (to - from + 7) / 8);
            writeVarint(groups << 1 | 1);
            ensure(groups * bitWidth);
            long acc = 0;
            int bits = 0;
            int end = from + groups * 8;
            for (int k = from; k < end; k++) {
                long v = k < to ? values[k] & 0xFFFFFFFFL : 0;
                acc |= v << bits;
                bits += bitWidth;
                while (bits >= 8) {
                    buf[size++] = (byte) acc;
                    acc >>>= 8;
                    bits -= 8;
                }
            }
            from = end;
        }
    }

    /** The bits needed for ids {@code 0..count-1}; zero for a dictionary of one value, as parquet-java writes it. */
    static int bitWidth(int count) {
        return count <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(count - 1);
    }
}
