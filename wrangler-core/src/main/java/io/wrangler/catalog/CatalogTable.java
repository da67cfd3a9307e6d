package io.wrangler.catalog;

import io.wrangler.WriteMode;
import java.util.List;
import java.util.Map;

/**
 * A CatalogTable is one table of a catalog that a write registers its data in.
 *
 * <p>Implementations are immutable and thread-safe; one instance may serve many writes.
 */
public interface CatalogTable {
    /** A short name for messages and manifests, such as {@code glue:analytics.orders}. */
    String describe();

    /**
     * The name a top-level column gets in the files and the catalog: Glue sanitizes names to what Athena accepts.
     * The write renames columns (partition folders included) before anything else, so that files and catalog agree.
     * Two input columns that get the same name are refused.
     */
    default String columnName(String inputName) {
        return inputName;
    }

    /**
     * The types the catalog's table already gives its columns (partition columns included), as Hive type strings by
     * column name as the catalog names it; empty when there is no table yet, or when a write in {@code mode} redefines
     * it ({@code OVERWRITE}). The write widens its columns to these types where that keeps every value (an int to a
     * bigint, a float to a double, at any depth), before {@link #prepare}; called before any S3 object is written or
     * deleted. The default knows no types.
     *
     * @param location the table root of the write, {@code s3://bucket/prefix/}, for messages
     * @throws io.wrangler.CatalogException when the catalog cannot be read
     */
    default Map<String, String> columnTypes(String location, WriteMode mode) {
        return Map.of();
    }

    /**
     * Where the catalog already registers partitions of this table: for each of {@code values} (partition values in key
     * order as the write renders them, null for the default partition) that the catalog holds, its Location exactly as
     * registered. Partitions the catalog does not hold are left out; the map is empty when there is no table yet, or when
     * a write in {@code mode} redefines it ({@code OVERWRITE}). The write puts such a partition's files under that
     * Location instead of its escaped Hive folder (awswrangler registers unescaped ones), and refuses one outside the
     * table root. Called before any S3 object is written or deleted (for an input that can be read only once, as each
     * partition is first seen). The default knows no partitions.
     *
     * @param location the table root of the write, {@code s3://bucket/prefix/}, for messages
     * @throws io.wrangler.CatalogException when the catalog cannot be read
     */
    default Map<List<String>, String> partitionLocations(String location, WriteMode mode,
                                                                           List<List<String>> values) {
        return Map.of();
    }

    /**
     * Checks that the catalog can take a write of {@code definition}, and returns the commit to run
     * once the data is published. Called before any S3 object is written or deleted; may read the
     * catalog, must not change it.
     *
     * @throws io.wrangler.InvalidWriteException when the write conflicts with the table's definition
     * @throws io.wrangler.CatalogException when the catalog cannot be read
     */
    CatalogCommit prepare(TableDefinition definition);

    /**
     * The table as the catalog has it now, for {@code S3Parquet.read(uri).catalog(table)}: its location, column types and
     * registered partitions with their folders; null when the catalog has no such table. Reads the catalog only. The
     * default cannot be read through.
     *
     * @throws io.wrangler.CatalogException when the catalog cannot be read
     * @throws UnsupportedOperationException when this catalog gives readers no layout
     */
    default TableLayout layout() {
        throw new UnsupportedOperationException(describe() + " gives readers no table layout: read the table by its S3 location");
    }

    /**
     * Registers {@code partitions} in the catalog's existing table, each at its Location, with the table's own storage
     * definition (formats, SerDe, columns): what a repair adds for folders the catalog lacks. Idempotent: a partition
     * already registered is left as it is (not moved). Glue sends them in BatchCreatePartition calls of at most 100 and
     * reads its per-entry errors. {@code fence} runs immediately before every call that changes the catalog. The default
     * cannot.
     *
     * @throws io.wrangler.CatalogException when the catalog refuses a partition (naming it) or has no such table
     * @throws UnsupportedOperationException when this catalog cannot register partitions on their own
     */
    default void addPartitions(List<PartitionEntry> partitions, Runnable fence) {
        throw new UnsupportedOperationException(describe() + " cannot register partitions on their own");
    }

    /**
     * Removes {@code partitions} (by their values) from the catalog's table: what a repair removes for folders that are
     * gone. Idempotent: a partition already gone is fine. Glue sends them in BatchDeletePartition calls of at most 25 and
     * reads its per-entry errors. {@code fence} runs immediately before every call that changes the catalog. The default
     * cannot.
     *
     * @throws io.wrangler.CatalogException when the catalog refuses a partition (naming it)
     * @throws UnsupportedOperationException when this catalog cannot remove partitions on their own
     */
    default void removePartitions(List<PartitionEntry> partitions, Runnable fence) {
        throw new UnsupportedOperationException(describe() + " cannot remove partitions on their own");
    }

    /**
     * Deletes the table from the catalog (its partitions with it); the data is not touched. {@code fence} runs
     * immediately before the call. Idempotent. The default cannot.
     *
     * @return false when the catalog had no such table (nothing was deleted)
     * @throws io.wrangler.CatalogException when the catalog refuses
     * @throws UnsupportedOperationException when this catalog cannot delete tables
     */
    default boolean dropTable(Runnable fence) {
        throw new UnsupportedOperationException(describe() + " cannot delete tables");
    }
}
