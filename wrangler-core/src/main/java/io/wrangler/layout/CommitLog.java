package io.wrangler.layout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The CommitLog of a table is the record of every write that committed, one small object per commit, numbered
 * 1, 2, 3, ... in commit order: {@code <table>/_wrangler/log/<group>/<seq>.<writeId>.json}, {@code group} being
 * {@code seq / 1000} (10 digits), {@code seq} 19 digits. Each entry records the write's id, its kind, the files it added
 * (key, partition folder, bytes, rows, and the ETag S3 gave the object when it was put in place, where known) and the keys
 * of the files it replaced; a {@code ROLLED_BACK} entry retracts every
 * entry of its write id (an append that wrote its entry, then was undone). Every entry carries the log's id, 16 hex
 * digits chosen by the first entry: a {@code CommitMark} is that id and a number.
 *
 * <p>Numbers come from the log itself, never from a clock: a writer (holding the table's lease) finds the last entry and
 * creates the next with {@code If-None-Match}, so a number is taken once; an entry's name carries its write id, so the
 * stalled writer of a write that a recovery already logged (or retracted) under the same number is refused by S3 too.
 * Decisions read whole listings (every page of every group that matters), never the order S3 lists names in.
 *
 * <p>What is read from here is input, like a manifest: an entry is parsed strictly and refused by {@link #refusal} unless it
 * names this table, its own number and write id, and only keys of this table's data files (outside every {@code _tmp/})
 * that carry its write id. See "The commit log" in {@code io.wrangler.commit}'s package-info.
 */
public final class CommitLog {
    /** The log's folder below the table root. Hive, Spark, Athena and awswrangler skip folders starting with {@code _}. */
    public static final String FOLDER = "_wrangler/log/";
    /** The log id of a table whose log has no entry yet. */
    public static final String NONE = "none";
    public static final int FORMAT = 1;
    static final int GROUP = 1000;
    private static final Pattern NAME = Pattern.compile("(\\d{19})\\.([A-Za-z0-9-]{1,96})\\.json");
    private static final Pattern GROUP_NAME = Pattern.compile("\\d{10}");
    private static final Pattern LOG_ID = Pattern.compile("[0-9a-f]{16}");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS, true)
            .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);

    /** The kind of a retraction: every entry of its write id is void (the write was undone). */
    public static final String ROLLED_BACK = "ROLLED_BACK";
    /** The kind of a compaction's entry. */
    public static final String COMPACTION = "COMPACTION";

    private CommitLog() {
    }

    /**
     * One file a commit added.
     *
     * @param key its key
     * @param folder its partition's folder below the table root ({@code ""} unpartitioned)
     * @param bytes its size
     * @param rows its rows
     * @param eTag the ETag S3 answered when the object was put in place (its CopyObject, its CompleteMultipartUpload), or
     *     null when not known: an entry written before the field existed, or a publish that found the file already in
     *     place (a repeated publish whose copy or completion had been applied, its answer lost). Written only when known,
     *     so an entry without one is byte for byte the earlier format, and earlier versions, which ignore unknown fields
     *     ({@code FAIL_ON_UNKNOWN_PROPERTIES} off), read entries with one. A read of the file carries it as
     *     {@code If-Match}: an object put under the key since fails the read instead of being read as this one.
     */
    public record Added(String key, String folder, long bytes, long rows, @JsonInclude(JsonInclude.Include.NON_NULL) String eTag) {
    }

    /**
     * One commit.
     *
     * @param format the entry's format
     * @param table the table root
     * @param log the log's id
     * @param seq its number
     * @param writeId the write's id
     * @param kind {@code APPEND}, {@code KEYED_APPEND}, {@code OVERWRITE}, {@code OVERWRITE_PARTITIONS}, {@code COMPACTION},
     *     {@code ROLLED_BACK}, or a later operation's name
     * @param rowsChanged false only for a compaction that kept every row (no {@code dedupBy}): the rows it replaced are
     *     the rows it added, rearranged
     * @param added the files it added
     * @param replaced the keys of the files it replaced
     */
    public record Entry(int format, String table, String log, long seq, String writeId, String kind, boolean rowsChanged,
                        List<Added> added, List<String> replaced) {
        public Entry {
            added = added == null ? null : List.copyOf(added);
            replaced = replaced == null ? null : List.copyOf(replaced);
        }

        public byte[] toJson() {
            try {
                return JSON.writeValueAsBytes(this);
            } catch (IOException e) {
                throw new IllegalStateException("cannot serialize the log entry of write " + writeId, e);
            }
        }

        /** The same entry under another number (a number taken meanwhile). */
        public Entry numbered(String log, long seq) {
            return new Entry(format, table, log, seq, writeId, kind, rowsChanged, added, replaced);
        }
    }

    /**
     * An entry's name in a listing.
     *
     * @param key its key
     * @param seq its number
     * @param writeId its write's id
     */
    public record Name(String key, long seq, String writeId) {
    }

    /**
     * The log's end: its id ({@link #NONE} when empty) and last number (0 when empty), with every name of its last group.
     * Entries that could not be read are passed over for the id (its number is still the last name's), and
     * {@code damaged} says which and why, newest first; when none could be read the id is {@link #NONE} with a number
     * above 0 ({@link #idUnknown}).
     */
    public record Tail(String log, long seq, List<Name> lastGroup, List<String> damaged) {
        public Tail {
            lastGroup = List.copyOf(lastGroup);
            damaged = List.copyOf(damaged);
        }

        /** True when the log has entries but none of them could be read: its id is unknown. */
        public boolean idUnknown() {
            return NONE.equals(log) && seq > 0;
        }
    }

    /**
     * True for a key under the table's {@code _wrangler/} folder (its commit log): never a data file, never an old file
     * an overwrite replaces, never a file younger than a manifest.
     */
    public static boolean wranglers(S3Location location, String key) {
        return key.startsWith(location.prefix() + "_wrangler/");
    }

    /** The folder of the log of the table at {@code location}. */
    public static String prefix(S3Location location) {
        return location.prefix() + FOLDER;
    }

    /** The key of entry {@code seq} of {@code writeId}. */
    public static String key(S3Location location, long seq, String writeId) {
        return prefix(location) + String.format("%010d/%019d.%s.json", seq / GROUP, seq, writeId);
    }

    /** A new log id. */
    public static String newLogId() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** True for a log id (16 hex digits). */
    public static boolean isLogId(String s) {
        return s != null && LOG_ID.matcher(s).matches();
    }

    /** The groups of the log, by number (every page of one listing with delimiter); other folders there are ignored. */
    static TreeMap<Long, String> groups(S3Store store, S3Location location) {
        TreeMap<Long, String> out = new TreeMap<>();
        String prefix = prefix(location);
        for (String folder : store.listFolders(prefix)) {
            String name = folder.substring(prefix.length(), folder.length() - 1);
            if (GROUP_NAME.matcher(name).matches()) {
                out.put(Long.parseLong(name), folder);
            }
        }
        return out;
    }

    /** The entries' names of one group (every page), by number; other objects there are ignored. */
    static List<Name> names(S3Store store, String groupFolder) {
        List<Name> out = new ArrayList<>();
        for (S3Object o : store.list(groupFolder)) {
            Matcher m = NAME.matcher(o.key().substring(groupFolder.length()));
            if (m.matches()) {
                out.add(new Name(o.key(), Long.parseLong(m.group(1)), m.group(2)));
            }
        }
        out.sort((a, b) -> Long.compare(a.seq(), b.seq()));
        return out;
    }

    /**
     * The log's end: the last group's names (an empty group, left by hand, is passed over), and the last entry's log id
     * (one GET). A last entry that cannot be read (gone, not parsed, refused: damaged) does not block the log: the id is
     * taken from the newest entry that can be read (one GET more each, only then), and the tail says what it passed over
     * ({@link Tail#damaged}). The number is always the last name's, so a new entry never takes a damaged one's number.
     */
    public static Tail tail(S3Store store, S3Location location) {
        TreeMap<Long, String> groups = groups(store, location);
        List<Name> lastGroup = null;
        long seq = 0;
        List<String> damaged = new ArrayList<>();
        for (String folder : groups.descendingMap().values()) {
            List<Name> names = names(store, folder);
            if (names.isEmpty()) {
                continue;
            }
            if (lastGroup == null) {
                lastGroup = names;
                seq = names.get(names.size() - 1).seq();
            }
            for (int i = names.size() - 1; i >= 0; i--) {
                try {
                    return new Tail(read(store, location, names.get(i)).log(), seq, lastGroup, damaged);
                } catch (IOException e) {
                    damaged.add(e.getMessage());
                }
            }
        }
        return new Tail(NONE, seq, lastGroup == null ? List.of() : lastGroup, damaged);
    }

    /** Every entry's name of the log (every group, every page). */
    public static List<Name> allNames(S3Store store, S3Location location) {
        List<Name> out = new ArrayList<>();
        for (String folder : groups(store, location).values()) {
            out.addAll(names(store, folder));
        }
        return out;
    }

    /**
     * The names of the entries numbered above {@code after}: the groups from {@code after}'s on, listed at once on
     * {@code pool} (the caller's I/O threads), by number.
     */
    public static List<Name> namesAfter(S3Store store, S3Location location, long after, Executor pool) {
        List<CompletableFuture<List<Name>>> listings = new ArrayList<>();
        for (Map.Entry<Long, String> g : groups(store, location).tailMap(after / GROUP, true).entrySet()) {
            listings.add(CompletableFuture.supplyAsync(() -> names(store, g.getValue()), pool));
        }
        List<Name> out = new ArrayList<>();
        for (CompletableFuture<List<Name>> l : listings) {
            try {
                l.join().stream().filter(n -> n.seq() > after).forEach(out::add);
            } catch (RuntimeException e) {
                Throwable c = e.getCause() != null ? e.getCause() : e;
                throw c instanceof RuntimeException r ? r : e;
            }
        }
        out.sort((a, b) -> Long.compare(a.seq(), b.seq()));
        return out;
    }

    /**
     * Reads and checks one entry.
     *
     * @throws IOException the entry is gone, cannot be parsed, or is refused ({@link #refusal}); the message says which
     */
    public static Entry read(S3Store store, S3Location location, Name name) throws IOException {
        Optional<byte[]> body = store.get(name.key());
        if (body.isEmpty()) {
            throw new IOException("the log entry " + location.uriOf(name.key()) + " was listed but is gone");
        }
        Entry e;
        try {
            e = JSON.readValue(body.get(), Entry.class);
        } catch (IOException | RuntimeException x) {
            throw new IOException("the log entry " + location.uriOf(name.key()) + " cannot be parsed (" + x.getMessage() + ")", x);
        }
        String refused = e == null ? "it is JSON null" : refusal(location, name, e);
        if (refused != null) {
            throw new IOException("the log entry " + location.uriOf(name.key()) + " is refused: " + refused);
        }
        return e;
    }

    /** Reads the entries named, at once on {@code pool} (the caller's I/O threads); the first failure in log order is thrown. */
    public static List<Entry> readAll(S3Store store, S3Location location, List<Name> names, Executor pool) throws IOException {
        List<CompletableFuture<Entry>> gets = new ArrayList<>();
        for (Name n : names) {
            gets.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return read(store, location, n);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, pool));
        }
        List<Entry> out = new ArrayList<>();
        for (CompletableFuture<Entry> g : gets) {
            try {
                out.add(g.join());
            } catch (RuntimeException e) {
                Throwable c = e.getCause() != null ? e.getCause() : e;
                if (c instanceof java.io.UncheckedIOException u) {
                    throw u.getCause();
                }
                throw c instanceof RuntimeException r ? r : e;
            }
        }
        return out;
    }

    /**
     * Why an entry read from the log of the table at {@code location} under {@code name} is not to be acted on, or null:
     * a newer format, another table, a number or write id that is not its name's, a log id that is not one, a file that
     * is not a data file of this table (under its root, outside every {@code _tmp/}, in the folder it names) carrying
     * the entry's write id, or a replaced key outside the table.
     */
    public static String refusal(S3Location location, Name name, Entry e) {
        if (e.format() > FORMAT || e.format() < 1) {
            return "its format " + e.format() + " is not one this wrangler reads (" + FORMAT + ")";
        }
        if (!location.uri().equals(e.table())) {
            return "it records the table " + e.table();
        }
        if (e.seq() != name.seq() || !name.writeId().equals(e.writeId()) || !WriteIds.isWriteId(e.writeId())) {
            return "it records the number " + e.seq() + " and write " + e.writeId() + ", not its name's";
        }
        if (!isLogId(e.log())) {
            return "its log id " + e.log() + " is not 16 hex digits";
        }
        if (e.kind() == null || e.added() == null || e.replaced() == null) {
            return "it lacks its kind, added or replaced files";
        }
        for (Added a : e.added()) {
            if (a == null || a.folder() == null || !ManifestTrust.inTable(location, a.key())
                    || !a.key().equals(location.prefix() + a.folder() + a.key().substring(a.key().lastIndexOf('/') + 1))
                    || !e.writeId().equals(WriteIds.ofFile(a.key())) || a.rows() < 0 || a.bytes() < 0) {
                return "the added file " + (a == null ? null : a.key()) + " is not a data file of this write in this table";
            }
        }
        for (String k : e.replaced()) {
            if (!ManifestTrust.inTable(location, k)) {
                return "the replaced file " + k + " is not in this table";
            }
        }
        return null;
    }

    /**
     * Appends {@code entry} (numbered by the caller from {@code tail}) with a conditional create. When the number is
     * taken: if by an entry of the same write id (a recovery logged or retracted this write first), nothing more is
     * written; otherwise {@code fence} is run (a writer that lost the table stops here) and the next number tried.
     *
     * @return the entry written, or the entry of the same write id found in its place
     */
    public static Entry append(S3Store store, S3Location location, Tail tail, Entry entry, Runnable fence) throws IOException {
        Tail at = tail;
        for (int attempt = 0; ; attempt++) {
            String log = NONE.equals(at.log()) ? newLogId() : at.log();
            Entry numbered = entry.numbered(log, at.seq() + 1);
            try {
                store.putIf(key(location, numbered.seq(), numbered.writeId()), numbered.toJson(), null);
                return numbered;
            } catch (S3Exception e) {
                if (e.statusCode() != 412 && e.statusCode() != 409 || attempt >= 4) {
                    throw e;
                }
            }
            at = tail(store, location);
            for (Name n : at.lastGroup()) {
                if (n.writeId().equals(entry.writeId())) {
                    return read(store, location, n);
                }
            }
            fence.run();
        }
    }

    /** The entries' names of {@code writeId} anywhere in the log (every group). */
    public static List<Name> namesOf(S3Store store, S3Location location, String writeId) {
        return allNames(store, location).stream().filter(n -> n.writeId().equals(writeId)).toList();
    }

    /** Entries by write id, for callers that look several up. */
    public static Map<String, List<Name>> byWrite(List<Name> names) {
        Map<String, List<Name>> out = new HashMap<>();
        names.forEach(n -> out.computeIfAbsent(n.writeId(), k -> new ArrayList<>()).add(n));
        return out;
    }
}
