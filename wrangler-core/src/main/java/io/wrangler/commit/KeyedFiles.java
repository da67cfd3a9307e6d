package io.wrangler.commit;

import io.wrangler.layout.WriteIds;

/**
 * What a data file's name says about the idempotency keys of its rows, for code outside this package (a compaction):
 * an unmarked file of a keyed run holds rows of that run's key only; a marked file ({@link
 * io.wrangler.encoding.KeyRuns#MARK}) records its rows' keys in its footer; any other file holds rows of no key.
 */
public final class KeyedFiles {
    private KeyedFiles() {
    }

    /** The key id of every row of the file at {@code key}: that of its keyed write id when it is unmarked, else null. */
    public static String keyOf(String key) {
        return WriteIds.keyOfUnmarked(key);
    }

    /** True for one of wrangler's files that records its rows' keys in its footer. */
    public static boolean marked(String key) {
        return WriteIds.marked(key);
    }
}
