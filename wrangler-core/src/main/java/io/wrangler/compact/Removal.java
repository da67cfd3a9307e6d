package io.wrangler.compact;

import java.util.Objects;

/**
 * What a removal deletes from the table: the rows a {@link RowMatch} matches (a delete of rows), or every row of the
 * partitions chosen (a drop of partitions). Both run as a compaction does, replacing exactly the files they chose, with
 * what they keep read back before the commit point.
 *
 * @param rows the test of a delete of rows; null for a drop of partitions
 * @param dryRun true for {@code plan()}: reads only, no request that writes
 */
public record Removal(RowMatch rows, boolean dryRun) {
    /** A delete of the rows {@code rows} matches. */
    public static Removal deleteRows(RowMatch rows, boolean dryRun) {
        return new Removal(Objects.requireNonNull(rows, "rows"), dryRun);
    }

    /** A drop of the chosen partitions. */
    public static Removal dropPartitions(boolean dryRun) {
        return new Removal(null, dryRun);
    }

    /** True for a drop of partitions: every row of the chosen partitions goes, and no file is read. */
    public boolean everyRow() {
        return rows == null;
    }

    /** What the operation is called in messages. */
    public String verb() {
        return everyRow() ? "drop partitions of" : "delete rows of";
    }
}
