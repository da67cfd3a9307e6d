package io.wrangler.commit;

import io.wrangler.CommitStateUnknownException;
import io.wrangler.RecoveryResult;
import io.wrangler.WriteMode;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.hive.HivePaths;
import io.wrangler.layout.CommitLog;
import io.wrangler.layout.Manifest;
import io.wrangler.layout.WriteIds;
import io.wrangler.spi.StepHook;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Recovery finds the interrupted writes of a table under {@code _tmp/} and resolves each one by the state its manifest
 * records ({@link WriteLog#resolve}, the state table of {@code package-info.java}):
 * <ul>
 *   <li>a folder named like a write id with no manifest (a write of wrangler 0.1 cut short before its manifest, or a
 *       stale writer's late uploads): its staged objects and open uploads are removed;</li>
 *   <li>roll back (STARTED, ABORTING, and a plain append in any state): claimed with a compare-and-swap to ABORTING,
 *       then its staging removed, its uploads aborted, the files it published deleted (objects its own run created, never
 *       another's), the partitions it registered that are now empty removed from the catalog, its manifest ended;</li>
 *   <li>roll forward (an overwrite or keyed append COMMITTED): published again (idempotent), its staged copies removed,
 *       recorded PUBLISHED, then as below;</li>
 *   <li>catalog only (PUBLISHED): never published again; its catalog step runs with the table as it is now, when the
 *       write's catalog is given; without it the write stays {@code catalogPending}, manifest kept.</li>
 * </ul>
 * Folders under {@code _tmp/} that are not wrangler's exact forms are left alone, and so are open uploads whose write id
 * this table does not record (a nested table's, another tool's). A manifest that belongs to another table is refused
 * and nothing is touched. Every interrupted write is resolved right after a fencing check of the lease.
 */
final class Recovery {
    private final TableContext context;
    private final S3Store store;
    private final S3Location location;
    private final ExecutorService pool;
    private final StepHook hook;
    private final CatalogTable catalog;
    private final Runnable fence;

    /** @param catalog the catalog whose writes this recovery may run the catalog step of (a write recorded with another stays catalogPending), or null */
    Recovery(TableContext context, CatalogTable catalog) {
        this.context = context;
        this.store = context.store();
        this.location = context.location();
        this.pool = context.pool();
        this.hook = context.hook();
        this.catalog = catalog;
        this.fence = context.fence();
    }

    private final List<String> forward = new ArrayList<>();
    private final List<String> back = new ArrayList<>();
    private final List<String> pending = new ArrayList<>();
    private final List<String> aborted = new ArrayList<>();

    RecoveryResult run() {
        String table = location.uri();
        try {
            String tmp = location.tmpPrefix();
            TreeSet<String> ids = new TreeSet<>();
            // Two independent reads: sent at once, so a table with nothing to recover costs one round trip here, not two.
            CompletableFuture<List<MultipartUpload>> open =
                    CompletableFuture.supplyAsync(() -> store.openUploads(location.prefix()), pool);
            List<String> folders;
            try {
                folders = store.listFolders(tmp);
            } finally {
                // never leave the other listing running behind a failure
                try {
                    open.join();
                } catch (RuntimeException ignored) {
                    // reported below when it is read
                }
            }
            for (String folder : folders) {
                String name = folder.substring(tmp.length(), folder.length() - 1);
                if (WriteIds.isWriteId(name)) {
                    ids.add(name);
                }
            }
            // A write cut short in its first multipart upload has no object yet, only the upload; deferred uploads
            // (CommitMethod.DEFERRED_UPLOADS) are at final keys, each file name carrying its write id.
            Map<String, List<MultipartUpload>> deferred = new HashMap<>();
            List<MultipartUpload> uploads;
            try {
                uploads = open.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
            for (MultipartUpload u : uploads) {
                if (u.key().startsWith(tmp)) {
                    int slash = u.key().indexOf('/', tmp.length());
                    String name = slash > 0 ? u.key().substring(tmp.length(), slash) : "";
                    if (WriteIds.isWriteId(name)) {
                        ids.add(name);
                    }
                } else {
                    String writeId = deferredWriteId(location, u);
                    if (writeId != null) {
                        deferred.computeIfAbsent(writeId, w -> new ArrayList<>()).add(u);
                    }
                }
            }
            for (String writeId : ids) {
                resolve(writeId, deferred.getOrDefault(writeId, List.of()));
            }
        } catch (SdkException e) {
            throw Outcomes.recoveryFailed(table, e, " (or rerun the write, which recovers first)");
        }
        hook.reached(Step.RECOVER, 1);
        return new RecoveryResult(table, forward, back, pending, aborted);
    }

    private void resolve(String writeId, List<MultipartUpload> uploads) {
        for (int attempt = 0; attempt < 5; attempt++) {
            fence.run();
            Optional<WriteLog> log = WriteLog.read(store, location, writeId);
            if (log.isEmpty()) {
                // No record: only what sits in its own folder is known to be its (uploads elsewhere are never aborted
                // without a record, as they could be another table's).
                String folder = WriteLog.folder(location, writeId);
                if (!store.list(folder).isEmpty() || !store.openUploads(folder).isEmpty()) {
                    Logs.COMMIT.log(Level.INFO, () -> "Recovery of " + location.uri() + ": removing the staging of interrupted write "
                            + writeId + ", which recorded nothing (cut short before its manifest).");
                    aborted.addAll(Staging.removeStaged(store, folder));
                    back.add(writeId);
                }
                return;
            }
            try {
                WriteLog.Resolution r = resolution(log.get());
                Manifest m = log.get().manifest();
                Logs.COMMIT.log(Level.INFO, () -> "Recovery of " + location.uri() + ": interrupted write " + writeId + " (" + m.mode()
                        + ", " + m.state() + ", " + m.files().size() + " files) is " + switch (r) {
                            case ROLL_BACK -> "rolled back: none of it stays.";
                            case ROLL_FORWARD -> "committed: rolled forward, its files published and the files it replaces deleted.";
                            case CATALOG_ONLY -> "published: only its catalog step runs.";
                        });
                switch (r) {
                    case ROLL_BACK -> rollBack(log.get(), uploads);
                    case ROLL_FORWARD -> rollForward(log.get(), uploads);
                    case CATALOG_ONLY -> catalogStep(log.get(), Map.of());
                }
                return;
            } catch (WriteLog.Superseded e) {
                // The write's own (stale) process moved its manifest first: look again.
            }
        }
        throw Outcomes.manifestKeepsChanging(location.uri(), writeId);
    }

    /**
     * The state table's decision, with one refinement for manifests of wrangler 0.1 (format 1), which record no state
     * and are read as COMMITTED: 0.1 kept the manifest (and the staged copies) of a published write whose catalog step
     * was pending, and let later writes replace its partitions. If any file of the table was written after the manifest,
     * a later write ran, which 0.1 allowed only once this write was published: it gets its catalog step only, never a
     * second publish (that would copy its stale files back and delete the newer ones).
     */
    private WriteLog.Resolution resolution(WriteLog log) {
        Manifest m = log.manifest();
        WriteLog.Resolution r = WriteLog.resolve(m);
        if (r != WriteLog.Resolution.ROLL_FORWARD || m.format() != 1 || log.lastWritten() == null) {
            return r;
        }
        Set<String> own = new HashSet<>();
        m.files().forEach(f -> own.add(f.finalKey()));
        long written = log.lastWritten().getEpochSecond();
        for (S3Object o : store.list(location.prefix())) {
            String rel = o.key().substring(location.prefix().length());
            if (!rel.startsWith("_tmp/") && !rel.contains("/_tmp/") && !own.contains(o.key()) && !CommitLog.wranglers(location, o.key())
                    && o.lastModified().getEpochSecond() > written) {
                return WriteLog.Resolution.CATALOG_ONLY;
            }
        }
        return r;
    }

    /** Undoes a write: only objects its own run created are deleted. */
    private void rollBack(WriteLog log, List<MultipartUpload> uploads) {
        boolean retract = LogStep.retractable(log.manifest());
        log.aborting();
        Manifest m = log.manifest();
        if (retract) {
            // Before its files go: a reader that met its entry and then finds its record gone finds its files gone too.
            logged(() -> LogStep.undone(store, location, m, fence));
        }
        aborted.addAll(abortStray(store, uploads, m.files()));
        // Staging before the final keys: the write's own process may have stalled inside its copies and resume now, and a
        // single CopyObject is not fenced. Once its source is gone a late copy fails; one that landed before is deleted
        // with the final keys below. The other order lets a copy land between the two, and stay.
        aborted.addAll(Staging.removeStaged(store, log.folder()));
        if (!m.files().isEmpty()) {
            fence.run();
            if (!Publisher.unpublish(store, m).isEmpty()) {
                throw Outcomes.rollBackRefused(location.uri(), m.writeId());
            }
        }
        if (!m.files().isEmpty() && m.catalog() != null && m.mode() == WriteMode.APPEND) {
            // The append may have registered partitions before it was cut short: those left empty go too.
            if (!sameCatalog(m)) {
                pending.add(m.writeId());
                return;
            }
            unregisterEmpty(m);
        }
        log.end();
        back.add(m.writeId());
    }

    private void rollForward(WriteLog log, List<MultipartUpload> uploads) {
        Manifest m = log.manifest();
        refuseOtherRequests(m);
        Publisher publisher = new Publisher(context.withHook(StepHook.NONE));
        Publisher.Listing listing = m.replaces() != null ? new Publisher.Listing(m.replaces(), List.of())
                : publisher.listOld(m, log.lastWritten());
        if (!listing.nested().isEmpty()) {
            throw Outcomes.nestedUnderCommitted(location.uri(), m.writeId(), location.uriOf(listing.nested().get(0)));
        }
        aborted.addAll(abortStray(store, uploads, m.files()));
        Publisher.Outcome published;
        try {
            published = publisher.publish(m, listing.old());
        } catch (Publisher.UploadsLost e) {
            // Aborted deferred uploads cannot be completed; no old file was deleted yet, so the write is undone.
            rollBack(log, List.of());
            return;
        }
        Staging.removeStaged(store, log.folder());
        log.published();
        catalogStep(log, published.eTags());
    }

    /**
     * The copies a roll forward makes carry this recovery's own request settings (encryption, KMS key, ACL, expected
     * bucket owner), never a manifest's: whoever can write the table's {@code _tmp/} must not choose what a job with the
     * recovering credentials publishes under (public-read, another account's key). A manifest that records other settings
     * is refused, nothing touched, rather than published with settings its writer did not choose.
     */
    private void refuseOtherRequests(Manifest m) {
        Manifest.Requests own = Manifest.Requests.of(store.options());
        if (m.requests() == null || m.requests().equals(own)) {
            return;
        }
        throw Outcomes.otherRequestSettings(location.uri(), m.writeId(), describe(m.requests()), describe(own));
    }

    private static String describe(Manifest.Requests r) {
        return "(sse " + r.sse() + ", kmsKeyId " + r.kmsKeyId() + ", acl " + r.acl() + ", expectedBucketOwner " + r.expectedBucketOwner() + ")";
    }

    /**
     * The catalog step of a published write, with the table as it is now; never a publish. {@code eTags}: those of the
     * files this recovery put in place, for the write's log entry (none when it found the write published).
     */
    private void catalogStep(WriteLog log, Map<String, String> eTags) {
        Manifest m = log.manifest();
        aborted.addAll(Staging.removeStaged(store, log.folder()));
        if (m.catalog() != null) {
            if (!sameCatalog(m)) {
                pending.add(m.writeId());
                return;
            }
            registerAsNow(catalog, m, store, location, fence);
        }
        logged(() -> LogStep.finished(store, location, m, eTags, fence));
        log.end();
        forward.add(m.writeId());
    }

    /** A step on the table's commit log, its IOException (an entry that cannot be read) as the unchecked failure it is here. */
    private static void logged(LogWork work) {
        try {
            work.run();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @FunctionalInterface
    private interface LogWork {
        void run() throws java.io.IOException;
    }

    private boolean sameCatalog(Manifest m) {
        return catalog != null && catalog.describe().equals(m.catalog());
    }

    /**
     * Runs a published write's catalog step against the table as S3 holds it now, which a later write may have changed:
     * an OVERWRITE registers the partitions present now (the catalog drops the others); any other mode registers those
     * of its partitions that still hold files and removes from the catalog those that hold none.
     */
    static void registerAsNow(CatalogTable catalog, Manifest m, S3Store store, S3Location location, Runnable fence) {
        CatalogCommit commit = catalog.prepare(CatalogStep.definition(m));
        List<PartitionEntry> present = new ArrayList<>();
        List<PartitionEntry> empty = new ArrayList<>();
        if (!m.partitionColumns().isEmpty()) {
            if (m.mode() == WriteMode.OVERWRITE) {
                present.addAll(partitionsNow(store, location, m.partitionColumns().size()));
            } else {
                CatalogStep.Split split = CatalogStep.split(catalog, m, store, location);
                present.addAll(split.present());
                empty.addAll(split.empty());
            }
        }
        commit.commit(present, fence);
        if (!empty.isEmpty()) {
            commit.unregister(empty, fence);
        }
    }

    /** Every partition folder of the table that holds a file now, with its values. */
    private static List<PartitionEntry> partitionsNow(S3Store store, S3Location location, int depth) {
        Map<String, List<String>> folders = new LinkedHashMap<>();
        for (S3Object o : store.list(location.prefix())) {
            String rel = o.key().substring(location.prefix().length());
            if (rel.startsWith("_tmp/") || rel.contains("/_tmp/")) {
                continue;
            }
            String[] parts = rel.split("/", -1);
            if (parts.length != depth + 1) {
                continue;
            }
            StringBuilder folder = new StringBuilder();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < depth; i++) {
                int eq = parts[i].indexOf('=');
                if (eq < 0) {
                    values = null;
                    break;
                }
                String raw = HivePaths.unescape(parts[i].substring(eq + 1));
                values.add(PartitionEntry.DEFAULT_PARTITION.equals(raw) ? null : raw);
                folder.append(parts[i]).append('/');
            }
            if (values != null) {
                folders.putIfAbsent(folder.toString(), values);
            }
        }
        List<PartitionEntry> out = new ArrayList<>();
        folders.forEach((folder, values) -> out.add(new PartitionEntry(values, location.uri() + folder)));
        return out;
    }

    /**
     * Whether the table's {@code _tmp/} holds a write's folder: a write running or interrupted. Relies on every folder
     * directly below {@code _tmp/} (a LIST with delimiter, every page) and on the folder's name being a write id of any
     * form, as {@link #run} finds them: not on how many other objects lie there nor on how names sort (another tool's or a
     * user's objects there, even pages of them, hide nothing; a folder not named like a write id is not one). A write cut
     * short in its very first upload (an open upload, no object yet) is not counted: nothing of the table depends on it,
     * and the next write's recovery aborts it.
     */
    static boolean hasWriteFolders(S3Store store, S3Location location) {
        String tmp = location.tmpPrefix();
        return store.listFolders(tmp).stream().anyMatch(f -> WriteIds.isWriteId(f.substring(tmp.length(), f.length() - 1)));
    }

    /**
     * The write id of an open upload at a final key of the table (a deferred upload, {@code CommitMethod.DEFERRED_UPLOADS}):
     * the id its file name carries, or null for an upload under a {@code _tmp/} (staging, this table's or a nested one's)
     * or one whose name is not a wrangler data file's.
     */
    static String deferredWriteId(S3Location location, MultipartUpload u) {
        return deferredWriteId(location, u.key());
    }

    /** {@link #deferredWriteId(S3Location, MultipartUpload)} of an upload at {@code key}. */
    static String deferredWriteId(S3Location location, String key) {
        if (!key.startsWith(location.prefix()) || key.startsWith(location.tmpPrefix())
                || key.substring(location.prefix().length()).contains("/_tmp/")) {
            return null;
        }
        return WriteIds.ofFile(key);
    }

    /**
     * Aborts the open deferred uploads of one recorded write ({@code uploads}, all carrying its id) that {@code listed} (its
     * manifest's files, or the files its commit is about to record) does not name by upload id: all of them when it lists
     * no file. Those it names are completed or aborted by publishing or undoing the write, never here. Used by recovery
     * (roll back, roll forward) and by a distributed write before its commit point (the uploads of task attempts that did
     * not count).
     */
    static List<String> abortStray(S3Store store, List<MultipartUpload> uploads, List<StagedFile> listed) {
        List<String> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        listed.forEach(f -> {
            if (f.uploadId() != null) {
                ids.add(f.uploadId());
            }
        });
        for (MultipartUpload u : uploads) {
            if (!ids.contains(u.uploadId())) {
                Staging.abortQuietly(store, u);
                out.add(u.key());
            }
        }
        return out;
    }

    private void unregisterEmpty(Manifest m) {
        List<PartitionEntry> empty = CatalogStep.split(catalog, m, store, location).empty();
        if (!empty.isEmpty()) {
            catalog.prepare(CatalogStep.definition(m)).unregister(empty, fence);
        }
    }
}
