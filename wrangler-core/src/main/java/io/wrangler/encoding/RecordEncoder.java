package io.wrangler.encoding;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * A RecordEncoder encodes rows of Arrow columns into one Parquet file, row by row through parquet-java's record
 * consumer. It handles every mapped type, nested ones included; {@link ColumnarEncoder} is the faster path for
 * files whose columns are all flat.
 *
 * <p>Rows are buffered by parquet-java up to a row group, then flushed to the stream as compressed
 * column chunks; memory per open encoder is about one row group. Not thread-safe.
 */
final class RecordEncoder implements FileEncoder {
    private static final Codecs CODECS = new Codecs();

    private final ParquetWriter<Cursor> writer;
    private final Cursor cursor = new Cursor();
    private final ColumnsWriteSupport support;
    private final OutputStream out;
    private final Settings settings;
    private final MessageType schema;
    private final StreamFile stream;
    private long rows;

    RecordEncoder(Settings settings, OutputStream out) throws IOException {
        this.out = out;
        ArrowSchemas.Mapped mapped = settings.schemas().map(settings.columns());
        MessageType schema = new MessageType("schema", mapped.types());
        this.support = new ColumnsWriteSupport(schema, mapped.writers());
        this.settings = settings;
        this.schema = schema;
        this.stream = new StreamFile(out);
        Builder b = new Builder(stream, support)
                .withConf(new PlainParquetConfiguration())
                .withCodecFactory(CODECS)
                .withCompressionCodec(Codecs.parquetName(settings.compression()))
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withRowGroupSize(settings.rowGroupBytes())
                .withPageSize(settings.pageBytes())
                .withDictionaryEncoding(true)
                .withValidation(false);
        settings.layout().dictionary().forEach(b::withDictionaryEncoding);
        for (String c : settings.layout().bloomFilters()) {
            // parquet-java's own writer: an adaptive filter, the smallest of its candidate sizes that holds the row group's values
            b.withBloomFilterEnabled(c, true).withBloomFilterFPP(c, settings.layout().bloomFilterFpp()).withAdaptiveBloomFilterEnabled(true);
        }
        this.writer = b.build();
    }

