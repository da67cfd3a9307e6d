package io.wrangler.commit;

import io.wrangler.CommitStateUnknownException;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteMode;
import io.wrangler.WriteStep;
import io.wrangler.layout.CommitLog;
import io.wrangler.layout.Manifest;
import io.wrangler.layout.WriteIds;
import io.wrangler.spi.StepHook;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A Publisher moves a staged write into the table: it lists the old files of the touched partitions, copies
 * the staged files to their final keys, then deletes the old files. Copy before delete: a reader may see
 * old and new files side by side for a moment, never a partition with neither.
 *
 * <p>Publishing is idempotent, so recovery runs it again after a crash: copies of files already copied
 * are repeated (same bytes), old files already deleted are no longer listed, and the files this write publishes
 * (its manifest lists their final keys) are never taken for old ones.
 */
final class Publisher {
    private final S3Store store;
    private final S3Location location;
    private final ExecutorService pool;
    private final WriteSpec.Tuning tuning;
    private final StepHook hook;
    /** The lease's check, run right before every step that the state table fences. */
    private final Runnable fence;
    /** The size of every old file listed, by key, for a dry run ({@link DryRun}); null for a write. */
    private final Map<String, Long> sizes;

    Publisher(TableContext context) {
        this(context, null);
    }

    /** A Publisher whose listings also put the size of every old file they find in {@code sizes} (a concurrent map). */
    Publisher(TableContext context, Map<String, Long> sizes) {
        this.sizes = sizes;
        this.store = context.store();
        this.location = context.location();
        this.pool = context.pool();
        this.tuning = context.tuning();
        this.hook = context.hook();
        this.fence = context.fence();
    }

    /**
     * What publishing removed.
     *
     * @param replaced per written partition folder, the keys of the old files deleted from it
     * @param deleted every key deleted, including those of partitions an OVERWRITE did not write
     * @param eTags per final key, the ETag S3 answered when it put the file in place; a file found already in place (a
     *     repeated publish whose copy or completion had been applied) has none
     */
    record Outcome(Map<String, List<String>> replaced, List<String> deleted, Map<String, String> eTags) {
        Outcome {
            eTags = Map.copyOf(eTags);
        }
    }

    /**
     * The files a write replaces, found by listing. {@code nested} holds keys under another table's {@code _tmp/} met
     * inside this one (tables must not nest): they are never old files, and a writer refuses to commit over them.
     */
    record Listing(List<String> old, List<String> nested, List<Marked> marked) {
        Listing(List<String> old, List<String> nested) {
            this(old, nested, List.of());
        }
    }

    /**
     * A file in a keyed append's partitions that records its rows' keys (a compaction's, or a rewrite's): a candidate old
     * file of the append, whose footer tells whether it holds rows of the append's key ({@link KeyedRewrite}).
     */
    record Marked(String key, long size, String folder, Instant modified, String eTag) {
    }

    /** Lists the old files of the partitions {@code m} touches (the whole table for OVERWRITE). Reads only. */
    Listing listOld(Manifest m) {
        return listOld(m, null);
    }

    /**
     * Like {@link #listOld(Manifest)}, counting only files written no later than {@code committedAt} (S3's clock, in
     * whole seconds, as S3 dates objects): recovery lists the old files again after the commit point, when a file written
     * since is not this write's to replace.
     */
    Listing listOld(Manifest m, Instant committedAt) {
        Listing listing = listOldFiles(m, committedAt);
        hook.reached(Step.LISTED_OLD_FILES, 1);
        return listing;
    }

