package io.wrangler.compact;

import io.wrangler.encoding.CommitRuns;
import io.wrangler.read.TableFiles;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.Text;

/**
 * Dedup is the rule by which {@code dedupBy} picks the row it keeps of a key: the values it compares and the order of
 * commits that breaks a tie. One place, so that the javadoc, docs/compaction.md and the code say the same.
 *
 * <p>Keys are equal by value, as SQL's {@code PARTITION BY} groups them: strings and binary by their bytes, unsigned
 * integers by their unsigned value, decimals by their numeric value (1.5 = 1.50), floats as {@link Double#equals}
 * but for zero (NaN equals NaN; -0.0 equals 0.0, as DuckDB groups and joins them: a merge on a float key matches the
 * table's 0.0 for an input's -0.0), nested values element by element; nulls are equal to each other, so the rows
 * whose keys are null (or null in the same columns, equal in the others) are one key. The order column compares
 * numbers by value (unsigned ones unsigned), strings and binary by their bytes unsigned (UTF-8 byte order, which is
 * code point order, as DuckDB and Athena sort), booleans false first, dates, times and timestamps by time; null is
 * lowest. The kept row of a key has the greatest order value; among rows with that value, the one committed last:
 * see {@link #COMMIT_ORDER}, and within one file the later row.
 */
public final class Dedup {
    private Dedup() {
    }

    /** The write id's start time in a file name of a plain write: {@code ...-20241115T031500Z-9f3a1c2b7e6d5a40...}. */
    private static final Pattern WRITE_TIME = Pattern.compile("-(\\d{8}T\\d{6}Z)-[0-9a-f]{16}");

    /**
     * The order in which data files were committed, oldest first: by their LastModified (S3 sets it when the object is
     * created, which for wrangler's files is their publishing at or after the commit point; whole seconds on AWS), then,
     * within one LastModified, by the start time in the file's write id (plain writes: {@code yyyyMMddTHHmmssZ-<hex>};
     * a keyed write's id {@code k-<key>-<hash>-<hex>} has none and sorts first), then by key. Two writes published in
     * the same second whose ids do not tell them apart are ordered by file name: deterministic, but not their true
     * order, which S3 does not record. A keyed rerun's rewrite of a file counts as committed when its rows were (the time
     * its footer records, put there by {@code KeyedInput.commitOrder} before sorting), not when the rerun wrote it. A file
     * written from rows of other files (a delete's, a merge's, a rewrite's, a compaction of such files) records each
     * row's commit ({@link io.wrangler.encoding.CommitRuns}): dedup ranks rows by it ({@link #byCommit}), not by the file.
     */
    static final Comparator<TableFiles.DataFile> COMMIT_ORDER = Comparator
            .comparing(TableFiles.DataFile::modified, Comparator.nullsFirst(Comparator.<Instant>naturalOrder()))
            .thenComparing(Dedup::writeTime)
            .thenComparing(TableFiles.DataFile::key);

    /** Sorts {@code files} by {@link #COMMIT_ORDER}, each file's write time read from its name once, not at each comparison. */
    static void sortByCommit(List<TableFiles.DataFile> files) {
        Map<String, String> times = new HashMap<>();
        for (TableFiles.DataFile f : files) {
            times.put(f.key(), writeTime(f));
        }
        files.sort(Comparator.comparing(TableFiles.DataFile::modified, Comparator.nullsFirst(Comparator.<Instant>naturalOrder()))
                .thenComparing((TableFiles.DataFile f) -> times.get(f.key()))
                .thenComparing(TableFiles.DataFile::key));
    }

    private static String writeTime(TableFiles.DataFile f) {
        return writeTime(f.key().substring(f.key().lastIndexOf('/') + 1));
    }

    private static String writeTime(String name) {
        Matcher m = WRITE_TIME.matcher(name);
        return m.find() ? m.group(1) : "";
    }

    /** A commit stamp, parsed: its time, the write time in its file's name, its file's name. */
    private record Commit(Instant at, String writeTime, String name) {
    }

