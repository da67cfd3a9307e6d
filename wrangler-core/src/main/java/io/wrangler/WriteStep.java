package io.wrangler;

import java.util.Locale;

/**
 * A WriteStep names the step of the commit protocol an error came from (see {@code io/wrangler/commit/package-info.java}).
 * Together with the exception's type it tells the caller what happened; the type alone tells whether to rerun.
 */
public enum WriteStep {
    /** Checking the request, before any I/O but reads. */
    VALIDATE,
    /** Taking, renewing or proving the table's lease. */
    LEASE,
    /** Finishing or undoing the table's interrupted writes. */
    RECOVER,
    /** Encoding and uploading the data files under {@code _tmp/<writeId>/}. */
    STAGE,
    /** Writing the manifest: the commit point. */
    COMMIT,
    /** Copying the staged files to their final keys and deleting the replaced ones. */
    PUBLISH,
    /** Registering the table and its partitions in the catalog. */
    CATALOG,
    /** Removing what is left under {@code _tmp/<writeId>/}. */
    CLEANUP;

    /** The step's name as messages show it: {@code publish}, {@code stage}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return label();
    }
}
