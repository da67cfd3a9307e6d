package io.wrangler.commit;

import java.util.Locale;

/** A Step is a point of the commit protocol; see the package documentation for what each leaves behind. */
public enum Step {
    /** Before any I/O: the request is checked. */
    VALIDATE,
    /** Interrupted writes of the table are finished or undone. */
    RECOVER,
    /** One more data file has been encoded and handed to its upload under {@code _tmp/<writeId>/}. */
    STAGED_FILE,
    /** The manifest {@code _tmp/<writeId>/_manifest.json} has been written: the commit point of overwrites. */
    MANIFEST_WRITTEN,
    /** The old files of the touched partitions have been listed. */
    LISTED_OLD_FILES,
    /** One more staged file has been copied to its final key. */
    COPIED_FILE,
    /** One more batch of old files has been deleted. */
    DELETED_BATCH,
    /** The data is published; the catalog step is next. */
    BEFORE_CATALOG,
    /** The catalog step is done; cleanup is next. */
    BEFORE_CLEANUP,
    /** The staged files are deleted; the manifest, deleted last, is next. */
    STAGING_REMOVED;

    /** The step's name as error messages show it: {@code publish}, {@code stage}, ... */
    public String label() {
        return switch (this) {
            case VALIDATE -> "validate";
            case RECOVER -> "recover";
            case STAGED_FILE -> "stage";
            case MANIFEST_WRITTEN -> "manifest";
            case LISTED_OLD_FILES, COPIED_FILE, DELETED_BATCH -> "publish";
            case BEFORE_CATALOG -> "catalog";
            case BEFORE_CLEANUP, STAGING_REMOVED -> "cleanup";
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
