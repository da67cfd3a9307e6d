package io.wrangler;

import io.wrangler.catalog.PartitionEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A RegisterResult is what {@code S3Parquet.register(uri)} registered (or, from {@code plan()}, would register) in the
 * catalog for the dataset at {@code table}, whose files it did not touch.
 *
 * @param table the table root, {@code s3://bucket/prefix/}
 * @param catalog the catalog's table ({@code glue:db.name})
 * @param columns the data columns with their Hive types, in the order the files first give them (from their footers)
 * @param partitionColumns the partition columns with their Hive types, in folder order
 * @param partitions every partition, its values (null for the default partition) and its folder; the table's root alone
 *     when it is not partitioned
 * @param files how many data files the dataset has
 * @param replaced whether an existing catalog table of another definition was replaced ({@code replaceTable(true)})
 * @param applied false for a plan: nothing was changed
 */
public record RegisterResult(String table, String catalog, Map<String, String> columns, Map<String, String> partitionColumns,
                             List<PartitionEntry> partitions, long files, boolean replaced, boolean applied) {
    public RegisterResult {
        columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
        partitionColumns = Collections.unmodifiableMap(new LinkedHashMap<>(partitionColumns));
        partitions = Collections.unmodifiableList(new ArrayList<>(partitions));
    }
}
