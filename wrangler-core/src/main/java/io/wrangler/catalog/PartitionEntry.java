package io.wrangler.catalog;

import io.wrangler.hive.HivePaths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A PartitionEntry is one partition as a catalog registers it.
 *
 * @param values the values in key order, unescaped; a null element is the default (null) partition, whose
 *     folder is {@code __HIVE_DEFAULT_PARTITION__}
 * @param location the partition's folder, with a trailing slash: its escaped Hive folder {@code s3://b/t/dt=2024-01-15/},
 *     or, for a partition the catalog already registered elsewhere under the table root, that Location (with a trailing
 *     slash, {@code s3://} for {@code s3a://}; see {@link CatalogTable#partitionLocations})
 */
public record PartitionEntry(List<String> values, String location) {
    /**
     * The name Hive gives a null or empty partition value: its folder name in the table, and its value in a catalog.
     * The one definition wrangler has; paths, recovery, readers and catalogs all use it.
     */
    public static final String DEFAULT_PARTITION = HivePaths.DEFAULT_PARTITION;

    public PartitionEntry {
        values = Collections.unmodifiableList(new ArrayList<>(values));
    }
}
