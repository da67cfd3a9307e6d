package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A MergeBuilder is a merge by key (an upsert) being configured: {@link #to} writes the input's rows into the table,
 * each replacing the table's rows of its key, or added when the table has none.
 *
 * <pre>{@code
 * MergeResult r = S3Parquet.merge(lateEvents)
 *     .on("event_id")
 *     .orderBy("updated_at")                                   // the newer row wins
 *     .scope(PartitionFilter.where(p -> p.get("event_date").compareTo("2024-01-08") >= 0))
 *     .to("s3://lake/events/");
 * }</pre>
 *
 * <p>A merge is a write of the commit protocol like any other: under the table's lease it stages the new files of the
 * partitions it changes, reads them back and checks them before its commit point, and commits an
 * {@code OVERWRITE_PARTITIONS} that replaces exactly the files that held a matched key; every other file is untouched.
 * A crash at any step leaves the table as before (recovery removes the staging) or as after (recovery finishes
 * publishing); a reader sees one or the other. Keys are matched in the partitions the input's rows go to, and in those
 * {@link #scope} admits: a key whose row moved to another partition is removed from its old one when the scope covers
 * it.
 *
 * <p>Rules, checked before anything is read from the table: every key column and the order column are columns of the
 * input (and the key columns of the table, with the same type, and not partition columns); no key is null; a key is in
 * one row of the input, unless {@link #orderBy} is set (then its newest row is merged, a tie going to the later row).
 * An input column the table lacks is added to the table (its old rows read it as null), as a write adds it; an input
 * column of another type than the table's is refused. An empty input is a no-op. A merge run twice with the same
 * input leaves the same table. Its exceptions are those of {@link WriteBuilder#to}, plus {@link ReadException} for the
 * listing, a {@link CommitConflictException} when another write changed the matched partitions after the merge
 * planned (nothing changed; rerun), and a {@link VerificationException} when the check fails (nothing changed).
 *
 * <p>Memory: the input is held whole (and a hash map of its keys); the table's files stream through one batch at a
 * time, so a partition larger than the heap is merged as any other. See docs/merge.md.
 */
public final class MergeBuilder {
    // Read by S3Parquet.merge, which hands them to the engine (io.wrangler.merge).
    final S3Parquet.Input input;
    final SettableOptions options = new SettableOptions("merge");
    List<String> keys;
    String orderBy;
    WhenMatched whenMatched = WhenMatched.UPDATE;
    PartitionFilter scope;
    CatalogTable catalog;
    StepHook hook = StepHook.NONE;
    S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;

    MergeBuilder(S3Parquet.Input input) {
        this.input = input;
    }

    /** The key columns: a row of the input replaces the table's rows with the same values in all of them. Required. */
    public MergeBuilder on(String... keys) {
        if (keys.length == 0) {
            throw new IllegalArgumentException("on(...) needs at least one key column");
        }
        for (String k : keys) {
            Objects.requireNonNull(k, "key column");
        }
        this.keys = List.of(keys);
        return this;
    }

    /**
     * The column that decides between rows of one key: the row with the greater value wins (nulls lowest), the input's
     * on a tie; among the input's own rows of a key, the greatest (a tie: the later row). Without it the input wins and
     * a key in more than one input row is refused.
     */
    public MergeBuilder orderBy(String column) {
        this.orderBy = Objects.requireNonNull(column, "column");
        return this;
    }

    /** What happens to a key the table already holds: {@link WhenMatched#UPDATE} (the default) or keep the table's rows. */
    public MergeBuilder whenMatched(WhenMatched what) {
        this.whenMatched = Objects.requireNonNull(what, "whenMatched");
        return this;
    }

    /**
     * Matches keys in the partitions {@code filter} admits too, besides those the input's rows go to (by default only
     * those): a key whose partition value changed (a corrected event date) is then removed from its old partition.
     */
    public MergeBuilder scope(PartitionFilter filter) {
        this.scope = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /**
     * The table's partition columns, for a table that does not exist yet; for an existing table it must name its partition
     * columns, or be left out (a merge keeps the table's partitions).
     */
    public MergeBuilder partitionBy(String... columns) {
        options.values().partitionBy(columns);
        options.noteSet("partitionBy");
        return this;
    }

    /**
     * Takes the options of {@code options} that a merge uses, as {@link WriteBuilder#options(WriteOptions)}: all but mode,
     * bucketBy, dtype and deferred uploads (a merge replaces the files it rewrote, keeps the table's types and reads its
     * new files back before its commit point), which must be left at their defaults.
     *
     * @throws IllegalArgumentException the options set one of those
     * @throws IllegalStateException an option was set on this builder before, or options were given already
     */
    public MergeBuilder options(WriteOptions options) {
        Objects.requireNonNull(options, "options");
        String refused = options.notForMerge();
        if (refused != null) {
            throw new IllegalArgumentException("Cannot merge with these WriteOptions: " + refused + ". Give merge(...) options that "
                    + "leave it at its default.");
        }
        this.options.give(options);
        return this;
    }

    /** Sets options through {@link WriteOptions.Builder}, as {@link WriteBuilder#options(Consumer)}; the same refusals as above. */
    public MergeBuilder options(Consumer<WriteOptions.Builder> change) {
        Objects.requireNonNull(change, "change").accept(options.values());
        String refused = options.values().build().notForMerge();
        if (refused != null) {
            throw new IllegalArgumentException("Cannot merge with these options: " + refused + ". Leave it at its default.");
        }
        options.noteSet("options");
        return this;
    }

    /** The S3 client to use; by default the SDK's default client. */
    public MergeBuilder s3(S3Client client) {
        options.values().s3(Objects.requireNonNull(client, "client"));
        options.noteSet("s3");
        return this;
    }

    /** Reads the table's partitions and types from this catalog table, and registers the result in it, as a write does. */
    public MergeBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** The codec of the new files. */
    public MergeBuilder compression(Compression compression) {
        options.values().compression(compression);
        options.noteSet("compression");
        return this;
    }

    /** Starts a new file in a partition once the current one holds about this many bytes. */
    public MergeBuilder targetFileSize(long bytes) {
        options.values().targetFileSize(bytes);
        options.noteSet("targetFileSize");
        return this;
    }

    /** As {@link WriteBuilder#lease(boolean)}. */
    public MergeBuilder lease(boolean enabled) {
        options.values().lease(enabled);
        options.noteSet("lease");
        return this;
    }

    /** As {@link WriteBuilder#leaseWait}. */
    public MergeBuilder leaseWait(Duration wait) {
        options.values().leaseWait(wait);
        options.noteSet("leaseWait");
        return this;
    }

    /** As {@link WriteBuilder#retry}. */
    public MergeBuilder retry(int attempts, Duration base, Duration cap) {
        options.values().retryPolicy(RetryPolicy.of(attempts, base, cap));
        options.noteSet("retry");
        return this;
    }

    /** For tests in this package: told at each step of the commit protocol. */
    MergeBuilder stepHook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook);
        return this;
    }

    /** For tests in this package: smaller buffers and limits, a test clock. */
    MergeBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning);
        return this;
    }

    /**
     * Merges the input into the table at {@code uri} ({@code s3://bucket/prefix}) in one commit.
     *
     * @throws IllegalStateException no key columns were given ({@link #on})
     */
    public MergeResult to(String uri) {
        return S3Parquet.merge(this, uri, false);
    }

    /**
     * What {@link #to} would do now, from reads only: the same listing, footers and key columns read, the same counts
     * and files, and no write request (no lease, no recovery of interrupted writes: when one is pending, the merge runs
     * it first and may then do otherwise).
     */
    public MergeResult plan(String uri) {
        return S3Parquet.merge(this, uri, true);
    }
}
