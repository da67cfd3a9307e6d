package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.Objects;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A DropTableBuilder is the removal of a table, being configured: from its catalog only, or with its data
 * ({@link #deleteData(boolean)}).
 *
 * <pre>{@code
 * DropTableResult r = S3Parquet.dropTable("s3://bucket/scratch/")
 *     .catalog(GlueCatalog.of(glue).table("analytics", "scratch"))
 *     .deleteData(true)
 *     .run();
 * }</pre>
 *
 * <p>Under the table's lease. Catalog only: interrupted writes are recovered first (with the catalog, so that no pending
 * catalog step of theirs registers the table again later), then the catalog's table is deleted; the data stays and can
 * be registered again. With the data: the catalog's table is deleted first (readers by name stop finding it), then every
 * object under the table's prefix, {@code _tmp/} included (writes in flight are dropped with the table, not finished), in
 * fenced batches, then the open uploads under it are aborted, and the lease is released last. Not atomic: a reader by
 * path during the drop may see part of the table; a crash leaves part of it, and running the drop again finishes it.
 *
 * <p>A concurrent writer never recreates half a table: one that holds the lease is waited for (the drop then deletes
 * what it wrote); one whose lease the drop took over fails at its next fence, typed, having published nothing more; one
 * that takes the lease after the drop writes a new table of only its own rows (with a catalog prepared before the drop,
 * its catalog step finds no table: an append is undone, a {@link CatalogException}). {@link #plan()} counts what would
 * go, with reads only.
 */
public final class DropTableBuilder {
    final String uri;
    CatalogTable catalog;
    S3Client s3;
    boolean deleteData;
    Duration leaseWait = Duration.ofMinutes(3);
    StepHook hook = StepHook.NONE;
    S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;

    DropTableBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** The catalog's table to delete; it must be registered at this URI (or not at all). */
    public DropTableBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "table");
        return this;
    }

    /** The S3 client; the SDK's default client when not set. */
    public DropTableBuilder s3(S3Client client) {
        this.s3 = Objects.requireNonNull(client, "client");
        return this;
    }

    /** Whether every object under the table's prefix is deleted too (false: the catalog's table only). */
    public DropTableBuilder deleteData(boolean delete) {
        this.deleteData = delete;
        return this;
    }

    /** How long to wait for another writer's lease on the table (3 minutes by default). */
    public DropTableBuilder leaseWait(Duration wait) {
        this.leaseWait = Objects.requireNonNull(wait, "wait");
        return this;
    }

    /** Test seam: told each step of the operation. */
    DropTableBuilder hook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /** Test seam: the engine's tunings (a test clock). */
    DropTableBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning, "tuning");
        return this;
    }

    /** Drops the table. */
    public DropTableResult run() {
        return S3Parquet.drop(this, true);
    }

    /** What {@link #run()} would remove, with reads only; {@link DropTableResult#applied()} is false. */
    public DropTableResult plan() {
        return S3Parquet.drop(this, false);
    }
}
