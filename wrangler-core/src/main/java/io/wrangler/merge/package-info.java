/**
 * Merge by key (upsert): the rows of an input written into a table by key, under the one commit protocol of
 * {@code io.wrangler.commit}. Internal: not API; may change in any release.
 *
 * <p>A merge is one write: it takes the table's lease, stages its new files, checks them and commits an
 * {@code OVERWRITE_PARTITIONS} whose manifest records as replaced exactly the files it rewrote (a compaction's kind of
 * replacement, {@code WriteSpec.Replacement}), so recovery and readers treat it as any other write: a crash before the
 * commit point leaves the table as before, from it on as after; a reader sees one or the other.
 *
 * <p>What it rewrites ({@link io.wrangler.merge.MergePlan}, reads only, which the dry run returns): the partitions the
 * input's rows go to and the scope's; there, the files whose footer statistics (and bloom filters, where written) of the key
 * columns admit an input key ({@link io.wrangler.merge.KeyFilter}: the shared row filter {@code in(key, values)}); of those, the files whose key columns hold a key the merge updates. Every other file
 * is untouched. Each rewritten file is written again without the rows of the updated keys, keeping its rows' idempotency
 * keys (so a later rerun of a keyed write still replaces exactly its own rows), and the input's inserted and updated rows
 * are added, in their own partitions. The plan is made before the lease; the check before the commit point lists the
 * matched partitions again under the lease and refuses the merge (not applied) when they hold other files than planned,
 * or a file replaced under its own name (another ETag than when listed for the plan).
 *
 * <p>The key scan keeps the places of the rows that hold an input key (at most {@code MergePlan.matchesKept}, 8 MiB,
 * past which a file's keys are looked up again), and the rewrite drops the updated keys' rows by place, checking that
 * each still holds its key and that the file holds the rows planned (else a conflict: the file was replaced under its
 * name). A batch's key columns are bound once for its lookups ({@code KeyIndex.bind}: types checked and buffers viewed
 * per batch, not per row), and the rows kept are copied column by column, each column's runs of consecutive rows at once.
 *
 * <p>Memory: the input whole (its batches and a hash map of its keys), the matched rows' places, and a few batches of the rewritten files at a
 * time (decoded on the machine's cores as a read decodes, the kept rows made one batch ahead of the write): the files
 * stream through the write, so a partition larger than the heap is merged as any other.
 */
package io.wrangler.merge;
