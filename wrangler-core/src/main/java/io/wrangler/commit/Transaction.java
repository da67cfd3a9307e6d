package io.wrangler.commit;

import io.wrangler.staging.StagedFile;
import io.wrangler.RecoveryResult;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.input.BatchSource;
import io.wrangler.partition.PartitionKey;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A Transaction runs one write of a {@link WritePlan} through the commit protocol of package-info.java from the lease on:
 * {@link #begin} (bucket, lease, recover first, STARTED record), {@link #stage} (this process's staging, a single-process
 * write) or the tasks' {@link TaskStager#stageTask} elsewhere, then {@link #commit} (the checks of what tasks report, the
 * manifest: the commit point, publish, catalog, cleanup) or {@link #abort}. It is the only holder of the table's lease,
 * of the fence (in its {@link TableContext}), of the write's pools and of its write log. Exactly one of commit and abort
 * ends it, once, on the process that began it; until then it holds the lease and renews it, and if the process dies
 * instead, the next recovery rolls the write back (STARTED).
 *
 * <p>A single-process write is a distributed write with one task, staged in process ({@link Writes#run}); what it
 * staged itself is committed without the checks of reported files. After a crash (an Error) the lease is left to expire,
 * as a killed process would leave it, and nothing more is sent.
 */
public final class Transaction implements AutoCloseable {
    private final WritePlan plan;
    private final WriteSpec spec;
    private final S3Location location;
    private final String table;
    private final Outcomes outcomes;
    /** The store, pool and fence every step shares; the fence is the lease's compare-and-swap renewal, or nothing. */
    private final TableContext context;
    private final Publisher publisher;
    private TableLease lease;
    private ExecutorService encoders;
    /** The threads this write runs beside its own (its early listing, its staged copies' removal). */
    private final Besides besides = new Besides();
    private RecoveryResult recovered;
    private WriteLog log;
    /** The early listing of the old files of the partitions an input known in advance touches, or null. */
    private CompletableFuture<Publisher.Listing> early;
    /** What {@link #stage} staged in this process: committed without the checks of reported files. */
    private StagedFiles own;
    private boolean ended;

    private Transaction(WritePlan plan, S3Store store, TableLease lease) {
        this.plan = plan;
        this.spec = plan.spec();
        this.location = plan.location();
        this.table = location.uri();
        this.outcomes = new Outcomes(table, plan.kind());
        this.lease = lease;
        Runnable fence = lease == null ? () -> { } : lease::check;
        this.context = new TableContext(location, store, Pools.pool(spec.tuning().threads()), spec.tuning(), spec.hook(), fence);
        this.publisher = new Publisher(context);
    }

    /**
     * Begins a write whose files other processes stage: validate ({@link Planner#planTasks}), then as {@link #begin(WritePlan)}.
     * The caller has each task call {@link TaskStager#stageTask} with {@link #writeId()}, and ends the write with
     * {@link #commit} (the files of the task attempts that counted, nothing else) or {@link #abort}.
     *
     * <p>With {@code CommitMethod.DEFERRED_UPLOADS} (the same in the spec of every task) each task's files are open
     * multipart uploads at their final keys, and {@link #commit} aborts the uploads of this write that the attempts it is
     * handed did not report (failed and losing attempts) before its commit point.
     *
     * <p>With bucketing ({@code bucketBy}, the same in every task's spec), each task hashes its rows to buckets as a
     * single-process write does: a bucket of a partition gets a file from every task that holds rows of it.
     *
     * <p>Not supported here (refused): {@code dtype}, a compaction's replacement.
     */
    public static Transaction begin(WriteSpec spec, Schema schema) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.VALIDATE);
        return begin(new Planner(spec, location).planTasks(schema));
    }

    /**
     * The protocol's front half, one for every write: checks the bucket, takes the lease (unless the write goes without
     * one) and the pools, recovers the table's interrupted writes, records the write (STARTED), and starts listing the old
     * files of the partitions an input known in advance touches (reads only). On failure what it took is released.
     */
    static Transaction begin(WritePlan plan) {
        S3Store store = new S3Store(plan.spec().s3(), plan.location().bucket(), plan.spec().options())
                .withSingleCopyLimit(plan.spec().tuning().singleCopyLimit(), plan.spec().tuning().copyPartSize());
        checkBucket(plan, store);
        TableLease lease = plan.spec().lease() ? takeLease(plan, store) : null;
        Transaction t = new Transaction(plan, store, lease);
        try {
            t.start();
        } catch (RuntimeException | Error e) {
            t.ended = true;
            t.release(e instanceof Error);
            throw e;
        }
        return t;
    }

    private void start() {
        try {
            recovered = new Recovery(context, spec.catalog()).run();
        } catch (TableLease.Lost e) {
            throw outcomes.recoverLost(e);
        }
        try {
            log = WriteLog.start(context.store(), location, context.fence(), plan.started());
        } catch (TableLease.Lost | WriteLog.Superseded e) {
            throw outcomes.lost(Manifest.State.STARTED, WriteStep.STAGE, e);
        } catch (SdkException e) {
            throw outcomes.recordFailed(plan.writeId(), e);
        }
        spec.hook().reached(Step.STARTED, 1);
        Manifest touched = plan.touched();
        if (touched != null) {
            early = besides.run(() -> publisher.listOldFiles(touched, null));
        }
    }

    /** The write's id: tasks stage under {@code _tmp/<writeId>/} with it. */
    public String writeId() {
        return plan.writeId();
    }

    /** The table root, {@code s3://bucket/prefix/}. */
    public String table() {
        return table;
    }

    /**
     * The stage step in this process ({@link TaskStager#inProcess}): encodes and uploads {@code source}. On failure the
     * write's staging and record are removed, the early listing is let finish, and the write has ended.
     */
    StagedFiles stage(BatchSource source) {
        try {
            return stageOrAbandon(source);
        } catch (Error e) {
            ended = true;
            release(true);
            throw e;
        } catch (RuntimeException e) {
            ended = true;
            Besides.awaitQuietly(early);
            throw e;
        }
    }

    private StagedFiles stageOrAbandon(BatchSource source) {
        encoders = Pools.pool(Runtime.getRuntime().availableProcessors());
        TaskStager stager = TaskStager.inProcess(plan, context.store(), context.pool(), encoders);
        try (BufferAllocator allocator = new RootAllocator()) {
            own = stager.stage(source, allocator, plan.prepass() == null ? null : plan.prepass().assigned());
            return own;
        } catch (IOException | RuntimeException e) {
            abandon(e);
            throw outcomes.staging(e, true);
        }
    }

    /**
     * Commits the files of {@code tasks}, the task attempts that counted (one per task), or this process's own staging:
     * the manifest with exactly these files (the commit point), publish, catalog, cleanup; the staging folder is then
     * removed whole, with what failed or duplicate attempts left there. Reported files are checked first (each staged by
     * this write, in place, in a partition its attempt reported), before the commit point.
     */
    public WriteResult commit(List<StagedFiles> tasks) {
        if (ended) {
            throw new IllegalStateException("the write " + plan.writeId() + " has ended");
        }
        ended = true;
        try {
            if (own != null && tasks.size() == 1 && tasks.get(0) == own) {
                List<PartitionKey> keys = new ArrayList<>();
                own.partitions().forEach(v -> keys.add(new PartitionKey(v)));
                return afterStaging(keys, own.files(), plan.folders());
            }
            return commitReported(tasks);
        } catch (Error e) {
            release(true);
            throw e;
        } finally {
            release(false);
        }
    }

    /** The checks of the files tasks reported, before the commit point, then the commit. */
    private WriteResult commitReported(List<StagedFiles> tasks) {
        TaskReports reports = new TaskReports(plan, context, outcomes);
        TaskReports.Checked checked;
        try {
            checked = reports.check(tasks);
        } catch (io.wrangler.InvalidWriteException e) {
            abandon(null);
            throw e;
        }
        PartitionFolders registered;
        try {
            List<MultipartUpload> strays = plan.deferred() ? reports.checkUploads(checked.files()) : null;
            if (strays == null) {
                reports.checkStaged(checked.files());
            }
            registered = reports.registered(checked.keys());
            if (strays != null) {
                // The uploads of attempts that did not count (failed, or lost to another attempt of their task):
                // never part of this write, never completed by anyone; see package-info, "Distributed writes".
                Recovery.abortStray(context.store(), strays, checked.files());
            }
        } catch (SdkException e) {
            abandon(e);
            throw outcomes.checkFailed("check the deferred uploads of the write " + plan.writeId(), e);
        } catch (RuntimeException e) {
            abandon(e);
            throw e;
        }
        return afterStaging(checked.keys(), checked.files(), registered);
    }

    /**
     * Ends the write without applying it: its staging (every task attempt's files) and its record are removed, the
     * table is unchanged; what cannot be removed now is removed by the next recovery (the record stays STARTED).
     */
    public void abort(Throwable cause) {
        if (ended) {
            release(false);
            return;
        }
        ended = true;
        try {
            abandon(cause);
        } finally {
            release(false);
        }
    }

    /** Aborts the write unless it was committed or aborted. */
    @Override
    public void close() {
        abort(null);
    }

    /** Releases what the write holds; after a crash the lease is abandoned (left to expire), else released. */
    private void release(boolean crashed) {
        besides.stop(crashed);
        if (crashed && lease != null) {
            lease.abandon();
            lease = null;
        }
        if (encoders != null) {
            Pools.shutdown(encoders);
        }
        Pools.shutdown(context.pool());
        if (lease != null) {
            lease.close();
            lease = null;
        }
    }

    // ---- from the staged files on: the same steps for a write staged here or by tasks ----

    /**
     * The write from its staged files on: the manifest (the commit point), publish, catalog and cleanup. Staged by this
     * process or by tasks: the same steps, so that recovery cannot tell them apart.
     *
     * @param keys the partitions staged, in order of first appearance
     * @param folders where each partition goes
     */
    private WriteResult afterStaging(List<PartitionKey> keys, List<StagedFile> files, PartitionFolders folders) {
        if (files.isEmpty()) {
            Besides.awaitQuietly(early);
            abandon(null);
            return Writes.empty(plan, recovered);
        }
        Planner.checkNotAllNull(spec, table, keys, () -> {
            Besides.awaitQuietly(early);
            abandon(null);
        });
        Manifest manifest = plan.manifest(keys, files, folders, false);
        Listed listed = listOld(manifest);
        if (manifest.keyed() && spec.replacement() == null && !listed.listing().marked().isEmpty()
                && listed.listing().nested().isEmpty()) {
            listed = rewriteKeyed(listed);
        }
        Publisher.Listing listing = listed.listing();
        if (!listing.nested().isEmpty()) {
            abandon(null);
            throw Outcomes.nested(table, location.uriOf(listing.nested().get(0)));
        }
        Manifest committed = listed.manifest();
        commitPoint(committed.replacing(listing.old()));
        spec.hook().reached(Step.MANIFEST_WRITTEN, 1);
        Publisher.Outcome outcome = publish(listing);
        spec.hook().reached(Step.BEFORE_CATALOG, 1);
        if (plan.catalogCommit() != null) {
            catalogStep();
        }
        spec.hook().reached(Step.BEFORE_CLEANUP, 1);
        spec.hook().reached(Step.STAGING_REMOVED, 1);
        end();
        return Writes.result(plan, committed, outcome, recovered);
    }

    /** A manifest and the old files it replaces. */
    private record Listed(Manifest manifest, Publisher.Listing listing) {
    }

    /**
     * The old files the write replaces, by kind: a compaction's replacement replaces exactly the files it read (a file
     * that came meanwhile is not its to delete); the partitions listed early while an input known in advance staged, if
     * they are the partitions staged; else a listing now. Before the commit point: a failure removes the staging.
     */
    private Listed listOld(Manifest manifest) {
        try {
            if (spec.replacement() != null) {
                spec.replacement().check().accept(manifest.files());
                spec.hook().reached(Step.LISTED_OLD_FILES, 1);
                return new Listed(manifest, new Publisher.Listing(spec.replacement().keys(), List.of()));
            }
            if (early != null && folders(plan.touched()).equals(folders(manifest))) {
                Publisher.Listing listing = joinListing();
                spec.hook().reached(Step.LISTED_OLD_FILES, 1);
                return new Listed(manifest, listing);
            }
            Besides.awaitQuietly(early);
            return new Listed(manifest, publisher.listOld(manifest));
        } catch (RuntimeException e) {
            abandon(e);
            throw e;
        }
    }

    /**
     * A keyed rerun also replaces its key's rows in marked files (a compaction's): each one holding some is written
     * again without them, staged before the commit point, and replaced with the rerun's own old files.
     */
    private Listed rewriteKeyed(Listed listed) {
        KeyedRewrite.Result rewritten;
        try {
            rewritten = KeyedRewrite.run(plan, context, listed.listing().marked());
        } catch (IOException | RuntimeException e) {
            abandon(e);
            throw outcomes.keyedRewrite(e);
        }
        List<StagedFile> all = new ArrayList<>(listed.manifest().files());
        all.addAll(rewritten.files());
        List<String> old = new ArrayList<>(listed.listing().old());
        old.addAll(rewritten.replaced());
        return new Listed(listed.manifest().withFiles(all), new Publisher.Listing(old, listed.listing().nested()));
    }

    private static Set<String> folders(Manifest m) {
        Set<String> out = new HashSet<>();
        m.partitions().forEach(p -> out.add(p.folder()));
        return out;
    }

    /** The early listing's result, its failure mapped as a listing after staging would be (nothing changed yet). */
    private Publisher.Listing joinListing() {
        try {
            return Failures.joined(early);
        } catch (SdkException e) {
            throw outcomes.earlyListingFailed(e);
        }
    }

    /** The manifest moved to COMMITTED: the commit point of every kind but a plain append. */
    private void commitPoint(Manifest manifest) {
        try {
            log.commit(manifest);
        } catch (TableLease.Lost | WriteLog.Superseded e) {
            removeOwn(e);
            throw outcomes.lost(Manifest.State.STARTED, WriteStep.COMMIT, e);
        } catch (WriteLog.Unknown e) {
            throw outcomes.manifestUnknown(location.uriOf(log.folder() + Manifest.FILE_NAME), e);
        } catch (SdkException e) {
            abandon(e);
            throw outcomes.manifestFailed(e);
        }
    }

    /**
     * The publish step; the staged copies are removed from the moment every file is in place, alongside the deletes of
     * the old files: a recovery that finds them gone finds every file in place at its final key instead.
     */
    private Publisher.Outcome publish(Publisher.Listing listing) {
        S3Store store = context.store();
        List<String> stagedKeys = new ArrayList<>();
        log.manifest().files().forEach(f -> {
            if (f.stagedKey() != null) {
                stagedKeys.add(f.stagedKey());
            }
        });
        List<CompletableFuture<List<String>>> removing = new ArrayList<>();
        Publisher.Outcome outcome;
        try {
            outcome = publishFiles(listing, () -> removing.add(
                    besides.run(() -> Staging.removeStaged(store, log.folder(), context.pool(), stagedKeys))));
        } catch (RuntimeException e) {
            removing.forEach(Besides::awaitQuietly);
            throw e;
        }
        int partitions = log.manifest().partitions().size();
        spec.progress().partitionsPublished(partitions, partitions);
        afterCommit(() -> {
            if (removing.isEmpty()) {
                Staging.removeStaged(store, log.folder(), context.pool(), stagedKeys);
            } else {
                Failures.joined(removing.get(0));
            }
            log.published();
        }, WriteStep.PUBLISH);
        return outcome;
    }

    private Publisher.Outcome publishFiles(Publisher.Listing listing, Runnable placed) {
        try {
            return publisher.publish(log.manifest(), listing.old(), placed);
        } catch (Publisher.UploadsLost e) {
            // An upload is missing: a lifecycle rule aborted it, or the holder that took the table over completed it while
            // this writer stalled. Only the first may be undone, and only by the lease's holder.
            try {
                context.fence().run();
            } catch (TableLease.Lost lostLease) {
                lostLease.addSuppressed(e);
                throw outcomes.lost(Manifest.State.COMMITTED, WriteStep.PUBLISH, lostLease);
            }
            throw undoLost(e);
        } catch (TableLease.Lost e) {
            throw outcomes.lost(Manifest.State.COMMITTED, WriteStep.PUBLISH, e);
        } catch (io.wrangler.WriteIncompleteException | io.wrangler.CommitStateUnknownException e) {
            if (plan.kind().committedAtManifest()) {
                throw e;
            }
            throw undoAppend(false, e, WriteStep.PUBLISH);
        } catch (RuntimeException e) {
            if (plan.kind().committedAtManifest()) {
                throw outcomes.publishIncomplete(e);
            }
            throw undoAppend(false, e, WriteStep.PUBLISH);
        }
    }

    /**
     * Runs a step after the commit point. A lost lease or a superseded manifest stops the write: an overwrite is then
     * finished by the holder that took over, a plain append undone by it.
     */
    private void afterCommit(Runnable step, WriteStep at) {
        try {
            step.run();
        } catch (TableLease.Lost | WriteLog.Superseded e) {
            throw outcomes.lost(Manifest.State.COMMITTED, at, e);
        } catch (SdkException e) {
            if (plan.kind().committedAtManifest()) {
                throw outcomes.recordIncomplete(at, e);
            }
            throw undoAppend(false, e, at);
        }
    }

    private void catalogStep() {
        try {
            plan.catalogCommit().commit(CatalogStep.entries(log.manifest()), context.fence());
        } catch (TableLease.Lost e) {
            throw outcomes.lost(Manifest.State.PUBLISHED, WriteStep.CATALOG, e);
        } catch (RuntimeException e) {
            if (plan.kind().committedAtManifest()) {
                throw outcomes.catalogIncomplete(spec.catalog().describe(), e);
            }
            throw undoAppend(true, e, WriteStep.CATALOG);
        }
    }

    /** Ends the write: the conditional delete of its manifest, a plain append's commit point. */
    private void end() {
        try {
            log.end();
        } catch (TableLease.Lost e) {
            throw outcomes.lost(Manifest.State.PUBLISHED, WriteStep.CLEANUP, e);
        } catch (WriteLog.Superseded e) {
            if (plan.kind().committedAtManifest()) {
                return; // the holder that took over finished it
            }
            // A recovery claimed the append first, or ended it: its files tell which.
            Manifest m = log.manifest();
            if (context.store().size(m.files().get(0).finalKey()).isEmpty() || e.getMessage().contains("changed")) {
                throw outcomes.lost(Manifest.State.PUBLISHED, WriteStep.CLEANUP, e);
            }
        } catch (SdkException e) {
            if (plan.kind().committedAtManifest()) {
                throw outcomes.endIncomplete(e);
            }
            throw outcomes.endUnknown(e);
        }
    }

    // ---- undoing: before the commit point, and a plain append's after publishing ----

    /** Removes this write's own staging and record before its commit point; failures are left to recovery. */
    private void abandon(Throwable failure) {
        try {
            removeStaging();
            log.end();
        } catch (RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
            cleanupFailed(e);
        }
    }

    /**
     * A write that lost the table before its commit point removes what it made since the new holder recovered it: a
     * writer that stalls after its record was rolled back stages on, and its deferred uploads then carry an id that no
     * manifest records any more, so no later recovery would abort them. Everything removed here carries this write's id
     * and none of it was committed; the manifest is left to whoever holds it. Failures are kept on {@code cause}.
     */
    private void removeOwn(RuntimeException cause) {
        try {
            removeStaging();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            cleanupFailed(e);
        }
    }

    private void removeStaging() {
        if (plan.deferred()) {
            Staging.abortDeferred(context.store(), location, log.manifest().writeId());
        }
        Staging.removeStaged(context.store(), log.folder());
    }

    /** A cleanup of this write's own staging failed and was suppressed: what remains is the next holder's to remove. */
    private void cleanupFailed(RuntimeException e) {
        Logs.COMMIT.log(System.Logger.Level.WARNING, () -> "Could not remove the staging of write " + log.manifest().writeId() + " of "
                + table + " (" + e.getMessage() + "); the next write or S3Parquet.recover removes it.");
    }

    /**
     * A plain append that failed after publishing undoes itself: nothing of it stays, so rerunning it adds its rows once.
     * What cannot be undone now is undone by the next recovery (its manifest stays, ABORTING).
     *
     * @param registered whether its catalog step may have registered partitions (to unregister those now empty)
     */
    private RuntimeException undoAppend(boolean registered, Throwable cause, WriteStep step) {
        try {
            log.aborting();
            Manifest m = log.manifest();
            if (!Publisher.unpublish(context.store(), m).isEmpty()) {
                throw S3Exception.builder().statusCode(200).message("S3 refused to delete some of the append's files").build();
            }
            Staging.removeStaged(context.store(), log.folder());
            if (registered) {
                unregisterEmpty(plan.catalogCommit(), m);
            }
            log.end();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            return outcomes.undoFailed(step, cause, e);
        }
        return outcomes.undone(step, cause);
    }

    private void unregisterEmpty(CatalogCommit catalogCommit, Manifest m) {
        List<PartitionEntry> empty = new ArrayList<>();
        for (PartitionEntry e : CatalogStep.entries(m)) {
            if (context.store().list(location.prefix() + e.location().substring(table.length())).isEmpty()) {
                empty.add(e);
            }
        }
        if (!empty.isEmpty()) {
            catalogCommit.unregister(empty, context.fence());
        }
    }

    /** Deferred uploads were aborted under the write: it is undone (no old file was deleted yet) and fails. */
    private RuntimeException undoLost(Publisher.UploadsLost lost) {
        try {
            log.aborting();
        } catch (WriteLog.Superseded e) {
            e.addSuppressed(lost);
            throw outcomes.lost(Manifest.State.COMMITTED, WriteStep.PUBLISH, e);
        }
        try {
            if (!Publisher.unpublish(context.store(), log.manifest()).isEmpty()) {
                throw S3Exception.builder().statusCode(200).message("S3 refused to delete some of the write's files").build();
            }
            Staging.removeStaged(context.store(), log.folder());
            log.end();
        } catch (RuntimeException e) {
            lost.addSuppressed(e);
            return outcomes.uploadsLostUndoFailed(lost, e);
        }
        return outcomes.uploadsLost(lost);
    }

    // ---- the front half's checks ----

    private static void checkBucket(WritePlan plan, S3Store store) {
        try {
            store.checkBucket();
        } catch (SdkException e) {
            throw Outcomes.bucketFailed(plan.table(), plan.location().bucket(), e);
        }
    }

    private static TableLease takeLease(WritePlan plan, S3Store store) {
        WriteSpec spec = plan.spec();
        try {
            return TableLease.acquire(store, plan.location(), plan.writeId(), spec.tuning().leaseTtl(), spec.leaseWait(),
                    spec.tuning().clockOffset());
        } catch (SdkException e) {
            throw Outcomes.leaseFailed(plan.table(), plan.location().tmpPrefix(), e);
        }
    }
}
