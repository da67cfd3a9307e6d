package io.wrangler.read;

import io.wrangler.CommitMark;
import io.wrangler.InvalidReadException;
import io.wrangler.PartitionFilter;
import io.wrangler.ReadException;
import io.wrangler.ReplacedSinceMarkException;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.hive.HivePaths;
import io.wrangler.layout.CommitLog;
import io.wrangler.layout.WriteIds;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An Increment is what a table's commits added after a {@link CommitMark}: the files its commit log records as added since,
 * less those replaced since, in commit order; or a {@link ReplacedSinceMarkException} when a commit since replaced rows that
 * existed at the mark. Decided from the log alone (no listing of the table's data), with the writes still in flight
 * (a folder under {@code _tmp/}) cutting the range before their entry: the mark it ends at covers exactly the entries it
 * read. See docs/reading.md, "Incremental reads".
 */
final class Increment {
    /** The log's listings and GETs in flight at once, at most: as many as a read's footer fetches. */
    private static final int THREADS = 8;

    private Increment() {
    }

    /**
     * What a delta read reads: its files and the mark it ends at.
     *
     * @param listing the files added since, in commit order
     * @param end the mark of the last commit read
     */
    record Result(TableFiles.Listing listing, CommitMark end) {
    }

    /**
     * The files committed after {@code after} in the partitions {@code filter} admits. The log's listings and GETs run at
     * once on threads of this read (at most {@link #THREADS}), never on a shared pool.
     */
    static Result after(S3Store store, S3Location location, CommitMark after, PartitionFilter filter) {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "wrangler-log");
            t.setDaemon(true);
            return t;
        });
        try {
            return after(store, location, after, filter, pool);
        } finally {
            pool.shutdownNow();
        }
    }

    private static Result after(S3Store store, S3Location location, CommitMark after, PartitionFilter filter, Executor pool) {
        String table = location.uri();
        List<CommitLog.Name> names = CommitLog.namesAfter(store, location, after.sequence(), pool);
        // After the log: a write whose entry was listed and whose folder is gone here has ended (see package-info).
        Set<String> inFlight = new HashSet<>();
        for (String folder : store.listFolders(location.tmpPrefix())) {
            String id = folder.substring(location.tmpPrefix().length(), folder.length() - 1);
            if (WriteIds.isWriteId(id)) {
                inFlight.add(id);
            }
        }
        List<CommitLog.Entry> entries;
        try {
            if (names.isEmpty()) {
                return new Result(new TableFiles.Listing(List.of(), List.of()), atTail(store, location, after));
            }
            checkNumbers(table, after, names);
            entries = CommitLog.readAll(store, location, names, pool);
        } catch (IOException e) {
            throw damaged(table, after, e.getMessage(), e);
        }
        String log = entries.get(0).log();
        for (CommitLog.Entry e : entries) {
            if (!e.log().equals(log)) {
                throw new ReadException(table, "Cannot read what " + table + " committed after " + after + " (step: log): its entries "
                        + (after.sequence() + 1) + ".." + e.seq() + " name two logs (" + log + ", " + e.log() + "). Nothing was changed; "
                        + "inspect " + location.uriOf(CommitLog.prefix(location)) + ".", null);
            }
        }
        if (!after.log().equals(CommitLog.NONE) && !after.log().equals(log)) {
            throw otherLog(table, after, log);
        }
        return decide(location, after, entries, inFlight, filter, log);
    }

    /** An empty range: the mark is the log's end, or a mark of another log, or ahead of this one. */
    private static CommitMark atTail(S3Store store, S3Location location, CommitMark after) {
        CommitLog.Tail tail = CommitLog.tail(store, location);
        String table = location.uri();
        if (tail.idUnknown()) {
            throw damaged(table, after, tail.damaged().get(0), null);
        }
        if (!after.log().equals(CommitLog.NONE) && !after.log().equals(tail.log())) {
            throw otherLog(table, after, tail.log());
        }
        if (tail.seq() < after.sequence()) {
            throw new InvalidReadException(table, "Cannot read what " + table + " committed after " + after + ": the mark is ahead of the "
                    + "table's commit log, which ends at " + tail.seq() + " (the table was dropped and written again, or the mark was "
                    + "edited). Read the table whole with withMark() and keep that read's mark.");
        }
        return after;
    }

    /**
     * An entry in the range cannot be read (gone, not parsed, refused): a log entry is written whole by one PUT, so it
     * was damaged (or written by a newer wrangler). The delta cannot be decided without it, and retrying fails the same
     * way; writes go on past it (they log a WARNING).
     */
    private static InvalidReadException damaged(String table, CommitMark after, String why, Throwable cause) {
        InvalidReadException e = new InvalidReadException(table, "Cannot read what " + table + " committed after " + after
                + " (step: log): " + why + ". A log entry is written whole by one PUT, so this one was damaged (or written by a "
                + "newer wrangler), and no delta across it can be told. Nothing was changed. Restore the entry from a backup or "
                + "version of the object if there is one; otherwise read the table whole with withMark() and keep that read's "
                + "mark (it is past the damaged entry).");
        if (cause != null) {
            e.addSuppressed(cause);
        }
        return e;
    }

    private static InvalidReadException otherLog(String table, CommitMark after, String log) {
        return new InvalidReadException(table, "Cannot read what " + table + " committed after " + after + ": the mark belongs to "
                + "another table's commit log (this table's log is " + log + "; the table was dropped and written again, or the mark "
                + "is another table's). Use a mark this table's writes or reads returned, or read the table whole with withMark() "
                + "and keep that read's mark.");
    }

    /** The names after the mark must be numbered from the mark's next on, once each: else entries were lost or forged. */
    private static void checkNumbers(String table, CommitMark after, List<CommitLog.Name> names) {
        long expected = after.sequence() + 1;
        if (names.get(0).seq() > expected) {
            throw new InvalidReadException(table, "Cannot read what " + table + " committed after " + after + ": the table's commit log "
                    + "no longer holds the commits right after the mark (its first entry after it is " + names.get(0).seq() + "; "
                    + "older entries expired, by a lifecycle rule on _wrangler/log/ or by hand). Read the table whole with withMark() "
                    + "and keep that read's mark; keep log entries longer than the longest gap between two of your reads.");
        }
        for (CommitLog.Name n : names) {
            if (n.seq() != expected) {
                throw new ReadException(table, "Cannot read what " + table + " committed after " + after + " (step: log): the commit "
                        + "log " + (n.seq() < expected ? "holds two entries numbered " + n.seq() : "lacks entry " + expected)
                        + ", which no wrangler write leaves. Nothing was changed; inspect the log's entries around it.", null);
            }
            expected++;
        }
    }

    /**
     * Walks the entries in commit order: files added since stay until replaced; a replacement of a file that existed at
     * the mark is reported, except a compaction that kept every row of files all from before the mark (its files count
     * as from before the mark). The range ends before the first entry of a write still in flight.
     */
    private static Result decide(S3Location location, CommitMark after, List<CommitLog.Entry> entries, Set<String> inFlight,
                                 PartitionFilter filter, String log) {
        Set<String> retracted = new HashSet<>();
        entries.forEach(e -> {
            if (CommitLog.ROLLED_BACK.equals(e.kind())) {
                retracted.add(e.writeId());
            }
        });
        Map<String, CommitLog.Added> live = new LinkedHashMap<>();
        Set<String> replacedFolders = new TreeSet<>();
        long end = after.sequence();
        Map<String, Boolean> admitted = new HashMap<>();
        for (CommitLog.Entry e : entries) {
            if (inFlight.contains(e.writeId()) && !retracted.contains(e.writeId())) {
                break;
            }
            end = e.seq();
            if (retracted.contains(e.writeId())) {
                continue;
            }
            // Partition by partition: a compaction of several decides each of its partitions on its own.
            Map<String, List<String>> before = new LinkedHashMap<>();
            Map<String, List<String>> since = new LinkedHashMap<>();
            for (String k : e.replaced()) {
                String folder = folderOf(location, k);
                if (admitted.computeIfAbsent(folder, f -> admits(filter, f))) {
                    (live.containsKey(k) ? since : before).computeIfAbsent(folder, f -> new ArrayList<>()).add(k);
                }
            }
            boolean rearranges = CommitLog.COMPACTION.equals(e.kind()) && !e.rowsChanged();
            Set<String> unchanged = new HashSet<>();
            for (String folder : before.keySet()) {
                if (rearranges && !since.containsKey(folder)) {
                    unchanged.add(folder); // the same rows as at the mark, in other files: nothing since, nothing replaced
                } else {
                    replacedFolders.add(folder);
                }
            }
            since.values().forEach(keys -> keys.forEach(live::remove));
            for (CommitLog.Added a : e.added()) {
                if (!unchanged.contains(a.folder()) && admitted.computeIfAbsent(a.folder(), f -> admits(filter, f))) {
                    live.put(a.key(), a);
                }
            }
        }
        String table = location.uri();
        if (!replacedFolders.isEmpty()) {
            List<String> shown = new ArrayList<>(replacedFolders);
            throw new ReplacedSinceMarkException(table, after, shown, "Cannot read what " + table + " committed after " + after + ": "
                    + "rows that existed at the mark were replaced since (an overwrite, a keyed rerun, a compaction with dedupBy, or "
                    + "another change of rows) in " + shown.size() + " partition(s): " + describe(shown) + ". No delta can tell the "
                    + "rows you have from the rows since. Read the table (or these partitions) whole with withMark(), and keep that "
                    + "read's mark. Nothing was changed.");
        }
        return new Result(listing(location, live.values()), CommitMark.of(end == 0 && after.log().equals(CommitLog.NONE)
                ? CommitLog.NONE : log, end));
    }

    private static String describe(List<String> folders) {
        List<String> shown = folders.size() > 10 ? folders.subList(0, 10) : folders;
        String s = shown.stream().map(f -> f.isEmpty() ? "(the table's root)" : f).toList().toString();
        return folders.size() > 10 ? s + " and " + (folders.size() - 10) + " more" : s;
    }

    /** The partition folder of a key below the table root ({@code ""} at the root). */
    private static String folderOf(S3Location location, String key) {
        String rel = key.substring(location.prefix().length());
        return rel.substring(0, rel.lastIndexOf('/') + 1);
    }

    private static boolean admits(PartitionFilter filter, String folder) {
        if (filter == PartitionFilter.all()) {
            return true;
        }
        Parsed p = parse(folder);
        if (p == null) {
            return false;
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < p.columns.size(); i++) {
            values.put(p.columns.get(i), p.values.get(i));
        }
        return filter.test(values);
    }

    private record Parsed(List<String> columns, List<String> values) {
    }

    /** A Hive folder's columns and unescaped values (the default partition as null), or null when it is not one. */
    private static Parsed parse(String folder) {
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        if (folder.isEmpty()) {
            return new Parsed(columns, values);
        }
        for (String part : folder.substring(0, folder.length() - 1).split("/", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                return null;
            }
            columns.add(HivePaths.unescape(part.substring(0, eq)));
            String v = part.substring(eq + 1);
            values.add(v.equals(PartitionEntry.DEFAULT_PARTITION) ? null : HivePaths.unescape(v));
        }
        return new Parsed(columns, values);
    }

    /** The files as a read's listing, their partition columns from their folders. */
    private static TableFiles.Listing listing(S3Location location, Iterable<CommitLog.Added> files) {
        List<TableFiles.DataFile> out = new ArrayList<>();
        List<String> columns = null;
        for (CommitLog.Added a : files) {
            Parsed p = parse(a.folder());
            if (p == null) {
                throw new ReadException(location.uri(), "Cannot read " + location.uri() + ": the commit log names the file "
                        + location.uriOf(a.key()) + " in the folder " + a.folder() + ", which is not a Hive partition folder", null);
            }
            if (columns == null) {
                columns = p.columns;
            } else if (!columns.equals(p.columns)) {
                throw new ReadException(location.uri(), "Cannot read " + location.uri() + ": the files committed since lie in folders of "
                        + "the columns " + columns + " and " + p.columns, null);
            }
            // The ETag the entry recorded (none in entries written before it was): every GET of the file carries it as
            // If-Match, so an object put under the key since fails the read (ReadErrors.replaced) instead of being read.
            out.add(new TableFiles.DataFile(location.bucket(), a.key(), a.bytes(), a.folder(), p.values, null, a.eTag()));
        }
        return new TableFiles.Listing(columns == null ? List.of() : columns, out);
    }
}
