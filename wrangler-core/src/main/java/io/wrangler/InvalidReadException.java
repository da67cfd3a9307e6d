package io.wrangler;

/**
 * An InvalidReadException reports a read or compaction that asks for something the table does not have: a prefix that
 * holds no table (no object under it: no data file, no {@code _tmp/}; awswrangler's {@code NoFilesFound}), or a
 * {@link PartitionFilter} on a column the table is not partitioned by (a data column, an unknown one), or a
 * {@link RowFilter} on a column the table does not have or with a literal its column's type does not take. It is found
 * from listings (and, for a row filter, the files' footers) before any row is decoded, and nothing was changed;
 * retrying the same request fails the same way: fix the URI or the filter.
 */
public final class InvalidReadException extends ReadException {
    private static final long serialVersionUID = 1L;

    public InvalidReadException(String table, String message) {
        super(table, message, null);
    }
}
