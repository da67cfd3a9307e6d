package io.wrangler.catalog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A TableLayout is a table as its catalog describes it to a reader: where it is, its columns' types, and where each
 * partition's files are.
 *
 * @param location the table's location, {@code s3://bucket/prefix/}
 * @param partitionColumns the partition columns in key order
 * @param types the Hive type of every column (data and partition columns), by the catalog's name, in the catalog's order
 * @param partitions every registered partition, with its values (null for the default partition) and its folder; empty
 *     for a table without partition columns
 * @param bucketColumns the columns the catalog declares the table bucketed by, by the catalog's names; empty when it is
 *     not bucketed
 * @param buckets the number of buckets the catalog declares (0 when the table is not bucketed)
 */
public record TableLayout(String location, List<String> partitionColumns, Map<String, String> types, List<PartitionEntry> partitions,
                          List<String> bucketColumns, int buckets) {
    public TableLayout {
        partitionColumns = List.copyOf(partitionColumns);
        types = Collections.unmodifiableMap(new LinkedHashMap<>(types));
        partitions = Collections.unmodifiableList(new ArrayList<>(partitions));
        bucketColumns = List.copyOf(bucketColumns);
    }

    /** A table its catalog does not declare bucketed. */
    public TableLayout(String location, List<String> partitionColumns, Map<String, String> types, List<PartitionEntry> partitions) {
        this(location, partitionColumns, types, partitions, List.of(), 0);
    }
}
