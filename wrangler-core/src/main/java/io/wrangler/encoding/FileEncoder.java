package io.wrangler.encoding;

import io.wrangler.Compression;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A FileEncoder encodes rows of Arrow columns into one Parquet file written to an output stream. Not thread-safe;
 * one file at a time per encoder, encoders of different files may run in parallel.
 */
public interface FileEncoder extends AutoCloseable {
    /**
     * Settings shared by every file of a write.
     *
     * @param int96 timestamps are written as Parquet INT96 (Julian day and nanoseconds of the day), not INT64
     * @param helpers where a long run of rows of one file may encode some of its row groups in parallel, or null; a
     *     task not yet started there when its result is needed is run by the caller, so a busy pool only costs parallelism
     * @param keyRuns the rows come with one more column after {@code columns}, {@link KeyRuns#COLUMN}: each row's key
     *     id, recorded in the footer as {@link KeyRuns} instead of written as a column
     * @param footer more key-value metadata for the footer of a file with key runs (a rerun's rewrite records there when
     *     its rows were committed, {@link KeyRuns#COMMITTED_KEY})
     */
    record Settings(List<Field> columns, Compression compression, boolean keepNanos, boolean int96, long rowGroupBytes, int pageBytes,
                    Executor helpers, boolean keyRuns, Map<String, String> footer, FileLayout layout) {
        public Settings {
            columns = List.copyOf(columns);
            footer = Map.copyOf(footer);
            layout = layout == null ? FileLayout.NONE : layout;
        }

        public Settings(List<Field> columns, Compression compression, boolean keepNanos, boolean int96, long rowGroupBytes, int pageBytes,
                        Executor helpers, boolean keyRuns) {
            this(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, helpers, keyRuns, Map.of(), FileLayout.NONE);
        }

        /** These settings with {@code footer} added to the footer of each file with key runs. */
        public Settings withFooter(Map<String, String> footer) {
            return new Settings(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, helpers, keyRuns, footer, layout);
        }

        public Settings(List<Field> columns, Compression compression, boolean keepNanos, boolean int96, long rowGroupBytes, int pageBytes,
                        Executor helpers) {
            this(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, helpers, false);
        }

        public Settings(List<Field> columns, Compression compression, boolean keepNanos, boolean int96, long rowGroupBytes, int pageBytes) {
            this(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, null, false);
        }

        public Settings withHelpers(Executor executor) {
            return new Settings(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, executor, keyRuns, footer, layout);
        }

        /** These settings with the file layout {@code layout} (dictionaries, bloom filters, sort, footer metadata). */
        public Settings withLayout(FileLayout layout) {
            return new Settings(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, helpers, keyRuns, footer, layout);
        }

        Settings withoutKeyRuns() {
            return new Settings(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, helpers, false, Map.of(), layout);
        }

        /** These settings for rows that carry their key ids ({@link KeyRuns}). */
        public Settings withKeyRuns() {
            return new Settings(columns, compression, keepNanos, int96, rowGroupBytes, pageBytes, helpers, true, footer, layout);
        }

        /** How these settings write timestamps. */
        TimestampPolicy timestamps() {
            return new TimestampPolicy(keepNanos, int96);
        }

        /** The schema mapping of these settings. */
        ArrowSchemas schemas() {
            return new ArrowSchemas(timestamps());
        }
    }

    /**
     * An encoder for a new file: the column-at-a-time {@link ColumnarEncoder} when every column is flat (no list,
     * struct or map), the row-wise {@link RecordEncoder} otherwise. Both write the same Parquet types.
     */
    static FileEncoder open(Settings settings, OutputStream out) throws IOException {
        if (settings.layout().sorted()) {
            // above the key runs, so that it sees each row's key and keeps the rows of a key together
            return new SortingEncoder(settings, unsorted(settings, out));
        }
        return unsorted(settings, out);
    }

    /** An encoder that writes the rows in the order given. */
    private static FileEncoder unsorted(Settings settings, OutputStream out) throws IOException {
        if (settings.keyRuns()) {
            return new KeyRunsEncoder(unsorted(settings.withoutKeyRuns(), out), settings.footer());
        }
        for (Field f : settings.columns()) {
            ArrowType.ArrowTypeID id = f.getType().getTypeID();
            if (id == ArrowType.ArrowTypeID.List || id == ArrowType.ArrowTypeID.LargeList || id == ArrowType.ArrowTypeID.FixedSizeList
                    || id == ArrowType.ArrowTypeID.Struct || id == ArrowType.ArrowTypeID.Map) {
                return new RecordEncoder(settings, out);
            }
        }
        return new ColumnarEncoder(settings, out);
    }

    /** Encodes rows {@code [from, to)} of {@code columns} (in the order of the settings' columns). */
    void write(List<FieldVector> columns, int from, int to) throws IOException;

    /** Rows encoded so far. */
    long rows();

    /** Bytes written to the stream so far plus those buffered for the open row group. */
    long size();

    /**
     * The heap this encoder holds for its open row group, {@code streamed} bytes of the file having reached the stream:
     * at least {@code size() - streamed}; the column-at-a-time encoder counts its writers' arrays and dictionaries too.
     * For keeping many open files within a memory budget.
     */
    long heldBytes(long streamed);

    /** Writes the footer and closes the stream. */
    @Override
    default void close() throws IOException {
        close(Map.of());
    }

    /** Writes the footer, with {@code metadata} added to its key-value metadata, and closes the stream. */
    void close(Map<String, String> metadata) throws IOException;
}
