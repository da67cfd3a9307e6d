package io.wrangler.layout;

import io.wrangler.staging.StagedFile;
import io.wrangler.ReadException;
import io.wrangler.WriteMode;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A Visibility is what a reader must leave out of a table's listing so that it sees each write whole: the files of
 * writes in flight, found by their manifests under {@code _tmp/}. See "Readers" in {@code package-info.java}.
 *
 * <p>Built from one listing of the folders directly below {@code _tmp/} (with delimiter, every page: its cost does not
 * grow with the files writes in flight stage there; against a server that ignores the delimiter, the folders of the keys
 * it answers) and one GET per write's folder for its manifest, several at once (a folder without one
 * answers 404 and is skipped, as a manifest deleted meanwhile is), before the data files are listed. A write that
 * changes state between that and the listing of its files may still show half (a reader holds no lease).
 */
public final class Visibility {
    private final Set<String> hiddenWrites;
    private final List<Manifest> committed;
    private final List<Manifest> published;
    private final String tmp;
    private final S3Store store;
    private final S3Location location;
    private final String verb;
    /** Whether a manifest past its record and short of a roll back (COMMITTED or PUBLISHED, any kind) was found. */
    private boolean midCommit;

    private Visibility(S3Store store, S3Location location, String verb, Set<String> hiddenWrites, List<Manifest> committed,
                       List<Manifest> published) {
        this.store = store;
        this.location = location;
        this.verb = verb;
        this.hiddenWrites = hiddenWrites;
        this.committed = committed;
        this.published = published;
        this.tmp = location.tmpPrefix();
    }

    /**
     * True when a write was between its commit record and its end (a manifest COMMITTED or PUBLISHED, any kind): such a
     * write may or may not have its entry in the commit log yet, so a read's commit mark cannot be told from this look.
     */
    public boolean midCommit() {
        return midCommit;
    }

    /**
     * The overwrites, keyed appends and compactions past their commit point (COMMITTED or PUBLISHED) whose manifests
     * are still there: a reader through a catalog adds the partitions they write that the catalog does not register yet
     * (their catalog step has not run), so that it sees them as after once they show as after.
     */
    public List<Manifest> committedWrites() {
        List<Manifest> out = new ArrayList<>(committed);
        out.addAll(published);
        return out;
    }

    /**
     * The writes in flight in the table at {@code location}. A manifest gone between the listing of {@code _tmp/} and
     * its GET (404) is skipped: its write ended. A manifest that cannot be fetched (any other S3 failure, after the
     * request's retries) or parsed fails the read with a {@link ReadException}: without it the read cannot tell which of
     * that write's files, or of the files it replaces, to leave out (taking it as absent would show a committed
     * overwrite's old and new rows together). No unparseable manifest is skipped: none is provably harmless, as its
     * state and replaced files are unknown, and a wrangler manifest is written whole by one PUT, so an unparseable one is
     * of a newer format or damaged (recovery refuses it too).
     *
     * @param verb what the caller does, for messages: "read" or "compact"
     */
    public static Visibility of(S3Store store, S3Location location, String verb) {
        String table = location.uri();
        Set<String> hidden = new HashSet<>();
        List<Manifest> committed = new ArrayList<>();
        List<Manifest> published = new ArrayList<>();
        boolean midCommit = false;
        // The folders directly below _tmp/ (every page), not every object there: a write in flight stages its files in its
        // folder, and the look must not grow with them. Each write's manifest lies directly in its folder. A server that
        // ignores the delimiter answers every key there and no folder: the folders are then taken from the keys.
        List<String> folders = new ArrayList<>();
        for (String folder : store.listFoldersOfAnyKey(location.tmpPrefix())) {
            String rel = folder.substring(location.tmpPrefix().length());
            if (WriteIds.isWriteId(rel.substring(0, rel.length() - 1))) {
                folders.add(folder);
            }
        }
        List<Fetched> fetched;
        try {
            fetched = manifests(store, folders);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReadException(table, "Cannot " + verb + " " + table + " (step: list): interrupted while fetching the "
                    + "manifests of the writes in flight. Nothing was changed; " + verb + " again (safe to retry).", e);
        }
        for (int i = 0; i < folders.size(); i++) {
            Manifest m = checked(location, verb, folders.get(i), fetched.get(i));
            if (m == null) {
                continue;
            }
            midCommit |= m.state() == Manifest.State.COMMITTED || m.state() == Manifest.State.PUBLISHED;
            boolean committable = m.mode() != WriteMode.APPEND || m.keyed();
            if (!committable || m.state() == Manifest.State.STARTED || m.state() == Manifest.State.ABORTING) {
                // A plain append commits when its manifest is deleted; anything before a commit point may be undone.
                hidden.add(m.writeId());
            } else if (m.state() == Manifest.State.COMMITTED) {
                committed.add(m);
            } else if (m.state() == Manifest.State.PUBLISHED) {
                published.add(m);
            }
        }
        Visibility v = new Visibility(store, location, verb, hidden, committed, published);
        v.midCommit = midCommit;
        return v;
    }

