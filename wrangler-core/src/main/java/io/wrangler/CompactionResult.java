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
}
