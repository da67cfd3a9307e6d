package io.wrangler;

/** A WriteMode says what a write does to the data already in the table. */
public enum WriteMode {
    /**
     * Adds files next to the existing ones; deletes nothing. Rerunning an append that completed adds
     * the rows again; an append interrupted by a crash is undone by recovery, so its rerun adds them once.
     */
    APPEND,
    /**
     * Replaces the whole table: after the write, the table holds exactly the written rows. Every object
     * under the table root except {@code _tmp/} is deleted after the new files are in place. Refused for
     * a bucket root and for an empty input.
     */
    OVERWRITE,
    /**
     * Replaces only the partitions present in the input; all other partitions are left byte-identical.
     * The idempotent mode for daily jobs: a rerun replaces what the first run wrote.
     */
    OVERWRITE_PARTITIONS
}
