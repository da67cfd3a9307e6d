package io.wrangler;

import java.util.List;

/**
 * What a delete of rows did ({@link DeleteRowsBuilder#run}), or would do ({@link DeleteRowsBuilder#plan}: nothing changed).
 *
 * @param table the table root
 * @param applied true when the table was changed; false for a plan and for a delete that matched no row
 * @param rowsDeleted the rows matched and deleted (or that the plan would delete)
 * @param filesRewritten the files that held matched rows and others, replaced by files of their other rows, as {@code s3://} URIs
 * @param filesRemoved the files every row of which matched: removed, nothing written in their place
 * @param partitions the partitions changed, as {@code s3://} folder URIs
 * @param write the delete's write, or null when nothing was changed
 */
public record DeleteResult(String table, boolean applied, long rowsDeleted, List<String> filesRewritten, List<String> filesRemoved,
                           List<String> partitions, WriteResult write) {
    public DeleteResult {
        filesRewritten = List.copyOf(filesRewritten);
        filesRemoved = List.copyOf(filesRemoved);
        partitions = List.copyOf(partitions);
    }
}
