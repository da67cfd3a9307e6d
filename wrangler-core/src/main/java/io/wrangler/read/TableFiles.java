package io.wrangler.read;

import io.wrangler.InvalidReadException;
import io.wrangler.InvalidWriteException;
import io.wrangler.PartitionFilter;
import io.wrangler.ReadException;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableLayout;
import io.wrangler.layout.Manifest;
import io.wrangler.layout.Visibility;
import io.wrangler.partition.ColumnNames;
import io.wrangler.hive.HivePaths;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * TableFiles finds the files a reader of a table sees: by listing its Hive folders (or the folders its catalog
 * registers), pruned by a {@link PartitionFilter} before anything below a rejected folder is listed, leaving out
 * {@code _tmp/}, hidden files and folders ({@code _} or {@code .} first, as Hive, Spark and Athena do) and the files of
 * writes in flight ({@link Visibility}).
 */
public final class TableFiles {
    /**
     * One data file.
     *
     * @param bucket its bucket
     * @param key its key
     * @param size its size in bytes
     * @param folder its partition's folder below the table ({@code dt=2024-01-15/country=RU/}, "" unpartitioned)
     * @param values its partition's values in key order, unescaped, null for the default partition
     * @param modified its LastModified as the listing gave it (when it was published), or null when not listed
     * @param eTag its ETag as the listing gave it, or null when not listed: which object the key named then (an object
     *     replaced under its key, even by one of the same length within the same second, has another)
     */
    public record DataFile(String bucket, String key, long size, String folder, List<String> values, Instant modified, String eTag) {
        public DataFile {
            values = Collections.unmodifiableList(new ArrayList<>(values));
        }

        /** A file whose ETag is not known. */
        public DataFile(String bucket, String key, long size, String folder, List<String> values, Instant modified) {
            this(bucket, key, size, folder, values, modified, null);
        }

        /** A file whose LastModified and ETag are not known (not from a listing). */
        public DataFile(String bucket, String key, long size, String folder, List<String> values) {
            this(bucket, key, size, folder, values, null, null);
        }

        /**
         * Whether {@code other} (the same key listed again) is the object this one was when listed: the same ETag when
         * both are known, else the same size and LastModified. A blank ETag (a server listing {@code <ETag></ETag>})
         * counts as not known: it would make every replaced object look the same.
         */
        public boolean sameObject(DataFile other) {
            if (known(eTag) && known(other.eTag)) {
                return eTag.equals(other.eTag);
            }
            return size == other.size && java.util.Objects.equals(modified, other.modified);
        }

        private static boolean known(String eTag) {
            return eTag != null && !eTag.isBlank();
        }
    }

    /**
     * What a listing found.
     *
     * @param partitionColumns the partition columns in key order (from the folders or the catalog)
     * @param files the visible files, partition by partition
     */
    public record Listing(List<String> partitionColumns, List<DataFile> files) {
        public Listing {
            partitionColumns = List.copyOf(partitionColumns);
            files = List.copyOf(files);
        }

        /** The files grouped by partition folder, in listing order. */
        public Map<String, List<DataFile>> byFolder() {
            Map<String, List<DataFile>> out = new LinkedHashMap<>();
            files.forEach(f -> out.computeIfAbsent(f.folder(), k -> new ArrayList<>()).add(f));
            return out;
        }
    }

    private final S3Store store;
    private final S3Location location;
    private final String table;

    /** What the caller does, for messages: "read" or "compact". */
    private String verb = "read";

    /** Whether the last listing met a write between its commit record and its end ({@link Visibility#midCommit}). */
    private boolean midCommit;

    /** Whether the last listing met a write between its commit record and its end: its read's commit mark is unknown. */
    public boolean midCommit() {
        return midCommit;
    }

    /** The writes in flight, looked at once for a listing (before its files are listed). */
    private Visibility visibility() {
        Visibility visibility = Visibility.of(store, location, verb);
        midCommit = visibility.midCommit();
        return visibility;
    }

    /** Names the caller's verb in this listing's messages ("compact"); "read" by default. */
    public TableFiles verb(String verb) {
        this.verb = verb;
        return this;
    }

    public TableFiles(S3Store store, S3Location location) {
        this.store = store;
        this.location = location;
        this.table = location.uri();
    }

