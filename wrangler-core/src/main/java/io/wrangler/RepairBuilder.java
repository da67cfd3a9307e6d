package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.Objects;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A RepairBuilder is the repair of a catalog table's partitions from the table's folders, being configured (Hive's
 * {@code MSCK REPAIR TABLE}, with {@link #removeMissing(boolean)} its {@code SYNC PARTITIONS}).
 *
 * <pre>{@code
 * RepairResult r = S3Parquet.repairCatalog("s3://bucket/events/")
 *     .catalog(GlueCatalog.of(glue).table("analytics", "events"))
 *     .removeMissing(true)
 *     .run();
 * }</pre>
 *
 * <p>It decides from complete listings only: every page of the table's objects and every page of the catalog's
 * partitions, never a name order or a first page. A folder is a partition when it holds a data file (not under
 * {@code _tmp/}, the staging of writes in flight, nor hidden); a registered partition whose Location lies outside the
 * table's folder is never added, removed or moved, only reported ({@link RepairResult#outside()}). Missing partitions are
 * added at their folders, with the table's storage definition, in batches within the catalog's limits; registered
 * partitions whose folders hold no data file are removed only with {@code removeMissing(true)}, else reported.
 *
 * <p>Under the table's lease, after recovering interrupted writes (with this catalog), the listings are made afresh, so
 * a write that ended meanwhile is seen. Idempotent; a crash at any point is finished by running it again. {@link #plan()}
 * gives the same result with no request that changes anything. Failures are those of {@link RegisterBuilder}.
 */
public final class RepairBuilder {
    final String uri;
    CatalogTable catalog;
    S3Client s3;
    boolean removeMissing;
    Duration leaseWait = Duration.ofMinutes(3);
    StepHook hook = StepHook.NONE;
    S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;

    RepairBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** The catalog's table to repair (required); it must be registered at this URI. */
    public RepairBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "table");
        return this;
    }

    /** The S3 client; the SDK's default client when not set. */
    public RepairBuilder s3(S3Client client) {
        this.s3 = Objects.requireNonNull(client, "client");
        return this;
    }

    /** Whether registered partitions whose folders hold no data file are removed (false: reported only). */
    public RepairBuilder removeMissing(boolean remove) {
        this.removeMissing = remove;
        return this;
    }

    /** How long to wait for another writer's lease on the table (3 minutes by default). */
    public RepairBuilder leaseWait(Duration wait) {
        this.leaseWait = Objects.requireNonNull(wait, "wait");
        return this;
    }

    /** Test seam: told each step of the operation. */
    RepairBuilder hook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /** Test seam: the engine's tunings (a test clock). */
    RepairBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning, "tuning");
        return this;
    }

    /** Repairs the catalog's partitions. */
    public RepairResult run() {
        return S3Parquet.repair(this, true);
    }

    /** What {@link #run()} would change, with reads only; {@link RepairResult#applied()} is false. */
    public RepairResult plan() {
        return S3Parquet.repair(this, false);
    }
}
