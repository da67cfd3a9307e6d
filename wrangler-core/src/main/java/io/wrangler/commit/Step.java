package io.wrangler.commit;

import io.wrangler.spi.StepHook;
import java.util.Locale;

/**
 * A Step is a boundary of the commit protocol at which a {@link StepHook} is told, in the order a write passes them; see
 * the state table in {@code package-info.java} for what each leaves behind. Tests crash or pause a write at each.
 */
public enum Step {
    /** Before any I/O: the request is checked. */
    VALIDATE,
    /** Interrupted writes of the table are finished or undone. */
    RECOVER,
    /** The write's manifest is written in state STARTED: its id is recorded, nothing is staged yet. */
    STARTED,
    /** One more data file has been encoded and handed to its upload under {@code _tmp/<writeId>/}. */
    STAGED_FILE,
    /** The old files of the touched partitions have been listed (before the commit point). */
    LISTED_OLD_FILES,
    /** The manifest is COMMITTED: the commit point of overwrites and keyed appends. */
    MANIFEST_WRITTEN,
    /** One more staged file has been copied to its final key. */
    COPIED_FILE,
    /** One more batch of old files has been deleted. */
    DELETED_BATCH,
    /**
     * The staged copies are gone and the manifest is PUBLISHED (with a catalog; a write without one stays COMMITTED and
     * goes on to its end: every rule reads the two alike); the catalog step is next.
     */
    BEFORE_CATALOG,
    /** The catalog step is done; cleanup is next. */
    BEFORE_CLEANUP,
    /**
     * Reached right after {@link #BEFORE_CLEANUP}, with nothing done between (the staged copies went before the catalog
     * step): the last point before the manifest's conditional delete. Kept apart so that tests name that point.
     */
    STAGING_REMOVED;

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
