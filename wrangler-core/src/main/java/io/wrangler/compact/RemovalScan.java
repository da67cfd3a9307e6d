package io.wrangler.compact;

import io.wrangler.InvalidWriteException;
import io.wrangler.ReadException;
import io.wrangler.WriteStep;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.storage.Removed;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * RemovalScan finds, for a delete of rows, which files of the scope hold a matched row and how many: it reads only the
 * columns the test names, of every file in the scope, before the lease and before anything is written (a dry run does
 * exactly this). So a file without a match is never rewritten, and a file whose every row matches is known as such.
 */
final class RemovalScan {
    private RemovalScan() {
    }

    /**
     * The files of {@code listing} that hold a row {@code match} matches, by key: {@code {rows, matched}}. Refuses a test
     * the table's columns cannot answer ({@link RowMatch#bind}) with an {@link InvalidWriteException}.
     */
    static Map<String, long[]> scan(CompactionSpec spec, TableFiles.Listing listing, Map<String, Field> partitionTypes,
                                    Map<String, Field> catalogColumns, RowMatch match) {
        return scan(spec, listing.partitionColumns(), listing.files(), partitionTypes, catalogColumns, match);
    }

    static Map<String, long[]> scan(CompactionSpec spec, List<String> partitionColumns, List<TableFiles.DataFile> files,
                                    Map<String, Field> partitionTypes, Map<String, Field> catalogColumns, RowMatch match) {
        String table = spec.table();
        Map<String, long[]> out = new LinkedHashMap<>();
        if (files.isEmpty()) {
            return out;
        }
        try (BufferAllocator allocator = new RootAllocator()) {
            Schema schema;
            TableReader.Source source = new TableReader.Source(spec.s3(), spec.requests(), table,
                    new TableFiles.Listing(partitionColumns, files), partitionTypes);
            try (TableReader all = reader(spec, allocator, source, catalogColumns, null)) {
                schema = all.schema();
            }
            String refused = match.bind(table, schema);
            if (refused != null) {
                throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot delete rows of " + table + " (step: validate): "
                        + refused + " Nothing was changed.");
            }
            List<String> names = match.columns(schema);
            // the matched rows of each file: row groups its statistics (and bloom filters) rule out are skipped unread
            try (TableReader r = reader(spec, allocator, source, catalogColumns, names)) {
                if (match.filter() != null) {
                    r.rowFilter(match.filter());
                }
                while (r.loadNextBatch()) {
                    out.computeIfAbsent(r.currentFile().key(), k -> new long[2])[1] += r.getVectorSchemaRoot().getRowCount();
                }
            }
            out.values().removeIf(c -> c[1] == 0);
            if (match.filter() == null) {
                out.values().forEach(c -> c[0] = c[1]);
            } else if (!out.isEmpty()) {
                // the rows of each file that holds a match: it is rewritten, or removed when every row matched
                List<TableFiles.DataFile> hit = files.stream().filter(f -> out.containsKey(f.key())).toList();
                TableReader.Source hits = new TableReader.Source(spec.s3(), spec.requests(), table,
                        new TableFiles.Listing(partitionColumns, hit), partitionTypes);
                try (TableReader r = reader(spec, allocator, hits, catalogColumns, names)) {
                    while (r.loadNextBatch()) {
                        out.get(r.currentFile().key())[0] += r.getVectorSchemaRoot().getRowCount();
                    }
                }
            }
        } catch (ReadException e) {
            throw Removed.by(e) ? Compaction.removed(spec, WriteStep.VALIDATE, e) : e;
        } catch (IOException e) {
            if (Removed.by(e)) {
                throw Compaction.removed(spec, WriteStep.VALIDATE, e);
            }
            throw new ReadException(table, "Cannot delete rows of " + table + " (step: validate): " + e.getMessage()
                    + ". Nothing was changed; fix the cause and rerun.", e);
        }
        return out;
    }

    private static TableReader reader(CompactionSpec spec, BufferAllocator allocator, TableReader.Source source,
                                      Map<String, Field> catalogColumns, List<String> selected) {
        TableReader r = new TableReader(allocator, null, source, selected, spec.seams().batchRows());
        if (catalogColumns != null) {
            r.catalogColumns(catalogColumns);
        }
        return r;
    }
}
