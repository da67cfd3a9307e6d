/**
 * The commit protocol: how a write goes from input to published table, and what a reader sees and a crash
 * leaves at every step. Internal: not API; may change in any release. This is the one place the protocol is written down; keep it true.
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
 * input) and the file's number within the partition, so the same input gives the same names; recovery, keyed reruns, readers
 * and the deferred commit check read a file's write id back from its name, so a key that would make that read find another
 * id (one holding {@code part-<digits>-<digits>-k-}) is refused in the validate step. A file that holds rows of several
 * keyed runs (a compaction's of keyed files, or a keyed rerun's rewrite of one) is marked {@code _k} right after the write
 * id ({@code part-00000-000-<writeId>_k[_bucket-<b>].snappy.parquet}); its name still gives back the id of the write that
 * made it (so recovery, readers and every id-based rule treat it as that write's), and its Parquet footer's key-value
 * metadata {@code wrangler.keys} records whose its rows are ({@link io.wrangler.encoding.KeyRuns}: {@code [keyId, rows]}
 * runs in row order, {@code ""} for rows no key wrote). A marked file is never taken for a key's own file by its name,
 * and the keys are never a column: the files' schema is the table's. Hive, Spark, Athena, Trino and
 * DuckDB-with-Hive-readers skip folders starting with {@code _}, so nothing under {@code _tmp/} is ever read
 * as table data.
 *
 * <h2>States: the manifest records how far a write got</h2>
 * A write's manifest {@code _tmp/<writeId>/_manifest.json} exists from before its first upload until its end. Its state
 * changes only by a compare-and-swap on the manifest's ETag ({@link io.wrangler.commit.WriteLog} is the one class that
 * writes or deletes a manifest), so that of two actors deciding one write's fate exactly one succeeds. The manifest's
 * record ({@link io.wrangler.layout.Manifest}), its trust check, the write ids and what readers leave out live in
 * {@code io.wrangler.layout}, below this package and {@code io.wrangler.read}, which both use them. Write ids are unique
 * per run, keyed runs included ({@code k-<key>-<hash>-<run>}): every file a run publishes is an object that run created.
 * <table>
 *   <caption>The state table. W: the writer holding the lease. R: a recovery holding the lease (the next write's, or
 *   {@code S3Parquet.recover} with the write's catalog). R0: a recovery without that catalog. S: a writer whose lease was
 *   taken over (stalled, suspended) and that resumes. "fence" is a compare-and-swap renewal of the lease, which fails once
 *   another holder took it.</caption>
 *   <tr><th>state</th><th>W may</th><th>R may</th><th>R0 may</th><th>S</th></tr>
 *   <tr><td>(no manifest, folder named like a write id)</td><td>-</td><td colspan="2">delete what is in the folder and abort
 *       its uploads (only there: uploads elsewhere need a record)</td><td>-</td></tr>
 *   <tr><td>STARTED (created after a fence)</td><td>stage; list old files (reads); fence; CAS to COMMITTED</td>
 *       <td colspan="2">fence; CAS to ABORTING; roll back</td><td>its fence before COMMITTED fails: it removes
 *       the uploads and staged files carrying its own id (once its record is rolled back no one else can), stops, not
 *       applied</td></tr>
 *   <tr><td>COMMITTED, overwrite or keyed append</td><td>copy or complete every file (a copy in parts
 *       fenced before its completion); fence before each delete batch of the old files its manifest records; delete its
 *       staged copies; CAS to PUBLISHED (with a catalog; without one, straight on to the end: see "Why a write without a
 *       catalog skips PUBLISHED")</td><td colspan="2">fence; publish again (idempotent: same copies, the recorded
 *       old files); CAS to PUBLISHED; then as PUBLISHED</td><td>its next fence fails (before a delete batch or a copy's
 *       completion, or when it finds a staged file or an upload gone because R finished them): stops, incomplete (R
 *       finishes it)</td></tr>
 *   <tr><td>PUBLISHED, overwrite or keyed append</td><td>catalog step (fence before each catalog change); conditional
 *       delete of the manifest (the end)</td><td>catalog step with the table as it is now (a later write may have
 *       changed it); end</td><td>nothing: the write stays catalogPending; never
 *       published again</td><td>its catalog step's fence fails: stops, incomplete; past its catalog step, its end finds the
 *       manifest gone: the write is complete (R ended it), reported as success</td></tr>
 *   <tr><td>COMMITTED or PUBLISHED, plain append</td><td>copy; CAS to PUBLISHED (with a catalog); catalog step; conditional delete of the
 *       manifest: <b>the commit point of a plain append</b>. If the catalog step or a copy fails, W rolls itself back.</td>
 *       <td colspan="2">fence; CAS to ABORTING; roll back</td><td>stops, not applied (R undoes it)</td></tr>
 *   <tr><td>ABORTING</td><td>(its own roll back)</td><td>roll back (idempotent); remove the partitions it registered that
 *       are now empty; end</td><td>roll back the data; keep the manifest
 *       (catalogPending) when it is a plain append with files and a catalog (its partitions may need removing from the
 *       catalog); else end</td><td>stops, not applied</td></tr>
 * </table>
 * <table>
 *   <caption>The failure table: what a failure in each step of a write becomes, by its cause ({@link
 *   io.wrangler.commit.Outcomes} decides every cell; the transaction runs each step through one runner that asks it;
 *   OutcomesTableTest reads this table and checks every cell). Steps in order: bucket (the HeadBucket, not sent when the validation listed the table), lease, recover,
 *   record (the manifest created STARTED), stage (in this process), check (what the tasks reported; a compaction's read-back
 *   of what it staged), list (the old files), rewrite (a keyed rerun's marked files), commit (the CAS to COMMITTED), publish
 *   (copies or completions, deletes), published (the staged copies' removal and the write's entry in the commit log, both
 *   sent once every file is in place, then, with a catalog, the CAS to PUBLISHED), catalog, end (the manifest's conditional delete, and the lease's release
 *   sent with it; a write without a catalog reaches it from COMMITTED, which every rule below reads as PUBLISHED). Outcomes: <i>not applied</i>, a WriteNotAppliedException (nothing changed, rerun);
 *   <i>undone</i>, the same after the write rolled itself back (if that fails too: a CommitConflictException, the next
 *   holder finishes the undo); <i>incomplete</i>, a WriteIncompleteException (committed, finished by a rerun or a
 *   recovery); <i>unknown</i>, a CommitStateUnknownException (recover, then look); <i>complete</i>, no failure; <i>as
 *   raised</i>, the exception the cause already is (decided where it was raised, or not a failure of the protocol).
 *   After a comma, what the writer undoes first. A cell naming "plain append" and "others" differs by kind: the commit
 *   point of a plain append is its end, every other kind's the CAS to COMMITTED. "-": the cause cannot arise there.
 *   "Already decided": a WranglerException raised inside the step (a refusal, a check's own outcome).</caption>
 *   <tr><th>step</th><th>manifest</th><th>lease lost</th><th>manifest superseded</th><th>S3 failure</th><th>S3 answer
 *       lost</th><th>deferred uploads gone</th><th>already decided</th><th>any other failure</th></tr>
 *   <tr><td>bucket</td><td>(none)</td><td>-</td><td>-</td><td>not applied</td><td>-</td><td>-</td><td>as raised</td>
 *       <td>as raised</td></tr>
 *   <tr><td>lease</td><td>(none)</td><td>-</td><td>-</td><td>not applied</td><td>-</td><td>-</td><td>as raised</td>
 *       <td>as raised</td></tr>
 *   <tr><td>recover</td><td>(none)</td><td>not applied</td><td>as raised</td><td>as raised</td><td>-</td><td>-</td>
 *       <td>as raised</td><td>as raised</td></tr>
 *   <tr><td>record</td><td>(none)</td><td>not applied</td><td>not applied</td><td>not applied</td><td>-</td><td>-</td>
 *       <td>as raised</td><td>as raised</td></tr>
 *   <tr><td>stage</td><td>STARTED</td><td>not applied, staging and record removed</td><td>not applied, staging and record
 *       removed</td><td>not applied, staging and record removed</td><td>-</td><td>-</td><td>as raised, staging and record
 *       removed</td><td>not applied, staging and record removed</td></tr>
 *   <tr><td>check</td><td>STARTED</td><td>not applied, staging and record removed</td><td>not applied, staging and record
 *       removed</td><td>not applied, staging and record removed</td><td>-</td><td>-</td><td>as raised, staging and record
 *       removed</td><td>as raised, staging and record removed</td></tr>
 *   <tr><td>list</td><td>STARTED</td><td>not applied, staging and record removed</td><td>not applied, staging and record
 *       removed</td><td>not applied, staging and record removed</td><td>-</td><td>-</td><td>as raised, staging and record
 *       removed</td><td>as raised, staging and record removed</td></tr>
 *   <tr><td>rewrite</td><td>STARTED</td><td>not applied, staging and record removed</td><td>not applied, staging and record
 *       removed</td><td>not applied, staging and record removed</td><td>-</td><td>-</td><td>as raised, staging and record
 *       removed</td><td>not applied, staging and record removed</td></tr>
 *   <tr><td>commit</td><td>STARTED</td><td>not applied, staging removed (the record is the holder's)</td><td>not applied,
 *       staging removed (the record is the holder's)</td><td>not applied, staging and record removed</td><td>unknown,
 *       nothing removed</td><td>-</td><td>as raised</td><td>as raised</td></tr>
 *   <tr><td>publish</td><td>COMMITTED</td><td>plain append: not applied (the holder undoes it); others: incomplete (the
 *       holder finishes it)</td><td>plain append: not applied (the holder undoes it); others: incomplete (the holder
 *       finishes it)</td><td>plain append: undone, rolled back by itself; others: incomplete</td><td>-</td><td>not applied,
 *       rolled back by itself after a fence (if the fence or the claim fails: as lease lost)</td><td>plain append: undone,
 *       rolled back by itself; others: as raised</td><td>plain append: undone, rolled back by itself; others:
 *       incomplete</td></tr>
 *   <tr><td>published</td><td>COMMITTED</td><td>plain append: not applied (the holder undoes it); others: incomplete (the
 *       holder finishes it)</td><td>plain append: not applied (the holder undoes it); others: incomplete (the holder
 *       finishes it)</td><td>plain append: undone, rolled back by itself; others: incomplete</td><td>-</td><td>-</td>
 *       <td>as raised</td><td>as raised</td></tr>
 *   <tr><td>catalog</td><td>PUBLISHED</td><td>plain append: not applied (the holder undoes it); others: incomplete (the
 *       holder finishes it)</td><td>plain append: not applied (the holder undoes it); others: incomplete (the holder
 *       finishes it)</td><td>plain append: undone, rolled back by itself and its emptied partitions unregistered; others:
 *       incomplete</td><td>-</td><td>-</td><td>plain append: undone, rolled back by itself and its emptied partitions
 *       unregistered; others: incomplete</td><td>plain append: undone, rolled back by itself and its emptied partitions
 *       unregistered; others: incomplete</td></tr>
 *   <tr><td>end</td><td>PUBLISHED</td><td>plain append: not applied (the holder undoes it); others: incomplete (the holder
 *       finishes it)</td><td>plain append: complete if its files stand and its manifest was ended, not applied if it was
 *       claimed (unknown if S3 fails on the look); others: complete (the holder finished it)</td><td>plain append:
 *       unknown; others: incomplete</td><td>-</td><td>-</td><td>as raised</td><td>as raised</td></tr>
 * </table>
 * <i>Roll back</i>: delete its staging (and abort the uploads there), then abort the write's deferred uploads (found by
 * its recorded id) and delete the final keys its manifest lists (objects its own run created). Staging first: the write's
 * own process may have stalled inside its copies and resume, and once a copy's source is gone it fails, while a copy that
 * landed before is deleted with the final keys (in the other order a copy could land between the two and stay). Folders under {@code _tmp/} that are not wrangler's exact forms,
 * and open uploads whose id this table does not record (a nested table's, another tool's), are never touched. A manifest
 * whose table, write id or keys are not this table's (a table copied with its {@code _tmp/}) is refused and nothing is
 * touched. Manifests of wrangler 0.1 (format 1) record no state and are read as COMMITTED, with one exception: 0.1
 * kept the manifest of a published write whose catalog step was pending while later writes replaced its data, so when
 * any file of the table is younger than such a manifest, it gets only its catalog step (never a second publish).
 *
 * <p>Why fencing and CAS both: the manifest's CAS guards a write against every actor that has read the manifest, and
 * whoever takes the table over recovers first, so reads every manifest there is then. It cannot guard against a holder
 * that took over before the manifest existed, or against deleting what other writes made; so the creation (STARTED), the
 * commit point (COMMITTED), every delete batch of replaced files, every catalog change and every write a recovery resolves
 * are preceded by a fence, and so is the completion of every copy made in parts (an open upload outlives the deletion of
 * the object at its key, so a late completion would bring back a replaced file; a single CopyObject needs none: its
 * source is removed before any later write can replace its target, so a late one fails). What remains: a writer that
 * stalls longer than the lease's time to live exactly between a successful fence and the one request it guards can still
 * send that request; S3 has no multi-object transaction to close this. The time to live (10 s by default) makes it a
 * stall of the whole process or of its network (a GC pause, a suspended VM, a partition), not of one slow request: the
 * lease is renewed in the background every 2 s while a request is slow, each renewal on a thread of its own whether or
 * not an earlier one is still in flight, every lease request giving up an attempt after 1 s (half a renewal interval)
 * and retrying it on another connection, and a fence sends its own request without waiting for a renewal; so only a
 * writer none of whose renewals succeeds for 10 s loses it. With several of one holder's lease requests in flight, a
 * refusal (412, 409, 404) is a takeover only when the lease no longer holds that acquisition's token, and a success
 * counts only when it was answered within half the time to live of being sent (applied while the lease was the
 * holder's, and a takeover needs the whole time to live after it), so a renewal answered after a takeover never counts. Of the requests a late writer could still send, deletes of recorded old files and a
 * manifest's compare-and-swap are harmless late; a catalog change and the completion of a copy in parts (files over
 * the single-copy limit, 5 GB) are not, so each is fenced before every attempt, retries included: a retry loop (seconds of
 * backoff, with a 10 s lease) never sends an attempt after the lease was lost; what remains is the one attempt in flight
 * when the stall began. (The SDK retries every other request; it has no hook that may stop an attempt, so these two are
 * sent with its retries off and retried by {@code catalog.SdkRetries.fenced} with the same strategy. A fence whose own S3
 * requests still fail after their retries stops the step as it is, never retried by the fenced request); likewise a CopyObject that S3 accepted before a roll back deleted
 * its source and that completes only after the roll back deleted its target. And a writer that stalls after its record was rolled back,
 * opens deferred uploads and dies before its next fence leaves uploads no manifest records: invisible, never completed,
 * billed until a lifecycle rule {@code AbortIncompleteMultipartUpload} removes them (README recommends one).
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li><b>Validate</b> (no I/O but reads): URI, column names (unique, case-insensitively), partition columns
 *       (present, of a partitionable type, not every column), every data column's type, {@code OVERWRITE} of a
 *       bucket root, the catalog's {@code prepare} (read-only). The prepared commit holds the catalog's table as read
 *       here, before the lease and the recovery, so it may be stale by the catalog step (another writer's catalog step, or
 *       the catalog step of a write this one recovers): {@link io.wrangler.catalog.CatalogCommit#commit} must then
 *       re-read and retry (GlueTable re-reads on a ConcurrentModificationException). It stays here all the same: its
 *       refusals (a table registered at another location, a column type the input does not widen to) are bad input,
 *       refused before any object is written, and the lease and the recovery write objects. For an in-memory input (a root, records) every
 *       partition value, key length and timestamp is checked here too, and an empty input is decided
 *       ({@link io.wrangler.commit.EmptyInput}): refused for {@code OVERWRITE} (it would empty the table); for
 *       {@code APPEND} and {@code OVERWRITE_PARTITIONS} a no-op into a table that exists, and into one that does not
 *       (no object under its prefix, no catalog table) an {@code APPEND} of one file of no rows that carries the
 *       columns (unpartitioned; through every step below) or, partitioned with a catalog, the catalog's commit alone.
 *       Then a HeadBucket: a missing bucket is refused. Not sent when the validation listed the table (a write without
 *       a catalog into its own files' layout, {@code TableShape}): that listing, by the same client with the same request
 *       options, answered for the bucket (its failure is reported as the bucket's).
 *       <br><i>Crash:</i> nothing written.</li>
 *   <li><b>Lease</b>: the table's lease is taken (see Guarantees) and held until cleanup (its release is sent with the
 *       manifest's delete: "Why the release goes out with the end"); a write that cannot get it writes nothing. The
 *       check that the endpoint enforces conditional requests (two probes the lease refuses) is sent beside the write's
 *       first fence and the recovery's listings, and every fence waits for its answer: "The check of conditional
 *       requests". Modes that delete ({@code OVERWRITE}, {@code OVERWRITE_PARTITIONS}, partitioned or not: an
 *       unpartitioned one replaces the whole table; an {@code APPEND} with an idempotency key, which deletes its key's
 *       earlier files) are refused at a bucket root in the validate step.</li>
 *   <li><b>Recover</b>: interrupted writes, found by their folders under {@code _tmp/} (every write records itself
 *       there before its first upload, step 4), are finished or undone ({@link io.wrangler.commit.Recovery}), their deferred
 *       uploads found among the table's open uploads by the write id in their names; the table is then in a clean state
 *       before this write begins.</li>
 *   <li><b>Record</b>: after a fence, the manifest is created in state STARTED ({@code If-None-Match}): the write's id
 *       is recorded before its first upload, so recovery aborts only uploads whose id the table records. After the
 *       recovery, which would otherwise find this write's own STARTED record and roll it back.</li>
 *   <li><b>Stage</b>: files are encoded and uploaded to {@code _tmp/<writeId>/...} (multipart above the part
 *       size, bounded buffers, parallel uploads). A partition's folder is its escaped Hive folder, or the folder of the
 *       Location the write's catalog already registers it at under the table root (read before any I/O; for a streamed
 *       input as each partition is first seen, a refusal then removing what was staged), and the manifest records that
 *       folder, so publish, recovery and the catalog step use it exactly. For a streamed input, each batch's values are checked before
 *       it is staged; a bad value, or any failure, aborts the open uploads and removes {@code _tmp/<writeId>/}.
 *       A stream that interleaves more partitions than can stay open is spilled to a local file by partition and
 *       encoded from it at the end (see {@code io.wrangler.staging.Stager}); the spill is local, never part of the table, and deleted
 *       when the write ends.
 *       With {@code CommitMethod.DEFERRED_UPLOADS} each file is instead a multipart upload at its <i>final</i> key,
 *       created as the file opens (its round trip overlaps the encoding), its parts sent as they fill, the upload left
 *       open: nothing is visible there until it is completed.
 *       <br><i>Readers:</i> see the old table. <i>Crash:</i> leaves staged objects and maybe open multipart
 *       uploads under {@code _tmp/<writeId>/} (deferred: open uploads at final keys, their names carrying the write
 *       id, some with no part yet: their files were open) and the STARTED manifest: recovery removes them (roll back),
 *       finding deferred uploads with one listing of the table's open uploads.</li>
 *   <li><b>Manifest</b>: the old files are listed first (reads only; a write that finds another table's {@code _tmp/}
 *       inside its own is refused here: tables must not nest). For an input known in advance (a root, records: its
 *       partitions are known from the validation pass) this listing runs while step 5 stages, after the lease and the
 *       recovery: the files this write publishes cannot be among them (they carry its new write id and are not at their
 *       final keys yet), and a file that appears between the listing and the commit point is not recorded, so it is
 *       never deleted, as for a listing after staging; the early listing is used only when it covers exactly the staged
 *       partitions (one more would have its files deleted, one fewer would keep them), otherwise the write lists again. Then the lease is checked (fencing) and the manifest
 *       moves from STARTED to COMMITTED with every file: mode, partitions, staged and final keys (deferred: upload ids
 *       and part ETags), sizes, row counts, schema, catalog, and the keys of the old files it replaces. <b>This CAS is the commit point
 *       of an overwrite and of a keyed append.</b> A compaction ({@code S3Parquet.compact}: an {@code OVERWRITE_PARTITIONS}
 *       with a {@link io.wrangler.commit.WriteSpec.Replacement}) lists nothing here: it first reads its staged files back
 *       and checks them against the rows it read (a mismatch removes its staging: not applied), then records as replaced
 *       exactly the files it read (listed before it took the lease), so a file that came into its partitions since is
 *       never deleted (it refused, before the lease, any file it read that lies outside its partition's folder in the
 *       table, so it never records one elsewhere; bucket files are rewritten into files of their own bucket number); from here on it is an overwrite in every row of the state table.
 *       A delete of rows and a drop of partitions ({@code S3Parquet.deleteRows}, {@code dropPartitions}:
 *       {@code io.wrangler.compact.Removals}) are such replacements too, with what they keep as input: a delete stages the
 *       unmatched rows of the files holding a match, a drop stages nothing. A replacement that staged no file but
 *       replaces some is not a no-op (the operation answers, {@code Operation.nothingToDo}); its manifest records, beside
 *       the partitions it staged, those of the files it replaces with 0 rows ({@code Replacement.touched}), and its catalog
 *       step, as a recovery's, registers the partitions whose folder holds files and removes from the catalog those left
 *       without ({@code Operation.catalogChange}, {@code CatalogStep.split}). Both look at the table again under the lease,
 *       in their check, and refuse (a conflict, staging removed) when a file came into their scope since they listed it
 *       that holds a row they remove.
 *       A merge by key ({@code S3Parquet.merge}, {@code io.wrangler.merge}) is the same replacement: the files holding a key
 *       it updates are read under the lease and rewritten without those keys' rows (key runs kept, as a compaction keeps
 *       them), its check lists the partitions it matched in once more, under the lease, and refuses the commit (not
 *       applied) when they hold other files than it planned with, then reads its staged files back; it records as
 *       replaced exactly the files it rewrote. Recovery deletes exactly the recorded old files, never a file
 *       written after the commit point (by a table nested in this one, or a writer without the lease); manifests
 *       without that list (wrangler 0.1's) are listed again, counting only files no younger than the manifest, and a
 *       nested table's staging met there is refused. A CAS that fails on every retry may still have been applied with
 *       its answers lost: the writer reads the manifest back before it cleans up anything; if it holds the COMMITTED
 *       record the write goes on (it is committed); if it is PUBLISHED, COMMITTED otherwise, or gone (an overwrite or keyed
 *       append: a recovery that took the table over during the retries may have rolled it forward), or cannot be read,
 *       the write stops with {@code CommitStateUnknownException}, removing nothing (cleaning up a committed write's
 *       staging or uploads would leave a record no recovery can finish); otherwise it is undone as before. A retry
 *       answered 412 is read the same way, except that a manifest gone there is reported as not applied.
 *       <br><i>Crash after it:</i> an overwrite or keyed append is rolled forward by recovery; a plain append is rolled
 *       back.</li>
 *   <li><b>Publish</b>: (a) list the old files of the touched partitions by their exact folders with trailing slash
 *       ({@code country=R/} never matches {@code country=RU/}), and only the objects directly in each folder (a deeper one
 *       may be another partition's: awswrangler registers {@code country=a/b c=d:e/} inside {@code country=a/}); partitions sharing a first folder are listed with one
 *       listing of it, filtered to their exact folders; the listings run at once, on the write's request threads; the whole
 *       table for {@code OVERWRITE}. {@code _tmp/} and the
 *       files this write publishes (its manifest's final keys) are never old files. {@code APPEND} lists nothing,
 *       except a keyed append ({@code idempotencyKey}), whose old files are those an earlier run with the same key left directly in its partitions' folders (never
 *       deeper: without partition columns the folder is the table root, and a table below it may carry the same key):
 *       the unmarked files carrying the key's id, and the marked files there whose footer runs include the key (one GET
 *       of each marked file's footer). Each such marked file is written again without the key's rows, its other runs
 *       kept (so their keys stay rerunnable) and the time its rows were committed recorded in its footer
 *       ({@code wrangler.committed}: the file's own record, else its LastModified; dedup's tie order reads it), as a marked
 *       file of this write staged under {@code _tmp/<writeId>/}
 *       ({@code KeyedRewrite}, before the manifest step), and recorded as replaced; a marked file holding only the key's
 *       rows is replaced with no rewrite. The rewrites are files of the manifest like the write's own, so readers see the
 *       table before or after and recovery finishes or undoes them with the write; rows of other keys and unkeyed rows
 *       are never lost or doubled. A compaction of files holding keyed rows ({@code CompactBuilder}, {@code KeyedInput})
 *       carries each row's key id as a hidden last input column through partitioning and spilling; the encoder turns it
 *       into the footer's runs, and the check before its commit point compares each new file's runs, per key, with the
 *       rows it read and kept (rows dedup drops are in no run).
 *       (b) copy every staged file to its final key (CopyObject, UploadPartCopy above 5 GB), in parallel; for
 *       deferred uploads, complete each upload with the part ETags the manifest lists (no byte is copied). A
 *       completion whose answer was lost is retried and found done by its object. An upload aborted meanwhile (a
 *       lifecycle rule {@code AbortIncompleteMultipartUpload}) cannot be completed: as no old file has been deleted
 *       yet, the write is undone (its completed files deleted, its open uploads aborted, its staging removed) and
 *       fails; recovery does the same when it meets such a write.
 *       (c) delete the old files with DeleteObjects in batches of at most 1,000, each right after a fence, reading per-key
 *       errors. (d) delete the staged copies: started once every file of (b) is in place, alongside (c) (a recovery that
 *       then finds a staged copy gone finds its file at the final key with its size, and counts it copied); (e) add the
 *       write's entry to the table's commit log, also started once every file of (b) is in place, alongside (c) and (d)
 *       (see "The commit log"); then, once (c), (d) and (e) are all done, CAS the manifest to PUBLISHED: it is never
 *       published again, and a PUBLISHED write is in the log. A write without a catalog skips this CAS and goes on to
 *       its end from COMMITTED (see "Why a write without a catalog skips PUBLISHED").
 *       <br><i>Readers:</i> during (b) and (c) a partition may show old and new files side by side (rows
 *       doubled for a moment); never a partition with neither, because nothing is deleted before every new
 *       file is in place. Nothing outside the touched partitions (the table root for {@code OVERWRITE}) is ever
 *       deleted. <i>Crash:</i> recovery repeats publishing, which is idempotent (copies repeat the same bytes;
 *       deleted files are no longer listed) for an overwrite, or deletes this write's published files for an
 *       append.</li>
 *   <li><b>Catalog</b> (when a catalog is set): the {@link io.wrangler.catalog.CatalogCommit} prepared in step 1
 *       creates or updates the table and registers the written partitions, fenced before every change. It must be
 *       idempotent.
 *       <br><i>Refusal:</i> an overwrite or keyed append is committed and stays PUBLISHED
 *       ({@code WriteIncompleteException}); a recovery with the catalog (or the next write with it) runs only the
 *       catalog step, registering the table as it is then, and never publishes the data again. A plain append rolls
 *       itself back ({@code CatalogException}: nothing changed, rerun). A recovery without the catalog leaves the
 *       write {@code catalogPending}, its manifest kept, its data untouched.</li>
 *   <li><b>Cleanup</b>: the manifest is deleted with a conditional DELETE on its ETag
 *       ({@code WriteLog.end}): the end of the write, and the commit point of a plain append (a recovery that claimed it
 *       first makes it fail).
 *       The lease's release (its conditional delete) is sent at the same moment, not after the manifest's answer.
 *       <br><i>Crash before the manifest DELETE:</i> as a crash in the catalog step: an overwrite or keyed append (PUBLISHED) gets its catalog step again, never a
 *       second publish (without a catalog: COMMITTED, its publish repeated, which finds every file in place and every
 *       old file gone); a plain append is rolled back, which is what makes its rerun add the rows exactly once. <i>After it:</i> the write is complete. A crash
 *       between that last DELETE and the caller seeing the result cannot be told from success: rerunning an
 *       append then adds its rows again, as rerunning any completed append does.</li>
 * </ol>
 *
 * <h2>Round trips: what a write waits for one after the other</h2>
 * A write's time against a slow network is its requests that cannot overlap. What the protocol sends in order, for an
 * overwrite without a catalog (the standard table, 200 files, 48 in flight, a 50-connection pool): the validation's
 * listing and footer GET (before any object is written, as bad input is refused before that); the lease's create; its
 * first fence, the check of conditional requests and the recovery's two listings, at once; the STARTED record; the
 * staging (5 or more waves of 48 uploads; deferred: a create and a part per file); the fence; the CAS to COMMITTED;
 * the copies or completions (5 waves of 48); the fence; the delete batch, beside the staged copies' removal and the
 * log's entry; the manifest's delete and the lease's release, at once. The decisions that took steps out of that chain:
 * <ul>
 *   <li><b>The check of conditional requests</b> rides with the write's first fence. A lease is worth nothing on an
 *       endpoint that ignores {@code If-None-Match} and {@code If-Match}, so every acquisition probes both (a second create
 *       and a delete on a wrong ETag, each of which must be refused). Between the lease's create and its first fence the
 *       write only reads (the recovery's listings), so the probes need not be answered before those are sent; every fence
 *       waits for their answer after sending its own request, so nothing is written under a lease (the record, a
 *       recovery's change) before the endpoint is known to enforce them. One that does not is refused at the lease step
 *       as before, the lease object removed once this holder's requests in flight are answered, nothing written. The
 *       probes and the fence name the same key: an endpoint that answers a fence 409 (a conditional request racing
 *       another) costs that fence a read and a second try, as two renewals racing do. A recovery run alone
 *       ({@code S3Parquet.recover}) and the catalog-only operations still wait for the probes at the lease. Not
 *       remembered per client and bucket: a check per acquisition costs nothing now, and keeps no state between writes.</li>
 *   <li><b>Why a write without a catalog skips PUBLISHED.</b> PUBLISHED exists for the catalog step: it marks a write
 *       whose data is final while its catalog step may still be pending, so that a later recovery runs only that step and
 *       never publishes stale data again after later writes replaced it (a write left catalogPending by a recovery
 *       without its catalog lets later writes run). Without a catalog nothing comes between the publish and the end, no
 *       recovery leaves the write pending, and every later write recovers first, so it can never run while this write's
 *       manifest exists: a crash between the deletes and the end leaves COMMITTED, which recovery rolls forward, and that
 *       publish finds every file at its final key with its size (the staged copy gone counts as copied; a completed
 *       upload is found done) and every recorded old file gone: the same table, the same one log entry (recovery adds
 *       none when the log holds the write's). Every state this reaches was reachable before (a crash after the deletes,
 *       before the CAS). Readers show a COMMITTED write whose recorded old files are gone as after, as they show a
 *       PUBLISHED one; a plain append is hidden until its end either way. Outcomes decides COMMITTED and PUBLISHED alike
 *       at every step. A recovery's roll forward still records PUBLISHED (it is not on any write's critical path).</li>
 *   <li><b>Why the release goes out with the end.</b> Nothing after the manifest's delete needs the lease: a plain
 *       append whose delete is refused only reads its first file to tell its outcome. A holder that takes the lease the
 *       moment it is released must still create, probe and list before it reads any manifest; if the manifest's delete
 *       is slower than that (retries), that holder finds the write as it is and decides it by the manifest's
 *       compare-and-swap, as at any step: a COMMITTED overwrite is rolled forward (idempotent, above) and this writer's
 *       end then fails superseded, reported complete; a plain append is claimed and undone, and this writer's end fails
 *       and reports it not applied (its files gone), or ends it first and the claim fails. Exactly one outcome either way.</li>
 *   <li><b>Not taken out</b>, each because it would weaken a guarantee: the validation's listing and footer GET beside
 *       the lease's create (bad input must be refused before any object is written, the lease included); the STARTED
 *       record beside the recovery's listings (the record must come after the recovery, which would otherwise find it;
 *       and a write must not record itself before its first fence answered); the fences before COMMITTED and before each
 *       delete batch sent beside the requests they guard (a fence proves the lease before the request goes out; sent
 *       together, a stalled writer's commit or delete would go out unproven); a 50th copy in flight (the pool's two
 *       spare connections keep a renewal or fence from waiting behind 48 copies for longer than its 1 s attempt timeout,
 *       which would cost the lease; 200 files at 50 would be 4 waves instead of 5).</li>
 *   <li><b>Not yet done</b>: a fence whose compare-and-swap is refused because a renewal sent just before it changed
 *       the ETag first reads the lease and swaps again (two round trips). Taking that renewal's success as the fence's
 *       proof instead is sound on a real clock (it was applied while the lease was this holder's, at most an attempt's
 *       timeout before the fence, and counts only if answered within half the time to live), but the tests take leases
 *       over by moving S3's clock, where a takeover can follow a renewal at once; it needs a rule on how old such a proof
 *       may be that those tests can hold to.</li>
 * </ul>
 *
 * <h2>The commit log</h2>
 * Every write that commits records itself once in the table's commit log ({@link io.wrangler.layout.CommitLog}):
 * {@code <table>/_wrangler/log/<seq / 1000, 10 digits>/<seq, 19 digits>.<writeId>.json}, numbered 1, 2, 3, ... in commit
 * order, holding its write id, kind, the files it added (key, folder, bytes, rows), the keys it replaced, and whether a
 * compaction kept every row. Incremental reads ({@code ReadBuilder.committedAfter}) read it; nothing of the protocol
 * above depends on it. Outside {@code _tmp/} because it is not temporary (a lifecycle rule or a hand cleanup of
 * {@code _tmp/} must not take it) and so that readers' listing of {@code _tmp/} does not grow with it; the overwrite's
 * listing of old files and recovery's listing of files younger than a 0.1 manifest leave {@code _wrangler/} out.
 * <ul>
 *   <li><b>Who writes it, when.</b> The {@link io.wrangler.commit.Transaction}, for every operation alike, in its publish
 *       step: sent once every file of the write is in place (copies or completions done: past the last point where a
 *       write other than a plain append can still be undone, its deferred uploads gone), on a thread of its own beside
 *       the deletes of the old files and of the staged copies, and awaited before the CAS to PUBLISHED, so a PUBLISHED
 *       write is logged and no plain append commits unlogged. A write with a catalog sends it after its catalog step
 *       instead, right before the manifest's deletion: a plain append undone at its catalog step (a table dropped
 *       meanwhile) then leaves no entry and retraction behind. It adds no round trip: it overlaps the deletes, and nothing
 *       is sent before the commit point. Sending it before the catalog step and the manifest's deletion is safe because
 *       a reader acts on an entry only once its write has ended (below); a write that fails after it is either finished
 *       (its entry stands: recovery finds it and adds none) or, a plain append, undone and retracted. Its number is the
 *       last entry's plus one, found by a listing started beside the staging once the recovery is done (the recovery may
 *       log). The PUT is a conditional create: a number is taken once; a number taken meanwhile by an entry of the same
 *       write (a recovery's) ends the step, by another write's fences and takes the next.</li>
 *   <li><b>A damaged entry</b> (gone after its listing, not parseable, or refused: never left by a wrangler write, as
 *       each entry is one PUT) does not stop the table: a writer that finds its last entry damaged numbers its own entry
 *       after it, takes the log's id from the newest entry it can read (a new id when none can be read), and logs a
 *       WARNING naming the entry and what to do. An incremental read whose range crosses a damaged entry fails with an
 *       {@code InvalidReadException} naming it (no delta across it can be told, never a silently wrong one); a read
 *       {@code withMark()} returns a mark past it, from which deltas read on. Recovery reads only the
 *       entries of the write they finish, and fail on one of those that is damaged.</li>
 *   <li><b>Recovery</b> writes the entry of a write it finishes (roll forward, or catalog step), right before it ends it,
 *       unless the log holds one of that write already; and, for a plain append past STARTED that it rolls back, a
 *       {@code ROLLED_BACK} entry (unless one is there) after its claim and before its files are deleted: a reader that
 *       met the append's entry and then finds its record gone finds its files gone too, and fails (rerun) rather than
 *       return them. A stalled writer of that append that logs itself late uses the same name (same number, same write
 *       id) and is refused by S3. A plain append that rolls itself back after sending its entry retracts it the same way.</li>
 *   <li><b>Readers</b> list the log after the mark, then {@code _tmp/}: an entry whose write still has a folder there has
 *       not ended, and the range stops before it (a retracted write excepted). Entries are parsed strictly and checked
 *       (this table, the name's number and write id, only keys of this table's data files carrying that id, replaced keys
 *       in the table) before anything is read on their word.</li>
 *   <li><b>Not atomic with the data</b>: a write's entry and its end are two requests; between them a reader of the log
 *       waits for the end (above), and a read of the table {@code withMark()} that meets a write between its commit
 *       record and its end has no mark (it says so).</li>
 * </ul>
 * <h2>Catalog-only operations: register, repair, drop table</h2>
 * {@code S3Parquet.register}, {@code repairCatalog} and {@code dropTable} ({@code io.wrangler.tableops}) write no data
 * file, so they take a short path of their own, {@link io.wrangler.commit.CatalogOnly}: validate (their plan, reads
 * only; every refusal here, but that a refusal of register or repair waits for the plan made again after the recovery
 * when writes are pending under {@code _tmp/}, whose recovery may settle it), lease, recover (with their catalog; not for a drop of the data, whose writes in flight go
 * with the table), plan again, the change (each catalog request, and each delete batch of a drop, preceded by a fence),
 * release. No manifest: each change is idempotent (a partition already registered or already gone counts as done, a
 * table already deleted too), so a crash at any point leaves part of the change and a rerun finishes it; recovery and
 * readers never meet anything of theirs under {@code _tmp/}. A drop of the data deletes every object under the table's
 * prefix but the lease, {@code _tmp/} included, then aborts the open uploads there, and releases the lease last: a
 * writer whose lease it took over fails at its next fence; one waiting for it writes a new table after it. Failures
 * ({@code Outcomes.catalogOpFailed}): before a change was made, not applied (a lost lease a CommitConflictException,
 * S3 a StorageException, the catalog a CatalogException); after, a WriteIncompleteException (rerun to finish). A first
 * request its service refused (4xx, not a timeout) is not a change made.
 *
 * <h2>Distributed writes (wrangler-spark)</h2>
 * A write whose files other processes encode ({@link io.wrangler.commit.Transaction#begin(io.wrangler.commit.WriteSpec,
 * org.apache.arrow.vector.types.pojo.Schema)}, {@link io.wrangler.commit.TaskStager#stageTask}, {@code Transaction.commit}
 * / {@code abort}) takes the same steps with the stage step spread out: the process that began it
 * (Spark's driver) validates, takes the lease, recovers and records the write (STARTED) before any task runs, and renews
 * the lease while they run; each task attempt stages its rows under {@code _tmp/<writeId>/} with the same checks, encoder
 * and Hive folders, its file names prefixed with its task and attempt ({@code t00007-a1-part-...}), so that two attempts
 * never write the same key; the beginning process then hands {@code commit} the files of exactly the attempts that
 * counted (Spark's: one per task). Before the commit point, {@code commit} checks what the messages name: each file once
 * (a message handed twice adds nothing), never files of two attempts of one task ({@code t00007-a0-} and {@code
 * t00007-a1-}: both hold that task's rows; refused, not applied, as no choice between them is known to be right), its final key exactly its staged key's place under the table root (never under
 * {@code _tmp/}, never a file without this write's id in its name, so never another write's file) and in the Hive folder of a
 * partition the messages list (else an overwrite would publish it without replacing its partition), and every staged file
 * listed in the staging folder with its size (one listing); a file gone is refused (not applied; after a fence, so a
 * writer whose record was rolled back meanwhile reports the conflict), as past the commit point an overwrite with a
 * staged file gone could be neither finished nor undone and every later recovery would fail on it. From there the write
 * is the single-process write: manifest (commit point),
 * publish, catalog, cleanup, which removes the staging folder whole, with what failed or duplicate attempts left there.
 * The manifest is the same, so recovery cannot tell the two apart and either kind may follow the other on a table. A
 * crash of the beginning process before its commit point leaves a STARTED write (rolled back by the next recovery). A
 * task attempt that does not count (failed, cancelled, or the loser of a speculative pair, which may still be running
 * after the write ended) deletes the files it staged once its stager has stopped (wrangler-spark's {@code
 * TaskWriter.abort}, or its stager thread if the abort stops waiting: the names carrying its own attempt prefix, never
 * named by a commit since its commit message never left); only an attempt whose process dies (or whose deletion fails)
 * can leave objects in {@code _tmp/<writeId>/} after the write ended, with no manifest: the next recovery deletes them
 * (first row of the state table). Partitions are looked up in the catalog at the commit, not as
 * tasks meet them: one registered elsewhere than its Hive folder is refused there (nothing applied). With bucketing,
 * each task hashes its rows to buckets as a single-process write does, so a bucket of a partition may get a file from
 * each task (names and manifest as a single-process write's; recovery cannot tell them apart). Not supported (refused
 * before any I/O): {@code dtype}.
 *
 * <p><b>Deferred uploads in a distributed write.</b> With {@code CommitMethod.DEFERRED_UPLOADS} (the driver's spec and
 * every task's) each task attempt's files are multipart uploads at their final keys, every part sent, left open; their
 * names carry the attempt ({@code t00007-a1-}) and the write id, and the attempt's message carries each upload's id and
 * part ETags. An attempt that fails aborts its own uploads (the stager's cleanup), and an attempt that does not count
 * aborts those still open with its own prefix and the write id (wrangler-spark's {@code TaskWriter.abort}: its stager may
 * have finished while Spark killed it in its commit); one whose executor dies, or whose aborts fail, leaves them open. Before the commit point, {@code commit} checks each reported file as above (its final
 * key carries exactly this write id, as recovery reads it) and lists the table's open uploads once: every reported
 * upload must be open at its key (one gone is refused, not applied, after a fence); then the open uploads carrying this
 * write id that no counted attempt reported (failed or losing attempts') are aborted ({@code Recovery.abortStray}, the
 * rule a recovery applies), and only then is the manifest moved to COMMITTED with exactly the reported uploads. A
 * failure of those aborts leaves the write not applied (its own roll back). Publish completes the listed uploads.
 * {@code abort} aborts every open upload carrying the write id ({@code Staging.abortDeferred}: each one tried, the first
 * failure reported); what it cannot abort stays with the STARTED record, and the next recovery rolls the write back,
 * aborting every upload with its id. A driver that dies leaves the STARTED (or later) record, and recovery does the
 * same: roll back aborts all of them, roll forward aborts those its manifest does not list before it completes the
 * others.
 *
 * <p>Why an abort here can never lose data: an upload is aborted only if it carries this write's id in its file name
 * and its upload id is not among the files this write commits. Only this write's manifest can list a file carrying its
 * id (every write checks that its files carry its own id; ids are unique per run), and that list is set once, by this
 * writer's own CAS from STARTED to COMMITTED, with exactly the files whose uploads were spared; no actor completes an
 * upload that no manifest lists. So who else may act at that moment changes nothing: a holder that took the lease over
 * (or an operator's recovery) can only roll this STARTED write back, aborting all of its uploads anyway, and this
 * writer's CAS then fails (not applied); a stalled writer is this one; another write's uploads carry another id; a
 * zombie attempt's uploads are never listed. No fence is needed before these aborts for that reason, and none would
 * close the remaining gap, which is a zombie's: an attempt still running after the driver listed the open uploads (a
 * losing speculative attempt that was not interrupted, an executor cut off from the driver) can open an upload later,
 * before or after the write's end. It carries the write id but is listed by no manifest, so it is never completed and
 * never visible; a recovery that runs while the record exists aborts it, but once the write has ended no record names
 * its id, and recovery never aborts an upload outside {@code _tmp/} without a record (it could be a nested table's or
 * another tool's). It is billed until the bucket's lifecycle rule {@code AbortIncompleteMultipartUpload} removes it
 * (README recommends one, longer than any write): the same rule that removes a stalled single-process writer's late
 * uploads (see "Why fencing and CAS both").
 *
 * <h2>Readers</h2>
 * {@code S3Parquet.read} ({@link io.wrangler.layout.Visibility}) reads every manifest under {@code _tmp/} before it
 * lists data files, and leaves out: everything under {@code _tmp/}; the files carrying the write id of a plain append
 * with a manifest (in any state: its commit point is the manifest's deletion); those of a STARTED or ABORTING write; and
 * for a COMMITTED overwrite, keyed append or compaction, either its new files (while every old file it records in
 * {@code replaces} is still listed in the read's scope: the table as before) or the old files it records (once one of
 * them in the scope is gone, which happens only after all its copies are in place, and its new files are in place too:
 * those in the scope listed, or, when none is, the first found by a HEAD: the table as after). A manifest's word that
 * a file it replaces is gone is never enough alone: a key that never existed would show its partitions with neither. The scope is
 * everything the read covers, listed or not: the whole table for an unfiltered read, every partition folder the filter
 * admits (one the write emptied included, though no listing shows its folder any more), every partition the catalog
 * registers and the filter admits for a read through a catalog, decided once for all of them, never partition by
 * partition. Through a catalog, the partitions a COMMITTED or PUBLISHED write adds that the catalog does not register
 * yet (its catalog step comes after its publish) are listed too, and that write's own files there are shown once it
 * shows as after. A PUBLISHED write is shown as it is (its old files are deleted). A manifest gone between the listing
 * of {@code _tmp/} and its GET has ended and is skipped; one that cannot be fetched (any other S3 failure) or parsed
 * fails the read ({@code ReadException}: retry), as taking it for absent could show a committed overwrite's old and new
 * files together. A reader takes no lease and changes nothing: a write that changes state between the reader's look at
 * {@code _tmp/} and its listing can still show half, and a file deleted after the listing fails the read, which is
 * then rerun. A distributed read ({@code io.wrangler.spi.DistributedRead}, Spark's {@code format("wrangler")}) decides
 * all this once, in the driver's one listing; its tasks read exactly the files it listed, so a file deleted after that
 * listing fails the task that reads it (never skipped: the query fails, it does not return part of the table).
 *
 * <h2>What each decision relies on</h2>
 * Every decision below is made from a whole listing (every page) or from one object's own state, never from the first
 * entries of a LIST, from how names sort, or from one request being answered in time:
 * <ul>
 *   <li>A write is running or interrupted ({@code plan().recoveryPending()}, a compaction's recover-first, the recovery
 *       itself): a folder directly below {@code _tmp/} named like a write id of any form (plain, keyed of 0.1 or now),
 *       from a LIST with delimiter of every page ({@code Recovery.hasWriteFolders}, {@code Recovery.run}); other objects
 *       and folders there (another tool's, a user's) are neither counted nor able to hide one. Recovery adds every open
 *       upload of the table (ListMultipartUploads, every page) carrying a write id.</li>
 *   <li>A write's fate: its manifest's state alone ({@code WriteLog.resolve}), changed by compare-and-swap on its ETag.</li>
 *   <li>The lease is held: the lease object holds this acquisition's token (its compare-and-swap succeeded, answered
 *       within half the time to live; or a refusal was followed by a read that shows its token). Every renewal writes a
 *       number of its own, so it changes the ETag: a takeover's swap on an expired lease's ETag fails once the holder
 *       renewed after the takeover read it. Expired: its
 *       Last-Modified against S3's Date of the same answer, never the local clock.</li>
 *   <li>The files an overwrite replaces, a keyed rerun's earlier files, a compaction's input: full listings of the
 *       partitions' folders (every page); files whose names are not wrangler's exact forms are another tool's.</li>
 *   <li>The files of a distributed write: the messages handed to commit, each checked against one full listing of the
 *       staging folder (or of the open uploads), at most one attempt per task by the attempt mark of the names.</li>
 *   <li>A read's partition columns: the first partition folder found at each depth, from the first entries of a LIST when
 *       they show one, and from every folder (every page) when they do not.</li>
 * </ul>
 *
 * <h2>Trust: what is read from {@code _tmp/}, and what is checked before it is acted on</h2>
 * What a table's {@code _tmp/} holds is input, not truth: whoever can put an object there (a hand edit, a bug, a copied
 * folder) often has narrower permissions than the jobs that act on it, so nothing read from there makes a recovery, a
 * write, a reader or a catalog step act beyond the table. What is read: the lease ({@code _tmp/_lease.json}), each
 * write's manifest ({@code _tmp/<writeId>/_manifest.json}), the names of staged objects and of open uploads.
 * <ul>
 *   <li><b>Manifests</b> are parsed strictly ({@code Manifest.fromJson}: a missing required field, a value of the wrong
 *       type, an enum given as a number are refused) and then checked by one class, {@code ManifestTrust}, which
 *       recovery ({@code WriteLog.read}: so every write's and compaction's recover-first, {@code S3Parquet.recover} and
 *       the catalog step) and readers ({@link io.wrangler.layout.Visibility}: {@code S3Parquet.read}, a compaction's
 *       listing) apply alike: the table is this table; the write id is its folder's; a key id is the write id's; every
 *       partition folder is a plain relative folder (no empty, {@code .}, {@code ..} or {@code _tmp} segment, none that
 *       percent-decodes to one, no backslash or control character), {@code ""} exactly when there are no partition
 *       columns, with one value per partition column; every final key lies directly in one of those folders under the
 *       table root (never under any {@code _tmp/}) and carries the write id in its name (so roll back deletes only
 *       objects this write created); every staged key lies in the write's own folder (not its manifest); every replaced
 *       key lies under the table root, outside every {@code _tmp/}, written plainly, and is not one of the write's own
 *       files; a catalog's schema can be read. A manifest that fails is refused with nothing touched: recovery and every
 *       write with a {@code CommitStateUnknownException}, readers with a {@code ReadException}, both naming the
 *       manifest, why, and what to do (it is never skipped: hiding or showing its files on its word could drop or
 *       double rows). A replaced key that no longer exists is fine for recovery (its delete is idempotent); readers take
 *       it as a sign of "after" only with the write's new files in place (see Readers).</li>
 *   <li><b>Request settings</b>: a roll forward publishes with the encryption, KMS key, ACL and expected bucket owner of
 *       the job that recovers, never with a manifest's: a manifest that records other settings (than that job's) is
 *       refused, nothing touched, and the write is recovered by rerunning a write or compaction with its settings.
 *       Refusing rather than publishing with the recovering job's own settings, because those would silently change the
 *       encryption or ACL its writer chose for its files. The data files' storage class and tags are not recorded: a
 *       roll forward's copies take the recovering job's (none when it sets none).</li>
 *   <li><b>Catalog</b>: recovery's catalog step decides on the Locations the catalog registers, never on a manifest's
 *       folder alone: a partition the catalog registers at another Location than the manifest records is left as the
 *       catalog has it (neither moved nor removed), a partition is removed only when the folder it is registered at
 *       holds no file, and nothing is registered outside the table (folders are checked above).</li>
 *   <li><b>The lease</b> is parsed as JSON ({@code owner}, {@code token}, {@code ttlMillis}). One that cannot be read
 *       (not a JSON object, or its {@code ttlMillis} missing, not a whole number or beyond a long) is not an error
 *       that blocks the table for ever, nor taken as free: it is read as a lease of the default time to live (10 s)
 *       renewed when its object was last written, so it is taken over (by the same compare-and-swap) once that object is
 *       older than that, as a crashed holder's would be; a writer that gives up waiting before then gets a
 *       {@code CommitConflictException} naming the lease and the command that removes it. Chosen over refusing outright
 *       because a refusal needs a person to act, and the only harm of taking over an unreadable lease, that its writer
 *       is alive, is the harm the time to live already accepts for every lease.</li>
 *   <li><b>Names</b>: folders under {@code _tmp/} are acted on only when their name is a write id; open uploads only
 *       under such a folder, or at a final key whose name carries a write id this table records.</li>
 * </ul>
 *
 * <h2>Readers of listed files</h2>
 * Every operation that lists files and then reads them (a read; a compaction's footers, options' check and input; a
 * dry run's and a keyed rerun's read of marked files' key runs; the rerun's rewrite of them) relies on one fact only: a
 * 404 ({@code NoSuchKey}, {@link io.wrangler.storage.Removed}) on a key listed moments before means another write
 * removed it, since no step of this protocol deletes a data file it has not replaced. It is typed the same way in
 * every phase: a {@code CommitConflictException} (nothing of the table changed, rerun) where a commit is involved, a
 * {@code ReadException} saying the table changed while it was read for a read (the caller reads again: batches already
 * returned cannot be taken back). Any other failure of such a read keeps its own type.
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
 *       {@code _tmp/_lease.json}, taken with a conditional create, with a token of its own acquisition) from before
 *       recovery until its cleanup (released with the manifest's delete), renews it while it runs, and proves it still holds it (a compare-and-swap) before
 *       every step the state table fences; its release is a conditional delete on its own ETag. A second writer waits
 *       up to {@code leaseWait}, then fails with a CommitConflictException (rerunning is safe). A crashed writer's lease
 *       expires after its time to live (10 s by default; renewed every 2 s), measured on S3's clock with its Last-Modified
 *       counted one second late for its whole seconds: it is taken over 11 to 13 s after its last renewal. A writer that finds its lease
 *       taken over stops and reports what it left: before its commit point not applied, after it incomplete (the new
 *       holder finishes it), a plain append not applied (the new holder undoes it).</li>
 *   <li>Outcomes: every exception of {@code to()} and {@code recover()} is a {@code WranglerException} whose type says
 *       whether the write took effect: {@code WriteNotAppliedException} (nothing changed, rerun),
 *       {@code WriteIncompleteException} (committed, recovery finishes it, never undoes it),
 *       {@code CommitStateUnknownException} (recover first, then look).</li>
 * </ul>
 */
package io.wrangler.commit;
