package io.wrangler.commit;

import io.wrangler.WriteMode;

/**
 * The kind of a write: its identity and its commit rule, which {@link Outcomes} decides failures by (the manifest's
 * COMMITTED, or a plain append's end: {@link #committedAtManifest}, asked nowhere else).
 *
 * <p>Kinds are an enum, not subclasses of the transaction: the state table and the failure table of package-info.java
 * differ by kind only in the commit point, and they iterate the kinds (OutcomesTableTest checks every one). What else
 * differs by kind (which old files a write replaces, what it checks or stages to replace them) is its {@link Operation},
 * a small class each; see docs/architecture.md, "Operations".
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
