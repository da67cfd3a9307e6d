package io.wrangler.tableops;

import io.wrangler.catalog.PartitionEntry;
import io.wrangler.hive.HivePaths;
import io.wrangler.read.TableFiles;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The data files of a table and their partition folders, from one complete listing of its prefix (every page): what
 * register and repair decide from. Left out, as every Hive reader leaves them out: {@code _tmp/} (the staging of writes in
 * flight, never a partition), files and folders whose names start with {@code _} or {@code .} (Spark's {@code _SUCCESS},
 * checksums), folder markers (keys ending with {@code /}, EMR's {@code _$folder$}).
 *
 * <p>A folder's columns are read from its names ({@code col=value}, unescaped by the Hive rule, {@code
 * __HIVE_DEFAULT_PARTITION__} as null), or, when the columns are given (a catalog's keys, or declared), matched to them:
 * one folder a column, or, where the folders are deeper than the columns, each value running on until the next column's
 * {@code name=} folder, the last one to the file: awswrangler writes values unescaped, so {@code country=a/b/} is the
 * value {@code a/b}.
 */
final class TableFolders {
    /** One partition: its folder below the table ({@code dt=2024-01-15/}, "" unpartitioned), its values, its files. */
    record Partition(String folder, List<String> values, List<TableFiles.DataFile> files) {
        Partition {
            values = Collections.unmodifiableList(new ArrayList<>(values));
        }

        PartitionEntry entry(S3Location location) {
            return new PartitionEntry(values, location.uri() + folder);
        }
    }

    /** A listing: the partition columns, and the partitions holding data files, in key order of their folders. */
    record Scan(List<String> columns, List<Partition> partitions) {
        long files() {
            return partitions.stream().mapToLong(p -> p.files().size()).sum();
        }

        List<TableFiles.DataFile> allFiles() {
            List<TableFiles.DataFile> out = new ArrayList<>();
            partitions.forEach(p -> out.addAll(p.files()));
            return out;
        }
    }

    /** A folder that does not fit the layout: the file that shows it, and what is wrong. */
    static final class Misfit extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Misfit(String message) {
            super(message, null, false, false);
        }
    }

    private TableFolders() {
    }

    /**
     * Lists the table under {@code location}.
     *
     * @param columns the partition columns, or null to read them from the folders (then every file must lie in folders
     *     of the same columns)
     * @throws Misfit a file lies in a folder that is not a partition folder of the table's columns
     */
    static Scan scan(S3Store store, S3Location location, List<String> columns) {
        String prefix = location.prefix();
        List<String> found = columns;
        Map<String, Partition> byFolder = new LinkedHashMap<>();
        String firstFile = null;
        for (S3Object o : store.listSkippingHidden(prefix)) {
            String rel = o.key().substring(prefix.length());
            if (skipped(rel)) {
                continue;
            }
            int slash = rel.lastIndexOf('/');
            String folder = rel.substring(0, slash + 1);
            Partition p = byFolder.get(folder);
            if (p == null) {
                List<String> names = new ArrayList<>();
                List<String> values = new ArrayList<>();
                if (found == null) {
                    strict(folder, names, values, location.uriOf(o.key()));
                    found = names;
                    firstFile = location.uriOf(o.key());
                } else if (!(columns != null ? matches(folder, found, values) : strictMatches(folder, found, values))) {
                    List<String> own = new ArrayList<>();
                    String shown = "";
                    try {
                        strict(folder, own, new ArrayList<>(), location.uriOf(o.key()));
                        shown = own.isEmpty() ? "" : " (folders of the columns " + own + ")";
                    } catch (Misfit ignored) {
                        // described below by its folder alone
                    }
                    throw new Misfit(location.uriOf(o.key()) + " lies in the folder '" + folder + "'" + shown + ", which is not a "
                            + "partition folder of the columns " + found + (firstFile == null ? "" : " that " + firstFile + " lies in"));
                }
                p = new Partition(folder, values, new ArrayList<>());
                byFolder.put(folder, p);
            }
            p.files().add(new TableFiles.DataFile(location.bucket(), o.key(), o.size(), folder, p.values(), o.lastModified(), o.eTag()));
        }
        List<Partition> partitions = new ArrayList<>();
        for (Partition p : byFolder.values()) {
            partitions.add(new Partition(p.folder(), p.values(), List.copyOf(p.files())));
        }
        return new Scan(found == null ? List.of() : List.copyOf(found), partitions);
    }

    /**
     * What is wrong with two folders that give the same partition values (a value escaped two ways, {@code s=a%3Ab/} and
     * {@code s=a:b/}): a catalog partition has one folder, so a reader through the catalog would miss the other's rows.
     */
    static String sameValues(Partition one, Partition other) {
        return "the folders '" + one.folder() + "' and '" + other.folder() + "' both give the partition values " + one.values()
                + ": a catalog's partition has one folder, and readers through the catalog would not read the other one's rows";
    }

    /** Whether an object below the table is not a data file a reader reads. */
    static boolean skipped(String rel) {
        if (rel.isEmpty() || rel.endsWith("/") || rel.startsWith("_tmp/") || rel.endsWith("_$folder$")) {
            return true;
        }
        for (String part : rel.split("/", -1)) {
            if (part.startsWith("_") || part.startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /** Reads a folder's columns and values, one {@code name=value} folder each. */
    private static void strict(String folder, List<String> names, List<String> values, String file) {
        if (folder.isEmpty()) {
            return;
        }
        for (String part : folder.substring(0, folder.length() - 1).split("/", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new Misfit(file + " lies in the folder '" + part + "/', which is not a Hive partition folder (column=value)");
            }
            names.add(HivePaths.unescape(part.substring(0, eq)));
            values.add(value(part.substring(eq + 1)));
        }
    }

    /** Matches a folder to {@code columns} one folder a column, as read from the folders themselves. */
    private static boolean strictMatches(String folder, List<String> columns, List<String> values) {
        List<String> names = new ArrayList<>();
        try {
            strict(folder, names, values, "");
        } catch (Misfit e) {
            return false;
        }
        return names.equals(columns);
    }

    /** Matches a folder to {@code columns}: one folder a column, or values that hold '/' (awswrangler's); false if neither. */
    static boolean matches(String folder, List<String> columns, List<String> values) {
        values.clear();
        if (columns.isEmpty()) {
            return folder.isEmpty();
        }
        if (folder.isEmpty()) {
            return false;
        }
        String rest = folder.substring(0, folder.length() - 1);
        for (int i = 0; i < columns.size(); i++) {
            String head = HivePaths.escape(columns.get(i)) + "=";
            if (!rest.startsWith(head)) {
                return false;
            }
            rest = rest.substring(head.length());
            String raw;
            if (i == columns.size() - 1) {
                raw = rest;
                rest = "";
            } else {
                String next = "/" + HivePaths.escape(columns.get(i + 1)) + "=";
                int at = rest.indexOf(next);
                if (at < 0) {
                    return false;
                }
                raw = rest.substring(0, at);
                rest = rest.substring(at + 1);
            }
            values.add(value(raw));
        }
        return true;
    }

    private static String value(String raw) {
        return raw.equals(PartitionEntry.DEFAULT_PARTITION) ? null : HivePaths.unescape(raw);
    }
}
