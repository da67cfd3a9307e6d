package io.wrangler.commit;

import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableDefinition;
import io.wrangler.layout.Manifest;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** CatalogStep builds what the catalog is told from a manifest, so that a write and its recovery tell it the same. */
final class CatalogStep {
    private CatalogStep() {
    }

    static TableDefinition definition(Manifest m) {
        Schema schema;
        try {
            schema = Schema.fromJSON(m.schema());
        } catch (IOException e) {
            throw new IllegalStateException("the manifest of write " + m.writeId() + " holds an unreadable schema", e);
        }
        List<Field> data = new ArrayList<>();
        List<Field> keys = new ArrayList<>();
        for (String name : m.partitionColumns()) {
            keys.add(schema.findField(name));
        }
        for (Field f : schema.getFields()) {
            if (!m.partitionColumns().contains(f.getName())) {
                data.add(f);
            }
        }
        Manifest.Bucketing b = m.bucketing();
        return new TableDefinition(m.table(), data, keys, m.mode(), m.compression(), b == null ? List.of() : b.columns(),
                b == null ? 0 : b.buckets());
    }

    static List<PartitionEntry> entries(Manifest m) {
        List<PartitionEntry> out = new ArrayList<>();
        if (m.partitionColumns().isEmpty()) {
            return out;
        }
        for (Manifest.Partition p : m.partitions()) {
            out.add(new PartitionEntry(p.values(), m.table() + p.folder()));
        }
        return out;
    }

    /**
     * What a write's catalog step tells the catalog: the partitions to register, and those to remove (left without files).
     */
    record Change(List<PartitionEntry> register, List<PartitionEntry> unregister) {
        Change {
            register = List.copyOf(register);
            unregister = List.copyOf(unregister);
        }
    }

    /** Prepares and commits in one go: recovery's path, where nothing is left to validate before I/O. */
    static void rerun(CatalogTable catalog, Manifest m) {
        CatalogCommit commit = catalog.prepare(definition(m));
        commit.commit(entries(m));
    }

    /**
     * A recovered write's partitions as the table holds them now: those to register and those to remove from the catalog.
     *
     * @param present partitions whose folder holds files
     * @param empty partitions whose folder holds none, and that the catalog registers there or not at all
     */
    record Split(List<PartitionEntry> present, List<PartitionEntry> empty) {
    }

    /**
     * Splits the partitions of {@code m} (a recovered write's, not an OVERWRITE's) by what their folders hold now. The
     * catalog's own Locations decide, never the manifest's word alone: a partition the catalog registers at another
     * Location than the manifest's folder is left as the catalog has it (neither registered again nor removed), so a
     * manifest naming an empty folder for a registered partition never removes it while its Location holds data, and
     * never moves its registration. Reads the catalog (one lookup) and S3.
     */
    static Split split(CatalogTable catalog, Manifest m, S3Store store, S3Location location) {
        List<PartitionEntry> all = entries(m);
        Map<List<String>, String> registered = all.isEmpty() ? Map.of()
                : catalog.partitionLocations(location.uri(), m.mode(), all.stream().map(PartitionEntry::values).toList());
        List<PartitionEntry> present = new ArrayList<>();
        List<PartitionEntry> empty = new ArrayList<>();
        for (PartitionEntry e : all) {
            String at = registered.get(e.values());
            if (at != null && !folderOf(at).equals(folderOf(e.location()))) {
                Logs.COMMIT.log(System.Logger.Level.WARNING, () -> "Recovery of " + location.uri() + ": the catalog registers the partition "
                        + e.values() + " at " + at + ", not at " + e.location() + " where the write " + m.writeId() + " records it; "
                        + "the catalog's registration is left as it is.");
                continue;
            }
            (holdsFiles(store, location, e.location().substring(location.uri().length())) ? present : empty).add(e);
        }
        return new Split(present, empty);
    }

    /** A Location as a folder: {@code s3a://} and {@code s3n://} read as {@code s3://}, with a trailing slash. */
    private static String folderOf(String uri) {
        String u = uri.startsWith("s3a://") || uri.startsWith("s3n://") ? "s3://" + uri.substring(6) : uri;
        return u.endsWith("/") ? u : u + "/";
    }

    static boolean holdsFiles(S3Store store, S3Location location, String folder) {
        return store.list(location.prefix() + folder).stream().anyMatch(o -> !o.key().substring(location.prefix().length()).contains("/_tmp/"));
    }
}
