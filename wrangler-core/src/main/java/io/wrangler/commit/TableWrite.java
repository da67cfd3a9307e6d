package io.wrangler.commit;

import io.wrangler.CatalogException;
import io.wrangler.CommitConflictException;
import io.wrangler.CommitMethod;
import io.wrangler.CommitStateUnknownException;
import io.wrangler.InvalidWriteException;
import io.wrangler.PartitionResult;
import io.wrangler.RecoveryResult;
import io.wrangler.StorageException;
import io.wrangler.WranglerException;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableDefinition;
import io.wrangler.encoding.ArrowSchemas;
import io.wrangler.encoding.FileEncoder;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.encoding.TimestampPolicy;
import io.wrangler.encoding.UnsupportedTypeException;
import io.wrangler.input.BatchSource;
import io.wrangler.input.CastingSource;
import io.wrangler.input.Casts;
import io.wrangler.input.HiveTypes;
import io.wrangler.partition.Buckets;
import io.wrangler.partition.HivePaths;
import io.wrangler.partition.PartitionKey;
import io.wrangler.partition.PartitionValues;
import io.wrangler.partition.Partitioner;
import io.wrangler.staging.Stager;
import io.wrangler.staging.StagingContext;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.storage.Uploads;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A TableWrite runs one write through the commit protocol of this package: validate, lease, recover, record, stage,
 * manifest, publish, catalog, cleanup. See {@code package-info.java} for what each step leaves behind.
 */
public final class TableWrite {
    private final WriteSpec spec;
    /** The write's fencing check (the lease's compare-and-swap renewal), once it holds the lease. */
    private Runnable fence = () -> { };
    private final S3Location location;
    private final String table;
    private final TimestampPolicy timestamps;
    /** Where this write's partitions go ({@link PartitionFolders}); set once validation knows the partition columns. */
    private PartitionFolders folders;
    /** The threads {@link #beside} started for this write (its early listing, its staged copies' removal). */
    private final List<Thread> besides = Collections.synchronizedList(new ArrayList<>());

    private TableWrite(WriteSpec spec, S3Location location) {
        this.spec = spec;
        this.location = location;
        this.table = location.uri();
        this.timestamps = new TimestampPolicy(spec.keepNanos(), spec.int96());
    }

