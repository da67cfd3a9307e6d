package io.wrangler.compact;

import io.wrangler.InvalidReadException;
import io.wrangler.RowFilter;
import io.wrangler.filter.BoundFilter;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A RowMatch is the test a delete of rows applies to each row it reads: a {@link RowFilter} (the rows where it is true are
 * deleted, those where it is false or unknown kept, as SQL's {@code DELETE ... WHERE}), or every row. The filter is
 * bound to the table's columns once, by {@link #bind}, before any row is read ({@link BoundFilter}).
 */
public final class RowMatch {
    private final RowFilter filter;
    private volatile BoundFilter bound;

    private RowMatch(RowFilter filter) {
        this.filter = filter;
    }

    /** The rows where {@code filter} is true. */
    public static RowMatch of(RowFilter filter) {
        return new RowMatch(filter);
    }

    /** Every row of the scope. */
    public static RowMatch everyRow() {
        return new RowMatch(null);
    }

    /** The filter, for row groups skipped by statistics; null when every row matches. */
    RowFilter filter() {
        return filter;
    }

    /**
     * Binds the filter to the table's columns: null when it can run on {@code table}'s rows, else what is wrong and what
     * to do (a column the table lacks, a literal of another type), as the filter's own check says it.
     */
    String bind(String table, Schema schema) {
        if (filter == null) {
            return null;
        }
        try {
            bound = BoundFilter.bind(table, filter, schema.getFields());
            return null;
        } catch (InvalidReadException e) {
            String m = e.getMessage();
            for (String prefix : new String[] {"Cannot read " + table + " (step: validate): ", "Cannot read " + table + ": "}) {
                if (m.startsWith(prefix)) {
                    return m.substring(prefix.length());
                }
            }
            return m;
        }
    }

    /** The columns the test reads, as the table spells them (the first column of the table for every row). */
    List<String> columns(Schema schema) {
        return filter == null ? List.of(schema.getFields().get(0).getName()) : new ArrayList<>(bound.columns().keySet());
    }

    /** Sets in {@code matched} (cleared first) each row of {@code batch} that the test matches. */
    void match(VectorSchemaRoot batch, BitSet matched) {
        matched.clear();
        if (filter == null) {
            matched.set(0, batch.getRowCount());
            return;
        }
        for (int i : bound.select(batch)) {
            matched.set(i);
        }
    }

    /** The test as the user gave it, for messages and logs. */
    public String describe() {
        return filter == null ? "everyRow()" : "where(" + filter + ")";
    }
}
