package io.wrangler.catalog;

import java.util.List;

/**
 * A CatalogCommit is the catalog half of one write, prepared before the data was written and run after
 * it was published.
 */
public interface CatalogCommit {
    /**
     * Creates or updates the table and registers {@code written}. Must be idempotent: recovery calls it
     * again for a write whose earlier call may have been cut short.
     *
     * @param written every partition the write published, in key order of their values
     * @throws io.wrangler.CatalogException when the catalog refuses
     * @throws io.wrangler.CommitConflictException when the table changed since {@code prepare}
     */
    void commit(List<PartitionEntry> written);

    /**
     * Like {@link #commit(List)}, running {@code fence} immediately before every call that changes the catalog, so that a
     * writer that lost the table's lease stops before its next change (the fence throws). Implementations that make
     * several calls should override it; the default fences once, before the whole step.
     */
    default void commit(List<PartitionEntry> written, Runnable fence) {
        fence.run();
        commit(written);
    }

    /**
     * Removes these partitions from the catalog: recovery calls it after undoing an interrupted append, for the
     * partitions the append had registered and that hold no file any more. Must be idempotent (a partition already gone
     * is fine). The default does nothing, for catalogs without partitions.
     */
    default void unregister(List<PartitionEntry> partitions) {
    }

    /** Like {@link #unregister(List)}, running {@code fence} before every call that changes the catalog. */
    default void unregister(List<PartitionEntry> partitions, Runnable fence) {
        fence.run();
        unregister(partitions);
    }
}
