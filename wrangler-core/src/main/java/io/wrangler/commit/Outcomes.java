package io.wrangler.commit;

import io.wrangler.CatalogException;
import io.wrangler.CommitConflictException;
import io.wrangler.CommitStateUnknownException;
import io.wrangler.InvalidWriteException;
import io.wrangler.StorageException;
import io.wrangler.WranglerException;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteStep;
import io.wrangler.storage.Removed;
import java.io.IOException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Outcomes decides what a write's failure becomes: its exception type and message, from the step it failed at, whether
 * it was before or after the write's commit point, the write's kind and the cause. It is the one place the state table of
 * package-info.java is turned into exceptions; the {@link Transaction} catches and asks here, and does the cleanup the
 * outcome names (abandon, undo) itself.
 *
 * <table>
 *   <caption>The outcomes. "Plain": a plain append (commit point: its end); "other": every other kind (commit point:
 *   the manifest's COMMITTED).</caption>
 *   <tr><th>when</th><th>cause</th><th>plain</th><th>other</th></tr>
 *   <tr><td>validate</td><td>a refused input</td><td colspan="2">InvalidWriteException, nothing written</td></tr>
 *   <tr><td>lease, validate</td><td>S3</td><td colspan="2">StorageException, nothing written</td></tr>
 *   <tr><td>recover</td><td>lease lost</td><td colspan="2">CommitConflictException, nothing of this write written</td></tr>
 *   <tr><td>stage, commit (before the point)</td><td>lease lost, manifest superseded</td><td colspan="2">
 *       CommitConflictException ({@link #lost}, STARTED)</td></tr>
 *   <tr><td>stage, commit (before the point)</td><td>S3, input</td><td colspan="2">StorageException or
 *       InvalidWriteException, staging removed ({@link #staging})</td></tr>
 *   <tr><td>commit</td><td>S3 answer lost</td><td colspan="2">CommitStateUnknownException ({@link #manifestUnknown})</td></tr>
 *   <tr><td>publish, catalog, cleanup</td><td>lease lost, manifest superseded</td><td>CommitConflictException, undone by the
 *       holder</td><td>WriteIncompleteException, finished by the holder ({@link #lost}, COMMITTED or PUBLISHED: {@link #fate})</td></tr>
 *   <tr><td>publish, catalog</td><td>S3, catalog</td><td>undone by itself: StorageException or CatalogException
 *       ({@link #undone}), CommitConflictException if the undo fails ({@link #undoFailed})</td><td>WriteIncompleteException
 *       ({@link #publishIncomplete}, {@link #catalogIncomplete})</td></tr>
 *   <tr><td>cleanup</td><td>S3</td><td>CommitStateUnknownException ({@link #endUnknown})</td><td>WriteIncompleteException
 *       ({@link #endIncomplete})</td></tr>
 * </table>
 */
final class Outcomes {
    private final String table;
    private final WriteKind kind;

    Outcomes(String table, WriteKind kind) {
        this.table = table;
        this.kind = kind;
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
            return Failures.storage(table, WriteStep.VALIDATE, "reach the bucket", e,
                    "Check the credentials and the bucket policy (s3:ListBucket); nothing was written.");
        }
        return Failures.storage(table, WriteStep.VALIDATE, "reach the bucket", e,
                "Check the endpoint, region and credentials; nothing was written.");
    }

    static StorageException leaseFailed(String table, String tmpPrefix, SdkException e) {
        return Failures.storage(table, WriteStep.LEASE, "take the table lease", e, "Nothing was written; check the "
                + "permissions (s3:PutObject, s3:GetObject, s3:DeleteObject on " + tmpPrefix + ") and rerun.");
    }

    StorageException recordFailed(String writeId, SdkException e) {
        return Failures.storage(table, WriteStep.STAGE, "record the write " + writeId, e, "Nothing was written; rerun the write.");
    }

    /** A check of what the tasks reported failed on S3, before the commit point. */
    StorageException checkFailed(String doing, SdkException e) {
        return Failures.storage(table, WriteStep.COMMIT, doing, e, "Nothing of the table was changed; rerun the write.");
    }

    StorageException earlyListingFailed(SdkException e) {
        return Failures.storage(table, WriteStep.PUBLISH, "list the old files", e,
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
        return Failures.rethrow(e, table, WriteStep.STAGE, inProcess ? "stage the data files" : "stage the data files of a task",
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
        return Failures.rethrow(e, table, WriteStep.STAGE, "rewrite the files that hold rows of this key",
                "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
    }

    /**
     * A file the write (or its plan) listed was gone when it read it ({@link Removed}): another write replaced it since.
     * A conflict whatever the phase (nothing was changed), as it is for a compaction and, in a read's words, for a read.
     */
    static CommitConflictException removedMeanwhile(String table, WriteStep step, String doing, Throwable e, String whatToDo) {
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

    CommitStateUnknownException manifestUnknown(String manifestUri, WriteLog.Unknown e) {
        return new CommitStateUnknownException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): S3 "
                + "failed while the manifest " + manifestUri + " was moved to "
                + "COMMITTED (" + e.getMessage() + "), and it cannot be read back, so whether the write is committed is not "
                + "known. Nothing was cleaned up. Run S3Parquet.recover (it finishes or undoes the write), then look at the "
                + "table before rerunning.", e.getCause());
    }

    StorageException manifestFailed(SdkException e) {
        return Failures.storage(table, WriteStep.COMMIT, "write the manifest", e,
                "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
    }

    /** Publishing failed after the manifest's commit point: the write is committed, to be finished. */
    RuntimeException publishIncomplete(RuntimeException e) {
        return Failures.incompleteOrRethrow(e, table, WriteStep.PUBLISH, "publish the staged files", "The write is committed; "
                + "rerun it, or run S3Parquet.recover, to finish publishing.");
    }

    WriteIncompleteException recordIncomplete(WriteStep at, SdkException e) {
        return Failures.incomplete(table, at, "record the write published", e,
                "The write is committed and its files are in place; rerun it or run S3Parquet.recover to finish it.");
    }

    WriteIncompleteException catalogIncomplete(String catalog, RuntimeException e) {
        return new WriteIncompleteException(table, WriteStep.CATALOG, WriteStep.CATALOG, "Cannot register the write in "
                + catalog + " for " + table + " (step: catalog): " + e.getMessage() + ". The data is "
                + "committed and published; S3Parquet.recover(uri, s3, catalog), or the next write to the table with this "
                + "catalog, registers the table as it is then. Rerunning the write is safe too.", e);
    }

    WriteIncompleteException endIncomplete(SdkException e) {
        return Failures.incomplete(table, WriteStep.CLEANUP, "end the write", e, "The write is complete and visible; the "
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
            return Failures.storage(table, step, "append", sdk, "The append was undone: its files were deleted and the table is "
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
}