    @Override
    public void write(List<FieldVector> columns, int from, int to) throws IOException {
        cursor.columns = columns;
        for (int r = from; r < to; r++) {
            cursor.row = r;
            writer.write(cursor);
        }
        rows += to - from;
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public long size() {
        return writer.getDataSize();
    }

    @Override
    public long heldBytes(long streamed) {
        return Math.max(0, size() - streamed);
    }

    @Override
    public void close(Map<String, String> metadata) throws IOException {
        Map<String, String> footer = new HashMap<>(settings.layout().metadata());
        footer.putAll(metadata);
        if (footer.remove(FileLayout.UNSORTED) == null && settings.layout().sorted()) {
            stream.sortingColumns(schema, settings.layout().sortBy());
        }
        support.metadata = footer;
        writer.close();
    }

    static final class Cursor {
        List<FieldVector> columns;
        int row;
    }

    private static final class Builder extends ParquetWriter.Builder<Cursor, Builder> {
        private final ColumnsWriteSupport support;

        Builder(OutputFile file, ColumnsWriteSupport support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<Cursor> getWriteSupport(Configuration conf) {
            return support;
        }

        @Override
        protected WriteSupport<Cursor> getWriteSupport(ParquetConfiguration conf) {
            return support;
        }
    }

    private static final class ColumnsWriteSupport extends WriteSupport<Cursor> {
        private final MessageType schema;
        private final ValueWriter[] writers;
        private RecordConsumer consumer;
        /** Added to the footer's key-value metadata. */
        Map<String, String> metadata = Map.of();

        ColumnsWriteSupport(MessageType schema, List<ValueWriter> writers) {
            this.schema = schema;
            this.writers = writers.toArray(new ValueWriter[0]);
        }

        @Override
        public WriteContext init(Configuration configuration) {
            return new WriteContext(schema, Map.of());
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(schema, Map.of());
        }

        @Override
        public FinalizedWriteContext finalizeWrite() {
            return new FinalizedWriteContext(metadata);
        }

        @Override
        public String getName() {
            return "wrangler";
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.consumer = recordConsumer;
        }

        @Override
        public void write(Cursor c) {
            consumer.startMessage();
            for (int i = 0; i < writers.length; i++) {
                writers[i].writeField(consumer, c.columns.get(i), c.row);
            }
            consumer.endMessage();
        }
    }

    /** An OutputFile over a stream that is already open: parquet-java creates it exactly once. */
    static final class StreamFile implements OutputFile {
        private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
        private final OutputStream out;
        /** What was written since {@link #sortingColumns} was called, held back until the footer is edited; else null. */
        private ByteArrayOutputStream tail;
        private List<SortingColumn> sorting;

        StreamFile(OutputStream out) {
            this.out = out;
        }

        /**
         * Records {@code columns} (top-level columns of {@code schema}) as every row group's {@code sorting_columns},
         * ascending with nulls first: parquet-java's writer has no way to set them, so what is written from here on (the
         * last row group at most, the indexes and the footer) is held back, and the footer rewritten with them at close.
         */
        void sortingColumns(MessageType schema, List<String> columns) {
            List<SortingColumn> out = new ArrayList<>();
            for (String c : columns) {
                int leaf = -1;
                List<ColumnDescriptor> leaves = schema.getColumns();
                for (int i = 0; i < leaves.size(); i++) {
                    if (leaves.get(i).getPath().length == 1 && leaves.get(i).getPath()[0].equals(c)) {
                        leaf = i;
                    }
                }
                if (leaf < 0) {
                    throw new IllegalStateException("the sort column '" + c + "' is not a top-level column of " + schema);
                }
                out.add(new SortingColumn(leaf, false, true));
            }
            this.sorting = out;
            this.tail = new ByteArrayOutputStream();
        }

        private void finishTail() throws IOException {
            byte[] b = tail.toByteArray();
            tail = null;
            int n = b.length;
            int length = n < 8 ? -1 : (b[n - 8] & 0xFF) | (b[n - 7] & 0xFF) << 8 | (b[n - 6] & 0xFF) << 16 | (b[n - 5] & 0xFF) << 24;
            int start = n - 8 - length;
            if (length < 0 || start < 0 || !Arrays.equals(b, n - 4, n, MAGIC, 0, 4)) {
                throw new IOException("cannot record sorting columns: the footer was not written after they were set");
            }
            out.write(b, 0, start);
            FileMetaData footer = Util.readFileMetaData(new ByteArrayInputStream(b, start, length));
            for (RowGroup g : footer.getRow_groups()) {
                g.setSorting_columns(sorting);
            }
            ByteArrayOutputStream edited = new ByteArrayOutputStream(length + 64);
            Util.writeFileMetaData(footer, edited);
            int size = edited.size();
            edited.write(new byte[] {(byte) size, (byte) (size >>> 8), (byte) (size >>> 16), (byte) (size >>> 24)});
            edited.write(MAGIC);
            edited.writeTo(out);
        }

        @Override
        public PositionOutputStream create(long blockSizeHint) {
            return stream();
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return stream();
        }

        private PositionOutputStream stream() {
            return new PositionOutputStream() {
                private long pos;

                @Override
                public long getPos() {
                    return pos;
                }

                @Override
                public void write(int b) throws IOException {
                    if (tail != null) {
                        tail.write(b);
                    } else {
                        out.write(b);
                    }
                    pos++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    if (tail != null) {
                        tail.write(b, off, len);
                    } else {
                        out.write(b, off, len);
                    }
                    pos += len;
                }

                @Override
                public void flush() throws IOException {
                    if (tail == null) {
                        out.flush();
                    }
                }

                @Override
                public void close() throws IOException {
                    if (tail != null) {
                        finishTail();
                    }
                    out.close();
                }
            };
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return 0;
        }

        @Override
        public String getPath() {
            return "stream";
        }
    }
}
