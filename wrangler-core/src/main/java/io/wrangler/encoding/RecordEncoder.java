package io.wrangler.encoding;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
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
    private long rows;

    RecordEncoder(Settings settings, OutputStream out) throws IOException {
        this.out = out;
        ArrowSchemas.Mapped mapped = settings.schemas().map(settings.columns());
        MessageType schema = new MessageType("schema", mapped.types());
        this.support = new ColumnsWriteSupport(schema, mapped.writers());
        this.writer = new Builder(new StreamFile(out), support)
                .withConf(new PlainParquetConfiguration())
                .withCodecFactory(CODECS)
                .withCompressionCodec(Codecs.parquetName(settings.compression()))
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withRowGroupSize(settings.rowGroupBytes())
                .withPageSize(settings.pageBytes())
                .withDictionaryEncoding(true)
                .withValidation(false)
                .build();
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
        support.metadata = metadata;
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
        private final OutputStream out;

        StreamFile(OutputStream out) {
            this.out = out;
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
                    out.write(b);
                    pos++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    pos += len;
                }

                @Override
                public void flush() throws IOException {
                    out.flush();
                }

                @Override
                public void close() throws IOException {
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
