/**
 * The commit protocol: how a write goes from input to published table, and what a reader sees and a crash
 * leaves at every step. Not public API. This is the one place the protocol is written down; keep it true.
 *
 * <h2>Layout</h2>
 * <pre>
 * s3://bucket/table/                                   table root (always ends with /)
 *   dt=2024-01-15/country=RU/part-00007-000-&lt;writeId&gt;.snappy.parquet    published data files
 *   _tmp/&lt;writeId&gt;/dt=2024-01-15/country=RU/part-00007-000-&lt;writeId&gt;...   staged copy, same relative path
 *   _tmp/&lt;writeId&gt;/_manifest.json                  the write's commit record
 * </pre>
 * A write id is {@code yyyyMMddTHHmmssZ-<16 hex>} ({@code k-<key>-<hash>} for a write with an idempotency key); every
 * file a write creates carries it in its name, after the partition's number (in order of first appearance in the
 * input) and the file's number within the partition, so the same input gives the same names. Hive, Spark, Athena, Trino and
 * DuckDB-with-Hive-readers skip folders starting with {@code _}, so nothing under {@code _tmp/} is ever read
 * as table data.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li><b>Validate</b> (no I/O but reads): URI, column names (unique, case-insensitively), partition columns
 *       (present, of a partitionable type, not every column), every data column's type, {@code OVERWRITE} of a
 *       bucket root, the catalog's {@code prepare} (read-only). For an in-memory input (a root, records) every
 *       partition value, key length and timestamp is checked here too, and an empty input is decided: no-op for
 *       {@code APPEND} and {@code OVERWRITE_PARTITIONS}, refused for {@code OVERWRITE} (it would empty the
 *       table). Then a HeadBucket: a missing bucket is refused.
 *       <br><i>Crash:</i> nothing written.</li>
 *   <li><b>Lease</b>: the table's lease is taken (see Guarantees) and held until after cleanup; a write that cannot
 *       get it writes nothing.</li>
 *   <li><b>Recover</b>: interrupted writes found under {@code _tmp/}, or by deferred uploads open in the table, are
 *       finished or undone ({@link io.wrangler.commit.Recovery}), so the table is in a clean state before this write
 *       begins.</li>
 *   <li><b>Stage</b>: files are encoded and uploaded to {@code _tmp/<writeId>/...} (multipart above the part
 *       size, bounded buffers, parallel uploads). For a streamed input, each batch's values are checked before
 *       it is staged; a bad value, or any failure, aborts the open uploads and removes {@code _tmp/<writeId>/}.
 *       A stream that interleaves more partitions than can stay open is spilled to a local file by partition and
 *       encoded from it at the end (see {@code Stager}); the spill is local, never part of the table, and deleted
 *       when the write ends.
 *       With {@code CommitMethod.DEFERRED_UPLOADS} each file is instead a multipart upload at its <i>final</i> key,
 *       every part sent, the upload left open: nothing is visible there until it is completed.
 *       <br><i>Readers:</i> see the old table. <i>Crash:</i> leaves staged objects and maybe open multipart
 *       uploads under {@code _tmp/<writeId>/} (deferred: open uploads at final keys, their names carrying the write
 *       id), no manifest: recovery removes them (roll back), finding deferred uploads with one listing of the
 *       table's open uploads.</li>
 *   <li><b>Manifest</b>: the lease is checked (fencing), then {@code _tmp/<writeId>/_manifest.json} is written in one
 *       PUT, after every staged upload completed: mode, partitions, staged and final keys (deferred: upload ids and
 *       part ETags), sizes, row counts, schema, catalog. <b>This PUT is the commit point of an overwrite.</b>
 *       <br><i>Crash after it:</i> an overwrite is rolled forward by recovery; an append is rolled back.</li>
 *   <li><b>Publish</b>: (a) list the old files of the touched partitions by their exact folders with trailing slash
 *       ({@code country=R/} never matches {@code country=RU/}); partitions sharing a first folder are listed with one
 *       listing of it, filtered to their exact folders; the whole table for {@code OVERWRITE}. {@code _tmp/} and the
 *       files this write publishes (its manifest's final keys) are never old files. {@code APPEND} lists nothing,
 *       except a keyed append ({@code idempotencyKey}), whose old files are those an earlier run with the same key
 *       left in its partitions.
 *       (b) copy every staged file to its final key (CopyObject, UploadPartCopy above 5 GB), in parallel; for
 *       deferred uploads, complete each upload with the part ETags the manifest lists (no byte is copied). A
 *       completion whose answer was lost is retried and found done by its object. An upload aborted meanwhile (a
 *       lifecycle rule {@code AbortIncompleteMultipartUpload}) cannot be completed: as no old file has been deleted
 *       yet, the write is undone (its completed files deleted, its open uploads aborted, its staging removed) and
 *       fails; recovery does the same when it meets such a write.
 *       (c) delete the old files with DeleteObjects in batches of at most 1,000, reading per-key errors.
 *       <br><i>Readers:</i> during (b) and (c) a partition may show old and new files side by side (rows
 *       doubled for a moment); never a partition with neither, because nothing is deleted before every new
 *       file is in place. Nothing outside the touched partitions (the table root for {@code OVERWRITE}) is ever
 *       deleted. <i>Crash:</i> recovery repeats publishing, which is idempotent (copies repeat the same bytes;
 *       deleted files are no longer listed) for an overwrite, or deletes this write's published files for an
 *       append.</li>
 *   <li><b>Catalog</b> (when a catalog is set): the {@link io.wrangler.catalog.CatalogCommit} prepared in step 1
 *       creates or updates the table and registers the written partitions. It must be idempotent.
 *       <br><i>Crash or refusal:</i> the data is published; the manifest stays, and a recovery with the catalog
 *       (or the next write with it) runs the catalog step again for an overwrite, or, for an append (which recovery
 *       undoes), removes the partitions it registered that are left empty. A recovery without the catalog finishes the
 *       data and reports the write as {@code catalogPending}, keeping its manifest.</li>
 *   <li><b>Cleanup</b>: open uploads of {@code _tmp/<writeId>/} are aborted and the staged files deleted, then the
 *       manifest is deleted last. Its DELETE is the end of the write: nothing is left to recover.
 *       <br><i>Crash before the manifest DELETE:</i> as a crash in the catalog step: an overwrite is rolled
 *       forward again (a staged file already gone is fine when its final key holds it), an append is rolled back,
 *       which is what makes its rerun add the rows exactly once. <i>After it:</i> the write is complete. A crash
 *       between that last DELETE and the caller seeing the result cannot be told from success: rerunning an
 *       append then adds its rows again, as rerunning any completed append does.</li>
 * </ol>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Each data file appears whole or not at all (PUT, CompleteMultipartUpload and CopyObject are atomic), with
 *       either commit method. Deferred uploads add one condition: a lifecycle rule must not abort them before
 *       recovery runs; if one does, the write is undone, never half applied.</li>
 *   <li>Crash anywhere, then rerun the same write: the table equals one clean run of it, in every mode.
 *       Recovery alone: each interrupted write is either fully applied (overwrites past their manifest) or
 *       fully undone (appends, and anything before its manifest).</li>
 *   <li>Bad input is refused before any object is written or deleted; for a streamed input, after at most this
 *       write's own staging, which is removed.</li>
 *   <li>Not atomic: the table as a whole (readers can see a mix during publish), and the catalog relative to the
 *       data (registered after publish).</li>
 *   <li>Concurrent writers take turns: each write holds the table's lease ({@link io.wrangler.commit.TableLease},
 *       {@code _tmp/_lease.json}, taken with a conditional create) from before recovery until after cleanup, renews it
 *       while it runs, and proves it still holds it (a compare-and-swap) just before writing its manifest. A second
 *       writer waits up to {@code leaseWait}, then fails with a CommitConflictException (rerunning is safe). A crashed
 *       writer's lease expires after its time to live (2 minutes by default), measured on S3's clock. Recovery takes the
 *       lease too, so it never undoes a live writer's staging. Between the fencing check and the end of the publish step a
 *       writer that stalls longer than the lease's time to live could overlap with the next holder's recovery of its
 *       manifest; both then run the same idempotent publish.</li>
 * </ul>
 */
package io.wrangler.commit;
