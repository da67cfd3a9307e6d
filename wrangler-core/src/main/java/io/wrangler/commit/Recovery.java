package io.wrangler.commit;

import io.wrangler.CommitStateUnknownException;
import io.wrangler.RecoveryResult;
import io.wrangler.WriteMode;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * Recovery finds the interrupted writes of a table under {@code _tmp/} and resolves each one:
 * <ul>
 *   <li>no manifest: the write never reached its commit point; its staging folder and open multipart uploads
 *       are removed (rolled back). Nothing outside {@code _tmp/} was written by it but, with deferred uploads, open
 *       multipart uploads at final keys (invisible), found by the write id in their names and aborted.</li>
 *   <li>a manifest, mode {@code APPEND}: rolled back. The files it may have published (its manifest lists them)
 *       and its staging are deleted, so that rerunning the append adds its rows exactly once; partitions it had
 *       registered in its catalog and that are now empty are removed from the catalog (which needs the catalog: without
 *       it the write stays pending, manifest kept).</li>
 *   <li>a manifest, mode {@code OVERWRITE} or {@code OVERWRITE_PARTITIONS}: rolled forward. Old files may already
 *       be partly deleted, so finishing is the only way that loses nothing: publishing is repeated (it is
 *       idempotent), the catalog step runs when a catalog is given, and the staging is removed. If deferred uploads it
 *       lists were aborted meanwhile (a lifecycle rule), it cannot be finished; as no old file is deleted before every
 *       file is in place, it is undone instead.</li>
 * </ul>
 * Recovery assumes no other writer is active on the table (see the package documentation).
 */
final class Recovery {
    private final S3Store store;
    private final S3Location location;
    private final ExecutorService pool;
    private final WriteSpec.Tuning tuning;
    private final StepHook hook;
    private final CatalogTable catalog;

    Recovery(S3Store store, S3Location location, ExecutorService pool, WriteSpec.Tuning tuning, StepHook hook, CatalogTable catalog) {
        this.store = store;
        this.location = location;
        this.pool = pool;
        this.tuning = tuning;
        this.hook = hook;
        this.catalog = catalog;
    }

