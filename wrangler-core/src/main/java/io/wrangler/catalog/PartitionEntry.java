package io.wrangler.catalog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A PartitionEntry is one partition as a catalog registers it.
 *
 * @param values the values in key order, unescaped; a null element is the default (null) partition, whose
 *     folder is {@code __HIVE_DEFAULT_PARTITION__}
 * @param location the partition's folder, escaped, with a trailing slash: {@code s3://b/t/dt=2024-01-15/}
 */
public record PartitionEntry(List<String> values, String location) {
    public PartitionEntry {
        values = Collections.unmodifiableList(new ArrayList<>(values));
    }
}
