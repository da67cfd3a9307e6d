package io.wrangler.partition;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.ArrowBufPointer;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.FieldVector;

/**
 * A ColumnCoder gives each distinct value of one partition column a small code, stable across the batches of a
 * write, and renders each distinct value as path text only once. Code 0 is the default partition (null or empty).
 *
 * <p>Fixed-width values are keyed by their raw bits, strings by their bytes in the Arrow buffer, so that a row costs
 * a hash lookup, not a String. Not thread-safe.
 */
final class ColumnCoder {
    private final List<String> rendered = new ArrayList<>();
    private final LongIntMap byBits = new LongIntMap();
    /** Strings of at most 7 bytes by their bytes: the same codes as byText gives, kept across batches. */
    private final LongIntMap byShortBytes = new LongIntMap();
    private final Map<String, Integer> byText = new HashMap<>();

    ColumnCoder() {
        rendered.add(null);
    }

    /** The text of a code: null for the default partition. */
    String text(int code) {
        return rendered.get(code);
    }

    /** Codes the rows of {@code v} into {@code out}. */
    void code(FieldVector v, int rows, int[] out) {
        if (v instanceof BaseVariableWidthVector s) {
            codeBytes(s, rows, out);
        } else if (v instanceof BaseFixedWidthVector f && !(v instanceof DecimalVector) && !(v instanceof Decimal256Vector)) {
            codeBits(f, rows, out);
        } else {
            for (int r = 0; r < rows; r++) {
                out[r] = byText(PartitionValues.render(v, r));
            }
        }
    }

    private int byText(String text) {
        if (text == null) {
            return 0;
        }
        Integer code = byText.get(text);
        if (code == null) {
            code = rendered.size();
            rendered.add(text);
            byText.put(text, code);
        }
        return code;
    }

    private void codeBits(BaseFixedWidthVector v, int rows, int[] out) {
        ArrowBuf data = v.getDataBuffer();
        int width = v instanceof BitVector ? 0 : v.getTypeWidth();
        if ((width == 4 || width == 8) && rows > 0 && rows <= Integer.MAX_VALUE / 8) {
            // dates, ints, longs: validity and values read through NIO views, not an ArrowBuf get (bounds and
            // reference-count checks) per row
            ByteBuffer valid = v.getValidityBuffer().nioBuffer(0, (rows + 7) / 8);
            ByteBuffer values = data.nioBuffer(0, width * rows).order(ByteOrder.LITTLE_ENDIAN);
            for (int r = 0; r < rows; r++) {
                if ((valid.get(r >>> 3) >> (r & 7) & 1) == 0) {
                    out[r] = 0;
                    continue;
                }
                long bits = width == 4 ? values.getInt(4 * r) : values.getLong(8 * r);
                int code = byBits.get(bits);
                if (code < 0) {
                    code = byText(PartitionValues.render(v, r));
                    byBits.put(bits, code);
                }
                out[r] = code;
            }
            return;
        }
        for (int r = 0; r < rows; r++) {
            if (v.isNull(r)) {
                out[r] = 0;
                continue;
            }
            long bits = switch (width) {
                case 0 -> ((BitVector) v).get(r);
                case 1 -> data.getByte(r);
                case 2 -> data.getShort(2L * r);
                case 4 -> data.getInt(4L * r);
                default -> data.getLong(8L * r);
            };
            int code = byBits.get(bits);
            if (code < 0) {
                code = byText(PartitionValues.render(v, r));
                byBits.put(bits, code);
            }
            out[r] = code;
        }
    }

    private void codeBytes(BaseVariableWidthVector v, int rows, int[] out) {
        if (rows == 0) {
            return;
        }
        if (oneValue(v, rows)) {
            // every row holds the first row's value (a batch of one partition: a merge's rows of one rewritten file)
            codeEach(v, 1, out);
            java.util.Arrays.fill(out, 1, rows, out[0]);
            return;
        }
        codeEach(v, rows, out);
    }

