package io.wrangler.merge;

import io.wrangler.CommitConflictException;
import io.wrangler.InvalidWriteException;
import io.wrangler.ReadException;
import io.wrangler.VerificationException;
import io.wrangler.WriteStep;
import io.wrangler.storage.Removed;
import io.wrangler.storage.Replaced;

/** The merge's own refusals and failures, each naming the table, the step and what to do. */
final class MergeErrors {
    private MergeErrors() {
    }

    /** Reading the table's footers or key columns failed before anything was changed. */
    static RuntimeException readFailed(MergeSpec spec, Exception e) {
        if (Removed.by(e)) {
            return removed(spec, e);
        }
        return new ReadException(spec.table(), spec.cannot("validate") + "reading the table's files failed: " + e.getMessage()
                + ". Nothing was changed; fix the cause and rerun.", e);
    }

    /** A file the merge listed was gone when it read it: another write replaced it. */
    static CommitConflictException removed(MergeSpec spec, Exception e) {
        Replaced replaced = Replaced.in(e);
        if (replaced != null) {
            return new CommitConflictException(spec.table(), WriteStep.STAGE, spec.cannot("stage") + "the file "
                    + replaced.changedSinceListed() + ". Nothing was changed; run the merge again.", e);
        }
        return new CommitConflictException(spec.table(), WriteStep.STAGE, spec.cannot("stage") + "a file it listed was removed by "
                + "another write before the merge could read it (" + e.getMessage() + "). Nothing was changed; rerun the merge.", e);
    }

    /**
     * A file the merge rewrites holds other rows than when it was scanned (replaced under its own name, with its length):
     * the rows the scan found are not where it found them.
     */
    static CommitConflictException replaced(MergeSpec spec, String uri, String what) {
        return new CommitConflictException(spec.table(), WriteStep.STAGE, spec.cannot("stage") + "the file " + uri + " holds other "
                + "rows than when the merge planned (" + what + "): another writer replaced it under its name. Nothing was changed; "
                + "rerun the merge.", null);
    }

    /** Under the lease, the matched partitions hold other files than when the merge was planned. */
    static CommitConflictException changed(MergeSpec spec, String what) {
        return new CommitConflictException(spec.table(), WriteStep.COMMIT, spec.cannot("commit") + "another write changed the "
                + "partitions the merge matches in after it planned (" + what + "). Nothing was changed: the merge's new files were "
                + "removed before its commit point; rerun the merge.", null);
    }

    /** A partition of the catalog lies outside the table's bucket. */
    static InvalidWriteException outside(MergeSpec spec, String bucket) {
        return new InvalidWriteException(spec.table(), WriteStep.VALIDATE, spec.cannot("validate") + "a partition of "
                + spec.catalog().describe() + " lies in the bucket " + bucket + ", outside the table; a merge rewrites partitions in "
                + "place only. Nothing was changed.");
    }

    /** The staged files, read back, differ from the rows passed. */
    static VerificationException refused(MergeSpec spec, String what, Throwable cause) {
        return new VerificationException(spec.table(), spec.cannot("commit") + what + ". Nothing was changed: the new files were "
                + "removed before the commit point. Report this with the message; the table is as before.", cause);
    }
}
