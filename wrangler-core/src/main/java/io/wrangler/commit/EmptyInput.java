package io.wrangler.commit;

import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.storage.S3Store;
import java.lang.System.Logger.Level;

/**
 * What a write of an input with no rows does (docs/writing.md, "An input with no rows"): into a table that does not
 * exist yet it creates the table, so that it reads as an empty table with the input's columns (an unpartitioned table
 * gets one file of no rows, a catalog registers the table); into a table that exists it changes nothing. Either way a
 * WARN line says the input was empty, and {@link WriteResult#emptyInput()} is true.
 */
final class EmptyInput {
    private EmptyInput() {
    }

    /** What the write of an empty input does to its table. */
    enum Outcome {
        /** The table does not exist: the write creates it, empty with the input's columns. */
        CREATE,
        /** The table exists: nothing changes. */
        EXISTS,
        /** A partitioned or bucketed table without a catalog: nothing could carry its columns, nothing is written. */
        NOWHERE
    }

    /**
     * What the write of {@code plan}'s empty input does: it creates the table when no object lies under the table's prefix
     * (one LIST of one key) and the catalog, if any, has no such table, and something can carry the schema: a file of no
     * rows (an unpartitioned, unbucketed table) or the catalog's table. Reads only.
     */
    static Outcome decide(WritePlan plan) {
        WriteSpec spec = plan.spec();
        boolean fileOfNoRows = fileOfNoRows(plan);
        S3Store store = new S3Store(spec.s3(), plan.location().bucket(), spec.options());
        boolean exists = !store.firstEntries(plan.location().prefix(), 1).isEmpty()
                || spec.catalog() != null && !spec.catalog().columnTypes(plan.table(), WriteMode.APPEND).isEmpty();
        return exists ? Outcome.EXISTS : fileOfNoRows || spec.catalog() != null ? Outcome.CREATE : Outcome.NOWHERE;
    }

    /** True when the table gets a file of no rows: it is unpartitioned and unbucketed. */
    static boolean fileOfNoRows(WritePlan plan) {
        return plan.columns().partitions().isEmpty() && plan.buckets() == null;
    }

    /** Logs the WARN line of the write of an empty input, which had {@code outcome}, and returns its result. */
    static WriteResult warned(WritePlan plan, Outcome outcome, WriteResult result) {
        String catalog = plan.spec().catalog() == null ? null : plan.spec().catalog().describe();
        String what = switch (outcome) {
            case CREATE -> "the table did not exist, so it was created with the input's columns and no rows (" + (result.paths().isEmpty()
                    ? "registered in " + catalog : "one file of no rows" + (catalog == null ? "" : ", registered in " + catalog)) + ")";
            case EXISTS -> "the table exists, so nothing was changed (no file written, no partition replaced)";
            case NOWHERE -> "nothing was written. A partitioned or bucketed table keeps its columns in its partitions' files, so "
                    + "without rows and without a catalog it has nowhere to keep them: its first write of rows creates it (or "
                    + "write with catalog(...), which registers it now)";
        };
        warn(result.table(), "the input has no rows: " + what);
        return result;
    }

    static void warn(String table, String what) {
        Logs.COMMIT.log(Level.WARNING, () -> "Write to " + table + ": " + what + ".");
    }
}