    /**
     * The rank of each of {@code stamps} ({@link CommitRuns}: a row's commit, its file's own or the one its footer
     * records) in {@link #COMMIT_ORDER}, 0 the oldest: by time, then by the write time in the file name, then by the file
     * name (the files of one partition share their folder, so their names order them as their keys do). Rows committed
     * with one file share a rank; a rewrite that moved them gave them their file's stamp, so they keep their rank.
     */
    static Map<String, Integer> byCommit(List<String> stamps) throws java.io.IOException {
        Map<String, Commit> parsed = new HashMap<>();
        for (String s : stamps) {
            if (!parsed.containsKey(s)) {
                String name = CommitRuns.name(s);
                parsed.put(s, new Commit(CommitRuns.at(s), writeTime(name), name));
            }
        }
        List<String> sorted = new ArrayList<>(parsed.keySet());
        sorted.sort(Comparator.comparing((String s) -> parsed.get(s).at())
                .thenComparing(s -> parsed.get(s).writeTime()).thenComparing(s -> parsed.get(s).name()));
        Map<String, Integer> out = new HashMap<>();
        for (int i = 0; i < sorted.size(); i++) {
            out.put(sorted.get(i), i);
        }
        return out;
    }

    /** Null when {@code field} can order rows, else what its type is, for the refusal. */
    public static String unordered(Field field) {
        ArrowType t = field.getType();
        return switch (t.getTypeID()) {
            case Int, FloatingPoint, Utf8, LargeUtf8, Binary, LargeBinary, FixedSizeBinary, Bool, Decimal, Date, Time, Timestamp -> null;
            default -> t.toString();
        };
    }

    /** The value of row {@code i} of {@code v} as a key component: equal (equals and hashCode) exactly when equal by value. */
    public static Object key(FieldVector v, int i) {
        if (v == null || v.isNull(i)) {
            return null;
        }
        Object unsigned = unsigned(v, i);
        return unsigned != null ? unsigned : normalized(v.getObject(i));
    }

    /** The value of row {@code i} of {@code v} as an order value, null for null. */
    @SuppressWarnings("unchecked")
    public static Comparable<Object> order(FieldVector v, int i) {
        Object k = key(v, i);
        if (k != null && !(k instanceof Comparable)) {
            throw new IllegalArgumentException("the column '" + v.getName() + "' has values without order: " + k.getClass().getSimpleName());
        }
        return (Comparable<Object>) k;
    }

    /** -1, 0, 1 as {@code a} is lower, equal, greater; null lowest. */
    public static int compare(Comparable<Object> a, Comparable<Object> b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        return Integer.signum(a.compareTo(b));
    }

    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private static Object unsigned(FieldVector v, int i) {
        if (v instanceof UInt1Vector u) {
            return (long) (u.get(i) & 0xFF);
        }
        if (v instanceof UInt2Vector u) {
            return (long) u.get(i);
        }
        if (v instanceof UInt4Vector u) {
            return u.get(i) & 0xFFFFFFFFL;
        }
        if (v instanceof UInt8Vector u) {
            long x = u.get(i);
            return x >= 0 ? BigInteger.valueOf(x) : BigInteger.valueOf(x).add(TWO_64);
        }
        return null;
    }

    private static Object normalized(Object o) {
        if (o instanceof Text t) {
            return new Bytes(t.copyBytes());
        }
        if (o instanceof byte[] b) {
            return new Bytes(b);
        }
        if (o instanceof BigDecimal d) {
            return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
        }
        if (o instanceof Double d && d == 0.0) {
            return 0.0d; // -0.0 is 0.0
        }
        if (o instanceof Float f && f == 0.0f) {
            return 0.0f;
        }
        if (o instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(x -> out.add(normalized(x)));
            return out;
        }
        if (o instanceof Map<?, ?> map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            map.forEach((k, x) -> out.put(normalized(k), normalized(x)));
            return out;
        }
        return o;
    }

    /** Bytes (a string's UTF-8, or binary) equal by content and ordered unsigned, byte by byte. */
    record Bytes(byte[] bytes) implements Comparable<Bytes> {
        @Override
        public boolean equals(Object o) {
            return o instanceof Bytes b && Arrays.equals(bytes, b.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public int compareTo(Bytes o) {
            return Arrays.compareUnsigned(bytes, o.bytes);
        }

        @Override
        public String toString() {
            return Arrays.toString(bytes);
        }
    }
}
