package io.wrangler;

import java.util.List;

/**
 * A PartitionResult is what one write did to one partition.
 *
 * @param prefix the partition's folder, {@code s3://bucket/table/dt=2024-01-15/country=RU/} (the table root
 *     for an unpartitioned table), always with a trailing slash
 * @param values the partition values in key order, unescaped, {@code __HIVE_DEFAULT_PARTITION__} for null or empty
 * @param files the {@code s3://} URIs of the data files this write added to the partition
 * @param rows the rows this write added to the partition
 * @param bytes the bytes of the added files
 * @param replacedFiles the {@code s3://} URIs of the files that were in the partition before and were deleted
 *     (empty for {@link WriteMode#APPEND})
 */
public record PartitionResult(String prefix, List<String> values, List<String> files, long rows, long bytes,
                              List<String> replacedFiles) {
    public PartitionResult {
        values = List.copyOf(values);
        files = List.copyOf(files);
        replacedFiles = List.copyOf(replacedFiles);
    }
}
