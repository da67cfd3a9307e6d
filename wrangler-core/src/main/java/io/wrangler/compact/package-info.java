/**
 * The compaction engine behind {@code S3Parquet.compact(uri)...run()}: {@code CompactBuilder} collects the options and
 * {@code S3Parquet} hands them here as a {@link io.wrangler.compact.CompactionSpec}. Internal: not public API.
 *
 * <p>What it does, in order ({@link io.wrangler.compact.Compaction#run}):
 * <ol>
 *   <li>Recovers a crashed writer's interrupted writes first, under the lease, so that the listing sees the table as
 *       recovery leaves it.</li>
 *   <li>Plans ({@code CompactionPlan}), before the lease and before any write: lists the table (through the catalog
 *       when given), chooses the units to rewrite (a partition, or a bucket of one) by the thresholds, runs
 *       {@code CompactionChecks} on them, and fetches each chosen file's footer once ({@code read.FileFooters}), from
 *       which come the new files' schema, the encodings to keep, the commit order of each unit's files and the key
 *       and commit runs of the marked ones ({@code KeyedInput}, {@code encoding.CommitRuns}: rows a rewrite moved keep
 *       their commit; a delete of rows always writes key and commit runs, as its new files hold rows of older ones).</li>
 *   <li>Writes through the commit engine, with one call ({@code Compaction.write}): an {@code OVERWRITE_PARTITIONS}
 *       whose {@code WriteSpec.Replacement} carries, as commit arguments, the exact files replaced, the check of the
 *       staged files, each batch's bucket and whether the rows carry key runs. Its input ({@code CompactInput}) reads
 *       the units on a producer thread of its own, drops duplicates ({@code Dedup}) and digests every row passed on
 *       ({@code Digest}); before the commit point it reads the staged files back and refuses the commit
 *       ({@code VerificationException}, nothing changed) unless they hold exactly the rows read.</li>
 * </ol>
 *
 * <p>What is atomic: the compaction is one write of the commit protocol ({@code io/wrangler/commit/package-info.java}):
 * a crash at any step leaves the table as before (before the commit point) or as after (from it), never rows lost or
 * doubled; readers see each partition as before until its first old file is deleted, then as after, never a partition
 * missing. The guarantees a compaction carries, and the tests that prove each:
 * <ul>
 *   <li>Readers' view: a reader while a compaction is paused at any step, or crashed and not yet recovered, sees the
 *       table exactly as before it or exactly as after it ({@code TableHistoryPropertyTest}, paused and crashed
 *       operations, compactions with and without dedup among them).</li>
 *   <li>Exactly the files read are replaced: a file that came after the listing stays, an append that waits on the
 *       lease loses nothing, a crashed writer is recovered first ({@code CompactionGuaranteesTest}; against random
 *       histories with crashes and pauses, {@code TableHistoryPropertyTest}; with a concurrent writer and a recovery,
 *       {@code ThreeActorTest}).</li>
 *   <li>The rows are checked before the commit point: rows, and per column the count of values and a checksum, less
 *       the dropped duplicates ({@code CompactionGuaranteesTest}: a changed byte, other values, a shorter file;
 *       {@code EvolvedSchemaTest}: a missing column).</li>
 *   <li>Idempotency keys: the new files record their rows' key runs, so a later rerun of a key replaces exactly its
 *       rows; a compacted file compacted again keeps them; a marked file without runs is refused
 *       ({@code KeyedCompactionTest}, {@code KeyedRerunAdversaryTest}).</li>
 *   <li>Bucketing: files are compacted bucket by bucket into files of the same number; a partition mixing bucket files
 *       and others is refused ({@code CompactionKeepsTheTableTest}; through Glue's declared buckets,
 *       {@code CompactThroughGlueTest}).</li>
 *   <li>Schema evolution: the new files have the union of the files' columns, by the read's rule
 *       ({@code EvolvedSchemaTest}).</li>
 *   <li>Registered Locations: a partition registered outside the table root is refused before anything changes; one
 *       under it is compacted where it is ({@code CompactThroughGlueTest}, {@code ReadThroughGlueTest}).</li>
 *   <li>Encodings: INT96 and nanosecond timestamps and the files' codec are kept
 *       ({@code CompactionKeepsTheTableTest}); memory stays bounded ({@code CompactionMemoryTest}).</li>
 *   <li>Dedup: the kept row per key is the one DuckDB's {@code row_number()} keeps ({@code CompactionKeepsTheTableTest},
 *       {@code CompactionTest}); ties go to the later commit ({@code KeyedRerunAdversaryTest}).</li>
 *   <li>Footers: each chosen file's footer is fetched once, marked files' included ({@code EvolvedSchemaTest},
 *       {@code KeyedCompactionTest}).</li>
 * </ul>
 */
package io.wrangler.compact;