    /**
     * Codes the rows of {@code v} one by one: a method of its own, so that its loop is compiled with the profile of the
     * batches that take it, apart from the shortcut above.
     */
    private void codeEach(BaseVariableWidthVector v, int rows, int[] out) {
        // Keys point into this batch's buffers: the map lives for this batch only; codes come from byText.
        Map<ArrowBufPointer, Integer> batch = new HashMap<>();
        ArrowBufPointer probe = new ArrowBufPointer();
        ArrowBuf data = v.getDataBuffer();
        // Validity, offsets and short values read through NIO views (each get checked against the view's bounds), not
        // an ArrowBuf get per row and per byte. Offsets are ints: no value lies past the first 2 GiB of the data.
        ByteBuffer valid = v.getValidityBuffer().nioBuffer(0, (rows + 7) / 8);
        IntBuffer offsets = v.getOffsetBuffer().nioBuffer(0, 4 * (rows + 1)).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
        int viewed = (int) Math.min(data.capacity(), Integer.MAX_VALUE);
        ByteBuffer bytes = data.nioBuffer(0, viewed).order(ByteOrder.LITTLE_ENDIAN);
        int lastLong = viewed - 8;
        int prevStart = -1;
        int prevLength = -1;
        int prevCode = -1;
        for (int r = 0; r < rows; r++) {
            if ((valid.get(r >>> 3) >> (r & 7) & 1) == 0) {
                out[r] = 0;
                continue;
            }
            int start = offsets.get(r);
            int length = offsets.get(r + 1) - start;
            if (length == 0) {
                out[r] = 0;
                continue;
            }
            if (length <= 7) {
                // A short value (country codes, flags) is its own key: its bytes and length packed in a long, no hashing of buffers.
                long key = (long) length << 56;
                if (start >= 0 && start <= lastLong) {
                    key |= bytes.getLong(start) & ((1L << (8 * length)) - 1);
                } else {
                    for (int b = 0; b < length; b++) {
                        key |= (bytes.get(start + b) & 0xFFL) << (8 * b);
                    }
                }
                int code = byShortBytes.get(key);
                if (code < 0) {
                    code = byText(PartitionValues.render(v, r));
                    byShortBytes.put(key, code);
                }
                out[r] = code;
                continue;
            }
            if (length == prevLength && sameBytes(bytes, prevStart, start, length)) {
                out[r] = prevCode; // the previous long value's row again (rows grouped by partition): no hash, no lookup
                continue;
            }
            v.getDataPointer(r, probe);
            Integer code = batch.get(probe);
            if (code == null) {
                code = byText(PartitionValues.render(v, r));
                batch.put(v.getDataPointer(r), code);
            }
            out[r] = code;
            prevStart = start;
            prevLength = length;
            prevCode = code;
        }
    }

    /**
     * Whether the first {@code rows} rows of {@code v} (more than one) hold one value, not empty and not null: the offsets
     * step by its length, and its bytes repeat (each value's bytes equal the one before's, compared at once).
     */
    static boolean oneValue(BaseVariableWidthVector v, int rows) {
        if (rows < 2 || v.getNullCount() != 0) {
            return false;
        }
        IntBuffer offsets = v.getOffsetBuffer().nioBuffer(0, 4 * (rows + 1)).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
        int first = offsets.get(0);
        long length = offsets.get(1) - first;
        if (length <= 0 || first < 0) {
            return false;
        }
        for (int r = 2; r <= rows; r++) {
            if (offsets.get(r) - first != r * length) {
                return false;
            }
        }
        int total = (int) (rows * length); // the last offset less the first: an int
        ByteBuffer bytes = v.getDataBuffer().nioBuffer(first, total);
        return bytes.slice((int) length, total - (int) length).mismatch(bytes.slice(0, total - (int) length)) == -1;
    }

    /** Whether the {@code length} bytes at {@code a} and at {@code b} are the same, compared eight at a time. */
    private static boolean sameBytes(ByteBuffer bytes, int a, int b, int length) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if (bytes.getLong(a + i) != bytes.getLong(b + i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (bytes.get(a + i) != bytes.get(b + i)) {
                return false;
            }
        }
        return true;
    }
}