    /** {@link #listOld(Manifest)} without telling the hook: a write that lists while it stages tells it once staged. */
    Listing listOldFiles(Manifest m, Instant committedAt) {
        List<String> old = new ArrayList<>();
        List<String> nested = new ArrayList<>();
        List<Marked> marked = new ArrayList<>();
        Map<String, Instant> written = new HashMap<>();
        Set<String> mine = new HashSet<>();
        m.files().forEach(f -> mine.add(f.finalKey()));
        try {
            if (m.mode() == WriteMode.OVERWRITE) {
                old.addAll(oldFiles(location.prefix(), mine, null, nested, written, new ArrayList<>()));
            } else if (m.mode() == WriteMode.OVERWRITE_PARTITIONS) {
                old.addAll(oldFilesOf(m.partitions(), mine, null, nested, written, new ArrayList<>()));
            } else if (m.keyed()) {
                // A keyed append replaces what earlier runs with the same key left in these partitions: their files carry
                // the key's id, and those this run does not write again would otherwise double rows.
                old.addAll(oldFilesOf(m.partitions(), mine, m.keyId(), nested, written, marked));
            }
            if (committedAt != null) {
                long commitSecond = committedAt.getEpochSecond();
                old.removeIf(k -> written.containsKey(k) && written.get(k).getEpochSecond() > commitSecond);
            }
        } catch (SdkException e) {
            throw Outcomes.storage(m.table(), WriteStep.PUBLISH, "list the old files", e,
                    "Nothing of the table has changed yet; rerun the write.");
        }
        return new Listing(old, nested, marked);
    }

    /**
     * Publishes a committed write: copies (or completes) every file, then deletes {@code old}, each delete batch right
     * after a fencing check. Idempotent.
     */
    Outcome publish(Manifest m, List<String> old) {
        return publish(m, old, eTags -> { });
    }

    /**
     * Like {@link #publish(Manifest, List)}, running {@code placed} once every file is in place and before the
     * first delete, with the ETags of {@link Outcome#eTags}: the writer starts removing its staged copies there, alongside
     * the deletes, and sends its commit log entry.
     */
    Outcome publish(Manifest m, List<String> old, Consumer<Map<String, String>> placed) {
        String table = m.table();
        Map<String, List<String>> replaced = new LinkedHashMap<>();
        Set<String> written = new HashSet<>();
        for (Manifest.Partition p : m.partitions()) {
            replaced.put(p.folder(), new ArrayList<>());
            written.add(p.folder());
        }
        for (String key : old) {
            String folder = key.substring(location.prefix().length(), key.lastIndexOf('/') + 1);
            if (written.contains(folder)) {
                replaced.get(folder).add(key);
            }
        }

        Map<String, String> eTags = copyAll(m);
        placed.accept(eTags);

        AtomicInteger batches = new AtomicInteger();
        // Only a failed DeleteObjects request is this step's to report; the fence's own failures pass through as they are.
        AtomicBoolean sending = new AtomicBoolean();
        try {
            store.delete(old, tuning.deleteBatch(), () -> {
                sending.set(false);
                fence.run();
                sending.set(true);
            }, errors -> {
                sending.set(false);
                if (!errors.isEmpty()) {
                    S3Error first = errors.get(0);
                    throw Outcomes.deletesRefused(table, errors.size(), first);
                }
                hook.reached(Step.DELETED_BATCH, batches.incrementAndGet());
            });
        } catch (SdkException e) {
            if (!sending.get()) {
                throw e;
            }
            throw Outcomes.incomplete(table, WriteStep.PUBLISH, "delete the replaced files", e,
                    "The new files are in place but some old ones remain, so rows may be doubled until you rerun the write "
                            + "or run S3Parquet.recover, which finishes the deletes.");
        }
        return new Outcome(replaced, old, eTags);
    }