    /** Runs the write of {@code source} described by {@code spec}. */
    public static WriteResult run(WriteSpec spec, BatchSource source) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.VALIDATE);
        return new TableWrite(spec, location).run(source);
    }

    /** A write of an input with no rows and no schema (an empty collection of records): nothing to do, unless it is an OVERWRITE. */
    public static WriteResult runEmpty(WriteSpec spec) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.VALIDATE);
        return new TableWrite(spec, location).empty(WriteIds.next());
    }

    /**
     * Recovers the table at {@code uri} when its {@code _tmp/} holds a write's folder and no live holder has its lease: a
     * write that crashed and that no one recovered yet. A compaction calls it before it lists the table, so that it lists
     * the table as that write's recovery leaves it (a live writer's write is left to it: the compaction waits on its lease
     * and refuses, not applied, if the write replaced a file it listed). Returns null when there was nothing to recover.
     */
    public static RecoveryResult recoverAbandoned(String uri, S3Client s3, CatalogTable catalog, WriteSpec.Tuning tuning,
                                                  RequestOptions options) {
        S3Location location = S3Location.parse(uri, WriteStep.RECOVER);
        S3Store store = new S3Store(s3, location.bucket(), options);
        boolean folders = store.firstEntries(location.tmpPrefix(), 8).stream().anyMatch(e -> e.endsWith("/"));
        if (!folders || TableLease.heldLive(store, location, tuning.clockOffset())) {
            return null;
        }
        return recover(uri, s3, catalog, tuning, options);
    }

    /** Finishes or undoes the interrupted writes of the table at {@code uri}. */
    public static RecoveryResult recover(String uri, S3Client s3, CatalogTable catalog, WriteSpec.Tuning tuning, RequestOptions options) {
        S3Location location = S3Location.parse(uri, WriteStep.RECOVER);
        String table = location.uri();
        S3Store store = new S3Store(s3, location.bucket(), options).withSingleCopyLimit(tuning.singleCopyLimit(), tuning.copyPartSize());
        ExecutorService pool = pool(tuning.threads());
        TableLease lease;
        try {
            lease = TableLease.acquire(store, location, "recover-" + WriteIds.next(), tuning.leaseTtl(), tuning.leaseTtl().plusSeconds(60),
                    tuning.clockOffset());
        } catch (SdkException e) {
            shutdown(pool);
            throw new CommitStateUnknownException(table, WriteStep.LEASE, "Cannot recover " + table + " (step: lease): S3 failed: "
                    + e.getMessage() + ". Nothing was touched; fix the cause and run S3Parquet.recover again.", e);
        }
        try {
            return new Recovery(new TableContext(location, store, pool, tuning, StepHook.NONE, lease::check), catalog).run();
        } catch (TableLease.Lost e) {
            throw new CommitConflictException(table, WriteStep.RECOVER, "Cannot recover " + table + " (step: recover): "
                    + e.getMessage() + " while recovery ran. What it resolved stays resolved; the holder that took over "
                    + "recovers the rest. Run S3Parquet.recover again once it has finished.", e);
        } catch (SdkException e) {
            throw new CommitStateUnknownException(table, WriteStep.RECOVER, "Cannot recover " + table + " (step: recover): S3 "
                    + "failed: " + e.getMessage() + ". Recovery is idempotent: fix the cause and run it again.", e);
        } finally {
            shutdown(pool);
            lease.close();
        }
    }

    /** A task message that this write's tasks did not produce: refused before the commit point, nothing applied. */
    private InvalidWriteException unstaged(String what) {
        return new InvalidWriteException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): " + what + ". Nothing "
                + "of the table was changed. The messages given to commit must be exactly those stageTask returned for this write's "
                + "committed task attempts; rerun the write.");
    }

    private InvalidWriteException invalid(String what, String todo) {
        return new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot write " + table + " (step: validate): " + what + ". " + todo);
    }

    /**
     * Refuses a key whose file names would not give back the write id: recovery, a keyed rerun, a reader and a
     * distributed commit all read a file's write id from its name, and a key holding {@code part-<digits>-<digits>-k-}
     * makes that read find an id inside the key (a rerun would then replace none of the earlier run's files).
     */
    private void checkNames(String writeId) {
        String name = spec.filenamePrefix() + Stager.fileName(0, 0, writeId, -1, spec.compression().fileInfix() + ".parquet");
        if (!writeId.equals(WriteIds.ofFile(name))) {
            throw invalid("the file names of this write (" + name + ") hold what reads as another write id, from its "
                    + (spec.idempotencyKey() != null ? "idempotencyKey" : "filenamePrefix"), "Use a key without 'part-' followed "
                    + "by digits. Nothing was written.");
        }
    }

    private boolean committable() {
        return spec.mode() != WriteMode.APPEND || spec.idempotencyKey() != null;
    }

    private WriteResult run(BatchSource input) {
        BatchSource source = casts(input);
        try {
            return runCast(source);
        } finally {
            if (source != input) {
                source.close(); // the widened copies only; the input is its caller's
            }
        }
    }

    /**
     * The write of an input already cast, in the protocol's steps (package-info.java): validate makes the write's
     * {@link Plan} with no I/O but reads, and every step after it executes that plan; from the manifest on the steps are
     * {@link #afterStaging}'s, which a distributed write shares.
     */
    private WriteResult runCast(BatchSource source) {
        try (BufferAllocator allocator = new RootAllocator()) {
            Plan plan = validate(source);
            if (plan.empty()) {
                return empty(plan.writeId());
            }
            S3Store store = store();
            checkBucket(store);
            try (Held held = hold(store, plan.writeId())) {
                return held.run(() -> {
                    RecoveryResult recovered = recoverFirst(held.context);
                    WriteLog log = start(store, held.context.fence(), plan.writeId(), plan.keyId());
                    spec.hook().reached(Step.STARTED, 1);
                    Publisher publisher = new Publisher(held.context);
                    CompletableFuture<Publisher.Listing> early = listEarly(plan, publisher);
                    List<Manifest.File> files = stage(plan, held, log, source, allocator, early);
                    return afterStaging(store, log, publisher, held.context.pool(), held.context.fence(), plan.writeId(), plan.keyId(),
                            plan.partitioner().keys(), files, plan.schema(), plan.columns(), plan.catalogCommit(), recovered,
                            plan.touched(), early);
                });
            }
        }
    }

    /**
     * A write validated: what it writes and where, decided before any I/O but reads, so that the steps from the lease on
     * only execute it. Immutable but for its partitioner, which learns a streamed input's partitions as they come (each
     * checked by {@code validator} as it is first met).
     *
     * @param prepass what the validation pass over an input known in advance found, or null for a streamed input
     * @param catalogCommit the catalog's prepared commit, or null without a catalog (and for an empty input)
     * @param touched the partitions an input known in advance touches, for listing their old files while it stages; or null
     */
    private record Plan(Schema schema, Columns columns, String writeId, String keyId, FileEncoder.Settings settings,
                        PartitionFolders folders, Partitioner partitioner, Buckets buckets, Partitioner.NewPartition validator,
                        Prepass prepass, CatalogCommit catalogCommit, Manifest touched) {
        /** An input known in advance with no rows: there is nothing to write. */
        boolean empty() {
            return prepass != null && prepass.rows() == 0;
        }
    }

    /**
     * The validate step: the schema, the write's id and names, every partition of an input known in advance (read once
     * here, then rewound) and where each one goes, the catalog's prepared commit. No I/O but reads.
     */
    private Plan validate(BatchSource source) {
        Schema schema = source.schema();
        Columns columns = validateSchema(schema);
        String keyId = spec.idempotencyKey() == null ? null : WriteIds.keyId(spec.idempotencyKey());
        String writeId = keyId == null ? WriteIds.next() : WriteIds.forKey(spec.idempotencyKey());
        checkNames(writeId);
        FileEncoder.Settings settings = new FileEncoder.Settings(columns.dataOut, spec.compression(), spec.keepNanos(), spec.int96(),
                spec.tuning().rowGroupBytes(), spec.tuning().pageBytes());
        if (keyRuns()) {
            settings = settings.withKeyRuns();
        }
        String suffix = spec.compression().fileInfix() + ".parquet";
        String stagingFolder = location.tmpPrefix() + writeId + "/";
        IntSupplier givenBuckets = spec.replacement() == null ? null : spec.replacement().bucketOfBatch();
        String longestName = spec.filenamePrefix() + Stager.fileName(9_999_999, 99_999, writeId + KeyRuns.MARK,
                givenBuckets != null ? 99_999 : columns.bucket.isEmpty() ? -1 : spec.buckets() - 1, suffix);
        boolean lookUpEach = !source.replayable();
        PartitionFolders folders = new PartitionFolders(table, spec, columns.partitionNames(), stagingFolder, longestName);
        this.folders = folders;
        Partitioner.NewPartition validator = key -> {
            folders.check(key);
            if (lookUpEach) {
                // an input read once: its partitions are known only as they come, so each is looked up when first seen
                folders.lookUp(List.of(key));
            }
        };
        Partitioner partitioner = new Partitioner(names(columns.partitions), names(columns.data));
        Buckets buckets = givenBuckets != null ? Buckets.given(givenBuckets)
                : columns.bucket.isEmpty() ? null : new Buckets(names(columns.bucket), spec.buckets());
        Prepass pre = null;
        if (source.replayable()) {
            pre = prepass(source, columns, validator, partitioner, buckets);
            if (pre.rows == 0) {
                return new Plan(schema, columns, writeId, keyId, settings, folders, partitioner, buckets, validator, pre, null, null);
            }
            source.rewind();
        }
        CatalogCommit catalogCommit = prepareCatalog(columns);
        if (pre != null) {
            // after prepare, which refuses a table at another location first
            folders.lookUp(partitioner.keys());
        }
        Manifest touched = pre == null || spec.replacement() != null ? null
                : manifest(writeId, keyId, partitioner.keys(), List.of(), schema, columns, true);
        return new Plan(schema, columns, writeId, keyId, settings, folders, partitioner, buckets, validator, pre, catalogCommit, touched);
    }

    /**
     * What a write holds from its lease to its end: the lease (null for a write without one), the pools its requests and
     * its encoding run on, and the context its steps share. Closing it releases them; after a crash (an Error) the lease
     * is left to expire, as a killed process would leave it, and nothing more is sent.
     */
    private final class Held implements AutoCloseable {
        private final TableLease lease;
        private final ExecutorService encoders;
        private final TableContext context;
        private boolean crashed;

        private Held(TableLease lease, TableContext context, ExecutorService encoders) {
            this.lease = lease;
            this.context = context;
            this.encoders = encoders;
        }

        /** Runs the write's steps, noting a crash for {@link #close}. */
        <T> T run(Supplier<T> steps) {
            try {
                return steps.get();
            } catch (Error e) {
                crashed = true;
                throw e;
            }
        }

        @Override
        public void close() {
            if (crashed) {
                // what the write runs beside its thread is stopped before the Error leaves the write
                stopBesides(true);
                if (lease != null) {
                    lease.abandon();
                }
            }
            stopBesides(false);
            shutdown(encoders);
            shutdown(context.pool());
            if (lease != null && !crashed) {
                lease.close();
            }
        }
    }

    /** The lease step: takes the table's lease (unless the write goes without one), then the write's pools. */
    private Held hold(S3Store store, String writeId) {
        TableLease lease = spec.lease() ? takeLease(store, writeId) : null;
        Runnable fence = lease == null ? () -> { } : lease::check;
        this.fence = fence;
        ExecutorService pool = pool(spec.tuning().threads());
        ExecutorService encoders = pool(Runtime.getRuntime().availableProcessors());
        return new Held(lease, new TableContext(location, store, pool, spec.tuning(), spec.hook(), fence), encoders);
    }

    /**
     * Lists the old files of the partitions an input known in advance touches while it stages (reads only, after the
     * lease and the recovery), not after its last upload; null when there is nothing to list early.
     */
    private CompletableFuture<Publisher.Listing> listEarly(Plan plan, Publisher publisher) {
        Manifest touched = plan.touched();
        return touched == null ? null : beside(() -> publisher.listOldFiles(touched, null));
    }

    /** The stage step: encodes and uploads the input; on failure the early listing is let finish before the error leaves. */
    private List<Manifest.File> stage(Plan plan, Held held, WriteLog log, BatchSource source, BufferAllocator allocator,
                                      CompletableFuture<Publisher.Listing> early) {
        Uploads uploads = new Uploads(held.context.pool(), spec.tuning().maxPendingParts(), spec.tuning().partSize());
        Stager stager = new Stager(stagingContext(held.context.store(), plan.writeId(), plan.settings()), uploads, plan.partitioner(),
                plan.buckets(), plan.validator(), held.encoders, plan.folders()::folderOf);
        try {
            return stage(stager, source, allocator, held.context.store(), log, plan.columns().partitionNames(),
                    plan.prepass() == null ? null : plan.prepass().assigned());
        } catch (RuntimeException e) {
            awaitQuietly(early);
            throw e;
        }
    }

    /** A store for this write's requests, with its options and copy limits. */
    private S3Store store() {
        return new S3Store(spec.s3(), location.bucket(), spec.options())
                .withSingleCopyLimit(spec.tuning().singleCopyLimit(), spec.tuning().copyPartSize());
    }

    /**
     * The write from its staged files on: the manifest (the commit point), publish, catalog and cleanup. Staged by this
     * process ({@link Stager}) or by others ({@link Distributed}): the same steps, so that recovery cannot tell them apart.
     *
     * @param keys the partitions staged, in order of first appearance
     * @param touched the partitions listed early, and {@code early} that listing; null for none
     */
    private WriteResult afterStaging(S3Store store, WriteLog log, Publisher publisher, ExecutorService pool, Runnable fence,
                                     String writeId, String keyId, List<PartitionKey> keys, List<Manifest.File> files, Schema schema,
                                     Columns columns, CatalogCommit catalogCommit, RecoveryResult recovered, Manifest touched,
                                     CompletableFuture<Publisher.Listing> early) {
        if (files.isEmpty()) {
            awaitQuietly(early);
            abandon(store, log, null);
            return empty(writeId, recovered);
        }
        checkNotAllNull(keys, () -> {
            awaitQuietly(early);
            abandon(store, log, null);
        });
        Manifest manifest = manifest(writeId, keyId, keys, files, schema, columns, false);
        Publisher.Listing listing;
        try {
            if (spec.replacement() != null) {
                // A compaction replaces exactly the files it read: a file that came meanwhile is not its to delete.
                spec.replacement().check().accept(files);
                listing = new Publisher.Listing(spec.replacement().keys(), List.of());
                spec.hook().reached(Step.LISTED_OLD_FILES, 1);
            } else if (early != null && folders(touched).equals(folders(manifest))) {
                listing = joinListing(early, manifest);
                spec.hook().reached(Step.LISTED_OLD_FILES, 1);
            } else {
                awaitQuietly(early);
                listing = publisher.listOld(manifest);
            }
        } catch (RuntimeException e) {
            abandon(store, log, e);
            throw e;
        }
        if (manifest.keyed() && spec.replacement() == null && !listing.marked().isEmpty() && listing.nested().isEmpty()) {
            // A keyed rerun also replaces its key's rows in marked files (a compaction's): each one holding some is
            // written again without them, staged before the commit point, and replaced with the rerun's own old files.
            KeyedRewrite.Result rewritten;
            try {
                rewritten = KeyedRewrite.run(spec, store, location, pool, writeId, keyId, listing.marked());
            } catch (IOException e) {
                abandon(store, log, e);
                throw new InvalidWriteException(table, WriteStep.STAGE, "Cannot write " + table + " (step: stage): this keyed rerun "
                        + "removes its key's rows from the files that record their rows' keys, but " + e.getMessage() + ". Nothing of "
                        + "the table was changed; this write's staged files were removed. If another tool wrote that file, rename it "
                        + "(a wrangler write id followed by _k names a file with key runs), then rerun.", e);
            } catch (RuntimeException e) {
                abandon(store, log, e);
                throw Failures.rethrow(e, table, WriteStep.STAGE, "rewrite the files that hold rows of this key",
                        "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
            }
            List<Manifest.File> all = new ArrayList<>(manifest.files());
            all.addAll(rewritten.files());
            manifest = manifest.withFiles(all);
            List<String> old = new ArrayList<>(listing.old());
            old.addAll(rewritten.replaced());
            listing = new Publisher.Listing(old, listing.nested());
        }
        if (!listing.nested().isEmpty()) {
            abandon(store, log, null);
            throw invalid("another table lies inside this one: " + location.uriOf(listing.nested().get(0)) + " is the "
                    + "staging of a write to a table under " + table + ", and tables must not nest (this write would "
                    + "replace that table's files)", "Give each table a prefix of its own. Nothing of either table was changed.");
        }
        commit(store, log, manifest.replacing(listing.old()));
        spec.hook().reached(Step.MANIFEST_WRITTEN, 1);

        // The staged copies are removed from the moment every file is in place, alongside the deletes of the old
        // files: a recovery that finds them gone finds every file in place at its final key instead.
        List<String> stagedKeys = new ArrayList<>();
        log.manifest().files().forEach(f -> {
            if (f.stagedKey() != null) {
                stagedKeys.add(f.stagedKey());
            }
        });
        List<CompletableFuture<List<String>>> removing = new ArrayList<>();
        Publisher.Outcome outcome;
        try {
            outcome = publish(store, log, publisher, listing, fence, () -> removing.add(
                    beside(() -> Staging.removeStaged(store, log.folder(), pool, stagedKeys))));
        } catch (RuntimeException e) {
            removing.forEach(TableWrite::awaitQuietly);
            throw e;
        }
        spec.progress().partitionsPublished(manifest.partitions().size(), manifest.partitions().size());
        afterCommit(log, () -> {
            if (removing.isEmpty()) {
                Staging.removeStaged(store, log.folder(), pool, stagedKeys);
            } else {
                Failures.joined(removing.get(0));
            }
            log.published();
        }, WriteStep.PUBLISH, store, null);
        spec.hook().reached(Step.BEFORE_CATALOG, 1);
        if (catalogCommit != null) {
            catalogStep(store, log, catalogCommit, fence);
        }
        spec.hook().reached(Step.BEFORE_CLEANUP, 1);
        spec.hook().reached(Step.STAGING_REMOVED, 1);
        end(store, log);
        return result(writeId, manifest, outcome, recovered);
    }

    // ---- a write staged by other processes (the tasks of a Spark job) ----

    /**
     * What one task of a distributed write staged: the partitions it saw (values, in order of first appearance) and its
     * files, every one under the write's {@code _tmp/<writeId>/}.
     */
    public record TaskStaged(List<List<String>> partitions, List<Manifest.File> files) {
        public TaskStaged {
            List<List<String>> copy = new ArrayList<>();
            partitions.forEach(v -> copy.add(Collections.unmodifiableList(new ArrayList<>(v))));
            partitions = Collections.unmodifiableList(copy);
            files = List.copyOf(files);
        }
    }

    /**
     * Begins a write whose files other processes stage: validate, lease, recover, record (STARTED), exactly as
     * {@link #run} does before its own staging. The caller then has each task call {@link #stageTask} with
     * {@link Distributed#writeId()}, and ends the write with {@link Distributed#commit} (the files of the task attempts
     * that counted, nothing else) or {@link Distributed#abort}. Until one of them returns, this process holds the table's
     * lease and renews it; if it dies instead, the next recovery rolls the write back (STARTED).
     *
     * <p>With {@code CommitMethod.DEFERRED_UPLOADS} (the same in the spec of every task) each task's files are open
     * multipart uploads at their final keys, and {@link Distributed#commit} aborts the uploads of this write that the
     * attempts it is handed did not report (failed and losing attempts) before its commit point.
     *
     * <p>With bucketing ({@code bucketBy}, the same in every task's spec), each task hashes its rows to buckets as a
     * single-process write does: a bucket of a partition gets a file from every task that holds rows of it.
     *
     * <p>Not supported here (refused): {@code dtype}, a compaction's replacement.
     */
    public static Distributed begin(WriteSpec spec, Schema schema) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.VALIDATE);
        return new TableWrite(spec, location).new Distributed(schema);
    }

    /**
     * Stages one task's rows under {@code _tmp/<writeId>/} of the write {@link #begin} started, with the same checks,
     * encoder and Hive paths as a single-process write; runs where the task runs. The file names get the spec's
     * {@code filenamePrefix}, which the caller makes unique per task attempt, so that attempts never overwrite each
     * other's files. On failure, open uploads are aborted; what the attempt finished stays in the staging folder, which
     * the write's end (commit or abort) or a recovery removes whole. With {@code CommitMethod.DEFERRED_UPLOADS} the files
     * are open uploads at their final keys instead, never completed here; on failure the attempt aborts all of them.
     */
    public static TaskStaged stageTask(WriteSpec spec, Schema schema, String writeId, BatchSource source) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.STAGE);
        TableWrite w = new TableWrite(spec, location);
        w.checkDistributed();
        Columns columns = w.validateSchema(schema);
        FileEncoder.Settings settings = new FileEncoder.Settings(columns.dataOut, spec.compression(), spec.keepNanos(), spec.int96(),
                spec.tuning().rowGroupBytes(), spec.tuning().pageBytes());
        String suffix = spec.compression().fileInfix() + ".parquet";
        String stagingFolder = location.tmpPrefix() + writeId + "/";
        String longestName = spec.filenamePrefix() + Stager.fileName(9_999_999, 99_999, writeId,
                columns.bucket.isEmpty() ? -1 : spec.buckets() - 1, suffix);
        List<String> folderNames = columns.partitionNames();
        Partitioner.NewPartition validator = new PartitionFolders(w.table, spec, folderNames, stagingFolder, longestName)::check;
        S3Store store = w.store();
        ExecutorService pool = pool(spec.tuning().threads());
        ExecutorService encoders = pool(1);
        try (BufferAllocator allocator = new RootAllocator()) {
            Partitioner partitioner = new Partitioner(names(columns.partitions), names(columns.data));
            Uploads uploads = new Uploads(pool, spec.tuning().maxPendingParts(), spec.tuning().partSize());
            Buckets buckets = columns.bucket.isEmpty() ? null : new Buckets(names(columns.bucket), spec.buckets());
            Stager stager = new Stager(w.stagingContext(store, writeId, settings), uploads, partitioner, buckets, validator, encoders,
                    key -> HivePaths.folder(folderNames, key.values()));
            List<Manifest.File> files = Manifest.File.of(stager.stage(source, allocator, folderNames, null));
            List<List<String>> keys = new ArrayList<>();
            stager.partitions().forEach(k -> keys.add(k.values()));
            return new TaskStaged(keys, files);
        } catch (InvalidWriteException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new InvalidWriteException(w.table, WriteStep.STAGE, "Cannot write " + w.table + " (step: stage): " + e.getMessage()
                    + ". Nothing of the table was changed; the write removes what its tasks staged.", e);
        } catch (IOException | RuntimeException e) {
            throw Failures.rethrow(e, w.table, WriteStep.STAGE, "stage the data files of a task",
                    "Nothing of the table was changed; the write removes what its tasks staged. Rerun the write.");
        } finally {
            shutdown(encoders);
            shutdown(pool);
        }
    }

    private void checkDistributed() {
        if (!spec.dtype().isEmpty() || spec.replacement() != null) {
            throw new IllegalArgumentException("a distributed write supports neither dtype nor a replacement");
        }
    }

    /**
     * A write begun by {@link #begin}: it holds the table's lease and its STARTED record until {@link #commit} or
     * {@link #abort}. Exactly one of them is called, once, on the process that began it.
     */
    public final class Distributed implements AutoCloseable {
        private final Schema schema;
        private final Columns columns;
        private final String keyId;
        private final String writeId;
        private final CatalogCommit catalogCommit;
        private final S3Store store;
        private TableLease lease;
        private final Runnable leaseFence;
        private final ExecutorService pool;
        private final RecoveryResult recovered;
        private final WriteLog log;
        private boolean ended;

        private Distributed(Schema schema) {
            checkDistributed();
            this.schema = schema;
            this.columns = validateSchema(schema);
            this.keyId = spec.idempotencyKey() == null ? null : WriteIds.keyId(spec.idempotencyKey());
            this.writeId = keyId == null ? WriteIds.next() : WriteIds.forKey(spec.idempotencyKey());
            checkNames(writeId);
            this.catalogCommit = prepareCatalog(columns);
            this.store = store();
            checkBucket(store);
            this.lease = spec.lease() ? takeLease(store, writeId) : null;
            TableLease held = lease;
            this.leaseFence = held == null ? () -> { } : held::check;
            fence = leaseFence;
            this.pool = pool(spec.tuning().threads());
            try {
                this.recovered = recoverFirst(new TableContext(location, store, pool, spec.tuning(), spec.hook(), leaseFence));
                this.log = start(store, leaseFence, writeId, keyId);
                spec.hook().reached(Step.STARTED, 1);
            } catch (RuntimeException | Error e) {
                release(e instanceof Error);
                throw e;
            }
        }

        /** The write's id: tasks stage under {@code _tmp/<writeId>/} with it. */
        public String writeId() {
            return writeId;
        }

        /** The table root, {@code s3://bucket/prefix/}. */
        public String table() {
            return table;
        }

        /**
         * Commits the files of {@code tasks}, the task attempts that counted (one per task): the manifest with exactly these
         * files (the commit point), publish, catalog, cleanup, as a single-process write; the staging folder is then
         * removed whole, with what failed or duplicate attempts left there. Errors are those of {@link #run}.
         */
        public WriteResult commit(List<TaskStaged> tasks) {
            if (ended) {
                throw new IllegalStateException("the write " + writeId + " has ended");
            }
            ended = true;
            try {
                Map<List<String>, PartitionKey> seen = new LinkedHashMap<>();
                String stagingFolder = location.tmpPrefix() + writeId + "/";
                // Each file once (a message handed twice names the same files), at exactly the final key its staged key
                // gives, carrying this write's id: a message can make the write publish only what its tasks staged,
                // never over another write's file or under _tmp/.
                Map<String, Manifest.File> byStaged = new LinkedHashMap<>();
                Set<String> finals = new HashSet<>();
                // A deferred file is an open upload at its final key, which carries this write's id exactly as recovery
                // reads it (so that a recovery finds it by that id) and lies outside every _tmp/.
                for (TaskStaged t : tasks) {
                    t.partitions().forEach(v -> seen.computeIfAbsent(v, PartitionKey::new));
                    for (Manifest.File f : t.files()) {
                        String name = f.finalKey() == null ? "" : f.finalKey().substring(f.finalKey().lastIndexOf('/') + 1);
                        boolean placed = deferred()
                                ? f.stagedKey() == null && f.uploadId() != null && f.etags() != null && !f.etags().isEmpty()
                                        && f.finalKey() != null && f.finalKey().startsWith(location.prefix())
                                        && writeId.equals(Recovery.deferredWriteId(location, f.finalKey()))
                                : f.stagedKey() != null && f.uploadId() == null && f.finalKey() != null
                                        && f.stagedKey().startsWith(stagingFolder)
                                        && f.finalKey().equals(location.prefix() + f.stagedKey().substring(stagingFolder.length()))
                                        && !f.finalKey().startsWith(location.tmpPrefix()) && name.contains(writeId);
                        String id = placed ? (deferred() ? f.finalKey() : f.stagedKey()) : null;
                        Manifest.File before = placed ? byStaged.get(id) : null;
                        if (!placed || (before == null ? !finals.add(f.finalKey()) : !before.equals(f))) {
                            abandon(store, log, null);
                            throw unstaged("the file " + (f.stagedKey() == null ? f.finalKey() + " (upload "
                                    + f.uploadId() + ")" : f.stagedKey() + " (to " + f.finalKey() + ")") + " was not staged by the write "
                                    + writeId + (placed ? " as described" : f.deferred() != deferred() ? ", which "
                                    + (deferred() ? "defers its uploads" : "stages and copies") : ""));
                        }
                        byStaged.put(id, f);
                    }
                }
                List<Manifest.File> files = new ArrayList<>(byStaged.values());
                List<PartitionKey> keys = new ArrayList<>(seen.values());
                // Each file in the Hive folder of a partition the messages list: a file outside them would be published
                // without its partition being replaced (an overwrite's old rows kept beside the new).
                Set<String> folders = new HashSet<>();
                for (PartitionKey k : keys) {
                    if (k.values().size() != columns.partitionNames().size()) {
                        abandon(store, log, null);
                        throw unstaged("the partition " + k.values() + " does not have the write's "
                                + columns.partitionNames().size() + " partition values");
                    }
                    folders.add(HivePaths.folder(columns.partitionNames(), k.values()));
                }
                for (Manifest.File f : files) {
                    String name = f.finalKey().substring(f.finalKey().lastIndexOf('/') + 1);
                    if (f.folder() == null || !folders.contains(f.folder()) || !f.finalKey().equals(location.prefix() + f.folder() + name)) {
                        abandon(store, log, null);
                        throw unstaged("the file " + f.stagedKey() + " lies in the folder " + f.folder()
                                + ", not in a partition its task attempt reported");
                    }
                }
                List<MultipartUpload> strays = null;
                try {
                    if (deferred()) {
                        strays = checkUploads(files);
                    } else {
                        checkStaged(files, stagingFolder);
                    }
                    // A partition the catalog registers elsewhere than its Hive folder: its files are staged at the Hive
                    // folder (tasks cannot ask the catalog), so the write is refused, before its commit point.
                    PartitionFolders registered = new PartitionFolders(table, spec, columns.partitionNames(), stagingFolder, "");
                    TableWrite.this.folders = registered;
                    registered.lookUp(keys);
                    if (registered.anyRegisteredElsewhere().isPresent()) {
                        throw invalid("the partition folder " + registered.anyRegisteredElsewhere().get() + " is registered in "
                                + spec.catalog().describe() + " at a Location other than its Hive folder, which a distributed write "
                                + "does not support yet", "Write it with S3Parquet (one process), or move the partition to its "
                                + "Hive folder. Nothing of the table was changed.");
                    }
                    if (strays != null) {
                        // The uploads of attempts that did not count (failed, or lost to another attempt of their task):
                        // never part of this write, never completed by anyone; see package-info, "Distributed writes".
                        Recovery.abortStray(store, strays, files);
                    }
                } catch (SdkException e) {
                    abandon(store, log, e);
                    throw Failures.storage(table, WriteStep.COMMIT, "check the deferred uploads of the write " + writeId, e,
                            "Nothing of the table was changed; rerun the write.");
                } catch (RuntimeException e) {
                    abandon(store, log, e);
                    throw e;
                }
                return afterStaging(store, log, new Publisher(new TableContext(location, store, pool, spec.tuning(), spec.hook(), leaseFence)), pool, leaseFence,
                        writeId, keyId, keys, files, schema, columns, catalogCommit, recovered, null, null);
            } catch (Error e) {
                release(true);
                throw e;
            } finally {
                release(false);
            }
        }

        /**
         * Checks that every staged file is in place with its size before the commit point: past it, an overwrite whose
         * staged file is gone could be neither finished nor undone (recovery would fail on it every time).
         */
        private void checkStaged(List<Manifest.File> files, String stagingFolder) {
            Map<String, Long> staged = new HashMap<>();
            try {
                store.list(stagingFolder).forEach(o -> staged.put(o.key(), o.size()));
            } catch (SdkException e) {
                throw Failures.storage(table, WriteStep.COMMIT, "list the staged files of the write " + writeId, e,
                        "Nothing of the table was changed; rerun the write.");
            }
            for (Manifest.File f : files) {
                if (!Long.valueOf(f.bytes()).equals(staged.get(f.stagedKey()))) {
                    try {
                        leaseFence.run(); // a holder that took the table over rolled this write back: a conflict
                    } catch (TableLease.Lost lost) {
                        throw lostBeforeCommit(WriteStep.COMMIT, lost);
                    }
                    throw new InvalidWriteException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): the "
                            + "staged file " + f.stagedKey() + " that a task attempt reported " + (staged.containsKey(f.stagedKey())
                            ? "holds " + staged.get(f.stagedKey()) + " bytes, not " + f.bytes() : "is gone") + ". Nothing of the "
                            + "table was changed; this write's staged files were removed. Rerun the write.");
                }
            }
        }

        /**
         * Checks that every deferred file is an open upload at its final key (one listing of the table's open uploads),
         * for the same reason as {@link #checkStaged}, and returns the open uploads carrying this write's id that the
         * files do not name: those of attempts that did not count.
         */
        private List<MultipartUpload> checkUploads(List<Manifest.File> files) {
            Map<String, String> open = new HashMap<>();
            List<MultipartUpload> own = new ArrayList<>();
            for (MultipartUpload u : store.openUploads(location.prefix())) {
                if (writeId.equals(Recovery.deferredWriteId(location, u))) {
                    own.add(u);
                    open.put(u.uploadId(), u.key());
                }
            }
            for (Manifest.File f : files) {
                if (!f.finalKey().equals(open.get(f.uploadId()))) {
                    try {
                        leaseFence.run(); // a holder that took the table over rolled this write back: a conflict
                    } catch (TableLease.Lost lost) {
                        throw lostBeforeCommit(WriteStep.COMMIT, lost);
                    }
                    throw new InvalidWriteException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): the "
                            + "multipart upload of " + f.finalKey() + " that a task attempt reported is no longer open (aborted by "
                            + "hand or by a lifecycle rule AbortIncompleteMultipartUpload). Nothing of the table was changed; this "
                            + "write's uploads were aborted. Rerun the write.");
                }
            }
            return own;
        }

        /**
         * Ends the write without applying it: its staging (every task attempt's files) and its record are removed, the
         * table is unchanged; what cannot be removed now is removed by the next recovery (the record stays STARTED).
         */
        public void abort(Throwable cause) {
            if (ended) {
                return;
            }
            ended = true;
            try {
                abandon(store, log, cause);
            } finally {
                release(false);
            }
        }

        /** Aborts the write unless it was committed or aborted. */
        @Override
        public void close() {
            abort(null);
        }

        private void release(boolean crashed) {
            stopBesides(crashed);
            shutdown(pool);
            if (lease != null) {
                if (crashed) {
                    lease.abandon();
                } else {
                    lease.close();
                }
                lease = null;
            }
        }
    }

    // ---- the write's steps, each mapping a lost lease or a superseded manifest to the outcome it leaves ----

    private RecoveryResult recoverFirst(TableContext context) {
        try {
            return new Recovery(context, spec.catalog()).run();
        } catch (TableLease.Lost e) {
            throw new CommitConflictException(table, WriteStep.RECOVER, "Cannot write " + table + " (step: recover): " + e.getMessage()
                    + " while this write recovered the table's interrupted writes. Nothing of this write was written; rerunning "
                    + "it is safe.", e);
        }
    }

    private WriteLog start(S3Store store, Runnable fence, String writeId, String keyId) {
        Manifest started = new Manifest(Manifest.FORMAT, writeId, table, spec.mode(), Manifest.State.STARTED, keyId, Instant.now().toString(),
                List.of(), List.of(), List.of(), spec.catalog() == null ? null : spec.catalog().describe(), null, spec.compression(),
                Manifest.Requests.of(spec.options()), null, null);
        try {
            return WriteLog.start(store, location, fence, started);
        } catch (TableLease.Lost | WriteLog.Superseded e) {
            throw lostBeforeCommit(WriteStep.STAGE, e);
        } catch (SdkException e) {
            throw Failures.storage(table, WriteStep.STAGE, "record the write " + writeId, e, "Nothing was written; rerun the write.");
        }
    }

    /**
     * A write that lost the table before its commit point removes what it made since the new holder recovered it: a
     * writer that stalls after its record was rolled back stages on, and its deferred uploads then carry an id that no
     * manifest records any more, so no later recovery would abort them. Everything removed here carries this write's id
     * and none of it was committed; the manifest is left to whoever holds it. Failures are kept on {@code cause}.
     */
    private void removeOwn(S3Store store, WriteLog log, RuntimeException cause) {
        try {
            if (deferred()) {
                Staging.abortDeferred(store, location, log.manifest().writeId());
            }
            Staging.removeStaged(store, log.folder());
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            cleanupFailed(log, e);
        }
    }

    /** A cleanup of this write's own staging failed and was suppressed: what remains is the next holder's to remove. */
    private void cleanupFailed(WriteLog log, RuntimeException e) {
        Logs.COMMIT.log(System.Logger.Level.WARNING, () -> "Could not remove the staging of write " + log.manifest().writeId() + " of "
                + table + " (" + e.getMessage() + "); the next write or S3Parquet.recover removes it.");
    }

    private CommitConflictException lostBeforeCommit(WriteStep step, RuntimeException e) {
        return new CommitConflictException(table, step, "Cannot write " + table + " (step: " + step + "): " + e.getMessage()
                + ". This write stopped before its commit point; whoever holds the table now removes what it staged. Rerunning "
                + "it is safe.", e);
    }

    /** Removes this write's own staging and record before its commit point; failures are left to recovery. */
    private void abandon(S3Store store, WriteLog log, Throwable failure) {
        try {
            if (deferred()) {
                Staging.abortDeferred(store, location, log.manifest().writeId());
            }
            Staging.removeStaged(store, log.folder());
            log.end();
        } catch (RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
            cleanupFailed(log, e);
        }
    }

    private void commit(S3Store store, WriteLog log, Manifest manifest) {
        try {
            log.commit(manifest);
        } catch (TableLease.Lost | WriteLog.Superseded e) {
            removeOwn(store, log, e);
            throw lostBeforeCommit(WriteStep.COMMIT, e);
        } catch (WriteLog.Unknown e) {
            throw new CommitStateUnknownException(table, WriteStep.COMMIT, "Cannot write " + table + " (step: commit): S3 "
                    + "failed while the manifest " + location.uriOf(log.folder() + Manifest.FILE_NAME) + " was moved to "
                    + "COMMITTED (" + e.getMessage() + "), and it cannot be read back, so whether the write is committed is not "
                    + "known. Nothing was cleaned up. Run S3Parquet.recover (it finishes or undoes the write), then look at the "
                    + "table before rerunning.", e.getCause());
        } catch (SdkException e) {
            abandon(store, log, e);
            throw Failures.storage(table, WriteStep.COMMIT, "write the manifest", e,
                    "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
        }
    }

    private Publisher.Outcome publish(S3Store store, WriteLog log, Publisher publisher, Publisher.Listing listing, Runnable fence,
                                      Runnable placed) {
        Manifest manifest = log.manifest();
        try {
            return publisher.publish(manifest, listing.old(), placed);
        } catch (Publisher.UploadsLost e) {
            // An upload is missing: a lifecycle rule aborted it, or the holder that took the table over completed it while
            // this writer stalled. Only the first may be undone, and only by the lease's holder.
            try {
                fence.run();
            } catch (TableLease.Lost lostLease) {
                lostLease.addSuppressed(e);
                throw lostAfterCommit(WriteStep.PUBLISH, lostLease);
            }
            throw undoLost(store, log, e);
        } catch (TableLease.Lost e) {
            throw lostAfterCommit(WriteStep.PUBLISH, e);
        } catch (WriteIncompleteException | CommitStateUnknownException e) {
            if (committable()) {
                throw e;
            }
            throw undoAppend(store, log, null, e, WriteStep.PUBLISH);
        } catch (RuntimeException e) {
            if (committable()) {
                throw Failures.incompleteOrRethrow(e, table, WriteStep.PUBLISH, "publish the staged files", "The write is committed; "
                        + "rerun it, or run S3Parquet.recover, to finish publishing.");
            }
            throw undoAppend(store, log, null, e, WriteStep.PUBLISH);
        }
    }

    /**
     * Runs a step after the commit point. A lost lease or a superseded manifest stops the write: an overwrite is then
     * finished by the holder that took over, a plain append undone by it.
     */
    private void afterCommit(WriteLog log, Runnable step, WriteStep at, S3Store store, CatalogCommit catalogCommit) {
        try {
            step.run();
        } catch (TableLease.Lost | WriteLog.Superseded e) {
            throw lostAfterCommit(at, e);
        } catch (SdkException e) {
            if (committable()) {
                throw Failures.incomplete(table, at, "record the write published", e,
                        "The write is committed and its files are in place; rerun it or run S3Parquet.recover to finish it.");
            }
            throw undoAppend(store, log, catalogCommit, e, at);
        }
    }

    private RuntimeException lostAfterCommit(WriteStep step, RuntimeException e) {
        if (committable()) {
            return new WriteIncompleteException(table, step, step, "Cannot finish the write to " + table + " (step: " + step + "): "
                    + e.getMessage() + ". The write is committed: the holder that took the table over finishes it (it never "
                    + "undoes it). Do not clean up by hand.", e);
        }
        return new CommitConflictException(table, step, "Cannot finish the append to " + table + " (step: " + step + "): "
                + e.getMessage() + ". The holder that took the table over undoes this append (its files are deleted); rerunning "
                + "it is safe and adds its rows once.", e);
    }

    private void catalogStep(S3Store store, WriteLog log, CatalogCommit catalogCommit, Runnable fence) {
        try {
            catalogCommit.commit(CatalogStep.entries(log.manifest()), fence);
        } catch (TableLease.Lost e) {
            throw lostAfterCommit(WriteStep.CATALOG, e);
        } catch (RuntimeException e) {
            if (committable()) {
                throw new WriteIncompleteException(table, WriteStep.CATALOG, WriteStep.CATALOG, "Cannot register the write in "
                        + spec.catalog().describe() + " for " + table + " (step: catalog): " + e.getMessage() + ". The data is "
                        + "committed and published; S3Parquet.recover(uri, s3, catalog), or the next write to the table with this "
                        + "catalog, registers the table as it is then. Rerunning the write is safe too.", e);
            }
            throw undoAppend(store, log, catalogCommit, e, WriteStep.CATALOG);
        }
    }

    /**
     * A plain append that failed after publishing undoes itself: nothing of it stays, so rerunning it adds its rows once.
     * What cannot be undone now is undone by the next recovery (its manifest stays, ABORTING).
     */
    private RuntimeException undoAppend(S3Store store, WriteLog log, CatalogCommit catalogCommit, Throwable cause, WriteStep step) {
        String why = cause instanceof WranglerException w ? w.getMessage() : String.valueOf(cause.getMessage());
        try {
            log.aborting();
            Manifest m = log.manifest();
            if (!Publisher.unpublish(store, m).isEmpty()) {
                throw S3Exception.builder().statusCode(200).message("S3 refused to delete some of the append's files").build();
            }
            Staging.removeStaged(store, log.folder());
            if (catalogCommit != null) {
                List<PartitionEntry> registered = CatalogStep.entries(m);
                List<PartitionEntry> empty = new ArrayList<>();
                for (PartitionEntry e : registered) {
                    if (store.list(location.prefix() + e.location().substring(table.length())).isEmpty()) {
                        empty.add(e);
                    }
                }
                if (!empty.isEmpty()) {
                    catalogCommit.unregister(empty, fence);
                }
            }
            log.end();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            return new CommitConflictException(table, step, "Cannot append to " + table + " (step: " + step + "): " + why
                    + ". The append was not applied, but undoing it failed too (" + e.getMessage() + "): the next write to the table "
                    + "or S3Parquet.recover finishes undoing it. Rerunning it is safe and adds its rows once.", cause);
        }
        if (cause instanceof CatalogException c) {
            return new CatalogException(table, step, "Cannot append to " + table + " (step: " + step + "): " + why + " The append "
                    + "was undone: its files were deleted and the table is as before. Fix the catalog and rerun.", c);
        }
        if (cause instanceof SdkException sdk) {
            return Failures.storage(table, step, "append", sdk, "The append was undone: its files were deleted and the table is "
                    + "as before. Rerun it.");
        }
        return new StorageException(table, step, "Cannot append to " + table + " (step: " + step + "): " + why + ". The append "
                + "was undone: its files were deleted and the table is as before. Rerun it.", null, 0, cause);
    }

    /** Ends the write: the conditional delete of its manifest, a plain append's commit point. */
    private void end(S3Store store, WriteLog log) {
        try {
            log.end();
        } catch (TableLease.Lost e) {
            throw lostAfterCommit(WriteStep.CLEANUP, e);
        } catch (WriteLog.Superseded e) {
            if (committable()) {
                return; // the holder that took over finished it
            }
            // A recovery claimed the append first, or ended it: its files tell which.
            Manifest m = log.manifest();
            if (store.size(m.files().get(0).finalKey()).isEmpty() || e.getMessage().contains("changed")) {
                throw lostAfterCommit(WriteStep.CLEANUP, e);
            }
        } catch (SdkException e) {
            if (committable()) {
                throw Failures.incomplete(table, WriteStep.CLEANUP, "end the write", e, "The write is complete and visible; the "
                        + "next write or S3Parquet.recover removes its leftover manifest.");
            }
            throw new CommitStateUnknownException(table, WriteStep.CLEANUP, "Cannot end the append to " + table + " (step: "
                    + "cleanup): S3 failed (" + e.getMessage() + ") on the request that commits it, so whether it took effect "
                    + "is unknown. Run S3Parquet.recover, then check the table before rerunning.", e);
        }
    }

    /** Deferred uploads were aborted under the write: it is undone (no old file was deleted yet) and fails. */
    private RuntimeException undoLost(S3Store store, WriteLog log, Publisher.UploadsLost lost) {
        try {
            log.aborting();
        } catch (WriteLog.Superseded e) {
            e.addSuppressed(lost);
            throw lostAfterCommit(WriteStep.PUBLISH, e);
        }
        try {
            if (!Publisher.unpublish(store, log.manifest()).isEmpty()) {
                throw S3Exception.builder().statusCode(200).message("S3 refused to delete some of the write's files").build();
            }
            Staging.removeStaged(store, log.folder());
            log.end();
        } catch (RuntimeException e) {
            lost.addSuppressed(e);
            return new CommitConflictException(table, WriteStep.PUBLISH, "Cannot publish " + table + " (step: publish): "
                    + lost.keys.size() + " of the write's deferred multipart uploads were aborted before they could be completed, "
                    + "and undoing the write failed too (" + e.getMessage() + "). Rows of this write may be visible next to the old "
                    + "ones until the next write or S3Parquet.recover undoes it; rerunning it is safe.", lost);
        }
        return new StorageException(table, WriteStep.PUBLISH, "Cannot publish " + table + " (step: publish): "
                + lost.keys.size() + " of the write's deferred multipart uploads were aborted before they could be completed (first: "
                + lost.keys.get(0) + "), most likely by a bucket lifecycle rule AbortIncompleteMultipartUpload shorter than the "
                + "write. The write was undone and the table is unchanged. Rerun it; lengthen the rule, or use "
                + "CommitMethod.STAGE_AND_COPY.", null, 404, lost);
    }

    private boolean deferred() {
        return spec.commitMethod() == CommitMethod.DEFERRED_UPLOADS;
    }

    private TableLease takeLease(S3Store store, String writeId) {
        try {
            return TableLease.acquire(store, location, writeId, spec.tuning().leaseTtl(), spec.leaseWait(), spec.tuning().clockOffset());
        } catch (SdkException e) {
            throw Failures.storage(table, WriteStep.LEASE, "take the table lease", e, "Nothing was written; check the permissions "
                    + "(s3:PutObject, s3:GetObject, s3:DeleteObject on " + location.tmpPrefix() + ") and rerun.");
        }
    }

    // ---- validate ----

    /**
     * The input's columns: {@code data} and {@code partitions} as the input names them (to find the vectors),
     * {@code dataOut} and {@code partitionNames} as the files, paths and catalog name them.
     */
    private record Columns(List<Field> data, List<Field> partitions, List<Field> dataOut, List<Field> partitionsOut, List<Field> bucket) {
        List<String> partitionNames() {
            return partitionsOut.stream().map(Field::getName).toList();
        }
    }

    /** The bucket columns as the files and the catalog name them. */
    private List<String> bucketNames(Columns columns) {
        return columns.bucket.stream().map(f -> outputName(f.getName())).toList();
    }

    private String outputName(String name) {
        return spec.catalog() == null ? name : spec.catalog().columnName(name);
    }

    private Field renamed(Field f) {
        String name = outputName(f.getName());
        return name.equals(f.getName()) ? f : new Field(name, f.getFieldType(), f.getChildren());
    }

    /** True when the input's last column is each row's key id ({@link KeyRuns}), a compaction's of keyed runs. */
    private boolean keyRuns() {
        return spec.replacement() != null && spec.replacement().keyRuns();
    }

    private Columns validateSchema(Schema input) {
        Schema schema = input;
        Field keyColumn = null;
        if (keyRuns()) {
            // The rows' key ids: carried through partitioning, bucketing and spilling as the last data column, then recorded
            // in each file's footer by the encoder; never a column of the files or of the catalog.
            List<Field> fields = new ArrayList<>(input.getFields());
            keyColumn = fields.remove(fields.size() - 1);
            if (!keyColumn.getName().equals(KeyRuns.COLUMN)) {
                throw new IllegalStateException("the input of a write with key runs must end with " + KeyRuns.COLUMN);
            }
            schema = new Schema(fields);
        }
        Map<String, String> seen = new HashMap<>();
        for (Field f : schema.getFields()) {
            if (f.getName().isEmpty()) {
                throw invalid("the input has a column with an empty name", "Name every column.");
            }
            String out = outputName(f.getName());
            String before = seen.put(out.toLowerCase(Locale.ROOT), f.getName());
            if (before != null) {
                if (out.equalsIgnoreCase(f.getName()) && out.equalsIgnoreCase(before)) {
                    throw invalid("the input has the columns '" + before + "' and '" + f.getName()
                            + "', which Hive, Athena and Glue cannot tell apart (names are case-insensitive)", "Rename one of them.");
                }
                throw invalid("the input columns '" + before + "' and '" + f.getName() + "' both become '" + out
                        + "' in the catalog " + spec.catalog().describe(), "Rename one of them.");
            }
        }
        List<Field> parts = new ArrayList<>();
        for (String name : spec.partitionBy()) {
            Field f = partitionField(schema, name);
            if (f == null) {
                throw invalid("the partition column '" + name + "' is not in the input, whose columns are "
                        + names(schema.getFields()), "Pass columns of the input to partitionBy(...).");
            }
            if (parts.contains(f)) {
                throw invalid("the partition column '" + name + "' is given twice", "Name each partition column once.");
            }
            if (!PartitionValues.allowed(f)) {
                throw invalid("the partition column '" + name + "' has the type " + f.getType()
                        + ", which cannot be a Hive partition value", "Partition by a string, integer, boolean, date, timestamp or decimal column.");
            }
            parts.add(f);
        }
        List<Field> data = new ArrayList<>();
        for (Field f : schema.getFields()) {
            if (!parts.contains(f)) {
                data.add(f);
            }
        }
        if (data.isEmpty()) {
            throw invalid("every column is a partition column, so the files would have no columns",
                    "Keep at least one column out of partitionBy(...).");
        }
        if ((spec.mode() != WriteMode.APPEND || spec.idempotencyKey() != null) && location.isBucketRoot()) {
            // An unpartitioned OVERWRITE_PARTITIONS replaces its one partition, the table root: it is an OVERWRITE. A keyed
            // append deletes its key's earlier files, which at a bucket root could be any table's files with that key.
            throw invalid((spec.idempotencyKey() != null ? "a keyed APPEND (idempotencyKey)" : spec.mode().toString())
                    + " at the root of a bucket could delete objects of the whole bucket"
                    + (spec.mode() == WriteMode.OVERWRITE_PARTITIONS && spec.partitionBy().isEmpty()
                            ? " (without partition columns it replaces the whole table, which is the bucket)" : "")
                    + "; wrangler never deletes at a bucket root", "Write the table under a prefix, s3://" + location.bucket() + "/<table>/.");
        }
        try {
            new ArrowSchemas(timestamps).messageType(data);
        } catch (UnsupportedTypeException e) {
            throw invalid(e.getMessage(), "Nothing was written.");
        }
        List<Field> bucket = new ArrayList<>();
        for (String name : spec.bucketBy()) {
            Field f = partitionField(schema, name);
            if (f == null) {
                throw invalid("the bucket column '" + name + "' is not in the input, whose columns are " + names(schema.getFields()),
                        "Pass columns of the input to bucketBy(...).");
            }
            if (parts.contains(f)) {
                throw invalid("the bucket column '" + name + "' is a partition column, which is not in the files (every row of a "
                        + "partition would hash to one bucket)", "Bucket by columns that stay in the files.");
            }
            if (bucket.contains(f)) {
                throw invalid("the bucket column '" + name + "' is given twice", "Name each bucket column once.");
            }
            if (!Buckets.hashable(f)) {
                throw invalid("the bucket column '" + name + "' has the type " + f.getType() + ", which awswrangler's bucket hash "
                        + "does not cover", "Bucket by integer (at most signed 64-bit), string or boolean columns.");
            }
            bucket.add(f);
        }
        List<Field> dataOut = data.stream().map(this::renamed).toList();
        if (keyColumn != null) {
            data.add(keyColumn);
        }
        return new Columns(data, parts, dataOut, parts.stream().map(this::renamed).toList(), bucket);
    }

    /**
     * The input column that {@code partitionBy} names: by its input name, or else by the name the catalog gives it
     * ({@code partitionBy("par")} for an input column {@code Par}, as awswrangler accepts its sanitized partition columns).
     */
    private Field partitionField(Schema schema, String name) {
        for (Field f : schema.getFields()) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        if (spec.catalog() != null) {
            String out = outputName(name);
            for (Field f : schema.getFields()) {
                if (outputName(f.getName()).equals(out)) {
                    return f;
                }
            }
        }
        return null;
    }

    /**
     * The input with its columns widened to the types {@code dtype} asks for, or else the types the catalog's table has
     * ({@link io.wrangler.input.Casts}); a cast that would lose values is refused here, before any I/O.
     */
    private BatchSource casts(BatchSource source) {
        Map<String, String> catalogTypes = new HashMap<>();
        if (spec.catalog() != null) {
            spec.catalog().columnTypes(table, spec.mode()).forEach((k, v) -> catalogTypes.put(k.toLowerCase(Locale.ROOT), v));
        }
        if (spec.dtype().isEmpty() && catalogTypes.isEmpty()) {
            return source;
        }
        Set<String> named = new HashSet<>();
        for (Field f : source.schema().getFields()) {
            named.add(f.getName());
            named.add(outputName(f.getName()));
        }
        for (String c : new TreeSet<>(spec.dtype().keySet())) {
            if (!named.contains(c)) {
                // a misspelt column would otherwise keep its input type without a word
                throw invalid("dtype names the column '" + c + "', which this write does not have; its columns are "
                        + source.schema().getFields().stream().map(Field::getName).toList(),
                        "Name the input's columns (or their names in the catalog) in dtype; nothing was written.");
            }
        }
        Map<String, Field> targets = new LinkedHashMap<>();
        for (Field f : source.schema().getFields()) {
            String out = outputName(f.getName());
            String asked = spec.dtype().containsKey(f.getName()) ? spec.dtype().get(f.getName()) : spec.dtype().get(out);
            String want = asked != null ? asked : catalogTypes.get(out.toLowerCase(Locale.ROOT));
            if (want == null) {
                continue;
            }
            Field template;
            try {
                template = HiveTypes.parse(f.getName(), want);
            } catch (HiveTypes.Unknown e) {
                continue; // a catalog type wrangler does not write (varchar(10)): the catalog's own check decides
            }
            try {
                Field target = Casts.plan(f, template, asked != null ? f.getName() : out);
                if (target != null) {
                    targets.put(f.getName(), target);
                }
            } catch (Casts.Refused r) {
                if (asked != null) {
                    throw invalid("dtype asks for the column '" + f.getName() + "' as " + asked + ", but '" + r.path + "' is " + r.from
                            + " in this write, which does not widen to " + r.to + " without losing values",
                            "Only widenings are applied (a narrower integer to a wider one or to a decimal with as many digits before its "
                            + "point, float16 to float, float to double, a decimal to a wider one of the same scale): cast the column "
                            + "before writing.");
                }
                throw invalid("the column '" + r.path + "' is " + r.to + " in " + spec.catalog().describe() + " but " + r.from
                        + " in this write, which does not widen to " + r.to + " without losing values",
                        "Cast it to " + r.to + " before writing, or OVERWRITE the table to redefine it.");
            }
        }
        return targets.isEmpty() ? source : new CastingSource(source, targets);
    }

    /** What the validation pass found: the rows, and each batch's partition ids, which staging reuses. */
    private record Prepass(long rows, List<int[]> assigned) {
    }

    /** Reads a replayable input once without I/O: every partition value and timestamp is checked before anything is written. */
    private Prepass prepass(BatchSource source, Columns columns, Partitioner.NewPartition validator, Partitioner partitioner,
                            Buckets buckets) {
        long rows = 0;
        List<int[]> assigned = new ArrayList<>();
        try {
            while (source.next()) {
                VectorSchemaRoot batch = source.current();
                int[] ids = partitioner.assign(batch, validator);
                assigned.add(buckets == null ? ids : buckets.assign(batch, ids, rows));
                checkNanos(batch, columns.data);
                rows += batch.getRowCount();
            }
        } catch (IOException e) {
            throw invalid("the input could not be read (" + e.getMessage() + ")", "Check the input.");
        } catch (InvalidWriteException e) {
            throw e;
        } catch (Buckets.NullValue e) {
            throw invalid(e.getMessage(), "Fill the column, or bucket by columns without nulls; nothing was written.");
        } catch (IllegalArgumentException e) {
            // A value the input conversion refuses (a record's decimal that needs rounding, an instant finer than microseconds).
            throw invalid(e.getMessage(), "Nothing was written.");
        }
        if (rows == 0 && spec.mode() == WriteMode.OVERWRITE) {
            throw emptyOverwrite();
        }
        if (rows > 0) {
            checkNotAllNull(partitioner.keys(), () -> { });
        }
        return new Prepass(rows, assigned);
    }

    private void checkNanos(VectorSchemaRoot batch, List<Field> data) {
        for (Field f : data) {
            if (timestamps.narrows(f.getType())) {
                TimeStampVector v = (TimeStampVector) batch.getVector(f.getName());
                for (int r = 0; r < batch.getRowCount(); r++) {
                    if (!v.isNull(r) && !TimestampPolicy.wholeMicros(v.get(r))) {
                        String todo = TimestampPolicy.LOSSY_NANOS_TODO;
                        throw invalid(TimestampPolicy.lossyNanos(f.getName(), v.get(r), r),
                                Character.toUpperCase(todo.charAt(0)) + todo.substring(1) + ".");
                    }
                }
            }
        }
    }

    private InvalidWriteException emptyOverwrite() {
        return invalid("the input has no rows, and OVERWRITE with no rows would delete the whole table",
                "If the table should really be emptied, delete its objects explicitly; otherwise check the job's input.");
    }

    private void checkNotAllNull(List<PartitionKey> keys, Runnable cleanup) {
        for (int c = 0; c < spec.partitionBy().size(); c++) {
            final int col = c;
            if (!keys.isEmpty() && keys.stream().allMatch(k -> k.values().get(col) == null)) {
                cleanup.run();
                throw invalid("the partition column '" + spec.partitionBy().get(c) + "' is null or empty in every row, which would put "
                        + "all rows in " + PartitionEntry.DEFAULT_PARTITION, "Fill the column, or partition by another column.");
            }
        }
    }

    private CatalogCommit prepareCatalog(Columns columns) {
        CatalogTable catalog = spec.catalog();
        if (catalog == null) {
            return null;
        }
        return catalog.prepare(new TableDefinition(table, columns.dataOut, columns.partitionsOut, spec.mode(), spec.compression(),
                bucketNames(columns), columns.bucket.isEmpty() ? 0 : spec.buckets()));
    }

    private void checkBucket(S3Store store) {
        try {
            store.checkBucket();
        } catch (NoSuchBucketException e) {
            throw invalid("the bucket '" + location.bucket() + "' does not exist", "Create it, or fix the URI.");
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw invalid("the bucket '" + location.bucket() + "' does not exist", "Create it, or fix the URI.");
            }
            throw Failures.storage(table, WriteStep.VALIDATE, "reach the bucket", e,
                    "Check the credentials and the bucket policy (s3:ListBucket); nothing was written.");
        } catch (SdkException e) {
            throw Failures.storage(table, WriteStep.VALIDATE, "reach the bucket", e,
                    "Check the endpoint, region and credentials; nothing was written.");
        }
    }

    // ---- stage ----

    /** What every file this write stages shares ({@link Stager}): its keys, names, encoding, bounds and hook. */
    private StagingContext stagingContext(S3Store store, String writeId, FileEncoder.Settings settings) {
        WriteSpec.Tuning tuning = spec.tuning();
        return new StagingContext(store, location.prefix(), location.tmpPrefix() + writeId + "/", writeId, spec.filenamePrefix(),
                spec.compression().fileInfix() + ".parquet", deferred(), settings, spec.maxRowsPerFile(), spec.targetFileSize(),
                tuning.maxOpenFiles(), tuning.openBytes(), spec.spillDirectory(), spec.progress(),
                count -> spec.hook().reached(Step.STAGED_FILE, count));
    }

    private List<Manifest.File> stage(Stager stager, BatchSource source, BufferAllocator allocator, S3Store store, WriteLog log,
                                      List<String> folderNames, List<int[]> assigned) {
        try {
            return Manifest.File.of(stager.stage(source, allocator, folderNames, assigned));
        } catch (InvalidWriteException e) {
            abandon(store, log, e);
            throw e;
        } catch (IllegalArgumentException e) {
            abandon(store, log, e);
            throw new InvalidWriteException(table, WriteStep.STAGE, "Cannot write " + table + " (step: stage): " + e.getMessage()
                    + ". Nothing of the table was changed; this write's staged files were removed.", e);
        } catch (IOException | RuntimeException e) {
            abandon(store, log, e);
            throw Failures.rethrow(e, table, WriteStep.STAGE, "stage the data files",
                    "Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
        }
    }

    // ---- manifest ----

    private static Set<String> folders(Manifest m) {
        Set<String> out = new HashSet<>();
        m.partitions().forEach(p -> out.add(p.folder()));
        return out;
    }

    /** The early listing's result, its failure mapped as a listing after staging would be (nothing changed yet). */
    private Publisher.Listing joinListing(CompletableFuture<Publisher.Listing> early, Manifest m) {
        try {
            return Failures.joined(early);
        } catch (SdkException e) {
            throw Failures.storage(m.table(), WriteStep.PUBLISH, "list the old files", e,
                    "Nothing of the table has changed yet; rerun the write.");
        }
    }

    /** Lets a read still running finish before the write cleans up or lists again; its outcome no longer matters. */
    private static void awaitQuietly(CompletableFuture<?> f) {
        if (f != null) {
            try {
                f.join();
            } catch (RuntimeException ignored) {
                // a listing whose result is not used
            }
        }
    }

    /**
     * The manifest of the staged {@code files}. With {@code everyKey}, every partition of {@code keys} is in it whether
     * or not it has a file yet: the partitions an input known in advance touches, for listing their old files early.
     */
    private Manifest manifest(String writeId, String keyId, List<PartitionKey> keys, List<Manifest.File> files, Schema schema, Columns columns,
                              boolean everyKey) {
        Map<String, long[]> totals = new LinkedHashMap<>();
        for (Manifest.File f : files) {
            long[] t = totals.computeIfAbsent(f.folder(), k -> new long[2]);
            t[0] += f.rows();
            t[1] += f.bytes();
        }
        List<Manifest.Partition> partitions = new ArrayList<>();
        for (PartitionKey key : keys) {
            String folder = folders.folderOf(key);
            long[] t = everyKey ? totals.getOrDefault(folder, new long[2]) : totals.get(folder);
            if (t != null) {
                partitions.add(new Manifest.Partition(folder, key.values(), t[0], t[1]));
            }
        }
        List<Field> ordered = new ArrayList<>(columns.dataOut);
        ordered.addAll(columns.partitionsOut);
        return new Manifest(Manifest.FORMAT, writeId, table, spec.mode(), Manifest.State.COMMITTED, keyId, Instant.now().toString(),
                columns.partitionNames(), partitions, files, spec.catalog() == null ? null : spec.catalog().describe(),
                new Schema(ordered).toJson(), spec.compression(), Manifest.Requests.of(spec.options()), null,
                columns.bucket.isEmpty() ? null : new Manifest.Bucketing(bucketNames(columns), spec.buckets()));
    }

    // ---- results ----

    private WriteResult empty(String writeId) {
        return empty(writeId, new RecoveryResult(table, List.of(), List.of(), List.of(), List.of()));
    }

    private WriteResult empty(String writeId, RecoveryResult recovered) {
        if (spec.mode() == WriteMode.OVERWRITE) {
            throw emptyOverwrite();
        }
        return new WriteResult(table, writeId, spec.mode(), 0, List.of(), List.of(), recovered);
    }

    private WriteResult result(String writeId, Manifest m, Publisher.Outcome outcome, RecoveryResult recovered) {
        List<PartitionResult> partitions = new ArrayList<>();
        long rows = 0;
        // grouped once: a filter per partition would cost partitions x files, minutes at 50,000 partitions
        Map<String, List<String>> byFolder = new HashMap<>();
        for (Manifest.File f : m.files()) {
            byFolder.computeIfAbsent(f.folder(), k -> new ArrayList<>()).add(location.uriOf(f.finalKey()));
        }
        for (Manifest.Partition p : m.partitions()) {
            List<String> files = byFolder.getOrDefault(p.folder(), List.of());
            List<String> replaced = outcome.replaced().getOrDefault(p.folder(), List.of()).stream().map(location::uriOf).toList();
            List<String> shown = new PartitionKey(p.values()).displayValues();
            partitions.add(new PartitionResult(table + p.folder(), shown, files, p.rows(), p.bytes(), replaced));
            rows += p.rows();
        }
        List<String> deleted = outcome.deleted().stream().map(location::uriOf).toList();
        return new WriteResult(table, writeId, m.mode(), rows, partitions, deleted, recovered);
    }

    // ---- threads ----

    private static List<String> names(List<Field> fields) {
        return fields.stream().map(Field::getName).toList();
    }

    /**
     * Runs {@code step} on a thread of its own, beside the write's thread: a step that sends its requests on the pool and
     * waits for them must not take a pool thread itself (with few threads the pool would wait for itself). The thread is
     * the write's: the write does not end while it runs ({@link #stopBesides}).
     */
    private <T> CompletableFuture<T> beside(Supplier<T> step) {
        return CompletableFuture.supplyAsync(step, r -> {
            Thread t = new Thread(r, "wrangler-io-beside");
            t.setDaemon(true);
            besides.add(t);
            t.start();
        });
    }

    /**
     * Waits for the threads {@link #beside} started, before the pool they send on is shut down; with {@code interrupt}
     * (a crash: an Error) they are interrupted first, so that they stop at their next request instead of finishing.
     */
    private void stopBesides(boolean interrupt) {
        List<Thread> threads;
        synchronized (besides) {
            threads = List.copyOf(besides);
        }
        if (interrupt) {
            threads.forEach(Thread::interrupt);
        }
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static ExecutorService pool(int threads) {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "wrangler-io-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        return Executors.newFixedThreadPool(threads, factory);
    }

    static void shutdown(ExecutorService pool) {
        pool.shutdownNow();
        try {
            pool.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