    RecoveryResult run() {
        String table = location.uri();
        List<String> forward = new ArrayList<>();
        List<String> back = new ArrayList<>();
        List<String> pending = new ArrayList<>();
        List<String> aborted = new ArrayList<>();
        try {
            String tmp = location.tmpPrefix();
            TreeSet<String> folders = new TreeSet<>(store.listFolders(tmp));
            // A write that crashed in its first multipart upload has no object yet, only the upload; a write with deferred
            // uploads (CommitMethod.DEFERRED_UPLOADS) has them at final keys, each file name carrying its write id.
            Map<String, List<MultipartUpload>> deferred = new HashMap<>();
            for (MultipartUpload u : store.openUploads(location.prefix())) {
                if (u.key().startsWith(tmp)) {
                    int slash = u.key().indexOf('/', tmp.length());
                    if (slash > 0) {
                        folders.add(u.key().substring(0, slash + 1));
                    }
                } else {
                    String writeId = WriteIds.ofFile(u.key());
                    if (writeId != null) {
                        deferred.computeIfAbsent(writeId, w -> new ArrayList<>()).add(u);
                        folders.add(tmp + writeId + "/");
                    }
                }
            }
            for (String folder : folders) {
                String writeId = folder.substring(tmp.length(), folder.length() - 1);
                Optional<byte[]> json = store.get(folder + Manifest.FILE_NAME);
                if (json.isEmpty()) {
                    aborted.addAll(abortStray(deferred.get(writeId), null));
                    aborted.addAll(Staging.remove(store, folder, StepHook.NONE));
                    back.add(writeId);
                    continue;
                }
                Manifest m = parse(table, folder, json.get());
                aborted.addAll(abortStray(deferred.get(writeId), m));
                if (m.mode() == WriteMode.APPEND) {
                    if (!Publisher.unpublish(store, m).isEmpty()) {
                        throw new CommitStateUnknownException(table, Step.RECOVER.label(), "Cannot roll back the interrupted append "
                                + writeId + " of " + table + " (step: recover): S3 refused to delete some of its files. "
                                + "Fix the permission and run S3Parquet.recover again.", null);
                    }
                    if (m.catalog() != null) {
                        // The append may have registered partitions before it was cut short: those left empty go too.
                        if (catalog == null || !catalog.describe().equals(m.catalog())) {
                            pending.add(writeId);
                            continue;
                        }
                        unregisterEmpty(m);
                    }
                    aborted.addAll(Staging.remove(store, folder, StepHook.NONE));
                    back.add(writeId);
                    continue;
                }
                // The copies carry what the interrupted write's own requests carried (encryption, ACL, owner).
                S3Store writeStore = m.requests() == null ? store
                        : new S3Store(store.client(), store.bucket(), m.requests().with(store.options()))
                                .withSingleCopyLimit(tuning.singleCopyLimit(), tuning.copyPartSize());
                try {
                    new Publisher(writeStore, location, pool, tuning, StepHook.NONE).publish(m);
                } catch (Publisher.UploadsLost e) {
                    // Aborted deferred uploads cannot be completed; no old file was deleted yet, so the write is undone.
                    if (!Publisher.unpublish(writeStore, m).isEmpty()) {
                        throw new CommitStateUnknownException(table, Step.RECOVER.label(), "Cannot undo the interrupted write "
                                + writeId + " of " + table + " (step: recover), whose uploads were aborted: S3 refused to delete "
                                + "some of its files. Fix the permission and run S3Parquet.recover again.", e);
                    }
                    aborted.addAll(Staging.remove(store, folder, StepHook.NONE));
                    back.add(writeId);
                    continue;
                }
                if (m.catalog() != null) {
                    if (catalog == null || !catalog.describe().equals(m.catalog())) {
                        pending.add(writeId);
                        continue;
                    }
                    CatalogStep.rerun(catalog, m);
                }
                aborted.addAll(Staging.remove(store, folder, StepHook.NONE));
                forward.add(writeId);
            }
        } catch (SdkException e) {
            throw Failures.storage(table, Step.RECOVER, "recover interrupted writes", e,
                    "Recovery is idempotent: fix the cause and run it again (or rerun the write).");
        }
        hook.reached(Step.RECOVER, 1);
        return new RecoveryResult(table, forward, back, pending, aborted);
    }

    /**
     * Aborts the open deferred uploads of an interrupted write that its manifest does not list (all of them when it has
     * none); those it lists are completed or aborted by publishing or undoing it.
     */
    private List<String> abortStray(List<MultipartUpload> uploads, Manifest m) {
        List<String> out = new ArrayList<>();
        if (uploads == null) {
            return out;
        }
        Set<String> listed = new HashSet<>();
        if (m != null) {
            m.files().forEach(f -> listed.add(f.uploadId()));
        }
        for (MultipartUpload u : uploads) {
            if (!listed.contains(u.uploadId())) {
                store.abort(u.key(), u.uploadId());
                out.add(u.key());
            }
        }
        return out;
    }

    private void unregisterEmpty(Manifest m) {
        List<io.wrangler.catalog.PartitionEntry> empty = new ArrayList<>();
        for (io.wrangler.catalog.PartitionEntry e : CatalogStep.entries(m)) {
            String folder = e.location().substring(location.uri().length());
            if (store.list(location.prefix() + folder).isEmpty()) {
                empty.add(e);
            }
        }
        if (!empty.isEmpty()) {
            catalog.prepare(CatalogStep.definition(m)).unregister(empty);
        }
    }

    private static Manifest parse(String table, String folder, byte[] json) {
        try {
            return Manifest.fromJson(json);
        } catch (IOException e) {
            throw new CommitStateUnknownException(table, Step.RECOVER.label(), "Cannot recover " + table + " (step: recover): the manifest "
                    + folder + Manifest.FILE_NAME + " cannot be read (" + e.getMessage() + "). Do not delete it: inspect it, "
                    + "and upgrade wrangler if it was written by a newer version.", e);
        }
    }
}