    /**
     * Lists the table's visible files by its folders.
     *
     * @throws InvalidReadException no object lies under the table's prefix (no table there), or {@code filter} names a
     *     column the table is not partitioned by (checked once the folders show the partition columns, before any file
     *     is listed)
     */
    public Listing list(PartitionFilter filter) {
        Visibility visibility = visibility();
        if (filter == PartitionFilter.all()) {
            return listAll(visibility);
        }
        List<String> rootEntries = store.firstEntries(location.prefix(), 16);
        if (rootEntries.isEmpty()) {
            throw noTable();
        }
        Walk walk = walk(filter, rootEntries);
        List<String> columns = walk.columns;
        List<Folder> level = walk.level;
        Set<String> holding = walk.holding;
        // The partition columns are known once a partition folder or a file at the root shows them; a table with only its
        // _tmp/ (nothing written yet, or everything overwritten by nothing) has none to check the filter against.
        // The first entries of the root decide only when they show such a file or hold every entry (hidden objects sorting
        // first can fill a page): otherwise every entry of the root, every page.
        boolean known = !columns.isEmpty() || rootEntries.stream().anyMatch(e -> !hidden(e.substring(location.prefix().length())))
                || rootEntries.size() == 16 && store.listEntries(location.prefix()).stream()
                        .anyMatch(e -> !hidden(e.substring(location.prefix().length())));
        // When the walk ended on folders the filter named and none of them exists, the columns below them are not seen:
        // those folders hold nothing to read, and the filter is checked against the columns of a folder that exists.
        boolean complete = level.stream().anyMatch(f -> holding.contains(f.folder));
        if (known) {
            checkFilter(filter, columns, complete);
        }
        List<DataFile> files = new ArrayList<>();
        List<S3Object> listed = new ArrayList<>();
        Map<String, Folder> byKeyFolder = new LinkedHashMap<>();
        for (Folder f : level) {
            String prefix = location.prefix() + f.folder;
            // Not known: no partition folder nor file shows the columns (every row deleted, every partition dropped), so
            // there are no values to give the filter (a user's predicate would be handed nulls): nothing passes it.
            if (byKeyFolder.containsKey(prefix) || (complete || holding.contains(f.folder))
                    && (!known || !filter.test(new Values(zip(columns, f.values), columns)))) {
                continue;
            }
            byKeyFolder.put(prefix, f);
            listed.addAll(filesIn(store, prefix));
        }
        // The scope is every folder the filter admits, listed or not: an overwrite that emptied one shows there first.
        for (S3Object o : visibility.visible(listed, key -> {
            List<String> values = folderValues(key, columns);
            return values != null && known && filter.test(new Values(zip(columns, values), columns));
        })) {
            Folder f = byKeyFolder.get(o.key().substring(0, o.key().lastIndexOf('/') + 1));
            files.add(new DataFile(location.bucket(), o.key(), o.size(), f.folder, f.values, o.lastModified(), o.eTag()));
        }
        return new Listing(columns, files);
    }

    /** The folders a walk of the table's Hive folders ended on, the partition columns it met, and which folders held anything. */
    private record Walk(List<String> columns, List<Folder> level, Set<String> holding) {
    }

    /**
     * Walks the table's folders level by level from the root ({@code rootEntries}, its first entries), each level only
     * below the folders the filter admits, until no folder of a level holds partition folders.
     */
    private Walk walk(PartitionFilter filter, List<String> rootEntries) {
        List<String> columns = new ArrayList<>();
        List<Folder> level = List.of(new Folder("", List.of()));
        Set<String> holding = new HashSet<>(); // the folders of the last level looked at that hold anything
        while (true) {
            String next = null;
            holding.clear();
            for (Folder f : level) {
                List<String> first = f.folder.isEmpty() ? rootEntries : store.firstEntries(location.prefix() + f.folder, 16);
                if (!first.isEmpty()) {
                    holding.add(f.folder);
                }
                next = columnBelow(f, first);
                if (next != null) {
                    break;
                }
            }
            if (next == null) {
                return new Walk(columns, level, holding); // no folder of this level holds partition folders: they are the partitions
            }
            Set<String> fixed = filter.fixedValues(next);
            List<Folder> below = new ArrayList<>();
            for (Folder f : level) {
                below.addAll(fixed != null ? f.children(next, fixed) : listedChildren(f, next));
            }
            columns.add(next);
            level = below;
        }
    }

    /** The partition folders of {@code column} listed below {@code f}. */
    private List<Folder> listedChildren(Folder f, String column) {
        List<Folder> out = new ArrayList<>();
        for (String p : store.listFolders(location.prefix() + f.folder)) {
            String name = p.substring(location.prefix().length() + f.folder.length(), p.length() - 1);
            int eq = name.indexOf('=');
            if (hidden(name) || eq <= 0) {
                continue;
            }
            String found = HivePaths.unescape(name.substring(0, eq));
            if (!column.equals(found)) {
                throw layout(location.uriOf(p) + " is a folder of the column '" + found + "' where the table's folders "
                        + "are of '" + column + "'");
            }
            String v = name.substring(eq + 1);
            out.add(new Folder(f.folder + name + "/", append(f.values, v.equals(PartitionEntry.DEFAULT_PARTITION) ? null : HivePaths.unescape(v))));
        }
        return out;
    }

