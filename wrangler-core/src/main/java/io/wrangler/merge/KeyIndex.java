package io.wrangler.merge;

import io.wrangler.compact.Dedup;
import io.wrangler.read.ColumnValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The input's distinct keys, each numbered from 0 in the order first seen, and the lookup of a row's key (the input's or a
 * table file's) by its number. Keys are equal by {@link Dedup}'s rule. Where every key column is of a type whose values
 * are equal exactly when their bytes are (strings, binary, integers, dates, times, timestamps, decimals of one scale:
 * not floats, booleans or nested values) and a row's vectors are of the input's types, a key is compared in the vectors'
 * bytes, copied into one scratch array: no object per row, one decode of nothing. Otherwise (another type, or a file
 * read into another type) a row's key is built as {@link Dedup#key} values, as before, and looked up in a map of the
 * same keys made on first need. Once every key is added, several threads may find keys at once, each with a {@link Probe}
 * of its own.
 */
final class KeyIndex {
    private final List<ArrowType> types;
    /** Whether the input's keys are compared by their bytes. */
    private final boolean bytes;
    /** The key columns of the row each key was first seen in: its batch and row, as {@code batch << 32 | row}. */
    private long[] first = new long[1024];
    private int size;
    // the bytes form: an open-addressing table of hash << 32 | id + 1 (0: empty), the keys' bytes one after another in the arena
    private long[] table = new long[2048];
    /**
     * One bit per hash of every key in the table (8 bits per slot of it): a row whose bit is clear holds no input key,
     * found without a look into the table (most rows of the files a merge scans hold none; the bits stay in the cache
     * where the table does not).
     */
    private long[] bits = new long[2048 * 8 / 64];
    private byte[] arena = new byte[1 << 16];
    private int used;
    private int[] start = new int[1024];
    private int[] lengths = new int[1024];
    private int[] hashes = new int[1024];
    /** The scratch of {@link #add} and {@link #find(List, int)}: this thread's. */
    private final Probe own = new Probe();
    // the objects form, made on first need when bytes, else from the start
    private Map<List<Object>, Integer> objects;
    private final KeySource source;

    /** Where the input's key vectors are: the input's batch {@code batch}'s key columns. */
    interface KeySource {
        List<FieldVector> keys(int batch);
    }

    KeyIndex(List<ArrowType> types, KeySource source) {
        this.types = List.copyOf(types);
        this.source = source;
        boolean b = true;
        for (ArrowType t : types) {
            b &= byBytes(t);
        }
        this.bytes = b;
        if (!b) {
            objects = new HashMap<>();
        }
    }

    private static boolean byBytes(ArrowType t) {
        return switch (t.getTypeID()) {
            case Int, Utf8, Binary, Date, Time, Timestamp, Decimal, FixedSizeBinary, Interval, Duration -> true;
            default -> false;
        };
    }

    int size() {
        return size;
    }

    /** The input row where the key {@code id} was first seen, as {@code batch << 32 | row}. */
    long first(int id) {
        return first[id];
    }

    /**
     * The number of the key of the input's row {@code row} of batch {@code batch} (its key columns {@code k}), a new one
     * when the key is new (then {@link #size()} grew); -1 when a key column is null there.
     */
    int add(List<FieldVector> k, int batch, int row) {
        long ref = (long) batch << 32 | row;
        if (bytes && sameTypes(k)) {
            if (!own.encode(k, row)) {
                return -1;
            }
            int h = own.hash();
            int at = probe(h, own);
            if (table[at] != 0) {
                return (int) table[at] - 1;
            }
            int id = newId(ref);
            store(id, h);
            table[at] = slot(h, id);
            if (size * 2 > table.length) {
                grow();
            }
            return id;
        }
        List<Object> key = objectKey(k, row);
        if (key == null) {
            return -1;
        }
        Integer was = objects().get(key);
        if (was != null) {
            return was;
        }
        int id = newId(ref);
        objects.put(key, id);
        return id;
    }

    /** The number of the key of row {@code row} (its key columns {@code k}), or -1: a key column null, or not an input key. */
    int find(List<FieldVector> k, int row) {
        return find(k, row, own);
    }

    /** A scratch of its own for a thread that finds keys ({@link #find(List, int, Probe)}) while others do. */
    Probe probe() {
        return new Probe();
    }

    /** {@link #find(List, int)} through the scratch {@code p}: threads that each use their own find at once. */
    int find(List<FieldVector> k, int row, Probe p) {
        if (bytes && sameTypes(k)) {
            if (!p.encode(k, row)) {
                return -1;
            }
            int h = p.hash();
            if (!mayHold(h)) {
                return -1;
            }
            return (int) table[probe(h, p)] - 1;
        }
        List<Object> key = objectKey(k, row);
        if (key == null) {
            return -1;
        }
        Integer id = objects().get(key);
        return id == null ? -1 : id;
    }

    /**
     * The key columns {@code k} of one batch bound for lookups through {@code p} (one thread's): the types checked and
     * the buffers viewed once for the batch, not once per row, which {@link #find(List, int, Probe)} does. The vectors must
     * not change while it is used.
     */
    Bound bind(List<FieldVector> k, Probe p) {
        return new Bound(k, p, bytes && sameTypes(k));
    }

    /** The key columns of one batch bound for lookups ({@link #bind}): {@link #find(int)} is {@link #find(List, int, Probe)}. */
    final class Bound {
        private final List<FieldVector> k;
        private final Probe p;
        /** Per key column: its validity (null: no nulls), offsets (null: fixed width), values and width. */
        private final java.nio.ByteBuffer[] valid;
        private final java.nio.IntBuffer[] offsets;
        private final java.nio.ByteBuffer[] data;
        private final int[] width;
        /** The rows the views hold, and whether the buffers are viewed (else each row is looked up as {@code find} does). */
        private final int rows;
        private final boolean viewed;
        /** The values of a key of one variable-width column, little-endian (for {@link #hashOf}); else null. */
        private final java.nio.ByteBuffer single;

        private Bound(List<FieldVector> k, Probe p, boolean byBytes) {
            this.k = k;
            this.p = p;
            int n = Integer.MAX_VALUE;
            for (FieldVector v : k) {
                n = Math.min(n, v.getValueCount());
            }
            this.rows = k.isEmpty() ? 0 : n;
            valid = new java.nio.ByteBuffer[k.size()];
            offsets = new java.nio.IntBuffer[k.size()];
            data = new java.nio.ByteBuffer[k.size()];
            width = new int[k.size()];
            boolean viewed = byBytes && rows > 0;
            for (int c = 0; c < k.size() && viewed; c++) {
                viewed = view(c, k.get(c), rows);
            }
            this.viewed = viewed;
            single = viewed && data.length == 1 && offsets[0] != null ? data[0].duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN) : null;
        }

        /** Views the buffers of key column {@code c}; false when they cannot be (a vector past 2 GiB). */
        private boolean view(int c, FieldVector v, int n) {
            valid[c] = v.getNullCount() == 0 ? null : v.getValidityBuffer().nioBuffer(0, (n + 7) / 8);
            if (v instanceof BaseVariableWidthVector w) {
                offsets[c] = w.getOffsetBuffer().nioBuffer(0, 4 * (n + 1)).order(java.nio.ByteOrder.nativeOrder()).asIntBuffer();
                int end = offsets[c].get(n);
                if (end < 0) {
                    return false;
                }
                data[c] = w.getDataBuffer().nioBuffer(0, end);
                return true;
            }
            width[c] = ((BaseFixedWidthVector) v).getTypeWidth();
            if ((long) n * width[c] > Integer.MAX_VALUE) {
                return false;
            }
            data[c] = v.getDataBuffer().nioBuffer(0, n * width[c]);
            return true;
        }

        /** The number of the key of row {@code row}, or -1: a key column null, or not an input key. */
        int find(int row) {
            if (!viewed || row >= rows) {
                return KeyIndex.this.find(k, row, p);
            }
            if (single != null) {
                return findSingle(row);
            }
            if (!encode(row)) {
                return -1;
            }
            int h = p.hash();
            if (!mayHold(h)) {
                return -1;
            }
            return (int) table[probe(h, p)] - 1;
        }

        /**
         * {@link #find(int)} of rows {@code 0 .. n - 1} into {@code out} (at least {@code n} long), the same numbers: for a
         * key of one string or binary column in two passes, first every row's hash and bit (most rows ruled out), then the
         * table looked into for the rows left, one after another with nothing between them, so that the processor overlaps
         * their cache misses instead of waiting for each in turn; else row by row.
         */
        void findAll(int n, int[] out) {
            if (single == null || n > rows) {
                for (int i = 0; i < n; i++) {
                    out[i] = find(i);
                }
                return;
            }
            int[] left = p.rows(n);
            int[] hashes = p.hashes;
            int count = 0;
            for (int i = 0; i < n; i++) {
                out[i] = -1;
                if (valid[0] != null && (valid[0].get(i >>> 3) >> (i & 7) & 1) == 0) {
                    continue;
                }
                int from = offsets[0].get(i);
                int h = hashOf(single, from, offsets[0].get(i + 1) - from);
                if (mayHold(h)) {
                    left[count] = i;
                    hashes[count++] = h;
                }
            }
            for (int j = 0; j < count; j++) {
                encode(left[j]);
                out[left[j]] = (int) table[probe(hashes[j], p)] - 1;
            }
        }

        /**
         * {@link #find(int)} of a key of one string or binary column: its hash taken from the vector's bytes where they
         * are, the same number {@link Probe#hash} takes from the scratch array ({@link #hashOf}); the key copied into the
         * scratch only when its bit is set (most rows a scan looks up hold no input key and are ruled out by the bit).
         */
        private int findSingle(int row) {
            if (valid[0] != null && (valid[0].get(row >>> 3) >> (row & 7) & 1) == 0) {
                return -1;
            }
            int from = offsets[0].get(row);
            int h = hashOf(single, from, offsets[0].get(row + 1) - from);
            if (!mayHold(h)) {
                return -1;
            }
            encode(row);
            return (int) table[probe(h, p)] - 1;
        }

        /** {@link Probe#encode}'s bytes of row {@code row}, read through the views. */
        private boolean encode(int row) {
            p.length = 0;
            for (int c = 0; c < data.length; c++) {
                if (valid[c] != null && (valid[c].get(row >>> 3) >> (row & 7) & 1) == 0) {
                    return false;
                }
                if (offsets[c] != null) {
                    int from = offsets[c].get(row);
                    int n = offsets[c].get(row + 1) - from;
                    p.room(n + 4);
                    byte[] s = p.scratch;
                    int at = p.length;
                    s[at] = (byte) (n >>> 24);
                    s[at + 1] = (byte) (n >>> 16);
                    s[at + 2] = (byte) (n >>> 8);
                    s[at + 3] = (byte) n;
                    data[c].get(from, s, at + 4, n);
                    p.length = at + 4 + n;
                } else {
                    p.room(width[c]);
                    data[c].get(row * width[c], p.scratch, p.length, width[c]);
                    p.length += width[c];
                }
            }
            return true;
        }
    }

    private boolean sameTypes(List<FieldVector> k) {
        for (int c = 0; c < k.size(); c++) {
            FieldVector v = k.get(c);
            if (!(v instanceof BaseVariableWidthVector || v instanceof BaseFixedWidthVector && !(v instanceof BitVector))
                    || !v.getField().getType().equals(types.get(c))) {
                return false;
            }
        }
        return true;
    }

    private int newId(long ref) {
        if (size == first.length) {
            first = Arrays.copyOf(first, size * 2);
            start = Arrays.copyOf(start, size * 2);
            lengths = Arrays.copyOf(lengths, size * 2);
            hashes = Arrays.copyOf(hashes, size * 2);
        }
        first[size] = ref;
        lengths[size] = -1; // until stored in the bytes form
        return size++;
    }

    /** The scratch a key is copied into to be hashed and compared: one per thread that finds keys. */
    static final class Probe {
        private byte[] scratch = new byte[64];
        private int length;
        /** {@link Bound#findAll}'s rows left after their bits, and their hashes. */
        private int[] left = new int[0];
        private int[] hashes = new int[0];

        /** {@link #left}, room for {@code n} rows (and {@link #hashes} alike). */
        private int[] rows(int n) {
            if (left.length < n) {
                left = new int[n];
                hashes = new int[n];
            }
            return left;
        }

        /** The key of row {@code row} into the scratch array; false when a column is null there. */
        private boolean encode(List<FieldVector> k, int row) {
            length = 0;
            for (FieldVector v : k) {
                if (v.isNull(row)) {
                    return false;
                }
                if (v instanceof BaseVariableWidthVector w) {
                    ArrowBuf offsets = w.getOffsetBuffer();
                    int from = offsets.getInt((long) row * 4);
                    int n = offsets.getInt((long) row * 4 + 4) - from;
                    room(n + 4);
                    scratch[length++] = (byte) (n >>> 24);
                    scratch[length++] = (byte) (n >>> 16);
                    scratch[length++] = (byte) (n >>> 8);
                    scratch[length++] = (byte) n;
                    w.getDataBuffer().getBytes(from, scratch, length, n);
                    length += n;
                } else {
                    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
                    int width = f.getTypeWidth();
                    room(width);
                    f.getDataBuffer().getBytes((long) row * width, scratch, length, width);
                    length += width;
                }
            }
            return true;
        }

        private void room(int n) {
            if (length + n > scratch.length) {
                scratch = Arrays.copyOf(scratch, Math.max(scratch.length * 2, length + n));
            }
        }

        private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class,
                java.nio.ByteOrder.LITTLE_ENDIAN);

        private int hash() {
            return hashOf(scratch, 0, length);
        }
    }

    /** The hash of the {@code length} bytes at {@code from} of {@code a}: {@link Probe#hash} of a key encoded there. */
    static int hashOf(byte[] a, int from, int length) {
        long h = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = (h ^ (long) Probe.LONGS.get(a, from + i)) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
        }
        for (; i < length; i++) {
            h = (h ^ a[from + i]) * 0x94D049BB133111EBL;
        }
        h = (h ^ h >>> 32) * 0xD6E8FEB86659FD93L;
        return (int) (h ^ h >>> 32);
    }

    private static final java.lang.invoke.VarHandle INTS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class,
            java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * {@link Probe#hash} of the key of one variable-width column whose {@code n} bytes are at {@code from} of {@code a},
     * as {@link Probe#encode} would copy it (the length in four bytes, big-endian, then the bytes): read where they are,
     * the same number as {@link #hashOf(java.nio.ByteBuffer, int, int)}.
     */
    static int hashOfText(byte[] a, int from, int n) {
        int length = n + 4;
        long h = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        if (length >= 8) {
            long w = Integer.reverseBytes(n) & 0xFFFFFFFFL | (long) (int) INTS.get(a, from) << 32;
            h = (h ^ w) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
            for (i = 8; i + 8 <= length; i += 8) {
                h = (h ^ (long) Probe.LONGS.get(a, from + i - 4)) * 0xBF58476D1CE4E5B9L;
                h ^= h >>> 29;
            }
        }
        for (; i < length; i++) {
            byte b = i < 4 ? (byte) (n >>> 24 - 8 * i) : a[from + i - 4];
            h = (h ^ b) * 0x94D049BB133111EBL;
        }
        h = (h ^ h >>> 32) * 0xD6E8FEB86659FD93L;
        return (int) (h ^ h >>> 32);
    }

    /**
     * Whether a table file's key column's values can be looked up where they lie in its pages ({@link #pages}): a key of
     * one column, compared by its bytes, of a type whose values a page holds as a vector would (utf8, binary, int32,
     * int64: {@link ColumnValues}).
     */
    boolean byPages() {
        if (!bytes || types.size() != 1) {
            return false;
        }
        ArrowType t = types.get(0);
        return t instanceof ArrowType.Utf8 || t instanceof ArrowType.Binary
                || t instanceof ArrowType.Int i && i.getIsSigned() && (i.getBitWidth() == 32 || i.getBitWidth() == 64);
    }

    /** The type of the key's one column ({@link #byPages}). */
    ArrowType type() {
        return types.get(0);
    }

    /** Told of each row of a file that holds an input key: its row (counted from 0 in the file) and the key's number. */
    interface Found {
        void found(long row, int key);
    }

    /**
     * A lookup of a file's key column's values where they lie in its pages ({@link ColumnValues}), through {@code p}
     * (one thread's), telling {@code to} of every row that holds an input key, in row order: the same numbers
     * {@link #find(List, int, Probe)} gives for the rows of a vector of those values ({@link #byPages} must hold). A
     * dictionary's values are looked up once each, and its ids mapped.
     */
    Pages pages(Probe p, Found to) {
        if (!byPages()) {
            throw new IllegalStateException("keys of the types " + types + " are not looked up in pages");
        }
        return new Pages(p, to, types.get(0) instanceof ArrowType.Int ? -1 : 4);
    }

    /** {@link #pages}: one file's lookup at a time (a new dictionary for each chunk that has one). */
    final class Pages implements ColumnValues.Sink {
        private final Probe p;
        private final Found to;
        /** 4: values prefixed by their length, as {@link Probe#encode} copies variable-width ones; -1: fixed-width values. */
        private final int prefix;
        /** The key number of each value of the current dictionary (-1: not an input key). */
        private int[] dictionaryKeys = new int[0];

        private Pages(Probe p, Found to, int prefix) {
            this.p = p;
            this.to = to;
            this.prefix = prefix;
        }

        @Override
        public void dictionary(byte[] bytes, int[] starts, int[] lengths, int size) {
            if (dictionaryKeys.length < size) {
                dictionaryKeys = new int[size];
            }
            for (int i = 0; i < size; i++) {
                int h = hash(bytes, starts[i], lengths[i]);
                dictionaryKeys[i] = mayHold(h) ? lookup(h, bytes, starts[i], lengths[i]) : -1;
            }
        }

        @Override
        public void ids(long row, int n, int[] ids) {
            int[] keys = dictionaryKeys;
            for (int i = 0; i < n; i++) {
                int key = keys[ids[i]];
                if (key >= 0) {
                    to.found(row + i, key);
                }
            }
        }

        /**
         * In two passes, as {@link Bound#findAll}: every value's hash and bit first (most values ruled out), then the table
         * looked into for the values left, one after another, so that their cache misses overlap.
         */
        @Override
        public void values(long row, int n, byte[] bytes, int[] starts, int[] lengths) {
            int[] left = p.rows(n);
            int[] hashes = p.hashes;
            int count = 0;
            for (int i = 0; i < n; i++) {
                int h = hash(bytes, starts[i], lengths[i]);
                if (mayHold(h)) {
                    left[count] = i;
                    hashes[count++] = h;
                }
            }
            for (int j = 0; j < count; j++) {
                int i = left[j];
                int key = lookup(hashes[j], bytes, starts[i], lengths[i]);
                if (key >= 0) {
                    to.found(row + i, key);
                }
            }
        }

        private int hash(byte[] bytes, int from, int n) {
            return prefix < 0 ? hashOf(bytes, from, n) : hashOfText(bytes, from, n);
        }

        /** The number of the key whose value is the {@code n} bytes at {@code from} (its hash {@code h}), or -1. */
        private int lookup(int h, byte[] bytes, int from, int n) {
            p.length = 0;
            if (prefix < 0) {
                p.room(n);
            } else {
                p.room(n + 4);
                byte[] s = p.scratch;
                s[0] = (byte) (n >>> 24);
                s[1] = (byte) (n >>> 16);
                s[2] = (byte) (n >>> 8);
                s[3] = (byte) n;
                p.length = 4;
            }
            System.arraycopy(bytes, from, p.scratch, p.length, n);
            p.length += n;
            return (int) table[probe(h, p)] - 1;
        }
    }

    /**
     * {@link Probe#hash} of the key of one variable-width column whose {@code n} bytes are at {@code from} in {@code data}
     * (little-endian), as {@link Probe#encode} would copy it: the length in four bytes, big-endian, then the bytes; read
     * where they are, the same number.
     */
    static int hashOf(java.nio.ByteBuffer data, int from, int n) {
        int length = n + 4;
        long h = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        if (length >= 8) {
            // the first word: the length's four bytes, then the first four of the value
            long w = Integer.reverseBytes(n) & 0xFFFFFFFFL | (long) data.getInt(from) << 32;
            h = (h ^ w) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
            for (i = 8; i + 8 <= length; i += 8) {
                h = (h ^ data.getLong(from + i - 4)) * 0xBF58476D1CE4E5B9L;
                h ^= h >>> 29;
            }
        }
        for (; i < length; i++) {
            byte b = i < 4 ? (byte) (n >>> 24 - 8 * i) : data.get(from + i - 4);
            h = (h ^ b) * 0x94D049BB133111EBL;
        }
        h = (h ^ h >>> 32) * 0xD6E8FEB86659FD93L;
        return (int) (h ^ h >>> 32);
    }

    /** The bit of the hash {@code h}: from its product with an odd constant's high bits, not the table's slot bits. */
    private int bit(int h) {
        return (h * 0x9E3779B9) >>> (32 - Integer.numberOfTrailingZeros(bits.length * 64));
    }

    private boolean mayHold(int h) {
        int b = bit(h);
        return (bits[b >>> 6] & 1L << b) != 0;
    }

    private void mark(int h) {
        int b = bit(h);
        bits[b >>> 6] |= 1L << b;
    }

    private static long slot(int h, int id) {
        return (long) h << 32 | (id + 1);
    }

    /** The slot of the key in {@code p}'s scratch: where it is, or the empty slot where it would go. */
    private int probe(int h, Probe p) {
        byte[] scratch = p.scratch;
        int length = p.length;
        int mask = table.length - 1;
        for (int at = h & mask; ; at = at + 1 & mask) {
            long e = table[at];
            if (e == 0) {
                return at;
            }
            int id = (int) e - 1;
            if ((int) (e >>> 32) == h && Arrays.equals(arena, start[id], start[id] + lengths[id], scratch, 0, length)) {
                return at;
            }
        }
    }

    private void store(int id, int h) {
        byte[] scratch = own.scratch;
        int length = own.length;
        if (used + length > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, used + length));
        }
        System.arraycopy(scratch, 0, arena, used, length);
        start[id] = used;
        lengths[id] = length;
        hashes[id] = h;
        mark(h);
        used += length;
    }

    private void grow() {
        table = new long[table.length * 2];
        bits = new long[table.length * 8 / 64];
        int mask = table.length - 1;
        for (int id = 0; id < size; id++) {
            if (lengths[id] < 0) {
                continue; // numbered by the objects form
            }
            mark(hashes[id]);
            int at = hashes[id] & mask;
            while (table[at] != 0) {
                at = at + 1 & mask;
            }
            table[at] = slot(hashes[id], id);
        }
    }

    /**
     * The map of every key as {@link Dedup#key} values to its number, made on first need from the input's rows (under this
     * index's lock: threads that find keys at once see it made once, and whole).
     */
    private synchronized Map<List<Object>, Integer> objects() {
        if (objects == null) {
            objects = new HashMap<>();
            for (int id = 0; id < size; id++) {
                objects.put(objectKey(source.keys((int) (first[id] >>> 32)), (int) first[id]), id);
            }
        }
        return objects;
    }

    /** The key of row {@code i} as {@link Dedup#key} values, or null when a key column is null there. */
    static List<Object> objectKey(List<FieldVector> k, int i) {
        List<Object> key = new ArrayList<>(k.size());
        for (FieldVector v : k) {
            Object x = Dedup.key(v, i);
            if (x == null) {
                return null;
            }
            key.add(x);
        }
        return key;
    }
}