    /**
     * The manifest of the write folder {@code folder} as fetched, parsed and checked ({@link ManifestTrust}), or null when
     * there is none (404: its write ended, or never recorded); a failed GET, an unparseable or a refused manifest fails
     * the read.
     */
    private static Manifest checked(S3Location location, String verb, String folder, Fetched fetched) {
        String table = location.uri();
        String key = folder + Manifest.FILE_NAME;
        if (fetched.failure != null) {
            SdkException e = fetched.failure;
            throw new ReadException(table, "Cannot " + verb + " " + table + " (step: list): fetching the manifest "
                    + location.uriOf(key) + " failed (" + e.getMessage() + "), and without it the files of that write "
                    + "cannot be told visible or not. Nothing was changed; " + verb + " again (safe to retry).", e);
        }
        if (fetched.body.isEmpty()) {
            return null;
        }
        Manifest m;
        try {
            m = Manifest.fromJson(fetched.body.get());
        } catch (IOException e) {
            throw new ReadException(table, "Cannot " + verb + " " + table + " (step: list): the manifest "
                    + location.uriOf(key) + " cannot be parsed (" + e.getMessage() + "), so which files of that write "
                    + "are visible cannot be decided. Nothing was changed. Do not delete it: inspect it, and upgrade wrangler "
                    + "if it was written by a newer version.", e);
        }
        String writeId = folder.substring(location.tmpPrefix().length(), folder.length() - 1);
        String refused = ManifestTrust.refusal(location, writeId, m);
        if (refused != null) {
            // Recovery refuses it the same way: leaving its files out on its word would drop rows of this table.
            throw new ReadException(table, "Cannot " + verb + " " + table + " (step: list): the manifest "
                    + location.uriOf(key) + " does not belong to this table: " + refused + ". Readers and recovery act "
                    + "on no such manifest, so which files are visible cannot be decided. Nothing was changed. Inspect it; if "
                    + "it is not a write of this table, delete " + location.uriOf(folder) + " by hand, then " + verb + " again.", null);
        }
        return m;
    }

    /** A manifest's GET: its body (empty: no manifest, 404), or the failure after the request's retries. */
    private record Fetched(Optional<byte[]> body, SdkException failure) {
    }

    /** Most manifests fetched at once. */
    private static final int THREADS = 8;

