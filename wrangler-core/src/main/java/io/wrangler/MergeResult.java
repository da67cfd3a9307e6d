package io.wrangler;

import java.util.List;

/**
 * What a merge did, or, from {@link MergeBuilder#plan}, what it would do (then {@code write} is null). An empty input,
 * or one whose every key is kept as the table has it, is a no-op: nothing is written and {@code write} is null.
 *
 * @param table the table root
 * @param rowsInserted input rows whose key the table did not hold, written
 * @param rowsUpdated input rows whose key the table held, written in place of the table's rows of that key
 * @param rowsUnchanged input keys the table held and kept ({@link WhenMatched#KEEP_EXISTING}, or a newer order value in
 *     the table): their input rows were dropped
 * @param filesRewritten the files that held a matched key, as {@code s3://} URIs: replaced by the merge (every other
 *     file is untouched)
 * @param partitionsTouched the partitions whose files the merge rewrote or added to, as {@code s3://} folder URIs
 * @param write the merge's write, or null for a plan or a no-op
 */
public record MergeResult(String table, long rowsInserted, long rowsUpdated, long rowsUnchanged, List<String> filesRewritten,
                          List<String> partitionsTouched, WriteResult write) {
    public MergeResult {
        filesRewritten = List.copyOf(filesRewritten);
        partitionsTouched = List.copyOf(partitionsTouched);
    }
}