    /**
     * Refuses a filter that names a column the table is not partitioned by: against {@code columns} when the walk saw
     * them all ({@code complete}), else against the columns a probe of the first folders shows.
     */
    private void checkFilter(PartitionFilter filter, List<String> columns, boolean complete) {
        List<String> all = columns;
        if (!complete && !filter.fixedColumns().stream().allMatch(c -> ColumnNames.names(columns, c))) {
            all = probeColumns();
        }
        for (String c : filter.fixedColumns()) {
            if (!ColumnNames.names(all, c)) {
                throw notPartitionColumn("names", c, all);
            }
        }
    }

    /** The files directly in the folder {@code prefix}, hidden ones left out. */
    private static List<S3Object> filesIn(S3Store s, String prefix) {
        List<S3Object> out = new ArrayList<>();
        for (S3Object o : s.list(prefix)) {
            String rest = o.key().substring(prefix.length());
            if (!rest.contains("/") && !hidden(rest) && !rest.isEmpty()) {
                out.add(o);
            }
        }
        return out;
    }

    /** The partition columns, from the first partition folder at each depth (one request a level, more past 16 entries). */
    private List<String> probeColumns() {
        List<String> out = new ArrayList<>();
        String prefix = location.prefix();
        while (true) {
            String folder = null;
            List<String> first = store.firstEntries(prefix, 16);
            List<String> candidates = first.size() == 16 ? store.listFolders(prefix) : first;
            for (String e : candidates) {
                String name = e.substring(prefix.length());
                if (name.endsWith("/") && !hidden(name) && name.indexOf('=') > 0) {
                    folder = e;
                    break;
                }
            }
            if (folder == null) {
                return out;
            }
            String name = folder.substring(prefix.length());
            out.add(HivePaths.unescape(name.substring(0, name.indexOf('='))));
            prefix = folder;
        }
    }

