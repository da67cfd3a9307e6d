package io.wrangler.compact;

import io.wrangler.InvalidWriteException;
import io.wrangler.ReadException;
import io.wrangler.WriteStep;
import io.wrangler.commit.KeyedFiles;
import io.wrangler.read.FileFooters;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.storage.Removed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * RemovalScan finds, for a delete of rows, which files of the scope hold a matched row and how many: it reads each
 * file's footer once, then only the columns the test names of the row groups its statistics and bloom filters do not rule
 * out, before the lease and before anything is written (a dry run does exactly this). So a file without a match is never rewritten, and a file whose every row matches is known as such.
 */
final class RemovalScan {
    private RemovalScan() {
    }

    /**
     * What a scan found: the files that hold a matched row, by key ({@code {rows, matched}}), and the footer of every file
     * it read, each fetched once (the plan of the rewrite takes them from here instead of fetching them again).
     */
    record Found(Map<String, long[]> matched, Map<String, FileFooters.Footer> footers) {
    }

    /**
     * The files of {@code listing} that hold a row {@code match} matches, by key: {@code {rows, matched}}. Refuses a test
     * the table's columns cannot answer ({@link RowMatch#bind}) with an {@link InvalidWriteException}.
     */
    static Found scan(CompactionSpec spec, TableFiles.Listing listing, Map<String, Field> partitionTypes,
                      Map<String, Field> catalogColumns, RowMatch match) {
        return scan(spec, listing.partitionColumns(), listing.files(), partitionTypes, catalogColumns, match);
    }

    /**
     * {@link #scan(CompactionSpec, TableFiles.Listing, Map, Map, RowMatch)} of {@code files}. Each file's footer is fetched
     * once (one GET of its tail), for the read's schema, its row count and its row groups' statistics; a file whose
     * statistics and bloom filters rule the test out has nothing else read.
     */
    static Found scan(CompactionSpec spec, List<String> partitionColumns, List<TableFiles.DataFile> files,
                      Map<String, Field> partitionTypes, Map<String, Field> catalogColumns, RowMatch match) {
        String table = spec.table();
        Map<String, long[]> out = new LinkedHashMap<>();
        Map<String, FileFooters.Footer> footers = new ConcurrentHashMap<>();
        Map<String, Long> rows = new ConcurrentHashMap<>();
        if (files.isEmpty()) {
            return new Found(out, footers);
        }
        try (BufferAllocator allocator = new RootAllocator()) {
            TableReader.Source source = new TableReader.Source(spec.s3(), spec.requests(), table,
                    new TableFiles.Listing(partitionColumns, files), partitionTypes);
            // one reader: its footers, fetched for the schema, serve the scan too (row groups skipped by their statistics)
            try (TableReader r = reader(spec, allocator, source, catalogColumns, null)) {
                r.footersAlone().footerSeen((f, footer) -> {
                    rows.put(f.key(), footer.getBlocks().stream().mapToLong(b -> b.getRowCount()).sum());
                    try {
                        footers.put(f.key(), FileFooters.of(f, footer, KeyedFiles.marked(f.key())));
                    } catch (FileFooters.UnknownKeys e) {
                        throw new UncheckedIOException(e);
                    }
                });
                Schema schema = r.schema();
                String refused = match.bind(table, schema);
                if (refused != null) {
                    throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot delete rows of " + table + " (step: validate): "
                            + refused + " Nothing was changed.");
                }
                r.select(match.columns(schema));
                if (match.filter() != null) {
                    r.rowFilter(match.filter());
                }
                while (r.loadNextBatch()) {
                    out.computeIfAbsent(r.currentFile().key(), k -> new long[2])[1] += r.getVectorSchemaRoot().getRowCount();
                }
            }
            out.values().removeIf(c -> c[1] == 0);
            // the rows of each file that holds a match, from its footer: it is rewritten, or removed when every row matched
            out.forEach((k, c) -> c[0] = rows.get(k));
        } catch (UncheckedIOException e) {
            throw failed(spec, e.getCause());
        } catch (ReadException e) {
            if (e.getCause() instanceof UncheckedIOException u) {
                throw failed(spec, u.getCause());
            }
            throw Removed.by(e) ? Compaction.removed(spec, WriteStep.VALIDATE, e) : e;
        } catch (IOException e) {
            throw failed(spec, e);
        }
        return new Found(out, footers);
    }

    private static RuntimeException failed(CompactionSpec spec, IOException e) {
        String table = spec.table();
        if (Removed.by(e)) {
            return Compaction.removed(spec, WriteStep.VALIDATE, e);
        }
        if (e instanceof FileFooters.UnknownKeys) {
            return new ReadException(table, "Cannot " + spec.verb() + " " + table + " (step: validate): " + e.getMessage()
                    + ", so whose rows it holds is not known. Nothing was changed; leave its partition out (filter) and report it.", e);
        }
        return new ReadException(table, "Cannot delete rows of " + table + " (step: validate): " + e.getMessage()
                + ". Nothing was changed; fix the cause and rerun.", e);
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
