package io.wrangler;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A PartitionFilter selects partitions of a table by their values, as text (unescaped, as in Glue's partition values:
 * {@code "2024-01-15"}, {@code "RU"}; null for the default partition {@code __HIVE_DEFAULT_PARTITION__}), so that a read
 * or a compaction lists and opens nothing outside them.
 *
 * <p>{@link #in} fixes a column to a set of values: where it fixes the leading partition columns, the partitions' folders
 * are listed by their exact prefixes and nothing else of the table is listed. {@link #where} tests each partition's
 * values as a whole (awswrangler's {@code partition_filter}): the folders it rejects are seen by their names (a listing
 * with a delimiter) and never listed or opened. Immutable.
 *
 * <p>A filter is checked against the table's partition columns before any data file is opened: an {@link #in} on a
 * column the table is not partitioned by (a data column, a typo) fails the read or compaction with an
 * {@link InvalidReadException}, as does a {@link #where} predicate that asks its map for such a column ({@code get},
 * {@code getOrDefault}; {@code containsKey} answers false). A table without a file yet (only its {@code _tmp/}) has no
 * known partition columns: the filter is not checked there and the read is empty.
 *
 * <pre>{@code
 * PartitionFilter f = PartitionFilter.in("dt", "2024-01-15", "2024-01-16")
 *     .and(PartitionFilter.where(p -> !"XX".equals(p.get("country"))));
 * }</pre>
 */
public final class PartitionFilter {
    private static final PartitionFilter ALL = new PartitionFilter(Map.of(), p -> true);

    private final Map<String, Set<String>> fixed;
    private final Predicate<Map<String, String>> test;

    private PartitionFilter(Map<String, Set<String>> fixed, Predicate<Map<String, String>> test) {
        this.fixed = fixed;
        this.test = test;
    }

    /** Every partition. */
    public static PartitionFilter all() {
        return ALL;
    }

    /**
     * The partitions whose {@code column} is one of {@code values}. Null and {@code ""} both name the default partition
     * {@code __HIVE_DEFAULT_PARTITION__} (where a writer puts both), once, and its rows read back with the column null.
     */
    public static PartitionFilter in(String column, String... values) {
        Objects.requireNonNull(column, "column");
        if (values.length == 0) {
            throw new IllegalArgumentException("PartitionFilter.in(\"" + column + "\") needs at least one value");
        }
        Set<String> set = new HashSet<>();
        for (String v : values) {
            set.add(v == null || v.isEmpty() ? null : v);
        }
        Map<String, Set<String>> m = new LinkedHashMap<>();
        m.put(column, Collections.unmodifiableSet(set));
        return new PartitionFilter(Collections.unmodifiableMap(m), p -> true);
    }

    /**
     * The partitions whose values (column to text, null for the default partition) pass {@code test}. The map holds the
     * table's partition columns only: asking it for another column ({@code get}) fails the read or compaction with an
     * {@link InvalidReadException} naming the column, rather than answering null for every partition.
     */
    public static PartitionFilter where(Predicate<Map<String, String>> test) {
        return new PartitionFilter(Map.of(), Objects.requireNonNull(test, "test"));
    }

    /** The partitions that pass both filters. */
    public PartitionFilter and(PartitionFilter other) {
        Map<String, Set<String>> m = new LinkedHashMap<>(fixed);
        other.fixed.forEach((c, vs) -> m.merge(c, vs, (a, b) -> {
            Set<String> both = new HashSet<>(a);
            both.retainAll(b);
            return Collections.unmodifiableSet(both);
        }));
        Predicate<Map<String, String>> mine = test;
        return new PartitionFilter(Collections.unmodifiableMap(m), p -> mine.test(p) && other.test.test(p));
    }

    /**
     * The values {@code column} is fixed to, or null when this filter does not fix it. A column matches as a table's
     * column matches a name given to wrangler: spelled exactly so, else equal ignoring case ({@code in("DT", ...)} fixes
     * the column {@code dt}); a filter that fixes both {@code dt} and {@code DT} fixes the column {@code dt} to the values
     * spelled {@code dt}.
     */
    public Set<String> fixedValues(String column) {
        String key = find(fixed.keySet(), column);
        return key == null ? null : fixed.get(key);
    }

    /** The key of {@code keys} spelled as {@code name}, else the first equal to it ignoring case, else null. */
    private static String find(Set<String> keys, String name) {
        if (keys.contains(name)) {
            return name;
        }
        for (String k : keys) {
            if (k.equalsIgnoreCase(name)) {
                return k;
            }
        }
        return null;
    }

    /** The columns this filter fixes with {@link #in}. */
    public Set<String> fixedColumns() {
        return fixed.keySet();
    }

    /**
     * True when the partition with these values (the table's partition columns to their values) passes. The fixed
     * columns, and the names a {@link #where} predicate asks its map for, match the table's columns ignoring case.
     */
    public boolean test(Map<String, String> values) {
        Map<String, String> named = new CaseInsensitiveView(values);
        for (Map.Entry<String, Set<String>> e : fixed.entrySet()) {
            if (!e.getValue().contains(named.get(e.getKey()))) {
                return false;
            }
        }
        return test.test(named);
    }

    /** {@code values}, unmodifiable, whose {@code get} and {@code containsKey} find a key spelled otherwise by its case. */
    private static final class CaseInsensitiveView extends AbstractMap<String, String> {
        private final Map<String, String> values;

        CaseInsensitiveView(Map<String, String> values) {
            this.values = values;
        }

        private Object key(Object key) {
            if (key instanceof String name && !values.containsKey(name)) {
                String found = find(values.keySet(), name);
                return found == null ? name : found;
            }
            return key;
        }

        @Override
        public Set<Map.Entry<String, String>> entrySet() {
            return Collections.unmodifiableMap(values).entrySet();
        }

        @Override
        public boolean containsKey(Object key) {
            return values.containsKey(key(key));
        }

        @Override
        public String get(Object key) {
            return values.get(key(key)); // a column the table is not partitioned by: the table's map refuses it
        }
    }
}