    /**
     * The partition values of the folder of {@code key}, a file directly in a Hive folder of {@code columns} below the
     * table, or null when it lies elsewhere.
     */
    private List<String> folderValues(String key, List<String> columns) {
        if (!key.startsWith(location.prefix())) {
            return null;
        }
        String[] parts = key.substring(location.prefix().length()).split("/", -1);
        if (parts.length != columns.size() + 1) {
            return null;
        }
        List<String> values = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0 || !columns.get(i).equals(HivePaths.unescape(parts[i].substring(0, eq)))) {
                return null;
            }
            String v = parts[i].substring(eq + 1);
            values.add(v.equals(PartitionEntry.DEFAULT_PARTITION) ? null : HivePaths.unescape(v));
        }
        return values;
    }

    private static Map<String, String> zip(List<String> columns, List<String> values) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            out.put(columns.get(i), values.get(i));
        }
        return out;
    }

    /**
     * One recursive listing of the whole table, past its hidden range ({@code _tmp/}, the commit log) without paging
     * through it: a read's listing does not grow with the table's history or with the files a write in flight stages.
     */
    private Listing listAll(Visibility visibility) {
        List<String> columns = null;
        List<S3Object> listed = new ArrayList<>();
        Map<String, List<String>> values = new LinkedHashMap<>();
        boolean any = false;
        for (S3Object o : store.listSkippingHidden(location.prefix())) {
            any = true;
            String rel = o.key().substring(location.prefix().length());
            if (rel.startsWith("_tmp/") || rel.isEmpty() || rel.endsWith("/")) {
                continue;
            }
            String[] parts = rel.split("/", -1);
            boolean skip = false;
            for (String p : parts) {
                skip |= hidden(p);
            }
            if (skip) {
                continue;
            }
            List<String> names = new ArrayList<>();
            List<String> vals = new ArrayList<>();
            for (int i = 0; i < parts.length - 1; i++) {
                int eq = parts[i].indexOf('=');
                if (eq <= 0) {
                    throw layout(location.uriOf(o.key()) + " lies in the folder '" + parts[i] + "', which is not a Hive partition "
                            + "folder (column=value)");
                }
                names.add(HivePaths.unescape(parts[i].substring(0, eq)));
                String v = parts[i].substring(eq + 1);
                vals.add(v.equals(PartitionEntry.DEFAULT_PARTITION) ? null : HivePaths.unescape(v));
            }
            if (columns == null) {
                columns = names;
            } else if (!columns.equals(names)) {
                throw layout(location.uriOf(o.key()) + " lies in folders of the columns " + names + " where other files lie in "
                        + "folders of " + columns);
            }
            String folder = o.key().substring(0, o.key().lastIndexOf('/') + 1);
            values.putIfAbsent(folder, vals);
            listed.add(o);
        }
        if (!any) {
            throw noTable();
        }
        List<DataFile> files = new ArrayList<>();
        // The scope is the whole table: a replaced file not listed anywhere in it is gone, whichever folder held it.
        for (S3Object o : visibility.visible(listed, key -> key.startsWith(location.prefix()) && !key.startsWith(location.tmpPrefix()))) {
            String folder = o.key().substring(0, o.key().lastIndexOf('/') + 1);
            files.add(new DataFile(location.bucket(), o.key(), o.size(), folder.substring(location.prefix().length()), values.get(folder),
                    o.lastModified(), o.eTag()));
        }
        return new Listing(columns == null ? List.of() : columns, files);
    }

    /**
     * Lists the folders {@code layout} registers that pass {@code filter}, each by its own prefix.
     *
     * @throws InvalidReadException {@code filter} names a column the catalog does not partition the table by (checked
     *     before any request)
     */
    public Listing list(TableLayout layout, PartitionFilter filter, Function<String, S3Store> stores) {
        List<String> columns = layout.partitionColumns();
        checkFilter(filter, columns, true);
        Visibility visibility = visibility();
        List<PartitionEntry> partitions = columns.isEmpty() ? List.of(new PartitionEntry(List.of(), table)) : layout.partitions();
        List<Registered> registered = new ArrayList<>();
        List<S3Object> here = new ArrayList<>();
        Set<String> prefixes = new HashSet<>();
        for (PartitionEntry p : partitions) {
            Map<String, String> values = zip(columns, p.values());
            if (!filter.test(new Values(values, columns))) {
                continue;
            }
            S3Location at = registeredAt(p, values);
            List<S3Object> listed = filesIn(stores.apply(at.bucket()), at.prefix());
            String folder = at.bucket().equals(location.bucket()) && at.prefix().startsWith(location.prefix())
                    ? at.prefix().substring(location.prefix().length()) : at.uri();
            registered.add(new Registered(p.values(), at.bucket(), folder, listed));
            if (at.bucket().equals(location.bucket())) {
                here.addAll(listed);
                prefixes.add(at.prefix());
            }
        }
        // The partitions a write past its commit point adds that the catalog does not register yet (its catalog step comes
        // after its publish): part of the table as after. Only that write's own files there are shown, and only once the
        // write shows as after; anything else in such a folder is not the catalog's table.
        Set<String> added = new HashSet<>();
        Set<String> writtenKeys = new HashSet<>();
        for (Manifest m : visibility.committedWrites()) {
            if (!m.partitionColumns().equals(columns)) {
                continue;
            }
            for (Manifest.Partition p : m.partitions()) {
                String prefix = location.prefix() + p.folder();
                if (prefixes.contains(prefix) || !filter.test(new Values(zip(columns, p.values()), columns))) {
                    continue;
                }
                prefixes.add(prefix);
                added.add(p.folder());
                List<S3Object> listed = filesIn(store, prefix);
                registered.add(new Registered(p.values(), location.bucket(), p.folder(), listed));
                here.addAll(listed);
            }
            m.files().forEach(f -> writtenKeys.add(f.finalKey()));
        }
        // One decision over every registered partition the filter admits (the read's scope), not one per partition: a
        // write whose delete is seen in one partition is seen as after in all of them.
        Set<String> shown = new HashSet<>();
        visibility.visible(here, key -> prefixes.contains(key.substring(0, key.lastIndexOf('/') + 1))).forEach(o -> shown.add(o.key()));
        List<DataFile> files = new ArrayList<>();
        for (Registered r : registered) {
            boolean ours = r.bucket.equals(location.bucket());
            for (S3Object o : r.listed) {
                if (!ours || shown.contains(o.key()) && (!added.contains(r.folder) || writtenKeys.contains(o.key()))) {
                    files.add(new DataFile(r.bucket, o.key(), o.size(), r.folder, r.values, o.lastModified(), o.eTag()));
                }
            }
        }
        return new Listing(columns, files);
    }

    /** A partition the catalog registers (or a committed write adds), where it lies and the files listed there. */
    private record Registered(List<String> values, String bucket, String folder, List<S3Object> listed) {
    }

    /** Where the catalog registers the partition {@code p} (its {@code values} named for the message). */
    private S3Location registeredAt(PartitionEntry p, Map<String, String> values) {
        try {
            return S3Location.parse(p.location(), null, "read");
        } catch (InvalidWriteException e) {
            throw new ReadException(table, "Cannot " + verb + " " + table + " (step: list): the catalog registers the partition "
                    + values + " at '" + p.location() + "', which is not a location wrangler can read (" + e.getMessage() + "). Fix "
                    + "the partition's Location in the catalog, or " + verb + " the table without catalog(...).", e);
        }
    }

    /**
     * The partition column of the folders directly below {@code f}, from {@code first}, its first 16 entries (one
     * request), or null when there are none (a partition, or a folder that does not exist).
     */
    private String columnBelow(Folder f, List<String> first) {
        String prefix = location.prefix() + f.folder;
        for (String e : first) {
            String name = e.substring(prefix.length());
            int eq = name.indexOf('=');
            if (name.endsWith("/") && !hidden(name) && eq > 0) {
                return HivePaths.unescape(name.substring(0, eq));
            }
        }
        if (first.size() == 16) {
            for (String p : store.listFolders(prefix)) {
                String name = p.substring(prefix.length());
                int eq = name.indexOf('=');
                if (!hidden(name) && eq > 0) {
                    return HivePaths.unescape(name.substring(0, eq));
                }
            }
        }
        return null;
    }

    private InvalidReadException noTable() {
        return new InvalidReadException(table, "Cannot " + verb + " " + table + " (step: list): there is no table at this prefix: no "
                + "object lies under it (no data file, no _tmp/). Check the URI, or pass catalog(...) for a table whose partitions "
                + "the catalog registers elsewhere.");
    }

    private InvalidReadException notPartitionColumn(String how, String column, List<String> columns) {
        return new InvalidReadException(table, "Cannot " + verb + " " + table + " (step: list): the partition filter " + how + " the "
                + "column '" + column + "', which is not a partition column of the table (" + (columns.isEmpty()
                ? "it has none" : "its partition columns are " + columns) + "). Filter on partition columns only.");
    }

    /**
     * A partition's values as a filter's predicate sees them: asking for a column the table is not partitioned by fails
     * the read rather than answering null for every partition (which would read nothing, silently).
     */
    private final class Values extends AbstractMap<String, String> {
        private final Map<String, String> values;
        private final List<String> columns;

        Values(Map<String, String> values, List<String> columns) {
            this.values = Collections.unmodifiableMap(values);
            this.columns = columns;
        }

        @Override
        public Set<Map.Entry<String, String>> entrySet() {
            return values.entrySet();
        }

        @Override
        public boolean containsKey(Object key) {
            return values.containsKey(key);
        }

        @Override
        public String get(Object key) {
            if (!values.containsKey(key)) {
                throw notPartitionColumn("asked for", String.valueOf(key), columns);
            }
            return values.get(key);
        }
    }

    private ReadException layout(String what) {
        if (verb.equals("compact")) {
            return new ReadException(table, "Cannot compact " + table + " (step: list): " + what + ". Nothing was changed. Move the "
                    + "stray object out of the table (a compaction rewrites Hive partition folders only), or compact the table with "
                    + "catalog(...), which lists only the partitions the catalog registers.", null);
        }
        return new ReadException(table, "Cannot read " + table + ": " + what + ". Move the stray object out of the table, or read "
                + "the table through its catalog.", null);
    }

    /** Hive, Spark and Athena skip files and folders whose names start with {@code _} or {@code .}. */
    static boolean hidden(String name) {
        return name.startsWith("_") || name.startsWith(".");
    }

    private static List<String> append(List<String> values, String v) {
        List<String> out = new ArrayList<>(values);
        out.add(v);
        return out;
    }

    private record Folder(String folder, List<String> values) {
        /** The folders of {@code column} below this one for {@code fixed}, the values a filter names, nulls last. */
        List<Folder> children(String column, Set<String> fixed) {
            List<String> sorted = new ArrayList<>(fixed);
            sorted.sort(Comparator.nullsLast(Comparator.naturalOrder()));
            List<Folder> out = new ArrayList<>();
            for (String v : sorted) {
                out.add(child(column, v));
            }
            return out;
        }

        Folder child(String column, String value) {
            String name = HivePaths.escape(column) + "=" + (value == null || value.isEmpty() ? PartitionEntry.DEFAULT_PARTITION : HivePaths.escape(value));
            return new Folder(folder + name + "/", append(values, value));
        }
    }
}
