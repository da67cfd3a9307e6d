package io.wrangler.commit;

import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableDefinition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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

    /** Prepares and commits in one go: recovery's path, where nothing is left to validate before I/O. */
    static void rerun(CatalogTable catalog, Manifest m) {
        CatalogCommit commit = catalog.prepare(definition(m));
        commit.commit(entries(m));
    }
}
