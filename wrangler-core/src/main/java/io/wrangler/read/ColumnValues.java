package io.wrangler.read;

import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * ColumnValues reads one flat column of some files page by page and hands its values over where they lie in the
 * decompressed pages (a {@link Sink}), without filling a vector: for a caller that only looks each value up (a merge's
 * scan of a key column). It takes the columns whose values an Arrow vector would hold byte for byte: utf8 and binary
 * (PLAIN byte arrays), int32 and int64 (PLAIN little-endian), each PLAIN or dictionary-encoded, in data pages V1 or V2
 * ({@link #scannable}); the values are those a {@link TableReader} of the column would give, null rows left out.
 *
 * <p>Each file's footer is the caller's (parsed before: not fetched again). A row group's column chunk is fetched with
 * one GET when it takes at most half the read budget, else streamed through windows as {@link RowGroupPages} streams
 * it; the next file's first chunk is fetched on a thread of this reader's while the current one is read. Memory: the
 * chunk read, the one fetched ahead, and one page and its dictionary. Not thread-safe: one thread reads its files.
 */
public final class ColumnValues {
    /** The values of a column, handed over run by run in row order; ranges and ids are valid only during the call. */
    public interface Sink {
        /**
         * The dictionary of the column chunk whose ids follow (until the next call): value {@code i < size} is the
         * {@code lengths[i]} bytes at {@code starts[i]} of {@code bytes}.
         */
        void dictionary(byte[] bytes, int[] starts, int[] lengths, int size);

        /** The values of the {@code n} rows from {@code row} (counted from 0 in the file): value {@code i} at {@code starts[i]}, {@code lengths[i]} bytes. */
        void values(long row, int n, byte[] bytes, int[] starts, int[] lengths);

        /** The dictionary ids of the {@code n} rows from {@code row} (counted from 0 in the file), each within the dictionary. */
        void ids(long row, int n, int[] ids);
    }

    /** The most rows handed to a chunk's decoder at once. */
    private static final int STEP = 1 << 20;

    private final S3Client s3;
    private final RequestOptions options;
    private final String table;
    private final long budget;

    /**
     * @param table the table's URI, for messages
     */
    public ColumnValues(S3Client s3, RequestOptions options, String table) {
        this.s3 = s3;
        this.options = options;
        this.table = table;
        this.budget = TableReader.READ_BUDGET / 2;
    }

    /**
     * Whether the column {@code name} (matched as a read matches it, case aside) of the file of {@code footer} can be
     * read here as values of the Arrow type {@code type}: the file holds it, as a flat column of that very type, and
     * every chunk of it is of encodings and pages that are handed over where they lie (see the class comment).
     */
    public static boolean scannable(ParquetMetadata footer, String name, ArrowType type) {
        Type t = column(footer.getFileMetaData().getSchema(), name);
        if (t == null || !t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
            return false;
        }
        try {
            if (!ParquetArrow.field(t).getType().equals(type)) {
                return false;
            }
        } catch (ParquetArrow.Unsupported e) {
            return false;
        }
        ColumnDescriptor d = footer.getFileMetaData().getSchema().getColumnDescription(new String[] {t.getName()});
        for (BlockMetaData block : footer.getBlocks()) {
            ColumnChunkMetaData chunk = RowGroupPages.chunk(block, d);
            if (block.getRowCount() > 0 && (chunk == null || chunk.isEncrypted() || DirectKind.ofValues(d, type, chunk) == null)) {
                return false;
            }
        }
        return true;
    }

    /** The column of {@code schema} named {@code name} case aside, or null when none is, or several are. */
    private static Type column(MessageType schema, String name) {
        Type found = null;
        for (Type t : schema.getFields()) {
            if (TableSchema.key(t.getName()).equals(TableSchema.key(name))) {
                if (found != null) {
                    return null;
                }
                found = t;
            }
        }
        return found;
    }

    /**
     * Reads the column {@code name} of each of {@code files} in turn ({@link #scannable} with its footer, {@code
     * footers} in file order), handing the values of file {@code i} to {@code sinks.apply(i)}, asked for when that file
     * is started. Fails as a read fails ({@link io.wrangler.ReadException}), the file named.
     */
    public void scan(List<TableFiles.DataFile> files, List<ParquetMetadata> footers, String name, ArrowType type, IntFunction<Sink> sinks) {
        ExecutorService ahead = files.size() < 2 ? null : Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "wrangler-column-fetch");
            t.setDaemon(true);
            return t;
        });
        try {
            S3InputFile next = null;
            Future<?> fetching = null;
            for (int i = 0; i < files.size(); i++) {
                S3InputFile in = next != null ? next : input(files.get(i));
                Future<?> fetched = fetching;
                next = null;
                fetching = null;
                if (i + 1 < files.size()) {
                    next = input(files.get(i + 1));
                    fetching = fetchAhead(ahead, next, footers.get(i + 1), name);
                }
                waitFor(fetched);
                read(files.get(i), in, footers.get(i), name, type, sinks.apply(i));
            }
        } finally {
            if (ahead != null) {
                ahead.shutdownNow(); // a GET under way ends on its own; its bytes go to an input no one reads
            }
        }
    }

    private S3InputFile input(TableFiles.DataFile f) {
        return new S3InputFile(s3, f, options, null, null).exact();
    }

    /** Fetches the file's first chunk of the column on {@code ahead}, when it is within the budget; null when not. */
    private Future<?> fetchAhead(ExecutorService ahead, S3InputFile in, ParquetMetadata footer, String name) {
        Type t = column(footer.getFileMetaData().getSchema(), name);
        if (t == null) {
            return null;
        }
        ColumnDescriptor d = footer.getFileMetaData().getSchema().getColumnDescription(new String[] {t.getName()});
        for (BlockMetaData block : footer.getBlocks()) {
            ColumnChunkMetaData chunk = RowGroupPages.chunk(block, d);
            if (block.getRowCount() > 0 && chunk != null) {
                if (chunk.getTotalSize() > budget) {
                    return null;
                }
                return ahead.submit(() -> {
                    in.keep(chunk.getStartingPos(), (int) chunk.getTotalSize());
                    return null;
                });
            }
        }
        return null;
    }

    /**
     * Waits until the fetch ahead has ended; its failure is not this read's (the chunk is then fetched again when read,
     * and that GET's failure is reported).
     */
    private static void waitFor(Future<?> fetched) {
        if (fetched == null) {
            return;
        }
        try {
            fetched.get();
        } catch (ExecutionException e) {
            // fetched again by the read
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fetched.cancel(true);
        }
    }

    /** Reads the column of one file into {@code sink}, row group by row group. */
    private void read(TableFiles.DataFile f, S3InputFile in, ParquetMetadata footer, String name, ArrowType type, Sink sink) {
        try {
            if (Thread.currentThread().isInterrupted()) {
                throw new java.io.InterruptedIOException("interrupted while reading " + table);
            }
            MessageType schema = footer.getFileMetaData().getSchema();
            Type t = column(schema, name);
            ColumnDescriptor d = schema.getColumnDescription(new String[] {t.getName()});
            long first = 0;
            for (BlockMetaData block : footer.getBlocks()) {
                long rows = block.getRowCount();
                if (rows == 0) {
                    continue;
                }
                ColumnChunkMetaData chunk = RowGroupPages.chunk(block, d);
                DirectKind kind = DirectKind.ofValues(d, type, chunk);
                RowGroupPages pages = new RowGroupPages(in, block, List.of(d), budget, RowGroupPages.MIN_WINDOW);
                DirectColumn values = new DirectColumn(kind, d, pages.recyclingPageReader(d), t.getName());
                for (long done = 0; done < rows; done += STEP) {
                    int n = (int) Math.min(STEP, rows - done);
                    values.scan(n, first + done, sink);
                }
                first += rows;
                in.forgetKept();
            }
        } catch (IOException | RuntimeException e) {
            throw ReadErrors.failed(table, f, e);
        }
    }
}
