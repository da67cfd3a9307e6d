package io.wrangler;

import java.util.List;

/**
 * What a compaction did.
 *
 * @param table the table root
 * @param partitions the partitions compacted, as {@code s3://} folder URIs
 * @param filesBefore the files read (and replaced)
 * @param filesAfter the files written in their place
 * @param rowsRead the rows of the files read
 * @param rowsWritten the rows written: {@code rowsRead - duplicatesDropped}
 * @param duplicatesDropped rows dropped by {@code dedupBy} (0 without it)
 * @param write the compaction's write, or null when no partition needed compacting
 */
public record CompactionResult(String table, List<String> partitions, int filesBefore, int filesAfter, long rowsRead, long rowsWritten,
                               long duplicatesDropped, WriteResult write) {
    public CompactionResult {
        partitions = List.copyOf(partitions);
    }

    /**
     * The table's commit mark right after the compaction ({@link WriteResult#mark()} of its write), or null when nothing
     * was compacted (the table did not change: the last mark stands). A compaction without {@code dedupBy} keeps every
     * row, and an incremental read after an earlier mark neither returns its rows again nor reports them replaced.
     */
    public CommitMark mark() {
        return write == null ? null : write.mark();
    }
}
