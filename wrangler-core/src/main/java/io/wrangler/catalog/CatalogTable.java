package io.wrangler.catalog;

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
     * Checks that the catalog can take a write of {@code definition}, and returns the commit to run
     * once the data is published. Called before any S3 object is written or deleted; may read the
     * catalog, must not change it.
     *
     * @throws io.wrangler.InvalidWriteException when the write conflicts with the table's definition
     * @throws io.wrangler.CatalogException when the catalog cannot be read
     */
    CatalogCommit prepare(TableDefinition definition);
}
