package io.wrangler.compact;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntPredicate;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Per column, the count of non-null values and a checksum of them that does not depend on row order: the sum of a
 * 64-bit hash of each value (nulls add nothing). Columns are told apart by name case-insensitively (as a read matches
 * them), so the files read and the new files read back are digested alike. Both sides of a check are read by the same
 * reader into the same Arrow types, so a flat value is hashed by its bytes in the vector (fixed width: its slot;
 * variable width: its bytes), a nested one by its text.
 */
public final class Digest {
    private final Map<String, long[]> columns = new LinkedHashMap<>();
    private final Map<String, Field> types = new LinkedHashMap<>();
    private final Map<String, String> names = new HashMap<>();
    private long rows;
    /** A column left out, or null. */
    String skipped;

    /** Leaves the column {@code name} out of this digest (the rows' key ids, which the footers record). */
    public Digest skipping(String name) {
        skipped = name;
        return this;
    }

    /** Adds every row of {@code b}. */
    public void addAll(VectorSchemaRoot b) {
        add(b, null, b.getRowCount());
    }

    /** Adds the rows of {@code b} that {@code row} takes. */
    public void add(VectorSchemaRoot b, IntPredicate row) {
        int n = b.getRowCount();
        boolean[] take = taken(row, n); // the predicate asked once per row, not once per value
        add(b, take, count(take));
    }

    /**
     * Adds the rows of {@code b} that {@code take} marks ({@code taken} of them; null: every row). Each kind of column and
     * each of its cases (every row taken and no nulls, or not) is a loop of its own, so that each is compiled with a
     * profile of its own kind, not one shared with the other columns and callers.
     */
    private void add(VectorSchemaRoot b, boolean[] take, int taken) {
        int n = b.getRowCount();
        rows += taken;
        boolean all = taken == n;
        for (FieldVector v : b.getFieldVectors()) {
            if (v.getName().equals(skipped)) {
                continue; // the rows' key ids, recorded in the footers and checked there (KeyedInput)
            }
            long[] d = column(v);
            if (v instanceof BitVector bits) {
                bits(bits, n, take, d);
            } else if (v instanceof BaseFixedWidthVector f && n > 0 && (long) n * f.getTypeWidth() <= Integer.MAX_VALUE) {
                fixed(f, n, take, all, d);
            } else if (v instanceof BaseVariableWidthVector w && n > 0 && !(w.getOffsetBuffer().getInt((long) n * 4) < 0)) {
                variable(w, n, take, all, d);
            } else if (!(v instanceof BaseFixedWidthVector || v instanceof BaseVariableWidthVector)) {
                objects(v, n, take, d);
            }
            // else no rows (the column is still named), or a vector past 2 GiB: not made by a merge or compaction batch
        }
    }

    private static boolean[] taken(IntPredicate row, int n) {
        boolean[] take = new boolean[n];
        for (int i = 0; i < n; i++) {
            take[i] = row.test(i);
        }
        return take;
    }

    private static int count(boolean[] take) {
        int taken = 0;
        for (boolean t : take) {
            taken += t ? 1 : 0;
        }
        return taken;
    }

    /** The sums of the column of {@code v}, named as the first batch named it. */
    private long[] column(FieldVector v) {
        String name = v.getName().toLowerCase(Locale.ROOT);
        names.putIfAbsent(name, v.getName());
        types.putIfAbsent(name, v.getField());
        return columns.computeIfAbsent(name, k -> new long[2]);
    }

    private static void bits(BitVector bits, int n, boolean[] take, long[] d) {
        for (int i = 0; i < n; i++) {
            if ((take == null || take[i]) && !bits.isNull(i)) {
                d[0]++;
                d[1] += mix(bits.get(i) + 1);
            }
        }
    }

    private static void objects(FieldVector v, int n, boolean[] take, long[] d) {
        for (int i = 0; i < n; i++) {
            if ((take == null || take[i]) && !v.isNull(i)) {
                d[0]++;
                d[1] += hash(text(v.getObject(i)));
            }
        }
    }

    /**
     * Adds the values of a fixed-width column: validity and values read through NIO views (one bounds check the JIT
     * hoists), not an ArrowBuf get per byte; without nulls, every row taken, a value of 4 or 8 bytes is hashed at once (the
     * same hash as {@link #bytes}).
     */
    private static void fixed(BaseFixedWidthVector f, int n, boolean[] take, boolean all, long[] d) {
        int width = f.getTypeWidth();
        ByteBuffer data = f.getDataBuffer().nioBuffer(0, n * width).order(ByteOrder.LITTLE_ENDIAN);
        if (all && f.getNullCount() == 0 && (width == 8 || width == 4)) {
            d[0] += n;
            d[1] += width == 8 ? longs(data, n) : ints(data, n);
            return;
        }
        ByteBuffer valid = f.getValidityBuffer().nioBuffer(0, (n + 7) / 8);
        if (take == null) {
            fixedValid(data, valid, n, width, d);
        } else {
            fixedTaken(data, valid, n, width, take, d);
        }
    }

