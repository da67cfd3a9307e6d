package io.wrangler.commit;

import io.wrangler.layout.Manifest;
import io.wrangler.staging.StagedFile;
import java.io.IOException;
import java.util.List;

/**
 * An Operation is what one kind of table change does inside the one {@link Transaction} that the others do not: which
 * old files it replaces, what it checks before the commit point, and what it stages beyond its input to replace them.
 * Everything else (lease, recovery, record, staging, commit point, publish, catalog, end, and what a failure at each step
 * becomes) is the transaction's and the same for every operation, so that recovery and readers cannot tell operations
 * apart: they read the manifest, which records every file and every old file it replaces.
 *
 * <p>An operation's commit rule is its {@link WriteKind}, which {@link Outcomes} decides failures by; a new operation
 * that commits at the manifest (every kind but a plain append does) adds a class here and its tests, and nothing to the
 * failure table. See docs/architecture.md, "Operations".
 */
interface Operation {
    /** The commit rule and identity of the operation (the state table's and the failure table's kind). */
    WriteKind kind();

    /**
     * The check of what was staged, before the commit point (the transaction's check step): a failure leaves the
     * write not applied and its staging removed. By default none.
     */
    default void check(Manifest staged) {
    }

    /** The old files the operation replaces (the transaction's list step); {@code env} lists them as the write's mode says. */
    Publisher.Listing oldFiles(Manifest staged, Env env);

    /**
     * What the operation stages beyond its input to replace more old files (the transaction's rewrite step), before the
     * commit point; by default nothing ({@code replacing} as it is).
     */
    default Replacing stageMore(Replacing replacing, Env env) throws IOException {
        return replacing;
    }

    /**
     * Whether the write has nothing to do once staged (it then ends as a no-op, its record removed, nothing replaced): by
     * default when it staged no file. An operation that replaces files it stages nothing for (a delete of rows that
     * matched every row of a file, a drop of partitions) answers by what it replaces.
     */
    default boolean nothingToDo(List<StagedFile> staged) {
        return staged.isEmpty();
    }

    /**
     * What the catalog step tells the catalog, from the committed manifest: by default every partition of it is
     * registered ({@link CatalogStep#entries}).
     */
    default CatalogStep.Change catalogChange(Manifest committed, Env env) {
        return new CatalogStep.Change(CatalogStep.entries(committed), List.of());
    }

    /** What the transaction gives an operation: the plan, the table's context, and the listing of old files. */
    record Env(WritePlan plan, TableContext context, Lister lister) {
    }

    /** The old files a write's mode replaces: listed while it staged (an input known in advance), or now. */
    @FunctionalInterface
    interface Lister {
        Publisher.Listing list(Manifest staged);
    }

    /** A manifest with every file staged and the old files it replaces. */
    record Replacing(Manifest manifest, Publisher.Listing listing) {
    }

    /** The operation of a write: one for each of today's kinds. */
    static Operation of(WritePlan plan) {
        WriteKind kind = plan.kind();
        return switch (kind) {
            case REPLACEMENT -> new ReplaceRead(plan.spec().replacement());
            case KEYED_APPEND -> new KeyedRerun();
            case PLAIN_APPEND, OVERWRITE, OVERWRITE_PARTITIONS -> new ReplaceListed(kind);
        };
    }
}