    /**
     * The old files of the written partitions: the objects directly in each partition's folder (its Hive folder, or
     * where the catalog registers it). Deeper objects are not the partition's files: they may be another partition's,
     * registered by another tool at a folder below this one (awswrangler puts {@code country=a/b c=d:e/} under
     * {@code country=a/}), and a write never deletes what it cannot tell is its partition's. Partitions that share their
     * first folder ({@code dt=2024-01-15/}) are listed with one listing of that folder instead of one listing each.
     * Without partition columns an overwrite's one partition is the table, replaced whole (an OVERWRITE); a keyed
     * append's is the files directly at the root, as anywhere else (a table below the root may carry the same key).
     */
    private List<String> oldFilesOf(List<Manifest.Partition> partitions, Set<String> mine, String carrying, List<String> nested,
                                    Map<String, Instant> written, List<Marked> marked) {
        Set<String> folders = new HashSet<>();
        Map<String, List<String>> byFirst = new LinkedHashMap<>();
        for (Manifest.Partition p : partitions) {
            if (p.folder().isEmpty() && carrying == null) {
                return oldFiles(location.prefix(), mine, null, nested, written, new ArrayList<>());
            }
            if (folders.add(p.folder())) {
                byFirst.computeIfAbsent(p.folder().substring(0, p.folder().indexOf('/') + 1), k -> new ArrayList<>()).add(p.folder());
            }
        }
        // The listings are independent reads: they run at once on the pool, so a write's listings cost about one round
        // trip instead of one per first folder. Their results are merged in the same order as before.
        List<CompletableFuture<Found>> listings = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : byFirst.entrySet()) {
            String prefix = e.getValue().size() == 1 ? e.getValue().get(0) : e.getKey();
            listings.add(CompletableFuture.supplyAsync(() -> {
                Found found = new Found(new ArrayList<>(), new ArrayList<>(), new HashMap<>(), new ArrayList<>());
                found.keys.addAll(oldFiles(location.prefix() + prefix, mine, carrying, found.nested, found.written, found.marked));
                return found;
            }, pool));
        }
        List<String> out = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<Found> listing : listings) {
            Found found;
            try {
                found = listing.join();
            } catch (RuntimeException e) {
                Throwable t = Outcomes.unwrap(e);
                if (t instanceof Error err) {
                    throw err;
                }
                if (failure == null) {
                    failure = t instanceof RuntimeException r ? r : e;
                }
                continue;
            }
            nested.addAll(found.nested);
            written.putAll(found.written);
            for (String key : found.keys) {
                String rel = key.substring(location.prefix().length());
                if (folders.contains(rel.substring(0, rel.lastIndexOf('/') + 1))) {
                    out.add(key);
                }
            }
            for (Marked f : found.marked) {
                if (folders.contains(f.folder())) {
                    marked.add(f);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return out;
    }

    /** What one listing found: candidate old files, nested staging, and when each candidate was written. */
    private record Found(List<String> keys, List<String> nested, Map<String, Instant> written, List<Marked> marked) {
    }

    /**
     * Keys under {@code prefix} that are neither staging (this table's or a nested table's, which go to {@code nested})
     * nor files this write publishes; when {@code keyId} is given, only wrangler's files carrying a write id of that key
     * (unmarked), the marked files going to {@code marked}.
     */
    private List<String> oldFiles(String prefix, Set<String> mine, String keyId, List<String> nested,
                                  Map<String, Instant> written, List<Marked> marked) {
        List<String> out = new ArrayList<>();
        String tmp = location.tmpPrefix();
        for (S3Object o : store.list(prefix)) {
            String key = o.key();
            if (key.startsWith(tmp) || mine.contains(key) || CommitLog.wranglers(location, key)) {
                continue;
            }
            if (key.substring(location.prefix().length()).contains("/_tmp/")) {
                nested.add(key);
                continue;
            }
            if (keyId == null || WriteIds.carriesKey(key, keyId)) {
                out.add(key);
                written.put(key, o.lastModified());
                if (sizes != null) {
                    sizes.put(key, o.size());
                }
            } else if (WriteIds.marked(key)) {
                String rel = key.substring(location.prefix().length());
                marked.add(new Marked(key, o.size(), rel.substring(0, rel.lastIndexOf('/') + 1), o.lastModified(), o.eTag()));
            }
        }
        return out;
    }

    /** Puts every file in place: the ETags S3 answered, by final key (none for a file found already in place). */
    private Map<String, String> copyAll(Manifest m) {
        AtomicInteger copied = new AtomicInteger();
        Map<String, String> eTags = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> copies = new ArrayList<>();
        for (StagedFile f : m.files()) {
            copies.add(CompletableFuture.runAsync(() -> {
                String eTag = copyOne(m, f);
                if (eTag != null && !eTag.isBlank()) {
                    eTags.put(f.finalKey(), eTag);
                }
                hook.reached(Step.COPIED_FILE, copied.incrementAndGet());
            }, pool));
        }
        Throwable failure = null;
        List<String> lost = new ArrayList<>();
        for (CompletableFuture<Void> c : copies) {
            try {
                c.join();
            } catch (RuntimeException e) {
                Throwable t = Outcomes.unwrap(e);
                if (t instanceof Error err) {
                    throw err;
                }
                if (t instanceof UploadsLost l) {
                    lost.addAll(l.keys);
                } else if (failure == null) {
                    failure = t;
                }
            }
        }
        if (!lost.isEmpty()) {
            throw new UploadsLost(lost);
        }
        if (failure instanceof TableLease.Lost l) {
            throw l;
        }
        if (failure != null) {
            throw Outcomes.incompleteOrRethrow(failure, m.table(), WriteStep.PUBLISH, "copy the staged files to their final keys",
                    "The write is committed; some new files may already be visible next to the old ones. Rerun the write, or run "
                    + "S3Parquet.recover, to finish publishing.");
        }
        return eTags;
    }

    /** Puts one file in place: its ETag as S3 answered, or null when not known (found in place, or an answer lost). */
    private String copyOne(Manifest m, StagedFile f) {
        if (f.deferred()) {
            return store.completeDeferred(f.finalKey(), f.uploadId(), f.etags(), f.bytes())
                    .orElseThrow(() -> new UploadsLost(List.of(f.finalKey())));
        }
        try {
            // A copy in parts is fenced before its completion: a stalled writer resuming there would otherwise make a
            // file appear that the holder which took over has since replaced (deleting an object does not abort an
            // upload to its key). A single CopyObject needs no fence: its source is removed before any later write can
            // replace the target, so a late one fails.
            return store.copy(f.stagedKey(), f.finalKey(), f.bytes(), fence);
        } catch (NoSuchKeyException e) {
            missingStaged(m, f, e);
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw e;
            }
            missingStaged(m, f, e);
        }
        return null;
    }

    /**
     * Deferred uploads of a write were aborted before publish completed them (a lifecycle rule, or by hand): the write
     * cannot be finished. No old file has been deleted yet (deletes start only once every file is in place), so it is
     * undone instead: {@link #unpublish}.
     */
    static final class UploadsLost extends RuntimeException {
        final List<String> keys;

        UploadsLost(List<String> keys) {
            super("the open multipart uploads of " + keys.size() + " files are gone, first " + keys.get(0), null, false, false);
            this.keys = List.copyOf(keys);
        }
    }

    /**
     * Undoes a write's publishing: its deferred uploads still open are aborted and every final key it lists is deleted.
     * Every write id is unique to its run (keyed runs too), so these keys are objects this run created and no other.
     * Leaves its staging folder to the caller.
     *
     * @return the final keys S3 refused to delete
     */
    static List<S3Error> unpublish(S3Store store, Manifest m) {
        for (StagedFile f : m.files()) {
            if (f.deferred()) {
                try {
                    store.abort(f.finalKey(), f.uploadId());
                } catch (S3Exception e) {
                    if (e.statusCode() != 404) {
                        throw e;
                    }
                    // completed or aborted before: nothing open
                }
            }
        }
        return store.delete(m.files().stream().map(StagedFile::finalKey).toList());
    }

    /** A staged file is gone: fine if it was copied before (a repeated publish), lost otherwise. */
    private void missingStaged(Manifest m, StagedFile f, S3Exception e) {
        if (store.size(f.finalKey()).orElse(-1L) == f.bytes()) {
            return;
        }
        // A writer that stalled while the holder that took over finished this write, removed its staging and replaced
        // the file, meets this too: it has lost the lease, and says so.
        fence.run();
        throw Outcomes.stagedFileGone(m, f, e);
    }
}
