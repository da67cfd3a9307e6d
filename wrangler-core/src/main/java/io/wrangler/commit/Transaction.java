package io.wrangler.commit;

import io.wrangler.CommitMark;
import io.wrangler.RecoveryResult;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.commit.Outcomes.At;
import io.wrangler.commit.Outcomes.Undo;
import io.wrangler.input.BatchSource;
import io.wrangler.layout.CommitLog;
import io.wrangler.layout.Manifest;
import io.wrangler.partition.PartitionKey;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
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
    /** What this write's kind of change does that the others do not: which old files it replaces, and how. */
    private final Operation operation;
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
    /**
     * The end of the table's commit log, looked up beside the staging once the recovery (which may log) is done: the
     * write's own entry takes the next number once its files are in place, so the log costs no round trip before the
     * commit point.
     */
    private CompletableFuture<CommitLog.Tail> logTail;
    /**
     * The write's entry in the commit log, sent beside the publish step's deletes once every file is in place, and
     * awaited before the manifest moves to PUBLISHED; null until sent (a plain append undone after that retracts it).
     */
    private CompletableFuture<CommitMark> logged;
    /** The ETags S3 answered as the publish step put the files in place, by final key: the log entry records them. */
    private volatile Map<String, String> placedETags = Map.of();
    /** What {@link #stage} staged in this process: committed without the checks of reported files. */
    private StagedFiles own;
    private boolean ended;

    private Transaction(WritePlan plan, S3Store store, TableLease lease, Outcomes outcomes) {
        this.plan = plan;
        this.spec = plan.spec();
        this.location = plan.location();
        this.table = location.uri();
        this.outcomes = outcomes;
        this.operation = Operation.of(plan);
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
        WriteSpec spec = plan.spec();
        S3Store store = new S3Store(spec.s3(), plan.location().bucket(), spec.options())
                .withSingleCopyLimit(spec.tuning().singleCopyLimit(), spec.tuning().copyPartSize());
        Outcomes outcomes = new Outcomes(plan.location(), plan.kind(), plan.writeId(),
                plan.catalogCommit() == null ? null : spec.catalog().describe());
        if (!plan.bucketListed()) {
            // a listing of the table by the same client and options (the validation's) proves as much as a HeadBucket
            front(outcomes, At.BUCKET, () -> {
                store.checkBucket();
                return null;
            });
        }
        TableLease lease = !spec.lease() ? null : front(outcomes, At.LEASE, () -> TableLease.acquireCheckingBeside(store, plan.location(),
                plan.writeId(), spec.tuning().leaseTtl(), spec.leaseWait(), spec.tuning().clockOffset()));
        Transaction t = new Transaction(plan, store, lease, outcomes);
        try {
            t.start();
        } catch (RuntimeException | Error e) {
            t.ended = true;
            t.release(e instanceof Error);
            throw e;
        }
        return t;
    }

    /**
     * Recovers, then records the write. The fence that must precede the record is sent alongside the recovery's listings
     * and the lease's check of conditional requests, which it waits for (two round trips fewer): when the recovery finds nothing to do, nothing happened between that fence and the record
     * but reads, and the record is created on it; otherwise the record is fenced again after the recovery's changes.
     */
    private void start() {
        CompletableFuture<Boolean> fenced = lease == null ? null : besides.run(() -> {
            context.fence().run();
            return true;
        });
        recovered = run(At.RECOVER, () -> new Recovery(context, spec.catalog()).run());
        Runnable fence = context.fence();
        if (fenced != null && recovered.isEmpty()) {
            AtomicBoolean first = new AtomicBoolean(true);
            fence = () -> {
                if (first.getAndSet(false)) {
                    Outcomes.joined(fenced);
                } else {
                    context.fence().run();
                }
            };
        } else {
            Besides.awaitQuietly(fenced);
        }
        Runnable recordFence = fence;
        log = run(At.RECORD, () -> WriteLog.start(context.store(), location, recordFence, plan.started()));
        spec.hook().reached(Step.STARTED, 1);
        logTail = besides.run(() -> CommitLog.tail(context.store(), location));
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
            encoders = Pools.pool(Runtime.getRuntime().availableProcessors());
            TaskStager stager = TaskStager.inProcess(plan, context.store(), context.pool(), encoders);
            own = run(At.STAGE, () -> {
                try (BufferAllocator allocator = new RootAllocator()) {
                    return stager.stage(source, allocator, plan.prepass() == null ? null : plan.prepass().assigned());
                }
            });
            return own;
        } catch (RuntimeException | Error e) {
            ended = true;
            if (e instanceof Error) {
                release(true);
            } else {
                Besides.awaitQuietly(early);
            }
            throw e;
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
        TaskReports.Checked checked = run(At.CHECK, () -> reports.check(tasks));
        PartitionFolders registered = run(At.CHECK, () -> {
            List<MultipartUpload> strays = plan.deferred() ? reports.checkUploads(checked.files()) : null;
            if (strays == null) {
                reports.checkStaged(checked.files());
            }
            PartitionFolders folders = reports.registered(checked.keys());
            if (strays != null) {
                // The uploads of attempts that did not count (failed, or lost to another attempt of their task):
                // never part of this write, never completed by anyone; see package-info, "Distributed writes".
                Recovery.abortStray(context.store(), strays, checked.files());
            }
            return folders;
        });
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
            undo(Undo.ABANDON, cause);
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
        if (operation.nothingToDo(files)) {
            Besides.awaitQuietly(early);
            undo(Undo.ABANDON, null);
            return Writes.empty(plan, recovered).withMark(lastMark());
        }
        Planner.checkNotAllNull(spec, table, keys, () -> {
            Besides.awaitQuietly(early);
            undo(Undo.ABANDON, null);
        });
        Manifest manifest = plan.manifest(keys, files, folders, false);
        Operation.Env env = new Operation.Env(plan, context, this::listOld);
        run(At.CHECK, () -> {
            operation.check(manifest);
            return null;
        });
        Operation.Replacing listed = new Operation.Replacing(manifest, run(At.LIST, () -> operation.oldFiles(manifest, env)));
        Operation.Replacing before = listed;
        listed = run(At.REWRITE, () -> operation.stageMore(before, env));
        Publisher.Listing listing = listed.listing();
        if (!listing.nested().isEmpty()) {
            undo(Undo.ABANDON, null);
            throw Outcomes.nested(table, location.uriOf(listing.nested().get(0)));
        }
        Manifest committed = listed.manifest().replacing(listing.old());
        run(At.COMMIT, () -> {
            log.commit(committed);
            return null;
        });
        spec.hook().reached(Step.MANIFEST_WRITTEN, 1);
        Publisher.Outcome outcome = publish(listing);
        spec.hook().reached(Step.BEFORE_CATALOG, 1);
        if (plan.catalogCommit() != null) {
            run(At.CATALOG, () -> {
                CatalogStep.Change change = operation.catalogChange(log.manifest(), env);
                plan.catalogCommit().commit(change.register(), context.fence());
                if (!change.unregister().isEmpty()) {
                    plan.catalogCommit().unregister(change.unregister(), context.fence());
                }
                return null;
            });
        }
        spec.hook().reached(Step.BEFORE_CLEANUP, 1);
        spec.hook().reached(Step.STAGING_REMOVED, 1);
        run(At.END, () -> {
            awaitLogEntry();
            endReleasing();
            return null;
        });
        return Writes.result(plan, listed.manifest(), outcome, recovered).withMark(Outcomes.joined(logged));
    }

    /**
     * Sends the write's entry in the table's commit log (every operation passes here) on a thread of its own, beside the
     * deletes of the old files and of the staged copies: once every file is in place (past the last point where an
     * overwrite can still be undone, its deferred uploads gone), and before the manifest moves to PUBLISHED, so that no
     * committed write goes unlogged (a recovery that undoes a plain append instead retracts the entry). A reader of the
     * log acts on the entry only once the write has ended (its folder under {@code _tmp/} gone). See package-info, "The
     * commit log".
     */
    private void sendLogEntry() {
        WriteSpec.Replacement r = spec.replacement();
        boolean rowsChanged = r == null || !r.keepsRows();
        CommitLog.Entry entry = LogStep.entry(location, log.manifest(), LogStep.kind(plan.kind()), rowsChanged, placedETags);
        logged = besides.run(() -> {
            try {
                CommitLog.Tail tail = LogStep.warnIfDamaged(Outcomes.joined(logTail), table, plan.writeId());
                return LogStep.append(context.store(), location, tail, entry, context.fence());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /**
     * Sends the log entry unless it was sent, and waits for it. Without a catalog it was sent beside the publish step's
     * deletes; with one it is sent after the catalog step, as a plain append that fails there is undone, and its entry
     * would be left retracted in a table the catalog change may have been about (a drop meanwhile).
     */
    private void awaitLogEntry() throws IOException {
        if (logged == null) {
            sendLogEntry();
        }
        try {
            Outcomes.joined(logged);
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * The manifest's conditional delete (the write's end) and the lease's release, sent at once (but for a plain append,
     * which releases it once its end's outcome is decided): nothing after the end needs the lease, and a holder that
     * takes the lease the moment it is released and finds the manifest still there decides the write by the manifest's
     * compare-and-swap, as at any other step: see package-info, "Why the release goes out with the end".
     */
    private void endReleasing() {
        TableLease held = lease;
        if (held == null || (log.manifest().mode() == WriteMode.APPEND && !log.manifest().keyed())) {
            // A plain append's end is its commit point, and a refusal of it is told apart (ended by itself, its answer
            // lost, or claimed) by its files standing: a holder taking the lease at once could replace them in between.
            // It keeps the lease until that is decided (released when the write ends).
            log.end();
            return;
        }
        lease = null;
        CompletableFuture<Void> releasing = besides.run(() -> {
            held.close();
            return null;
        });
        try {
            log.end();
        } finally {
            Besides.awaitQuietly(releasing);
        }
    }

    /** The mark of the log's last entry as this write found it, or null when the lookup failed or never ran. */
    private CommitMark lastMark() {
        if (logTail == null) {
            return null;
        }
        try {
            CommitLog.Tail tail = Outcomes.joined(logTail);
            return CommitMark.of(tail.log(), tail.seq());
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The old files the write's mode replaces: the partitions listed early while an input known in advance staged, if
     * they are the partitions staged; else a listing now.
     */
    private Publisher.Listing listOld(Manifest manifest) {
        if (early != null && folders(plan.touched()).equals(folders(manifest))) {
            Publisher.Listing listing = Outcomes.joined(early);
            spec.hook().reached(Step.LISTED_OLD_FILES, 1);
            return listing;
        }
        Besides.awaitQuietly(early);
        return publisher.listOld(manifest);
    }

    private static Set<String> folders(Manifest m) {
        Set<String> out = new HashSet<>();
        m.partitions().forEach(p -> out.add(p.folder()));
        return out;
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
        Publisher.Outcome outcome = run(At.PUBLISH, () -> publisher.publish(log.manifest(), listing.old(), eTags -> {
            placedETags = eTags;
            removing.add(besides.run(() -> Staging.removeStaged(store, log.folder(), context.pool(), stagedKeys)));
            if (plan.catalogCommit() == null) {
                sendLogEntry();
            }
        }), () -> {
            removing.forEach(Besides::awaitQuietly);
            Besides.awaitQuietly(logged);
        });
        int partitions = log.manifest().partitions().size();
        spec.progress().partitionsPublished(partitions, partitions);
        run(At.PUBLISHED, () -> {
            if (removing.isEmpty()) {
                Staging.removeStaged(store, log.folder(), context.pool(), stagedKeys);
            } else {
                Outcomes.joined(removing.get(0));
            }
            if (plan.catalogCommit() == null) {
                // Without a catalog nothing comes between here and the end: PUBLISHED would only be overwritten by the
                // manifest's delete, so the write goes from COMMITTED to its end (package-info, "Why a write without a
                // catalog skips PUBLISHED").
                awaitLogEntry();
            } else {
                log.published();
            }
            return null;
        });
        return outcome;
    }

    // ---- the step runner: every failure of a step is decided by Outcomes ----

    /** A step's work: S3 requests, and reading the input (IOException). */
    @FunctionalInterface
    private interface Work<T> {
        T run() throws IOException;
    }

    private <T> T run(At at, Work<T> work) {
        return run(at, work, () -> { });
    }

    /**
     * The step runner: runs {@code work} as the step {@code at}. A failure is decided by {@link Outcomes#decide} from the
     * step, the state the write's manifest has reached, the write's kind and the cause; the undo the decision names is
     * done, and the decided exception thrown (none: the step is complete after all, {@code null} is returned). An Error (a
     * crash) passes untouched: after a crash nothing more is sent.
     *
     * @param onFailure what the step's own threads need before anything is decided (its background work awaited)
     */
    private <T> T run(At at, Work<T> work, Runnable onFailure) {
        try {
            return work.run();
        } catch (IOException | RuntimeException cause) {
            onFailure.run();
            Outcomes.Decision decision = outcomes.decide(at, log == null ? null : log.manifest().state(), cause);
            Undone undone = undo(decision.undo(), cause);
            RuntimeException thrown = decision.exception(undone.failure(), undone.passed());
            if (thrown != null) {
                throw thrown;
            }
            return null;
        }
    }

    /** The runner of the front steps, before the transaction exists: they have nothing to undo. */
    private static <T> T front(Outcomes outcomes, At at, Work<T> work) {
        try {
            return work.run();
        } catch (IOException | RuntimeException cause) {
            throw outcomes.decide(at, null, cause).exception();
        }
    }

    // ---- undoing: before the commit point, and past it a plain append's or a write whose uploads are gone ----

    /** How an undo went: its failure (null: none), and whether its check passed (the claim, the files standing). */
    private record Undone(RuntimeException failure, boolean passed) {
    }

    /**
     * Does an undo that a decision names. A failure of it is kept on {@code cause} (unless it was the claim of the write
     * that failed: then the table was taken over and the failure is the outcome's cause); a failed removal of this write's
     * own staging is left to recovery, and logged.
     */
    private Undone undo(Undo undo, Throwable cause) {
        try {
            return new Undone(null, switch (undo) {
                case NONE -> true;
                case ABANDON -> {
                    removeStaging();
                    log.end();
                    yield true;
                }
                case REMOVE_OWN -> {
                    removeStaging();
                    yield true;
                }
                case ROLL_BACK, ROLL_BACK_REGISTERED -> {
                    rollBack(undo == Undo.ROLL_BACK_REGISTERED, "the append's");
                    yield true;
                }
                case ROLL_BACK_FENCED -> {
                    context.fence().run();
                    rollBack(false, "the write's");
                    yield true;
                }
                case CHECK_FILES -> context.store().size(log.manifest().files().get(0).finalKey()).isPresent();
            });
        } catch (RuntimeException e) {
            boolean claimFailed = undo == Undo.ROLL_BACK_FENCED && log.manifest().state() != Manifest.State.ABORTING
                    && (e instanceof TableLease.Lost || e instanceof WriteLog.Superseded);
            if (cause != null && !claimFailed && undo != Undo.CHECK_FILES) {
                cause.addSuppressed(e);
            }
            if (undo == Undo.ABANDON || undo == Undo.REMOVE_OWN) {
                cleanupFailed(e);
            }
            return new Undone(e, !claimFailed);
        }
    }

    /**
     * A write's removal of its own staging: a write that lost the table before its commit point removes what it made
     * since the new holder recovered it (a writer that stalls after its record was rolled back stages on, and its deferred
     * uploads then carry an id that no manifest records any more, so no later recovery would abort them). Everything
     * removed here carries this write's id and none of it was committed.
     */
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
     * A write past publishing that is not to be finished undoes itself: a plain append that failed (nothing of it stays,
     * so rerunning it adds its rows once), or a write whose deferred uploads were aborted under it (no old file was
     * deleted yet). What cannot be undone now is undone by the next recovery (its manifest stays, ABORTING).
     *
     * @param registered whether its catalog step may have registered partitions (to unregister those now empty)
     */
    private void rollBack(boolean registered, String whose) {
        Besides.awaitQuietly(logged);
        boolean retract = logged != null && LogStep.retractable(log.manifest());
        log.aborting();
        Manifest m = log.manifest();
        if (retract) {
            try {
                LogStep.undone(context.store(), location, m, context.fence());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        if (!Publisher.unpublish(context.store(), m).isEmpty()) {
            throw S3Exception.builder().statusCode(200).message("S3 refused to delete some of " + whose + " files").build();
        }
        Staging.removeStaged(context.store(), log.folder());
        if (registered) {
            unregisterEmpty(plan.catalogCommit(), m);
        }
        log.end();
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
}
