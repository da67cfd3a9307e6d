package io.wrangler.partition;

import io.wrangler.catalog.PartitionEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A PartitionKey is one partition's values in key order, as rendered for the path, unescaped; a null
 * element is the default partition (a null or empty value).
 */
public record PartitionKey(List<String> values) {
    public PartitionKey {
        values = Collections.unmodifiableList(new ArrayList<>(values));
    }

    /** The values as shown to users: null becomes {@code __HIVE_DEFAULT_PARTITION__}. */
    public List<String> displayValues() {
        return values.stream().map(v -> v == null ? PartitionEntry.DEFAULT_PARTITION : v).toList();
    }
}
