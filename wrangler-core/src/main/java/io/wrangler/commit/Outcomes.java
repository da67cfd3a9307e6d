package io.wrangler.commit;

import io.wrangler.CatalogException;
import io.wrangler.CommitConflictException;
import io.wrangler.CommitStateUnknownException;
import io.wrangler.InvalidWriteException;
import io.wrangler.StorageException;
import io.wrangler.WranglerException;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteStep;
import io.wrangler.layout.Manifest;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.Removed;
import io.wrangler.storage.Replaced;
import io.wrangler.storage.S3Location;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Outcomes decides what a write's failure becomes: its exception type and message, and what the write undoes first,
 * from the step it failed in ({@link At}), the state its manifest had reached, the write's kind and the cause
 * ({@link Cause}). It is the one place the state table and the failure table of package-info.java are turned into
 * exceptions, and the only class of this package that constructs a public exception: the {@link Transaction} runs each
 * step through one runner that asks {@link #decide} and does the undo the decision names; every other class of the
 * package asks one of the factories below. OutcomesTableTest reads both tables and checks every cell against this class.
 */
final class Outcomes {
    private final String table;
    private final WriteKind kind;
    private final S3Location location;
    private final String writeId;
    private final String catalog;

    /** The outcomes of a check or a step outside a transaction (a task's staging, a plan). */
    Outcomes(String table, WriteKind kind) {
        this.table = table;
        this.kind = kind;
        this.location = null;
        this.writeId = null;
        this.catalog = null;
    }

    /**
     * The outcomes of one transaction.
     *
     * @param writeId the write's id (named in the messages of its record, its checks and its manifest)
     * @param catalog how the write's catalog describes itself, or null without one
     */
    Outcomes(S3Location location, WriteKind kind, String writeId, String catalog) {
        this.table = location.uri();
        this.kind = kind;
        this.location = location;
        this.writeId = writeId;
        this.catalog = catalog;
    }

    // ---- the decision: (step, state reached, kind, cause) -> the exception and the undo ----

    /** The steps of a transaction a failure can stop, in order, with the public step each reports. */
    enum At {
        /** The HeadBucket of the validate step. */
        BUCKET(WriteStep.VALIDATE),
        /** Taking the table's lease. */
        LEASE(WriteStep.LEASE),
        /** The recovery of the table's interrupted writes. */
        RECOVER(WriteStep.RECOVER),
        /** The write's record: its manifest created STARTED. */
        RECORD(WriteStep.STAGE),
        /** Staging in this process. */
        STAGE(WriteStep.STAGE),
        /** The checks of the files the tasks reported (and the stray deferred uploads' aborts). */
        CHECK(WriteStep.COMMIT),
        /** The listing of the old files the write replaces. */
        LIST(WriteStep.PUBLISH),
        /** A keyed rerun's rewrite of the marked files that hold its key's rows. */
        REWRITE(WriteStep.STAGE),
        /** The manifest's compare-and-swap to COMMITTED. */
        COMMIT(WriteStep.COMMIT),
        /** The copies or completions to the final keys, and the deletes of the old files. */
        PUBLISH(WriteStep.PUBLISH),
        /** The staged copies' removal and the manifest's compare-and-swap to PUBLISHED. */
        PUBLISHED(WriteStep.PUBLISH),
        /** The catalog step. */
        CATALOG(WriteStep.CATALOG),
        /** The manifest's conditional delete: the write's end. */
        END(WriteStep.CLEANUP);

        final WriteStep step;

        At(WriteStep step) {
            this.step = step;
        }
    }

    /** What a failure was, as the decision tells causes apart. */
    enum Cause {
        /** The lease was taken over ({@link TableLease.Lost}). */
        LEASE_LOST,
        /** Another actor changed or ended the write's manifest ({@link WriteLog.Superseded}). */
        SUPERSEDED,
        /** S3 failed on the commit point's compare-and-swap and the manifest cannot be read back ({@link WriteLog.Unknown}). */
        ANSWER_LOST,
        /** Deferred uploads were aborted under the write ({@link Publisher.UploadsLost}). */
        UPLOADS_LOST,
        /** An S3 or SDK failure ({@link SdkException}). */
        STORAGE,
        /** A failure already given its outcome ({@link WranglerException}: a refusal, a decided step of its own). */
        DECIDED,
        /** Bad input met while reading it ({@link IOException}, {@link IllegalArgumentException}). */
        INPUT,
        /** Anything else (a bug, an unexpected exception). */
        OTHER;

        static Cause of(Throwable t) {
            if (t instanceof TableLease.Lost) {
                return LEASE_LOST;
            }
            if (t instanceof WriteLog.Superseded) {
                return SUPERSEDED;
            }
            if (t instanceof WriteLog.Unknown) {
                return ANSWER_LOST;
            }
            if (t instanceof Publisher.UploadsLost) {
                return UPLOADS_LOST;
            }
            if (t instanceof SdkException) {
                return STORAGE;
            }
            if (t instanceof WranglerException) {
                return DECIDED;
            }
            return t instanceof IOException || t instanceof IllegalArgumentException ? INPUT : OTHER;
        }
    }

    /** What the transaction undoes before it throws the decided exception. */
    enum Undo {
        /** Nothing: what the write left is the holder's, or recovery's, or there is nothing. */
        NONE,
        /** Before the commit point: its staging and its record are removed (failures left to recovery). */
        ABANDON,
        /** Lost before the commit point: its staging is removed; the record is left to whoever holds the table. */
        REMOVE_OWN,
        /** A plain append past publishing rolls itself back: ABORTING, its files deleted, its staging removed, ended. */
        ROLL_BACK,
        /** As {@link #ROLL_BACK}, and the partitions its catalog step registered that are now empty are unregistered. */
        ROLL_BACK_REGISTERED,
        /** Deferred uploads are gone: after a fence and the claim (ABORTING) the write rolls itself back. */
        ROLL_BACK_FENCED,
        /** The end was superseded: the write is complete if its files stand (a plain append), else lost. */
        CHECK_FILES
    }

    /**
     * A decision: the undo to do, then the exception to throw, given the undo's failure (null when it succeeded or there
     * was none) and whether the undo's check passed (for {@link Undo#ROLL_BACK_FENCED} its fence and claim, for
     * {@link Undo#CHECK_FILES} the write's files standing). A null exception: no failure (the write is complete).
     */
    record Decision(Undo undo, Outcome outcome) {
        RuntimeException exception(RuntimeException undoFailed, boolean passed) {
            return outcome.of(undoFailed, passed);
        }

        /** The exception when the undo succeeded. */
        RuntimeException exception() {
            return outcome.of(null, true);
        }
    }

    /** The exception of a decision, from how its undo went. */
    interface Outcome {
        RuntimeException of(RuntimeException undoFailed, boolean passed);
    }

    private static Decision just(RuntimeException e) {
        return new Decision(Undo.NONE, (f, c) -> e);
    }

    private static Decision then(Undo undo, RuntimeException e) {
        return new Decision(undo, (f, c) -> e);
    }

    private static RuntimeException asRaised(Throwable t) {
        if (t instanceof Error err) {
            throw err;
        }
        return t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }

    /**
     * The decision for a failure {@code cause} in step {@code at}, with the write's manifest in {@code reached} (null:
     * none yet). This is the failure table of package-info.java; the kind decides only past the commit point of every kind
     * but a plain append (the manifest's COMMITTED), where a plain append undoes itself and the others are finished.
     */
    Decision decide(At at, Manifest.State reached, Throwable cause) {
        Cause why = Cause.of(cause);
        Manifest.State state = reached == null ? Manifest.State.STARTED : reached;
        boolean lost = why == Cause.LEASE_LOST || why == Cause.SUPERSEDED;
        boolean committed = kind.committedAtManifest();
        return switch (at) {
            case BUCKET, LEASE -> just(why == Cause.STORAGE ? front(at, (SdkException) cause) : asRaised(cause));
            case RECOVER -> just(why == Cause.LEASE_LOST ? recoverLost((TableLease.Lost) cause) : asRaised(cause));
            case RECORD -> just(lost ? lost(state, at.step, (RuntimeException) cause)
                    : why == Cause.STORAGE ? recordFailed(writeId, (SdkException) cause) : asRaised(cause));
            case STAGE -> then(Undo.ABANDON, lost ? lost(state, at.step, (RuntimeException) cause) : staging(cause, true));
            case CHECK -> then(Undo.ABANDON, lost ? lost(state, at.step, (RuntimeException) cause)
                    : why == Cause.STORAGE ? checkFailed("check the deferred uploads of the write " + writeId, (SdkException) cause)
                    : asRaised(cause));
            case LIST -> then(Undo.ABANDON, lost ? lost(state, at.step, (RuntimeException) cause)
                    : why == Cause.STORAGE ? earlyListingFailed((SdkException) cause) : asRaised(cause));
            case REWRITE -> then(Undo.ABANDON, lost ? lost(state, at.step, (RuntimeException) cause) : keyedRewrite(cause));
            case COMMIT -> lost ? then(Undo.REMOVE_OWN, lost(state, at.step, (RuntimeException) cause))
                    : why == Cause.ANSWER_LOST ? just(manifestUnknown((WriteLog.Unknown) cause))
                    : why == Cause.STORAGE ? then(Undo.ABANDON, manifestFailed((SdkException) cause))
                    : just(asRaised(cause));
            case PUBLISH -> lost ? just(lost(state, at.step, (RuntimeException) cause))
                    : why == Cause.UPLOADS_LOST ? uploadsGone(state, (Publisher.UploadsLost) cause)
                    : committed ? just(publishIncomplete(cause)) : rollBack(Undo.ROLL_BACK, at.step, cause);
            case PUBLISHED -> lost ? just(lost(state, at.step, (RuntimeException) cause))
                    : why != Cause.STORAGE ? just(asRaised(cause))
                    : committed ? just(recordIncomplete(at.step, (SdkException) cause)) : rollBack(Undo.ROLL_BACK, at.step, cause);
            case CATALOG -> lost ? just(lost(state, at.step, (RuntimeException) cause))
                    : committed ? just(catalogIncomplete(catalog, cause)) : rollBack(Undo.ROLL_BACK_REGISTERED, at.step, cause);
            case END -> why == Cause.LEASE_LOST ? just(lost(state, at.step, (RuntimeException) cause))
                    : why == Cause.SUPERSEDED ? (committed ? just(null) // the holder that took over finished it
                            : new Decision(Undo.CHECK_FILES, (f, standing) -> f instanceof SdkException s ? endUnknown(s)
                                    // a recovery claimed the append first (changed), or ended it: its files tell which
                                    : f == null && standing && !cause.getMessage().contains("changed") ? null
                                    : lost(state, at.step, (RuntimeException) cause)))
                    : why != Cause.STORAGE ? just(asRaised(cause))
                    : committed ? just(endIncomplete((SdkException) cause)) : just(endUnknown((SdkException) cause));
        };
    }

    private RuntimeException front(At at, SdkException e) {
        return at == At.BUCKET ? bucketFailed(table, location.bucket(), e) : leaseFailed(table, location.tmpPrefix(), e);
    }

    /** A plain append that failed past publishing undoes itself: undone, or (the undo failed) undone by the next holder. */
    private Decision rollBack(Undo undo, WriteStep step, Throwable cause) {
        return new Decision(undo, (f, c) -> f == null ? undone(step, cause) : undoFailed(step, cause, f));
    }

    /**
     * Deferred uploads were aborted under the write: it is undone (no old file was deleted yet), after its fence and its
     * claim; one of those failing says the table was taken over (the holder decides the write's fate).
     */
    private Decision uploadsGone(Manifest.State state, Publisher.UploadsLost gone) {
        return new Decision(Undo.ROLL_BACK_FENCED, (f, claimed) -> {
            if (!claimed && (f instanceof TableLease.Lost || f instanceof WriteLog.Superseded)) {
                f.addSuppressed(gone);
                return lost(state, WriteStep.PUBLISH, f);
            }
            return f == null ? uploadsLost(gone) : uploadsLostUndoFailed(gone, f);
        });
    }

    /** The write refused in the validate step: nothing was written. */
    static InvalidWriteException invalid(String table, String what, String todo) {
        return new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot write " + table + " (step: validate): " + what + ". " + todo);
    }

    InvalidWriteException invalid(String what, String todo) {
        return invalid(table, what, todo);
    }

    static InvalidWriteException emptyOverwrite(String table) {
        return invalid(table, "the input has no rows, and OVERWRITE with no rows would delete the whole table",
                "If the table should really be emptied, delete its objects explicitly; otherwise check the job's input.");
    }

    /** Another table's staging lies inside this one ({@code nested}, its first key found): the write would replace its files. */
    static InvalidWriteException nested(String table, String nested) {
        return invalid(table, "another table lies inside this one: " + nested + " is the staging of a write to a table under " + table
                + ", and tables must not nest (this write would replace that table's files)",
                "Give each table a prefix of its own. Nothing of either table was changed.");
    }

    /** The bucket could not be reached, or does not exist, before anything was written. */
    static RuntimeException bucketFailed(String table, String bucket, SdkException e) {
        if (e instanceof NoSuchBucketException || e instanceof S3Exception s && s.statusCode() == 404) {
            return invalid(table, "the bucket '" + bucket + "' does not exist", "Create it, or fix the URI.");
        }
        if (e instanceof S3Exception) {
            return storage(table, WriteStep.VALIDATE, "reach the bucket", e,
                    "Check the credentials and the bucket policy (s3:ListBucket); nothing was written.");
        }
        return storage(table, WriteStep.VALIDATE, "reach the bucket", e,
                "Check the endpoint, region and credentials; nothing was written.");
    }

    static StorageException leaseFailed(String table, String tmpPrefix, SdkException e) {
        return storage(table, WriteStep.LEASE, "take the table lease", e, "Nothing was written; check the "
                + "permissions (s3:PutObject, s3:GetObject, s3:DeleteObject on " + tmpPrefix + ") and rerun.");
    }

    StorageException recordFailed(String writeId, SdkException e) {
        return storage(table, WriteStep.STAGE, "record the write " + writeId, e, "Nothing was written; rerun the write.");
    }

    /** A check of what the tasks reported failed on S3, before the commit point. */
    StorageException checkFailed(String doing, SdkException e) {
        return storage(table, WriteStep.COMMIT, doing, e, "Nothing of the table was changed; rerun the write.");
    }

    StorageException earlyListingFailed(SdkException e) {
        return storage(table, WriteStep.PUBLISH, "list the old files", e,
                "Nothing of the table has changed yet; rerun the write.");
    }

    /** A task message that this write's tasks did not produce: refused before the commit point, nothing applied. */
    InvalidWriteException unstaged(String what) {
        return new InvalidWriteException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): " + what + ". Nothing "
                + "of the table was changed. The messages given to commit must be exactly those stageTask returned for this write's "
                + "committed task attempts; rerun the write.");
    }

    /** A file a task attempt reported is not in place (gone, or of another size) before the commit point. */
    InvalidWriteException stagedGone(String what) {
        return new InvalidWriteException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): the " + what
                + ". Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
    }

    /** A deferred upload a task attempt reported is no longer open, before the commit point. */
    InvalidWriteException uploadGone(String finalKey) {
        return new InvalidWriteException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): the "
                + "multipart upload of " + finalKey + " that a task attempt reported is no longer open (aborted by "
                + "hand or by a lifecycle rule AbortIncompleteMultipartUpload). Nothing of the table was changed; this "
                + "write's uploads were aborted. Rerun the write.");
    }

    /**
     * A failure of the stage step, before the commit point: by this write's process ({@code inProcess}: its staging was
     * removed) or by one task of a distributed write (the write's end removes what its tasks staged).
     */
    RuntimeException staging(Throwable e, boolean inProcess) {
        String removed = inProcess ? "Nothing of the table was changed; this write's staged files were removed."
                : "Nothing of the table was changed; the write removes what its tasks staged.";
        if (e instanceof InvalidWriteException i) {
            return i;
        }
        if (e instanceof IllegalArgumentException) {
            return new InvalidWriteException(table, WriteStep.STAGE, "Cannot write " + table + " (step: stage): " + e.getMessage()
                    + ". " + removed, e);
        }
        return rethrow(e, table, WriteStep.STAGE, inProcess ? "stage the data files" : "stage the data files of a task",
                removed + " Rerun the write.");
    }

    /** A keyed rerun's rewrite of the marked files holding its key's rows failed, before the commit point. */
    RuntimeException keyedRewrite(Throwable e) {
        if (Removed.by(e)) {
            return removedMeanwhile(table, WriteStep.STAGE, "rewrite the files that hold rows of this key", e,
                    "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
        }
        if (e instanceof IOException) {
            return new InvalidWriteException(table, WriteStep.STAGE, "Cannot write " + table + " (step: stage): this keyed rerun "
                    + "removes its key's rows from the files that record their rows' keys, but " + e.getMessage() + ". Nothing of "
                    + "the table was changed; this write's staged files were removed. If another tool wrote that file, rename it "
                    + "(a wrangler write id followed by _k names a file with key runs), then rerun.", e);
        }
        return rethrow(e, table, WriteStep.STAGE, "rewrite the files that hold rows of this key",
                "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
    }

    /**
     * A file the write (or its plan) listed was gone when it read it ({@link Removed}): another write replaced it since.
     * A conflict whatever the phase (nothing was changed), as it is for a compaction and, in a read's words, for a read.
     */
    static CommitConflictException removedMeanwhile(String table, WriteStep step, String doing, Throwable e, String whatToDo) {
        Replaced replaced = Replaced.in(e);
        if (replaced != null) {
            return new CommitConflictException(table, step, "Cannot " + doing + " for " + table + " (step: " + step.label() + "): the file "
                    + replaced.changedSinceListed() + ". " + whatToDo, e);
        }
        return new CommitConflictException(table, step, "Cannot " + doing + " for " + table + " (step: " + step.label() + "): a file "
                + "listed moments before was removed by another write before it could be read (" + e.getMessage() + "). " + whatToDo, e);
    }

    CommitConflictException recoverLost(TableLease.Lost e) {
        return new CommitConflictException(table, WriteStep.RECOVER, "Cannot write " + table + " (step: recover): " + e.getMessage()
                + " while this write recovered the table's interrupted writes. Nothing of this write was written; rerunning "
                + "it is safe.", e);
    }

    /** What the holder that took the table over does with a write whose manifest it finds in a state (column S). */
    enum Fate {
        /** Before the commit point: it removes what the write staged; nothing was applied. */
        NOT_COMMITTED,
        /** Past the commit point of an overwrite or keyed append: it finishes the write, never undoes it. */
        FINISHED_BY_HOLDER,
        /** A plain append (before its commit point, its end) or a write being rolled back: it undoes the write. */
        UNDONE_BY_HOLDER
    }

    /** The state table's rule for a writer that lost the lease ({@code S}) with its manifest in {@code state}. */
    static Fate fate(Manifest.State state, WriteKind kind) {
        return switch (state) {
            case STARTED -> Fate.NOT_COMMITTED;
            case ABORTING -> Fate.UNDONE_BY_HOLDER;
            case COMMITTED, PUBLISHED -> kind.committedAtManifest() ? Fate.FINISHED_BY_HOLDER : Fate.UNDONE_BY_HOLDER;
        };
    }

    /**
     * The lease was lost or the manifest superseded at {@code step}, with the write's manifest in {@code state}: the
     * exception of its {@link #fate}.
     */
    RuntimeException lost(Manifest.State state, WriteStep step, RuntimeException e) {
        return switch (fate(state, kind)) {
            case NOT_COMMITTED -> lostBeforeCommit(step, e);
            case FINISHED_BY_HOLDER -> new WriteIncompleteException(table, step, step, "Cannot finish the write to " + table
                    + " (step: " + step + "): " + e.getMessage() + ". The write is committed: the holder that took the table over "
                    + "finishes it (it never undoes it). Do not clean up by hand.", e);
            case UNDONE_BY_HOLDER -> new CommitConflictException(table, step, "Cannot finish the append to " + table + " (step: "
                    + step + "): " + e.getMessage() + ". The holder that took the table over undoes this append (its files are "
                    + "deleted); rerunning it is safe and adds its rows once.", e);
        };
    }

    /** The lease was lost or the manifest superseded before the commit point: whoever holds the table removes the rest. */
    private CommitConflictException lostBeforeCommit(WriteStep step, RuntimeException e) {
        return new CommitConflictException(table, step, "Cannot write " + table + " (step: " + step + "): " + e.getMessage()
                + ". This write stopped before its commit point; whoever holds the table now removes what it staged. Rerunning "
                + "it is safe.", e);
    }

    CommitStateUnknownException manifestUnknown(WriteLog.Unknown e) {
        String manifestUri = location.uriOf(WriteLog.folder(location, writeId) + Manifest.FILE_NAME);
        return new CommitStateUnknownException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): S3 "
                + "failed while the manifest " + manifestUri + " was moved to "
                + "COMMITTED (" + e.getMessage() + "), and it cannot be read back, so whether the write is committed is not "
                + "known. Nothing was cleaned up. Run S3Parquet.recover (it finishes or undoes the write), then look at the "
                + "table before rerunning.", e.getCause());
    }

    StorageException manifestFailed(SdkException e) {
        return storage(table, WriteStep.COMMIT, "write the manifest", e,
                "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
    }

    /** Publishing failed after the manifest's commit point: the write is committed, to be finished. */
    RuntimeException publishIncomplete(Throwable e) {
        return incompleteOrRethrow(e, table, WriteStep.PUBLISH, "publish the staged files", "The write is committed; "
                + "rerun it, or run S3Parquet.recover, to finish publishing.");
    }

    WriteIncompleteException recordIncomplete(WriteStep at, SdkException e) {
        return incomplete(table, at, "record the write published", e,
                "The write is committed and its files are in place; rerun it or run S3Parquet.recover to finish it.");
    }

    WriteIncompleteException catalogIncomplete(String catalog, Throwable e) {
        return new WriteIncompleteException(table, WriteStep.CATALOG, WriteStep.CATALOG, "Cannot register the write in "
                + catalog + " for " + table + " (step: catalog): " + e.getMessage() + ". The data is "
                + "committed and published; S3Parquet.recover(uri, s3, catalog), or the next write to the table with this "
                + "catalog, registers the table as it is then. Rerunning the write is safe too.", e);
    }

    WriteIncompleteException endIncomplete(SdkException e) {
        return incomplete(table, WriteStep.CLEANUP, "end the write", e, "The write is complete and visible; the "
                + "next write or S3Parquet.recover removes its leftover manifest.");
    }

    CommitStateUnknownException endUnknown(SdkException e) {
        return new CommitStateUnknownException(table, WriteStep.CLEANUP, "Cannot end the append to " + table + " (step: "
                + "cleanup): S3 failed (" + e.getMessage() + ") on the request that commits it, so whether it took effect "
                + "is unknown. Run S3Parquet.recover, then check the table before rerunning.", e);
    }

    /** A plain append that failed after publishing could not undo itself: the next holder does. */
    CommitConflictException undoFailed(WriteStep step, Throwable cause, RuntimeException e) {
        return new CommitConflictException(table, step, "Cannot append to " + table + " (step: " + step + "): " + why(cause)
                + ". The append was not applied, but undoing it failed too (" + e.getMessage() + "): the next write to the table "
                + "or S3Parquet.recover finishes undoing it. Rerunning it is safe and adds its rows once.", cause);
    }

    /** A plain append that failed after publishing and undid itself: the table is as before. */
    RuntimeException undone(WriteStep step, Throwable cause) {
        String why = why(cause);
        if (cause instanceof CatalogException c) {
            return new CatalogException(table, step, "Cannot append to " + table + " (step: " + step + "): " + why + " The append "
                    + "was undone: its files were deleted and the table is as before. Fix the catalog and rerun.", c);
        }
        if (cause instanceof SdkException sdk) {
            return storage(table, step, "append", sdk, "The append was undone: its files were deleted and the table is "
                    + "as before. Rerun it.");
        }
        return new StorageException(table, step, "Cannot append to " + table + " (step: " + step + "): " + why + ". The append "
                + "was undone: its files were deleted and the table is as before. Rerun it.", null, 0, cause);
    }

    private static String why(Throwable cause) {
        return cause instanceof WranglerException w ? w.getMessage() : String.valueOf(cause.getMessage());
    }

    /** Deferred uploads were aborted under the write and undoing it failed. */
    CommitConflictException uploadsLostUndoFailed(Publisher.UploadsLost lost, RuntimeException e) {
        return new CommitConflictException(table, WriteStep.PUBLISH, "Cannot publish " + table + " (step: publish): "
                + lost.keys.size() + " of the write's deferred multipart uploads were aborted before they could be completed, "
                + "and undoing the write failed too (" + e.getMessage() + "). Rows of this write may be visible next to the old "
                + "ones until the next write or S3Parquet.recover undoes it; rerunning it is safe.", lost);
    }

    /** Deferred uploads were aborted under the write, which was undone. */
    StorageException uploadsLost(Publisher.UploadsLost lost) {
        return new StorageException(table, WriteStep.PUBLISH, "Cannot publish " + table + " (step: publish): "
                + lost.keys.size() + " of the write's deferred multipart uploads were aborted before they could be completed (first: "
                + lost.keys.get(0) + "), most likely by a bucket lifecycle rule AbortIncompleteMultipartUpload shorter than the "
                + "write. The write was undone and the table is unchanged. Rerun it; lengthen the rule, or use "
                + "CommitMethod.STAGE_AND_COPY.", null, 404, lost);
    }

    // ---- the outcomes of the package's other classes: validate, lease, recover, publish ----

    /** A plan of a stream: it could be read only once. */
    static InvalidWriteException streamNotPlanned(String table) {
        return new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot plan " + table + " (step: validate): the input is "
                + "a stream (S3Parquet.write(ArrowReader)), which can be read only once: its partitions, and the files the "
                + "write would replace, are known only by reading it, and the write would then have nothing left to read. "
                + "Load the stream into a VectorSchemaRoot (or records), then plan and write that; nothing was read or "
                + "written.");
    }

    /** Another writer held the lease past the wait. */
    static CommitConflictException leaseHeld(String table, String owner, String renewed, java.time.Duration ttl) {
        return new CommitConflictException(table, WriteStep.LEASE, "Cannot write " + table + " (step: lease): another "
                + "writer holds the table (" + owner + ", renewed " + renewed + "). Nothing was written; rerunning is safe once it "
                + "has finished, or after its lease expires (" + ttl.toSeconds() + " s after its last renewal) if it crashed.", null);
    }

    /** The endpoint accepted a request that should have failed its condition: it cannot keep writers apart. */
    static StorageException unconditionalEndpoint(String table, String what, String key) {
        return new StorageException(table, WriteStep.LEASE, "Cannot write " + table + " (step: lease): the S3 endpoint accepted "
                + what + " of " + key + ", so it does not enforce conditional requests and a table lease "
                + "cannot keep two writers apart. Use an endpoint that enforces them (AWS S3 does), or turn the lease off with "
                + "lease(false) and make sure yourself that only one writer runs per table.", null, 200, null);
    }

    static CommitConflictException leaseWaitInterrupted(String table, InterruptedException e) {
        return new CommitConflictException(table, WriteStep.LEASE, "Cannot write " + table + " (step: lease): interrupted while "
                + "waiting for another writer's lease. Nothing was written; rerunning is safe.", e);
    }

    /** S3 failed while a recovery ran; {@code orRerun} names the other way to run it again, if any. */
    static CommitStateUnknownException recoveryFailed(String table, SdkException e, String orRerun) {
        return new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot recover " + table + " (step: recover): S3 "
                + "failed: " + e.getMessage() + ". Recovery is idempotent: fix the cause and run it again" + orRerun + ".", e);
    }

    /** S3Parquet.recover could not take the lease. */
    static CommitStateUnknownException recoveryLeaseFailed(String table, SdkException e) {
        return new CommitStateUnknownException(table, WriteStep.LEASE, "Cannot recover " + table + " (step: lease): S3 failed: "
                + e.getMessage() + ". Nothing was touched; fix the cause and run S3Parquet.recover again.", e);
    }

    /** S3Parquet.recover lost the lease while it ran. */
    static CommitConflictException recoveryLost(String table, TableLease.Lost e) {
        return new CommitConflictException(table, WriteStep.RECOVER, "Cannot recover " + table + " (step: recover): "
                + e.getMessage() + " while recovery ran. What it resolved stays resolved; the holder that took over "
                + "recovers the rest. Run S3Parquet.recover again once it has finished.", e);
    }

    static CommitStateUnknownException manifestKeepsChanging(String table, String writeId) {
        return new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot recover " + table
                + " (step: recover): the manifest of write " + writeId + " keeps changing under recovery, so another process is "
                + "still acting on it without the table lease. Stop it, then run S3Parquet.recover again.", null);
    }

    static CommitStateUnknownException rollBackRefused(String table, String writeId) {
        return new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot roll back the interrupted write "
                + writeId + " of " + table + " (step: recover): S3 refused to delete some of its files. "
                + "Fix the permission and run S3Parquet.recover again.", null);
    }

    /** A committed write to roll forward replaces files in partitions that hold another table's staging. */
    static CommitStateUnknownException nestedUnderCommitted(String table, String writeId, String nested) {
        return new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot recover " + table + " (step: "
                + "recover): the committed write " + writeId + " replaces files in partitions that now hold "
                + nested + ", the staging of a write to another table inside this one. "
                + "Tables must not nest: nothing was touched. Finish or recover that table first, move it out of this table's "
                + "prefix, then run S3Parquet.recover again.", null);
    }

    static CommitStateUnknownException manifestUnreadable(String table, String manifest, IOException e) {
        return new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot recover " + table
                + " (step: recover): the manifest " + manifest + " cannot be read (" + e.getMessage() + "). Nothing "
                + "was touched. Do not delete it: inspect it, and upgrade wrangler if it was written by a newer version.", e);
    }

    /** A manifest that is not this table's ({@code foreign} says why), in {@code folder}. */
    static CommitStateUnknownException manifestForeign(String table, String manifest, String foreign, String folder) {
        return new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot recover " + table
                + " (step: recover): the manifest " + manifest + " does not belong to this table: " + foreign
                + ". Nothing was touched. No recovery, write or read acts on a manifest that names anything outside its own "
                + "write and table. If the table was copied with the _tmp/ folder of the table it names (copy tables without "
                + "_tmp/), recover that table first if it is still interrupted there; otherwise something other than wrangler "
                + "wrote it. Then delete " + folder + " from this table by hand.", null);
    }

    /** S3 refused some deletes of replaced files, past the commit point. */
    static WriteIncompleteException deletesRefused(String table, int refused, software.amazon.awssdk.services.s3.model.S3Error first) {
        return new WriteIncompleteException(table, WriteStep.PUBLISH, WriteStep.PUBLISH, "Cannot delete " + refused
                + " replaced files of " + table + " (step: publish): S3 refused " + first.key() + " with " + first.code()
                + " (" + first.message() + "). The write is committed and its new files are in place, but these old ones "
                + "remain, so rows may be doubled: fix the permission or lock and rerun the write, or run "
                + "S3Parquet.recover, which finishes the deletes.", null);
    }

    /** A staged file is gone and its final key does not hold it, past the commit point. */
    static CommitStateUnknownException stagedFileGone(Manifest m, StagedFile f, S3Exception e) {
        return new CommitStateUnknownException(m.table(), WriteStep.PUBLISH, "Cannot publish write " + m.writeId()
                + " to " + m.table() + " (step: publish): its staged file " + f.stagedKey() + " is gone and its final key "
                + f.finalKey() + " does not hold it. Something other than wrangler removed staging files; check the table "
                + "and rerun the write from its source.", e);
    }

    // ---- S3 failures: before the commit point nothing changed (StorageException), after it the write is to be finished ----

    private static String found(SdkException e) {
        if (e instanceof AwsServiceException a) {
            String code = a.awsErrorDetails() == null ? null : a.awsErrorDetails().errorCode();
            return (code == null ? "HTTP " + a.statusCode() : code + " (HTTP " + a.statusCode() + ")")
                    + (a.requestId() == null ? "" : ", request id " + a.requestId());
        }
        return e.getMessage();
    }

    static StorageException storage(String table, WriteStep step, String doing, SdkException e, String whatToDo) {
        String requestId = e instanceof AwsServiceException a ? a.requestId() : null;
        int status = e instanceof AwsServiceException a ? a.statusCode() : 0;
        return new StorageException(table, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): S3 answered " + found(e) + ". " + whatToDo, requestId, status, e);
    }

    /** An S3 failure after the commit point: the write is committed and {@code step} is what remains. */
    static WriteIncompleteException incomplete(String table, WriteStep step, String doing, SdkException e, String whatToDo) {
        return new WriteIncompleteException(table, step, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): S3 answered " + found(e) + ". " + whatToDo, e);
    }

    // ---- catalog-only operations (register, repair, drop table): lease, recover, change, release; no manifest ----

    /**
     * A catalog-only operation ({@link CatalogOnly}) failed in {@code step}. Before its first change ({@code changed}
     * false) nothing was changed: a lost lease is a {@link CommitConflictException}, S3 a {@link StorageException}, the
     * catalog a {@link CatalogException}, all safe to rerun. After it, the operation is partly done and, being idempotent,
     * finished by running it again: a {@link WriteIncompleteException} whose remaining step is {@code step}.
     *
     * @param verb what the operation does to the table, for the message ("register", "repair the catalog of", "drop")
     * @param rerun the call that finishes or retries it
     */
    static WranglerException catalogOpFailed(String table, String verb, WriteStep step, Throwable cause, boolean changed, String rerun) {
        String what = cause instanceof SdkException s ? "S3 answered " + found(s) : stripDot(cause.getMessage());
        String head = "Cannot " + verb + " " + table + " (step: " + step.label() + "): " + what + ". ";
        if (changed) {
            return new WriteIncompleteException(table, step, step, head + "Part of it was done: run " + rerun + " again (it is idempotent) to "
                    + "finish it.", cause);
        }
        if (cause instanceof TableLease.Lost) {
            return new CommitConflictException(table, step, head + "Nothing was changed; run " + rerun + " again once the other holder "
                    + "has finished.", cause);
        }
        if (cause instanceof SdkException s) {
            String requestId = s instanceof AwsServiceException a ? a.requestId() : null;
            int status = s instanceof AwsServiceException a ? a.statusCode() : 0;
            return new StorageException(table, step, head + "Nothing was changed; fix the cause and run " + rerun + " again.", requestId,
                    status, s);
        }
        return new CatalogException(table, step, head + "Nothing was changed; fix the cause and run " + rerun + " again.", cause);
    }

    /** A write's lease refusal ({@link #leaseHeld} and the like), worded for a catalog-only operation. */
    static CommitConflictException catalogOpLeaseHeld(String verb, CommitConflictException e) {
        String m = e.getMessage().replaceFirst("^Cannot write ", "Cannot " + verb + " ").replace("Nothing was written", "Nothing was changed");
        return new CommitConflictException(e.table(), e.step(), m, e.getCause() != null ? e.getCause() : e);
    }

    private static String stripDot(String m) {
        return m != null && m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
    }

    // ---- futures: their failures unwrapped, so that the decision sees the cause ----

    /** The value of a completed future, its failure rethrown unwrapped (an Error or unchecked exception as it is). */
    static <T> T joined(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            Throwable t = unwrap(e);
            if (t instanceof Error err) {
                throw err;
            }
            if (t instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /** The real failure inside a future's wrapper; Errors (a simulated or real crash) pass through untouched. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Rethrows a failure before the commit point, keeping Errors and WranglerExceptions as they are. */
    static RuntimeException rethrow(Throwable t, String table, WriteStep step, String doing, String whatToDo) {
        t = unwrap(t);
        WranglerException decided = decided(t);
        if (decided != null) {
            return decided;
        }
        if (t instanceof SdkException s) {
            return storage(table, step, doing, s, whatToDo);
        }
        return new StorageException(table, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): " + t + ". " + whatToDo, null, 0, t);
    }

    /** Rethrows a failure after the commit point as a WriteIncompleteException, keeping Errors and WranglerExceptions. */
    static RuntimeException incompleteOrRethrow(Throwable t, String table, WriteStep step, String doing, String whatToDo) {
        t = unwrap(t);
        WranglerException decided = decided(t);
        if (decided != null) {
            return decided;
        }
        if (t instanceof SdkException s) {
            return incomplete(table, step, doing, s, whatToDo);
        }
        return new WriteIncompleteException(table, step, step, "Cannot " + doing + " for " + table + " (step: " + step.label()
                + "): " + t + ". " + whatToDo, t);
    }

    /** An Error is thrown on as it is; a WranglerException is already decided and is returned; anything else is null. */
    private static WranglerException decided(Throwable t) {
        if (t instanceof Error err) {
            throw err;
        }
        return t instanceof WranglerException w ? w : null;
    }

    /** A committed write records other request settings than the recovering job's: recovery never publishes with a manifest's. */
    static CommitStateUnknownException otherRequestSettings(String table, String writeId, String recorded, String own) {
        return new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot recover " + table + " (step: recover): "
                + "the committed write " + writeId + " records the request settings " + recorded + ", and this "
                + "recovery runs with " + own + "; recovery publishes only with the settings of the job that recovers, "
                + "never a manifest's. Nothing was touched. Rerun the write (or a compaction) with the encryption, ACL and expected "
                + "bucket owner the write had: it recovers first, with them.", null);
    }

    /** A writer gave up waiting for a lease it cannot read: what it is, when it is taken over, and how to remove it now. */
    static CommitConflictException leaseUnreadable(String table, String bucket, String key, String what, java.time.Duration age,
                                                   java.time.Duration takenOverAt) {
        return new CommitConflictException(table, WriteStep.LEASE, "Cannot write " + table + " (step: lease): its lease s3://" + bucket
                + "/" + key + " is " + what + ", not one wrangler wrote. It is taken over once its object is "
                + takenOverAt.toSeconds() + " s old (it is " + age.toSeconds() + " s old now), as a crashed writer's lease would "
                + "be. Nothing was written; rerun then, or, if no writer of this table is running, remove it now with: aws s3api "
                + "delete-object --bucket " + bucket + " --key " + key, null);
    }
}
