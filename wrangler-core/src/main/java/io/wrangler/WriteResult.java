package io.wrangler;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A WriteResult is what a completed write added to and removed from the table.
 *
 * @param table the table root, {@code s3://bucket/prefix/}
 * @param writeId the id that every file of this write carries in its name
 * @param mode the mode the write ran in
 * @param rows the rows written
 * @param partitions one entry per partition written, in the order first seen in the input
 * @param deletedFiles the {@code s3://} URIs of every file this write deleted: the replaced files of its
 *     partitions, and for {@link WriteMode#OVERWRITE} also the files of partitions it did not write
 * @param recovered what the write found of earlier interrupted writes and finished or undid before it began
 * @param mark the table's commit mark right after this write (its own entry in the table's commit log; for a write that
 *     changed nothing, the last commit before it): store its text as a checkpoint and read what later writes commit with
 *     {@link ReadBuilder#committedAfter(CommitMark)}. Null for a write that took no lease (an input with no rows and no
 *     schema, which changes nothing)
 */
public record WriteResult(String table, String writeId, WriteMode mode, long rows, List<PartitionResult> partitions,
                          List<String> deletedFiles, RecoveryResult recovered, CommitMark mark) {
    public WriteResult {
        partitions = List.copyOf(partitions);
        deletedFiles = List.copyOf(deletedFiles);
    }

    /** A result without a commit mark. */
    public WriteResult(String table, String writeId, WriteMode mode, long rows, List<PartitionResult> partitions,
                       List<String> deletedFiles, RecoveryResult recovered) {
        this(table, writeId, mode, rows, partitions, deletedFiles, recovered, null);
    }

    /** This result with the write's commit mark. */
    public WriteResult withMark(CommitMark mark) {
        return new WriteResult(table, writeId, mode, rows, partitions, deletedFiles, recovered, mark);
    }

    /**
     * True when the write's input had no rows. Into a table that did not exist, such a write created it, empty with the
     * input's columns (an unpartitioned table holds one file of no rows; a catalog registers the table); into a table that
     * exists, it changed nothing. A WARN line says which (docs/writing.md, "An input with no rows").
     */
    public boolean emptyInput() {
        return rows == 0;
    }

    /** The {@code s3://} URIs of the data files this write added, at their final keys, in partition order. */
    public List<String> paths() {
        return partitions.stream().flatMap(p -> p.files().stream()).toList();
    }

    /**
     * Each written partition's prefix ({@code s3://.../dt=.../country=.../}, trailing slash) to its values in key
     * order, unescaped, a null or empty value shown as {@code __HIVE_DEFAULT_PARTITION__}; as awswrangler returns.
     * Empty for an unpartitioned table.
     */
    public Map<String, List<String>> partitionValues() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (PartitionResult p : partitions) {
            if (!p.values().isEmpty()) {
                out.put(p.prefix(), p.values());
            }
        }
        return Collections.unmodifiableMap(out);
    }
}
