package io.wrangler.tableops;

import io.wrangler.DropTableResult;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteStep;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.CatalogOnly;
import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Drops a table: its catalog table, and with {@code deleteData} every object under its prefix. Under the lease: catalog
 * only, after a recovery with the catalog (so that no interrupted write's pending catalog step registers the table again
 * later); with the data, no recovery (its writes in flight go with the table): the catalog's table first, then every
 * object but the lease in fenced batches, the open uploads aborted, and the lease released last.
 */
public final class DropTable {
    static final String VERB = "drop";
    private static final String RERUN = "S3Parquet.dropTable(...).run()";

    private DropTable() {
    }

    /** Plans the drop, and with {@code apply} runs it under the table's lease. */
    public static DropTableResult run(OpSpec spec, boolean deleteData, boolean apply) {
        Refusals refusals = new Refusals(spec.table(), VERB);
        if (spec.catalog() == null && !deleteData) {
            throw refusals.invalid("neither a catalog nor deleteData(true) was given, so there is nothing to drop",
                    "Call catalog(...) with the table to delete from the catalog, deleteData(true) to delete its objects, or both. "
                            + "Nothing was changed.");
        }
        if (deleteData && spec.location().isBucketRoot()) {
            throw refusals.invalid("the table is a bucket root, and deleteData would delete every object of the bucket",
                    "Give the table's own prefix. Nothing was changed.");
        }
        Register.checkBucket(spec, refusals);
        boolean inCatalog = false;
        if (spec.catalog() != null) {
            TableLayout layout = layoutOrNull(spec, refusals);
            if (layout != null && !spec.table().equals(Refusals.normalized(layout.location()))) {
                throw refusals.invalid("the catalog's table " + spec.catalog().describe() + " is at " + layout.location() + ", not at "
                        + spec.table(), "Drop it with its own location. Nothing was changed.");
            }
            inCatalog = layout != null;
        }
        if (!apply) {
            return planned(spec, deleteData, inCatalog, refusals);
        }
        return CatalogOnly.run(spec.run(VERB, RERUN, !deleteData), (fence, recovered) -> {
            boolean dropped = spec.catalog() != null && spec.catalog().dropTable(fence);
            if (!deleteData) {
                return new DropTableResult(spec.table(), describe(spec), dropped, 0, 0, true);
            }
            long[] deleted = deleteAll(spec, fence);
            // the lease is the last object: CatalogOnly releases it (a conditional delete) once this returns
            return new DropTableResult(spec.table(), describe(spec), dropped, deleted[0], deleted[1], true);
        });
    }

    /** What a drop would remove, counted with reads only (the lease, which the drop itself would hold, not counted). */
    private static DropTableResult planned(OpSpec spec, boolean deleteData, boolean inCatalog, Refusals refusals) {
        long objects = 0;
        long uploads = 0;
        if (deleteData) {
            try {
                String leaseKey = CatalogOnly.leaseKey(spec.location());
                objects = spec.store().list(spec.location().prefix()).stream().filter(o -> !o.key().equals(leaseKey)).count();
                uploads = spec.store().openUploads(spec.location().prefix()).size();
            } catch (SdkException e) {
                throw refusals.storage("list the table", e);
            }
        }
        return new DropTableResult(spec.table(), describe(spec), inCatalog, objects, uploads, false);
    }

    /**
     * Deletes every object under the table's prefix but the lease, from one complete listing, in fenced batches, then
     * aborts the open uploads under it (each fenced); returns how many objects and uploads.
     */
    private static long[] deleteAll(OpSpec spec, Runnable fence) {
        S3Store store = spec.store();
        String leaseKey = CatalogOnly.leaseKey(spec.location());
        List<String> keys = new ArrayList<>();
        for (S3Object o : store.list(spec.location().prefix())) {
            if (!o.key().equals(leaseKey)) {
                keys.add(o.key());
            }
        }
        store.delete(keys, spec.tuning().deleteBatch(), fence, errors -> {
            if (!errors.isEmpty()) {
                throw new WriteIncompleteException(spec.table(), WriteStep.CLEANUP, WriteStep.CLEANUP, "Cannot drop " + spec.table()
                        + " (step: cleanup): S3 refused to delete " + errors.size() + " objects, the first " + errors.get(0).key() + " ("
                        + errors.get(0).code() + "). Part of the table was deleted: fix the cause (s3:DeleteObject) and run " + RERUN
                        + " again to finish it.", null);
            }
        });
        List<MultipartUpload> uploads = store.openUploads(spec.location().prefix());
        for (MultipartUpload u : uploads) {
            fence.run();
            store.abort(u.key(), u.uploadId());
        }
        return new long[] {keys.size(), uploads.size()};
    }

    private static TableLayout layoutOrNull(OpSpec spec, Refusals refusals) {
        try {
            return refusals.layout(spec.catalog());
        } catch (io.wrangler.InvalidWriteException e) {
            if (e.getCause() == null && e.getMessage().contains("cannot be read")) {
                return null; // a catalog that cannot be read through: its table is deleted by name, its location unchecked
            }
            throw e;
        }
    }

    private static String describe(OpSpec spec) {
        return spec.catalog() == null ? null : spec.catalog().describe();
    }
}
