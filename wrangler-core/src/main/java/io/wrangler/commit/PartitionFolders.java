package io.wrangler.commit;

import io.wrangler.InvalidWriteException;
import io.wrangler.WriteStep;
import io.wrangler.hive.HivePaths;
import io.wrangler.partition.PartitionKey;
import io.wrangler.partition.PartitionValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PartitionFolders decides, for one write, the folder below the table root that each partition's files go to (its
 * escaped Hive folder, or the Location the write's catalog already registers it at), and refuses before any I/O of the
 * write a partition that cannot be written: a value that cannot name a folder, keys longer than S3 allows, a registered
 * Location outside the table, at its root, in its staging, or shared by two partitions.
 *
 * <p>The write's validation and its staging both ask it, so the rules live here once. Its partitions are looked up in
 * the catalog as they become known ({@link #lookUp}): all at once for an input known in advance, one by one as they first
 * appear for a stream. Safe for the encoding threads to read while the write's thread looks up.
 */
final class PartitionFolders {
    /** S3's limit on key length, in UTF-8 bytes. */
    static final int MAX_KEY_BYTES = 1024;

    private final String table;
    private final WriteSpec spec;
    private final List<String> folderNames;
    private final String stagingFolder;
    private final String longestName;
    /**
     * The folder below the table root of each partition that the catalog registers at a Location other than its Hive
     * folder, by partition values: the write puts its files there ({@link io.wrangler.catalog.CatalogTable#partitionLocations}).
     */
    private final Map<List<String>, String> registeredFolders = new ConcurrentHashMap<>();

    /**
     * @param folderNames the partition columns as the folders name them
     * @param stagingFolder the write's {@code _tmp/<writeId>/}
     * @param longestName the longest file name the write can give, to check key lengths with ("" to check folders only)
     */
    PartitionFolders(String table, WriteSpec spec, List<String> folderNames, String stagingFolder, String longestName) {
        this.table = table;
        this.spec = spec;
        this.folderNames = List.copyOf(folderNames);
        this.stagingFolder = stagingFolder;
        this.longestName = longestName;
    }

    /** A folder the catalog registers a partition at other than its Hive folder, if any was found. */
    Optional<String> anyRegisteredElsewhere() {
        return registeredFolders.values().stream().findFirst();
    }

    private InvalidWriteException invalid(String what, String todo) {
        return Outcomes.invalid(table, what, todo);
    }

    /**
     * Refuses a partition whose values cannot name a folder, or whose files' keys would be longer than S3 allows: the
     * check the partitioner runs on each partition as it first meets it.
     */
    void check(PartitionKey key) {
        for (int i = 0; i < key.values().size(); i++) {
            String why = PartitionValues.refusal(key.values().get(i));
            if (why != null) {
                throw invalid("the value '" + key.values().get(i) + "' of partition column '" + spec.partitionBy().get(i)
                        + "' cannot name a folder: " + why, "Clean the column before writing; nothing of the table was changed.");
            }
        }
        checkKeyLength(HivePaths.folder(folderNames, key.values()));
    }

    private void checkKeyLength(String folder) {
        String staged = stagingFolder + folder + longestName;
        int bytes = staged.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES) {
            throw invalid("the partition " + folder + " makes S3 keys of " + bytes + " bytes, over S3's limit of " + MAX_KEY_BYTES,
                    "Shorten the partition values or the table prefix; nothing of the table was changed.");
        }
    }

    /** The folder below the table root that a partition's files go to: where the catalog registers it, else its Hive folder. */
    String folderOf(PartitionKey key) {
        String registered = registeredFolders.get(key.values());
        return registered != null ? registered : HivePaths.folder(folderNames, key.values());
    }

    /**
     * Reads from the catalog where it registers these partitions, and keeps the folder of each one registered elsewhere
     * than its Hive folder. A Location outside the table root, at the root itself or in its staging is refused: a write
     * never puts files or deletes outside its table, and there it would replace the whole table or its staging.
     */
    void lookUp(List<PartitionKey> keys) {
        if (spec.catalog() == null || folderNames.isEmpty() || keys.isEmpty()) {
            return;
        }
        List<List<String>> values = new ArrayList<>();
        keys.forEach(k -> values.add(new ArrayList<>(k.values())));
        Map<List<String>, String> found = spec.catalog().partitionLocations(table, spec.mode(), values);
        if (found.isEmpty()) {
            return;
        }
        for (PartitionKey key : keys) {
            String at = found.get(key.values());
            if (at == null) {
                continue;
            }
            String hive = HivePaths.folder(folderNames, key.values());
            String normalized = withSlash(at);
            String named = partitionName(folderNames, key);
            if (!normalized.startsWith(table) || normalized.length() == table.length()) {
                throw invalid("the partition " + named + " is registered in " + spec.catalog().describe() + " at the Location " + at
                        + (normalized.startsWith(table) ? ", which is the table root itself" : ", which is outside the table root " + table)
                        + "; wrangler writes a partition that is already registered under its registered Location, and never writes or "
                        + "deletes outside that partition's folder in the table", "Move the partition's files to a folder under "
                        + table + " and set its Location to it (or drop the partition from the catalog, and wrangler writes it at "
                        + table + hive + "). Nothing was written.");
            }
            String folder = normalized.substring(table.length());
            if (folder.startsWith("_tmp/") || folder.contains("/_tmp/")) {
                throw invalid("the partition " + named + " is registered in " + spec.catalog().describe() + " at the Location " + at
                        + ", which is inside the staging folder of a table", "Set the partition's Location to a folder of its own under "
                        + table + ". Nothing was written.");
            }
            if (!folder.equals(hive)) {
                for (Map.Entry<List<String>, String> other : registeredFolders.entrySet()) {
                    if (other.getValue().equals(folder) && !other.getKey().equals(key.values())) {
                        throw invalid("the partitions " + partitionName(folderNames, new PartitionKey(other.getKey())) + " and " + named
                                + " are both registered in " + spec.catalog().describe() + " at the Location " + at + ", so their files "
                                + "could not be told apart", "Give each partition a Location of its own. Nothing was written.");
                    }
                }
                checkKeyLength(folder);
                registeredFolders.put(new ArrayList<>(key.values()), folder);
            }
        }
    }

    /** A Location as a folder of the table: {@code s3://} for {@code s3a://} and {@code s3n://}, with a trailing slash. */
    private static String withSlash(String location) {
        String l = location.startsWith("s3a://") || location.startsWith("s3n://") ? "s3://" + location.substring(6) : location;
        return l.endsWith("/") ? l : l + "/";
    }

    /** A partition as messages name it: {@code [country=a/b c=d:e]}. */
    private static String partitionName(List<String> folderNames, PartitionKey key) {
        List<String> shown = key.displayValues();
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < folderNames.size(); i++) {
            parts.add(folderNames.get(i) + "=" + shown.get(i));
        }
        return "[" + String.join(", ", parts) + "]";
    }

}
