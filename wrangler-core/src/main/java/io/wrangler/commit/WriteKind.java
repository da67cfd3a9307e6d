package io.wrangler.commit;

import io.wrangler.WriteMode;

/**
 * The kind of a write, as the transaction tells them apart: where its commit point is (the manifest's COMMITTED, or a
 * plain append's end), what a failure after it leaves ({@link Outcomes}) and how its old files are found.
 *
 * <p>Kinds are an enum the transaction asks, not subclasses of it: the code differs by kind in exactly three places (the
 * commit point: {@link #committedAtManifest}; how the old files are found: a replacement's are given, a keyed append
 * also rewrites marked files, the others list their partitions, {@code Transaction.listOld}; and the outcome of a
 * failure past the commit point), so a strategy object per kind would spread three small decisions over five classes
 * that the state table in package-info.java keeps together.
 */
enum WriteKind {
    /** APPEND without an idempotency key: its commit point is its manifest's conditional delete; it undoes itself. */
    PLAIN_APPEND,
    /** APPEND with an idempotency key: replaces the files of its key's earlier runs. */
    KEYED_APPEND,
    /** OVERWRITE: replaces every file of the table. */
    OVERWRITE,
    /** OVERWRITE_PARTITIONS: replaces the files of the partitions it writes. */
    OVERWRITE_PARTITIONS,
    /** A compaction's replacement of exactly the files it read ({@link WriteSpec.Replacement}). */
    REPLACEMENT;

    static WriteKind of(WriteSpec spec) {
        if (spec.replacement() != null) {
            return REPLACEMENT;
        }
        if (spec.mode() == WriteMode.APPEND) {
            return spec.idempotencyKey() == null ? PLAIN_APPEND : KEYED_APPEND;
        }
        return spec.mode() == WriteMode.OVERWRITE ? OVERWRITE : OVERWRITE_PARTITIONS;
    }

    /**
     * True when the manifest moved to COMMITTED is the commit point (every kind but a plain append): from there on the
     * write is finished, never undone. A plain append's commit point is its end; before it, it undoes itself.
     */
    boolean committedAtManifest() {
        return this != PLAIN_APPEND;
    }
}
