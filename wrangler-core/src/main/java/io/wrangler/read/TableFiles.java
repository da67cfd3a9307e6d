package io.wrangler.read;

import io.wrangler.InvalidWriteException;
import io.wrangler.PartitionFilter;
import io.wrangler.ReadException;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.Visibility;
import io.wrangler.partition.HivePaths;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.time.Instant;
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
     */
    public record DataFile(String bucket, String key, long size, String folder, List<String> values, Instant modified) {
        public DataFile {
            values = Collections.unmodifiableList(new ArrayList<>(values));
        }

        /** A file whose LastModified is not known (not from a listing). */
        public DataFile(String bucket, String key, long size, String folder, List<String> values) {
            this(bucket, key, size, folder, values, null);
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

    /** Lists the table's visible files by its folders. */
    public Listing list(PartitionFilter filter) {
        Visibility visibility = Visibility.of(store, location);
        if (filter == PartitionFilter.all()) {
            return listAll(visibility);
        }
        List<String> columns = new ArrayList<>();
        List<Folder> level = List.of(new Folder("", List.of()));
        while (true) {
            String next = null;
            for (Folder f : level) {
                next = columnBelow(f);
                if (next != null) {
                    break;
                }
            }
            if (next == null) {
                break; // no folder of this level holds partition folders: they are the partitions
            }
            Set<String> fixed = filter.fixedValues(next);
            List<Folder> below = new ArrayList<>();
            for (Folder f : level) {
                if (fixed != null) {
                    List<String> values = new ArrayList<>(fixed);
                    values.sort(Comparator.nullsLast(Comparator.naturalOrder()));
                    for (String v : values) {
                        below.add(f.child(next, v));
                    }
                    continue;
                }
                for (String p : store.listFolders(location.prefix() + f.folder)) {
                    String name = p.substring(location.prefix().length() + f.folder.length(), p.length() - 1);
                    int eq = name.indexOf('=');
                    if (hidden(name) || eq <= 0) {
                        continue;
                    }
                    String column = HivePaths.unescape(name.substring(0, eq));
                    if (!next.equals(column)) {
                        throw layout(location.uriOf(p) + " is a folder of the column '" + column + "' where the table's folders "
                                + "are of '" + next + "'");
                    }
                    String v = name.substring(eq + 1);
                    below.add(new Folder(f.folder + name + "/", append(f.values, v.equals(PartitionEntry.DEFAULT_PARTITION) ? null : HivePaths.unescape(v))));
                }
            }
            columns.add(next);
            level = below;
        }
        List<DataFile> files = new ArrayList<>();
        Set<String> folders = new HashSet<>();
        List<S3Object> listed = new ArrayList<>();
        Map<String, Folder> byKeyFolder = new LinkedHashMap<>();
        for (Folder f : level) {
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                values.put(columns.get(i), f.values.get(i));
            }
            if (!filter.test(values)) {
                continue;
            }
            String prefix = location.prefix() + f.folder;
            folders.add(prefix);
            byKeyFolder.put(prefix, f);
            for (S3Object o : store.list(prefix)) {
                String rest = o.key().substring(prefix.length());
                if (!rest.contains("/") && !hidden(rest) && !rest.isEmpty()) {
                    listed.add(o);
                }
            }
        }
        for (S3Object o : visibility.visible(listed, folders)) {
            Folder f = byKeyFolder.get(o.key().substring(0, o.key().lastIndexOf('/') + 1));
            files.add(new DataFile(location.bucket(), o.key(), o.size(), f.folder, f.values, o.lastModified()));
        }
        return new Listing(columns, files);
    }

    /** One recursive listing of the whole table. */
    private Listing listAll(Visibility visibility) {
        List<String> columns = null;
        List<S3Object> listed = new ArrayList<>();
        Set<String> folders = new HashSet<>();
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (S3Object o : store.list(location.prefix())) {
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
            folders.add(folder);
            values.putIfAbsent(folder, vals);
            listed.add(o);
        }
        List<DataFile> files = new ArrayList<>();
        for (S3Object o : visibility.visible(listed, folders)) {
            String folder = o.key().substring(0, o.key().lastIndexOf('/') + 1);
            files.add(new DataFile(location.bucket(), o.key(), o.size(), folder.substring(location.prefix().length()), values.get(folder),
                    o.lastModified()));
        }
        return new Listing(columns == null ? List.of() : columns, files);
    }

    /** Lists the folders {@code layout} registers that pass {@code filter}, each by its own prefix. */
    public Listing list(TableLayout layout, PartitionFilter filter, Function<String, S3Store> stores) {
        Visibility visibility = Visibility.of(store, location);
        List<DataFile> files = new ArrayList<>();
        List<PartitionEntry> partitions = layout.partitionColumns().isEmpty()
                ? List.of(new PartitionEntry(List.of(), table)) : layout.partitions();
        for (PartitionEntry p : partitions) {
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < layout.partitionColumns().size(); i++) {
                values.put(layout.partitionColumns().get(i), p.values().get(i));
            }
            if (!filter.test(values)) {
                continue;
            }
            S3Location at;
            try {
                at = S3Location.parse(p.location(), null, "read");
            } catch (InvalidWriteException e) {
                throw new ReadException(table, "Cannot " + verb + " " + table + " (step: list): the catalog registers the partition "
                        + values + " at '" + p.location() + "', which is not a location wrangler can read (" + e.getMessage() + "). Fix "
                        + "the partition's Location in the catalog, or " + verb + " the table without catalog(...).", e);
            }
            S3Store s = stores.apply(at.bucket());
            List<S3Object> listed = new ArrayList<>();
            for (S3Object o : s.list(at.prefix())) {
                String rest = o.key().substring(at.prefix().length());
                if (!rest.contains("/") && !hidden(rest) && !rest.isEmpty()) {
                    listed.add(o);
                }
            }
            String folder = at.bucket().equals(location.bucket()) && at.prefix().startsWith(location.prefix())
                    ? at.prefix().substring(location.prefix().length()) : at.uri();
            List<S3Object> shown = at.bucket().equals(location.bucket()) ? visibility.visible(listed, Set.of(at.prefix())) : listed;
            for (S3Object o : shown) {
                files.add(new DataFile(at.bucket(), o.key(), o.size(), folder, p.values(), o.lastModified()));
            }
        }
        return new Listing(layout.partitionColumns(), files);
    }

    /**
     * The partition column of the folders directly below {@code f}, from the first few entries there (one request), or
     * null when there are none (a partition, or a folder that does not exist).
     */
    private String columnBelow(Folder f) {
        String prefix = location.prefix() + f.folder;
        List<String> first = store.firstEntries(prefix, 16);
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
        Folder child(String column, String value) {
            String name = HivePaths.escape(column) + "=" + (value == null || value.isEmpty() ? PartitionEntry.DEFAULT_PARTITION : HivePaths.escape(value));
            return new Folder(folder + name + "/", append(values, value));
        }
    }
}