    private static long longs(ByteBuffer data, int n) {
        long seed = 0x9E3779B97F4A7C15L ^ 8;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += mix(mix(seed ^ data.getLong(i * 8)));
        }
        return sum;
    }

    private static long ints(ByteBuffer data, int n) {
        long seed = 0x9E3779B97F4A7C15L ^ 4;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += mix(seed ^ (data.getInt(i * 4) & 0xFFFFFFFFL)); // as bytes() reads a value shorter than 8
        }
        return sum;
    }

    private static void fixedValid(ByteBuffer data, ByteBuffer valid, int n, int width, long[] d) {
        long count = 0;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            if ((valid.get(i >>> 3) >> (i & 7) & 1) != 0) {
                count++;
                sum += bytes(data, i * width, width);
            }
        }
        d[0] += count;
        d[1] += sum;
    }

    private static void fixedTaken(ByteBuffer data, ByteBuffer valid, int n, int width, boolean[] take, long[] d) {
        long count = 0;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            if (take[i] && (valid.get(i >>> 3) >> (i & 7) & 1) != 0) {
                count++;
                sum += bytes(data, i * width, width);
            }
        }
        d[0] += count;
        d[1] += sum;
    }

    /** Adds the values of a variable-width column, read through NIO views. */
    private static void variable(BaseVariableWidthVector w, int n, boolean[] take, boolean all, long[] d) {
        IntBuffer offsets = w.getOffsetBuffer().nioBuffer(0, 4 * (n + 1)).order(ByteOrder.nativeOrder()).asIntBuffer();
        ByteBuffer data = w.getDataBuffer().nioBuffer(0, offsets.get(n)).order(ByteOrder.LITTLE_ENDIAN);
        if (all && w.getNullCount() == 0) {
            d[0] += n;
            d[1] += variableEvery(offsets, data, n);
            return;
        }
        ByteBuffer valid = w.getValidityBuffer().nioBuffer(0, (n + 7) / 8);
        if (take == null) {
            variableValid(offsets, data, valid, n, d);
        } else {
            variableTaken(offsets, data, valid, n, take, d);
        }
    }

    private static long variableEvery(IntBuffer offsets, ByteBuffer data, int n) {
        long sum = 0;
        int from = offsets.get(0);
        for (int i = 0; i < n; i++) {
            int to = offsets.get(i + 1);
            sum += bytes(data, from, to - from);
            from = to;
        }
        return sum;
    }

    private static void variableValid(IntBuffer offsets, ByteBuffer data, ByteBuffer valid, int n, long[] d) {
        long count = 0;
        long sum = 0;
        int from = offsets.get(0);
        for (int i = 0; i < n; i++) {
            int to = offsets.get(i + 1);
            if ((valid.get(i >>> 3) >> (i & 7) & 1) != 0) {
                count++;
                sum += bytes(data, from, to - from);
            }
            from = to;
        }
        d[0] += count;
        d[1] += sum;
    }

    private static void variableTaken(IntBuffer offsets, ByteBuffer data, ByteBuffer valid, int n, boolean[] take, long[] d) {
        long count = 0;
        long sum = 0;
        int from = offsets.get(0);
        for (int i = 0; i < n; i++) {
            int to = offsets.get(i + 1);
            if (take[i] && (valid.get(i >>> 3) >> (i & 7) & 1) != 0) {
                count++;
                sum += bytes(data, from, to - from);
            }
            from = to;
        }
        d[0] += count;
        d[1] += sum;
    }

    /**
     * A hash of {@code length} bytes at {@code at} of {@code data} (little-endian), eight at a time; the last one to seven
     * as one little-endian number, read as eight bytes and masked where the buffer holds eight, else byte by byte (the
     * same number).
     */
    private static long bytes(ByteBuffer data, int at, int length) {
        long h = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = mix(h ^ data.getLong(at + i));
        }
        int rest = length - i;
        long last = 0;
        if (rest > 0 && at + i + 8 <= data.limit()) {
            last = data.getLong(at + i) & -1L >>> (64 - 8 * rest);
        } else {
            for (int j = 0; j < rest; j++) {
                last |= (data.get(at + i + j) & 0xFFL) << 8 * j;
            }
        }
        return mix(h ^ last);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(o);
    }

    private static long hash(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        return h ^ (h >>> 33);
    }

    /**
     * The column whose type differs between the rows read and {@code other} (read back), as a sentence, or null: a type
     * the write could not keep, which is a limit of the compaction, not a changed file.
     */
    public String typeDifference(Digest other) {
        for (Map.Entry<String, Field> e : types.entrySet()) {
            Field back = other.types.get(e.getKey());
            if (back != null && !back.getType().equals(e.getValue().getType())) {
                return "the column '" + names.get(e.getKey()) + "' was read as " + e.getValue().getType() + " and its new files give it "
                        + back.getType();
            }
        }
        return null;
    }

    /** What differs, or null. */
    public String difference(Digest other) {
        if (rows != other.rows) {
            return rows + " rows read, " + other.rows + " written";
        }
        for (Map.Entry<String, long[]> e : columns.entrySet()) {
            long[] o = other.columns.get(e.getKey());
            String name = names.get(e.getKey());
            if (o == null) {
                if (e.getValue()[0] == 0) {
                    continue; // no value to keep
                }
                return "the column '" + name + "' is missing";
            }
            if (o[0] != e.getValue()[0]) {
                return "the column '" + name + "' has " + e.getValue()[0] + " values read, " + o[0] + " written";
            }
            if (o[1] != e.getValue()[1]) {
                return "the values of the column '" + name + "' differ (checksum)";
            }
        }
        for (Map.Entry<String, long[]> e : other.columns.entrySet()) {
            if (!columns.containsKey(e.getKey()) && e.getValue()[0] > 0) {
                return "the column '" + other.names.get(e.getKey()) + "' has 0 values read, " + e.getValue()[0] + " written";
            }
        }
        return null;
    }
}
