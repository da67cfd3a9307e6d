package io.wrangler.input;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;

/** Utf8 finds the first byte of a value that is not well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF). */
public final class Utf8 {
    private Utf8() {
    }

    /** The offset of the first byte of an ill-formed sequence in {@code [start, end)} of {@code data}, or -1 if all is well-formed. */
    public static long firstInvalid(ArrowBuf data, long start, long end) {
        long p = start;
        while (p < end) {
            // Eight ASCII bytes at a time: most text is ASCII.
            if (end - p >= 8 && (data.getLong(p) & 0x8080808080808080L) == 0) {
                p += 8;
                continue;
            }
            int b = data.getByte(p) & 0xFF;
            if (b < 0x80) {
                p++;
                continue;
            }
            int n = length(b, p + 1 < end ? data.getByte(p + 1) & 0xFF : -1);
            if (n == 0 || p + n > end) {
                return p;
            }
            for (int k = 2; k < n; k++) {
                if ((data.getByte(p + k) & 0xC0) != 0x80) {
                    return p;
                }
            }
            p += n;
        }
        return -1;
    }

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * Whether {@code [start, end)} of {@code data} is all ASCII; false, not an exception, for a span outside the buffer, so
     * that the caller's checks of each value report it. Copies the span out in blocks: one bounds check per block, not per
     * eight bytes.
     */
    public static boolean allAscii(ArrowBuf data, long start, long end) {
        if (start < 0 || end < start || end > data.capacity()) {
            return false;
        }
        byte[] block = new byte[(int) Math.min(end - start, 1 << 16)];
        for (long p = start; p < end; p += block.length) {
            int n = (int) Math.min(block.length, end - p);
            data.getBytes(p, block, 0, n);
            long any = 0;
            int i = 0;
            for (; i + 8 <= n; i += 8) {
                any |= (long) LONGS.get(block, i);
            }
            for (; i < n; i++) {
                any |= block[i];
            }
            if ((any & 0x8080808080808080L) != 0) {
                return false;
            }
        }
        return true;
    }

    /** The index of the first byte of an ill-formed sequence in {@code bytes}, or -1. */
    public static int firstInvalid(byte[] bytes) {
        int p = 0;
        while (p < bytes.length) {
            int b = bytes[p] & 0xFF;
            if (b < 0x80) {
                p++;
                continue;
            }
            int n = length(b, p + 1 < bytes.length ? bytes[p + 1] & 0xFF : -1);
            if (n == 0 || p + n > bytes.length) {
                return p;
            }
            for (int k = 2; k < n; k++) {
                if ((bytes[p + k] & 0xC0) != 0x80) {
                    return p;
                }
            }
            p += n;
        }
        return -1;
    }

    /** The length of the sequence that starts with {@code b} followed by {@code next} (-1 at the end), or 0 if ill-formed there. */
    private static int length(int b, int next) {
        if (next < 0) {
            return 0;
        }
        if (b >= 0xC2 && b <= 0xDF) {
            return (next & 0xC0) == 0x80 ? 2 : 0;
        }
        if (b == 0xE0) {
            return next >= 0xA0 && next <= 0xBF ? 3 : 0;
        }
        if (b == 0xED) {
            return next >= 0x80 && next <= 0x9F ? 3 : 0; // no UTF-16 surrogates
        }
        if (b >= 0xE1 && b <= 0xEF) {
            return (next & 0xC0) == 0x80 ? 3 : 0;
        }
        if (b == 0xF0) {
            return next >= 0x90 && next <= 0xBF ? 4 : 0;
        }
        if (b >= 0xF1 && b <= 0xF3) {
            return (next & 0xC0) == 0x80 ? 4 : 0;
        }
        if (b == 0xF4) {
            return next >= 0x80 && next <= 0x8F ? 4 : 0;
        }
        return 0;
    }
}
