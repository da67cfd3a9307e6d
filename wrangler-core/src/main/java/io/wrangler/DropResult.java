package io.wrangler;

import java.util.List;

/**
 * What a drop of partitions did ({@link DropPartitionsBuilder#run}), or would do ({@link DropPartitionsBuilder#plan}:
 * nothing changed).
 *
 * @param table the table root
 * @param applied true when the table was changed; false for a plan and for a filter that matched no partition
 * @param partitions the partitions dropped, as {@code s3://} folder URIs
 * @param filesDeleted the data files deleted, as {@code s3://} URIs
 * @param write the drop's write, or null when nothing was changed
 */
public record DropResult(String table, boolean applied, List<String> partitions, List<String> filesDeleted, WriteResult write) {
    public DropResult {
        partitions = List.copyOf(partitions);
        filesDeleted = List.copyOf(filesDeleted);
    }
}
