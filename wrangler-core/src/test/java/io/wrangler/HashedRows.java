package io.wrangler;

/**
 * The incompressible values of the memory tests' rows ({@link MergeMemoryTest}, {@link CompactionMemoryTest}): a 64-bit
 * hash of the row number, and its 16 lower-case hex digits four times over, which DuckDB recomputes as
 * {@code repeat(lpad(lower(hex(v)), 16, '0'), 4)}. Built without {@code String.format}: the tests generate millions of
 * rows in a test JVM that runs C1 only.
 */
final class HashedRows {
    private static final byte[] DIGITS = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private HashedRows() {
    }

    /** SplitMix64's finaliser of {@code i}. */
    static long mix(long i) {
        long z = i * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The 16 hex digits of {@code v} (zero-padded, lower case), four times, into {@code out} (64 bytes). */
    static byte[] hex4(long v, byte[] out) {
        for (int d = 0; d < 16; d++) {
            out[d] = DIGITS[(int) (v >>> (60 - 4 * d)) & 15];
        }
        for (int copy = 1; copy < 4; copy++) {
            System.arraycopy(out, 0, out, 16 * copy, 16);
        }
        return out;
    }
}
