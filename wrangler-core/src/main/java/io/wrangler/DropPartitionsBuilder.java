package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.Objects;

/**
 * A DropPartitionsBuilder is a drop of partitions of one table, being configured: {@link #run()} deletes every data file
 * of the partitions its filter passes and removes them from the catalog, under the table's lease and the commit protocol;
 * {@link #plan()} says what it would drop, and changes nothing.
 *
 * <pre>{@code
 * LocalDate cutoff = LocalDate.now(ZoneOffset.UTC).minusDays(30);
 * DropResult r = S3Parquet.dropPartitions("s3://bucket/events/")
 *     .filter(PartitionFilter.where(p -> LocalDate.parse(p.get("dt")).isBefore(cutoff)))
 *     .catalog(glueTable)
 *     .run();
 * }</pre>
 *
 * <p>The drop is one write of the commit protocol that stages nothing and replaces every file of the chosen partitions:
 * a crash at any step leaves the table as before (recovery removes its record) or as after (recovery finishes the
 * deletes and the catalog step); readers see every chosen partition before or after. The catalog step removes the
 * partitions left without files from the catalog (a recovery's catalog step does the same). A partition the catalog
 * registers outside the table's folder is refused, as a compaction refuses it: nothing is deleted outside the table. A
 * filter that matches no partition holding files is a no-op ({@link DropResult#applied()} false, logged). A file that
 * comes into a dropped partition between the drop's listing and its lease makes it fail with a
 * {@link CommitConflictException} (nothing changed, run it again).
 *
 * <p>A filter is required: {@code filter(PartitionFilter.all())} drops every partition. Its exceptions are those of
 * {@link WriteBuilder#to}, plus {@link ReadException} for the listing. Not thread-safe; each {@code run()} is a new drop.
 */
public final class DropPartitionsBuilder {
    // Read by S3Parquet.dropPartitions, which hands them to the engine (io.wrangler.compact).
    final String uri;
    final SettableOptions options = new SettableOptions("drop of partitions");
    PartitionFilter filter;
    CatalogTable catalog;
    StepHook hook = StepHook.NONE;
    S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;

    DropPartitionsBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /**
     * Drops the partitions that pass {@code filter}. A filter on a column that is not a partition column is refused with
     * an {@link InvalidReadException} before anything is changed.
     */
    public DropPartitionsBuilder filter(PartitionFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /** As {@link CompactBuilder#options}: the options of a job's writes that a drop uses. */
    public DropPartitionsBuilder options(WriteOptions options) {
        Objects.requireNonNull(options, "options");
        String refused = options.notForCompaction();
        if (refused != null) {
            throw new IllegalArgumentException("Cannot drop partitions of " + uri + " with these WriteOptions: " + refused + ". Give "
                    + "dropPartitions(...) options that leave it at its default.");
        }
        this.options.give(options);
        return this;
    }

    /** The S3 client to use; by default the SDK's default client. */
    public DropPartitionsBuilder s3(software.amazon.awssdk.services.s3.S3Client client) {
        options.values().s3(Objects.requireNonNull(client, "client"));
        options.noteSet("s3");
        return this;
    }

    /** Lists the table's partitions in this catalog table, and removes the dropped ones from it. */
    public DropPartitionsBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** As {@link WriteBuilder#lease(boolean)}. */
    public DropPartitionsBuilder lease(boolean enabled) {
        options.values().lease(enabled);
        options.noteSet("lease");
        return this;
    }

    /** As {@link WriteBuilder#leaseWait}. */
    public DropPartitionsBuilder leaseWait(Duration wait) {
        options.values().leaseWait(wait);
        options.noteSet("leaseWait");
        return this;
    }

    /** As {@link WriteBuilder#retry}. */
    public DropPartitionsBuilder retry(int attempts, Duration base, Duration cap) {
        options.values().retryPolicy(RetryPolicy.of(attempts, base, cap));
        options.noteSet("retry");
        return this;
    }

    /** For tests in this package: told at each step of the commit protocol. */
    DropPartitionsBuilder stepHook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook);
        return this;
    }

    /** For tests in this package: smaller buffers and limits, a test clock. */
    DropPartitionsBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning);
        return this;
    }

    /** What {@link #run()} would drop, as the table is now: reads only, no lease, no request that writes. */
    public DropResult plan() {
        return S3Parquet.dropPartitions(this, true);
    }

    /** Drops the chosen partitions in one commit; see the class comment. */
    public DropResult run() {
        return S3Parquet.dropPartitions(this, false);
    }
}
