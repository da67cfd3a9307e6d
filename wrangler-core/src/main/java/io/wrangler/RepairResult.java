package io.wrangler;

import io.wrangler.catalog.PartitionEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A RepairResult is what {@code S3Parquet.repairCatalog(uri)} changed (or, from {@code plan()}, would change) in the
 * catalog's partitions of the table, decided from a complete listing of its folders and of its registered partitions.
 *
 * @param table the table root, {@code s3://bucket/prefix/}
 * @param catalog the catalog's table ({@code glue:db.name})
 * @param added partitions whose folders hold data files and that the catalog lacked, now registered at their folders
 * @param removed registered partitions under the table whose folders hold no data file, removed
 *     ({@code removeMissing(true)}); empty otherwise
 * @param missing registered partitions under the table whose folders hold no data file, left registered because
 *     {@code removeMissing} is off
 * @param outside registered partitions whose Location lies outside the table's folder: never added, removed or moved,
 *     only reported
 * @param applied false for a plan: nothing was changed
 */
public record RepairResult(String table, String catalog, List<PartitionEntry> added, List<PartitionEntry> removed,
                           List<PartitionEntry> missing, List<PartitionEntry> outside, boolean applied) {
    public RepairResult {
        added = Collections.unmodifiableList(new ArrayList<>(added));
        removed = Collections.unmodifiableList(new ArrayList<>(removed));
        missing = Collections.unmodifiableList(new ArrayList<>(missing));
        outside = Collections.unmodifiableList(new ArrayList<>(outside));
    }

    /** True when the catalog already matched the folders (nothing to add or remove). */
    public boolean unchanged() {
        return added.isEmpty() && removed.isEmpty();
    }
}
