package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A DeleteRowsBuilder is a delete of rows from one table, being configured: {@link #run()} removes every row that matches
 * from every file of the table that holds one, under the table's lease and the commit protocol; {@link #plan()} says what
 * it would remove, and changes nothing.
 *
 * <pre>{@code
 * DeleteResult r = S3Parquet.deleteRows("s3://bucket/events/")
 *     .keys("user_id", List.of(42L))              // an erasure request: every row of user 42
 *     .filter(PartitionFilter.in("year", "2024")) // optional: only these partitions
 *     .run();
 * }</pre>
 *
 * <p>Only the files that hold a matched row are rewritten: the files of the scope are read for the columns the filter
 * names only, row groups whose footer statistics or bloom filters rule the filter out skipped unread; a file whose every row matches is removed, nothing written in its place; every other file is left
 * as it is. The rewrite is a write of the commit protocol, as a compaction's: it takes the lease, stages the kept rows,
 * reads them back and checks them against what it kept before its commit point, and its manifest replaces exactly the
 * files it chose. A crash at any step leaves the table as before (recovery removes the staging) or as after (recovery
 * finishes it); readers see the table before or after. Rows of {@code idempotencyKey} writes keep their key: a later
 * rerun of that key replaces exactly its own remaining rows. Partitions left without files are removed from the catalog.
 *
 * <p>After {@link #run()} returns, no object of the table holds a deleted row: not the table's files, and not
 * {@code _tmp/} (the delete's own staging is removed at its end; what a crashed write left there is removed by the
 * recovery the delete runs first). S3 keeps older versions of objects in a bucket with versioning enabled: expire them
 * with a lifecycle rule, or the rows stay in those versions. A write committed between the delete's listing and its lease
 * that adds a matched row makes the delete fail with a {@link CommitConflictException} (nothing changed, run it again).
 * A writer that takes no lease ({@code lease(false)}) is not guarded against.
 *
 * <p>Its exceptions are those of {@link WriteBuilder#to}, plus {@link ReadException} for the listing and a
 * {@link VerificationException} when the check fails (nothing changed). Not thread-safe; each {@code run()} is a new delete.
 */
public final class DeleteRowsBuilder {
    // Read by S3Parquet.deleteRows, which hands them to the engine (io.wrangler.compact).
    final String uri;
    final SettableOptions options = new SettableOptions("delete of rows");
    PartitionFilter filter = PartitionFilter.all();
    RowFilter where;
    String keyColumn;
    List<Object> keyValues;
    boolean everyRow;
    CatalogTable catalog;
    StepHook hook = StepHook.NONE;
    S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;
    int batchRows = 65_536;

    DeleteRowsBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /**
     * Deletes the rows where {@code filter} is true; rows where it is false or unknown (a null met) are kept, as SQL's
     * {@code DELETE ... WHERE}. A column the table lacks, or a value of another type than its column's, is refused
     * before any row is read or anything changed. Row groups whose statistics or bloom filters rule the filter out are
     * skipped unread.
     */
    public DeleteRowsBuilder where(RowFilter filter) {
        this.where = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /**
     * Deletes the rows whose {@code column} holds one of {@code values}: {@code where(RowFilter.in(column, values))}. No
     * values, or a null value (a null matches no row), are refused before anything is read or changed.
     */
    public DeleteRowsBuilder keys(String column, Collection<?> values) {
        this.keyColumn = Objects.requireNonNull(column, "column");
        this.keyValues = new ArrayList<>(Objects.requireNonNull(values, "values"));
        return this;
    }

    /**
     * Deletes every row of the partitions {@link #filter} passes (every row of the table without a filter). Without
     * {@code where(...)}, {@code keys(...)} or this, {@code run()} and {@code plan()} are refused: a delete with no predicate is never
     * assumed.
     */
    public DeleteRowsBuilder everyRow() {
        this.everyRow = true;
        return this;
    }

    /**
     * Deletes only in the partitions that pass {@code filter}; no file of the others is listed or read. A filter on a
     * column that is not a partition column is refused with an {@link InvalidReadException} (as for a read).
     */
    public DeleteRowsBuilder filter(PartitionFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /** As {@link CompactBuilder#options}: the options of a job's writes that a delete uses. */
    public DeleteRowsBuilder options(WriteOptions options) {
        Objects.requireNonNull(options, "options");
        String refused = options.notForCompaction();
        if (refused != null) {
            throw new IllegalArgumentException("Cannot delete rows of " + uri + " with these WriteOptions: " + refused + ". Give "
                    + "deleteRows(...) options that leave it at its default.");
        }
        this.options.give(options);
        return this;
    }

    /** The S3 client to use; by default the SDK's default client. */
    public DeleteRowsBuilder s3(software.amazon.awssdk.services.s3.S3Client client) {
        options.values().s3(Objects.requireNonNull(client, "client"));
        options.noteSet("s3");
        return this;
    }

    /** Lists the table's partitions and their types in this catalog table, and removes emptied partitions from it. */
    public DeleteRowsBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** As {@link WriteBuilder#lease(boolean)}. */
    public DeleteRowsBuilder lease(boolean enabled) {
        options.values().lease(enabled);
        options.noteSet("lease");
        return this;
    }

    /** As {@link WriteBuilder#leaseWait}. */
    public DeleteRowsBuilder leaseWait(Duration wait) {
        options.values().leaseWait(wait);
        options.noteSet("leaseWait");
        return this;
    }

    /** Encrypts the new files with SSE-S3. */
    public DeleteRowsBuilder sseS3() {
        options.values().encryption(Encryption.sseS3());
        options.noteSet("sseS3");
        return this;
    }

    /** Encrypts the new files with SSE-KMS under {@code keyId} (null: the bucket's default key). */
    public DeleteRowsBuilder sseKms(String keyId) {
        options.values().encryption(keyId == null ? Encryption.kms() : Encryption.kms(keyId));
        options.noteSet("sseKms");
        return this;
    }

    /** As {@link WriteBuilder#retry}. */
    public DeleteRowsBuilder retry(int attempts, Duration base, Duration cap) {
        options.values().retryPolicy(RetryPolicy.of(attempts, base, cap));
        options.noteSet("retry");
        return this;
    }

    /** For tests in this package: told at each step of the commit protocol. */
    DeleteRowsBuilder stepHook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook);
        return this;
    }

    /** For tests in this package: smaller buffers and limits, a test clock. */
    DeleteRowsBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning);
        return this;
    }

    /** For tests in this package: smaller batches. */
    DeleteRowsBuilder batchRows(int rows) {
        this.batchRows = rows;
        return this;
    }

    /**
     * What {@link #run()} would delete, as the table is now: reads only (the listing, the footers and the test's columns),
     * no lease, no request that writes; {@link DeleteResult#applied()} is false.
     */
    public DeleteResult plan() {
        return S3Parquet.deleteRows(this, true);
    }

    /** Deletes the matched rows in one commit; see the class comment. A delete that matches no row changes nothing. */
    public DeleteResult run() {
        return S3Parquet.deleteRows(this, false);
    }
}
