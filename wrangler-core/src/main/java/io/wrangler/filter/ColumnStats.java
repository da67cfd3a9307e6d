package io.wrangler.filter;

import java.util.function.Predicate;

/**
 * What is known of one column over a set of rows, in the column's canonical domain ({@link Kind}): bounds of its
 * non-null values (either may be unknown: null), its nulls (-1: unknown), and whether {@code NaN} may hide beyond the
 * bounds (writers leave NaN out of float statistics, or poison them). Bounds are bounds, not values: a truncated
 * minimum (a prefix) or maximum (a prefix incremented) still bounds every value, which is all pruning needs.
 *
 * @param rows the rows of the set
 * @param mightContain a bloom filter's answer for a literal of the column's domain (true: may be there), or null when
 *     there is none
 */
public record ColumnStats(Object min, Object max, long nulls, long rows, boolean nanPossible, Predicate<Object> mightContain) {
    /** Nothing known of {@code rows} rows. */
    public static ColumnStats unknown(long rows) {
        return new ColumnStats(null, null, -1, rows, true, null);
    }

    /** {@code rows} rows all null: a column a file does not have. */
    public static ColumnStats allNull(long rows) {
        return new ColumnStats(null, null, rows, rows, false, null);
    }

    /** {@code rows} rows all holding the one non-null value of row 0 of {@code v}: a file's partition value. */
    public static ColumnStats exactly(org.apache.arrow.vector.FieldVector v, long rows) {
        Object value = Kind.value(v, 0);
        return new ColumnStats(value, value, 0, rows, false, null);
    }

    /** True when every row of the set is known to be null. */
    boolean onlyNulls() {
        return nulls >= 0 && nulls == rows;
    }
}