    /**
     * The manifest of each write folder, in {@code folders}' order: one GET each, at once on threads of this look (at
     * most {@link #THREADS}, never a shared pool) when there are several, so that a table with several writes in flight
     * costs a reader one round trip for them, not one each. All are answered before the data files are listed.
     */
    private static List<Fetched> manifests(S3Store store, List<String> folders) throws InterruptedException {
        if (folders.size() < 2) {
            return folders.stream().map(f -> fetch(store, f)).toList();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(THREADS, folders.size()), r -> {
            Thread t = new Thread(r, "wrangler-manifests");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Fetched>> futures = new ArrayList<>();
            for (String f : folders) {
                futures.add(pool.submit(() -> fetch(store, f)));
            }
            List<Fetched> out = new ArrayList<>();
            for (Future<Fetched> f : futures) {
                out.add(f.get());
            }
            return out;
        } catch (ExecutionException e) {
            // fetch catches every SdkException; anything else is a bug or an Error: let it go up as it is
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static Fetched fetch(S3Store store, String folder) {
        try {
            return new Fetched(store.get(folder + Manifest.FILE_NAME), null);
        } catch (SdkException e) {
            return new Fetched(Optional.empty(), e);
        }
    }

    /**
     * The keys of {@code listed} that a reader sees. {@code listed} holds every data file of the read's scope, and
     * {@code inScope} says whether a key lies in a folder of that scope, listed or not: the whole table for an
     * unfiltered read, every folder the filter admits (one an overwrite emptied included), every partition the catalog
     * registers. A committed overwrite (or keyed append, or compaction) being published shows as before while every file
     * it replaces in the scope is still listed (its new files are left out), and as after once one is gone (its copies
     * are all in place before its first delete): the rest of what it replaces is left out. Deciding over the listed
     * folders only would miss a partition the overwrite emptied and show its new files with none of its deletes.
     */
    public List<S3Object> visible(List<S3Object> listed, Predicate<String> inScope) {
        Set<String> keys = new HashSet<>();
        listed.forEach(o -> keys.add(o.key()));
        Set<String> hiddenWritesHere = new HashSet<>(hiddenWrites);
        Set<String> hiddenKeys = new HashSet<>();
        for (Manifest m : committed) {
            if (asAfter(m, keys, inScope)) {
                hiddenKeys.addAll(m.replaces());
            } else {
                hiddenWritesHere.add(m.writeId());
            }
        }
        List<S3Object> out = new ArrayList<>();
        for (S3Object o : listed) {
            if (o.key().startsWith(tmp) || hiddenKeys.contains(o.key())) {
                continue;
            }
            String id = WriteIds.ofFile(o.key());
            if (id != null && hiddenWritesHere.contains(id)) {
                continue;
            }
            out.add(o);
        }
        return out;
    }

    /**
     * Whether a COMMITTED write shows as after: one file it replaces in the scope is gone (deletes start only once every
     * copy is in place) and every new file of it is in place, as the listing shows for those in the scope, or one HEAD
     * shows for a write with none in the scope. A manifest's word that a file it replaces is gone is not enough alone:
     * a key that never existed would show the partition with neither its old nor its new files.
     */
    private boolean asAfter(Manifest m, Set<String> keys, Predicate<String> inScope) {
        boolean anyGone = false;
        for (String r : m.replaces() == null ? List.<String>of() : m.replaces()) {
            if (!keys.contains(r) && inScope.test(r)) {
                anyGone = true;
                break;
            }
        }
        if (!anyGone) {
            return false;
        }
        String outside = null;
        boolean anyInScope = false;
        for (StagedFile f : m.files()) {
            if (inScope.test(f.finalKey())) {
                anyInScope = true;
                if (!keys.contains(f.finalKey())) {
                    return false;
                }
            } else if (outside == null) {
                outside = f.finalKey();
            }
        }
        if (anyInScope || outside == null) {
            return true;
        }
        String first = outside;
        try {
            return store.size(first).isPresent();
        } catch (SdkException e) {
            throw new ReadException(location.uri(), "Cannot " + verb + " " + location.uri() + " (step: list): looking for "
                    + location.uriOf(first) + " failed (" + e.getMessage() + "). Nothing was changed; " + verb + " again (safe to retry).", e);
        }
    }
}
