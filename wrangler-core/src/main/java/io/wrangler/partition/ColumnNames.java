package io.wrangler.partition;

import java.util.Collection;

/**
 * The one rule by which a name given to wrangler (a partition or bucket column, a partition filter's column, a record
 * component, a column to read) finds a table's or an input's column: the column spelled exactly so, else the one column
 * equal to it ignoring case, as Hive, Glue and Athena match names (Glue keeps names in lower case). Two columns that
 * differ only by case cannot both be written (the write refuses them), so the second step finds at most one column of
 * a table written by wrangler; where it finds several, the name is ambiguous. The public {@code PartitionFilter}
 * applies the same rule (the API does not call this package).
 */
public final class ColumnNames {
    private ColumnNames() {
    }

    /** A name that matches several columns ignoring case, none exactly. */
    public static final class Ambiguous extends IllegalArgumentException {
        public Ambiguous(String message) {
            super(message);
        }
    }

    /**
     * The column of {@code columns} that {@code name} names, or null when none does.
     *
     * @throws Ambiguous when no column is spelled exactly so and several equal it ignoring case
     */
    public static String find(Collection<String> columns, String name) {
        if (columns.contains(name)) {
            return name;
        }
        String found = null;
        for (String c : columns) {
            if (c.equalsIgnoreCase(name)) {
                if (found != null) {
                    throw new Ambiguous("the name '" + name + "' matches both '" + found + "' and '" + c + "', which differ only by "
                            + "case; name one exactly");
                }
                found = c;
            }
        }
        return found;
    }

    /** True when {@code name} names one of {@code columns} by this rule. */
    public static boolean names(Collection<String> columns, String name) {
        return find(columns, name) != null;
    }
}
