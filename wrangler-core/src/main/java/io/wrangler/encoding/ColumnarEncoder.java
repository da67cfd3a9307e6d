package io.wrangler.encoding;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.schema.MessageType;

/**
 * A ColumnarEncoder encodes flat Arrow columns into one Parquet file column by column: for each chunk of rows it
 * hands the chunk of one column to that column's {@link FlatColumnWriter}, which encodes pages straight from the Arrow
 * buffers, before moving to the next column, with no per-row record assembly and no per-value call into parquet-java.
 * Pages end on row boundaries, and the Parquet types are those of {@link ArrowSchemas}, as for {@link RecordEncoder}
 * (parquet-java's own writer, which nested columns use); parquet-java still lays out the file: page headers,
 * checksums, compression, column and offset indexes, footer.
 *
 * <p>Memory is about one row group of encoded pages. Not thread-safe.
 */
final class ColumnarEncoder implements FileEncoder {
    private static final Codecs CODECS = new Codecs();
    private static final int CHUNK = 4096;

    private final Settings settings;
    private final MessageType schema;
    private final ParquetProperties props;
    private final ParquetFileWriter file;
    private final RecordEncoder.StreamFile stream;
    private final FlatColumnWriter.Source[] sources;
    /** Rows of one row group when a long run is encoded on several threads. */
    static final int PARALLEL_ROWS = 1 << 20;
    private static final int SAMPLE = 1024;
    private static final int MIN_SAMPLE = 256;
    private ParquetProperties encodings;
    /** The open row group; null before the first write. */
    private Group group;
    private long rows;
    private boolean closed;

    ColumnarEncoder(Settings settings, OutputStream out) throws IOException {
        this.settings = settings;
        this.schema = settings.schemas().messageType(settings.columns());
        this.props = baseProperties().build();
        this.stream = new RecordEncoder.StreamFile(out);
        this.file = new ParquetFileWriter(stream, schema, ParquetFileWriter.Mode.OVERWRITE,
                settings.rowGroupBytes(), ParquetWriterDefaults.MAX_PADDING, null, props);
        file.start();
        this.sources = new FlatColumnWriter.Source[settings.columns().size()];
        for (int i = 0; i < sources.length; i++) {
            sources[i] = source(settings.columns().get(i), settings.timestamps());
        }
    }

    /** The file's writer properties: page size, heap buffers, dictionaries on (chooseEncodings turns some off). */
    private ParquetProperties.Builder baseProperties() {
        ParquetProperties.Builder b = ParquetProperties.builder().withPageSize(settings.pageBytes()).withDictionaryEncoding(true)
                .withAllocator(new HeapByteBufferAllocator());
        settings.layout().dictionary().forEach(b::withDictionaryEncoding);
        return b;
    }

    /**
     * Chooses, per column, dictionary or plain encoding for this file from a sample of its first rows: a dictionary only
     * pays when values repeat. parquet-java would otherwise build a dictionary for every column, hashing every value,
     * and fall back to plain only once the dictionary outgrows its page, which for a column of mostly distinct values
     * (ids, amounts, timestamps) is all cost and no gain, and in a file too small to reach the limit leaves a dictionary
     * as large as the data. The estimate: among n sampled values, c pairs are equal; the column then has about
     * n(n-1)/2c distinct values (none equal: more than about n^2/2). A dictionary is kept when that is at most half
     * the rows at hand and fits a dictionary page.
     */
    private ParquetProperties chooseEncodings(List<FieldVector> columns, int from, int to) {
        ParquetProperties.Builder b = baseProperties();
        int rows = to - from;
        if (rows < MIN_SAMPLE) {
            return b.build(); // too few rows to judge: parquet-java's own fallback decides
        }
        int n = Math.min(SAMPLE, rows);
        int[] hashes = new int[n];
        for (int c = 0; c < columns.size(); c++) {
            FieldVector v = columns.get(c);
            if (v instanceof BitVector || settings.layout().dictionary().containsKey(settings.columns().get(c).getName())) {
                continue; // the layout decides this column's dictionary
            }
            int k = 0;
            for (int i = 0; i < n; i++) {
                int row = from + (int) ((long) i * rows / n);
                if (!v.isNull(row)) {
                    hashes[k++] = sampleHash(v, row);
                }
            }
            if (k < MIN_SAMPLE) {
                continue;
            }
            Arrays.sort(hashes, 0, k);
            long pairs = 0;
            int run = 1;
            for (int i = 1; i <= k; i++) {
                if (i < k && hashes[i] == hashes[i - 1]) {
                    run++;
                } else {
                    pairs += (long) run * (run - 1) / 2;
                    run = 1;
                }
            }
            double distinct = pairs == 0 ? Double.MAX_VALUE : (double) k * (k - 1) / 2 / pairs;
            double nonNull = (double) rows * k / n;
            if (distinct > nonNull / 2 || distinct > props.getDictionaryPageSizeThreshold() / 8.0) {
                b.withDictionaryEncoding(settings.columns().get(c).getName(), false);
            }
        }
        return b.build();
    }

    /** A hash of one value for the distinct-value estimate: fixed-width values read directly, others through Arrow. */
    private static int sampleHash(FieldVector v, int row) {
        if (v instanceof BaseFixedWidthVector f) {
            ArrowBuf data = f.getDataBuffer();
            long bits = switch (f.getTypeWidth()) {
                case 8 -> data.getLong(8L * row);
                case 4 -> data.getInt(4L * row);
                case 2 -> data.getShort(2L * row);
                case 1 -> data.getByte(row);
                default -> f.hashCode(row);
            };
            long h = bits * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32));
        }
        return v.hashCode(row);
    }

    /** One row group being encoded: its column writers and the pages they produced, held in memory until flushed. */
    private final class Group {
        final ColumnChunkPageWriteStore pages;
        final FlatColumnWriter[] writers;
        long rows;

        Group() {
            pages = ColumnChunkPageWriteStore.builder()
                    .withCompressorProvider(c -> CODECS.getCompressor(Codecs.parquetName(settings.compression())))
                    .withSchema(schema).withAllocator(props.getAllocator())
                    .withColumnIndexTruncateLength(props.getColumnIndexTruncateLength())
                    .withPageWriteChecksumEnabled(props.getPageWriteChecksumEnabled()).build();
            List<ColumnDescriptor> columns = schema.getColumns();
            writers = new FlatColumnWriter[columns.size()];
            for (int i = 0; i < writers.length; i++) {
                ColumnDescriptor c = columns.get(i);
                writers[i] = FlatColumnWriter.of(c, pages.getPageWriter(c), props.getPageSizeThreshold(),
                        props.getPageRowCountLimit(), props.getDictionaryPageSizeThreshold(), encodings.isDictionaryEnabled(c),
                        sources[i]);
                if (settings.layout().bloomFilters().contains(c.getPath()[0])) {
                    writers[i].withBloomFilter(pages.getBloomFilterWriter(c), settings.layout().bloomFilterFpp());
                }
            }
        }

        /** Encodes rows {@code [from, to)} column by column, a chunk at a time; stops early when the group is full. */
        int encode(List<FieldVector> columns, int from, int to) {
            int start = from;
            while (start < to && bufferedSize() < settings.rowGroupBytes()) {
                int end = Math.min(to, start + CHUNK);
                for (int c = 0; c < writers.length; c++) {
                    writers[c].write(columns.get(c), start, end);
                }
                rows += end - start;
                start = end;
            }
            return start;
        }

        long bufferedSize() {
            long total = 0;
            for (FlatColumnWriter w : writers) {
                total += w.bufferedSize();
            }
            return total;
        }

        boolean full() {
            return bufferedSize() >= settings.rowGroupBytes();
        }

        long heapBytes() {
            long total = 0;
            for (FlatColumnWriter w : writers) {
                total += w.heapBytes();
            }
            return total;
        }

        /** Writes every column's last page and dictionary into the page store; may run on any thread. */
        void seal() {
            for (FlatColumnWriter w : writers) {
                w.finish();
            }
        }

        void flushTo(ParquetFileWriter file) throws IOException {
            try {
                if (rows > 0) {
                    file.startBlock(rows);
                    pages.flushToFileWriter(file);
                    file.endBlock();
                }
            } finally {
                pages.close();
            }
        }

        void discard() {
            pages.close();
        }
    }

    @Override
    public void write(List<FieldVector> columns, int from, int to) throws IOException {
        if (encodings == null) {
            encodings = chooseEncodings(columns, from, to);
            group = new Group();
        }
        if (to - from >= 2 * PARALLEL_ROWS && settings.helpers() != null) {
            writeInParallel(columns, from, to);
            return;
        }
        while (from < to) {
            int done = group.encode(columns, from, to);
            rows += done - from;
            from = done;
            if (group.full()) {
                group.seal();
                group.flushTo(file);
                group = new Group();
            }
        }
    }

    /**
     * Encodes a long run of rows as several row groups at once, at most {@code PARALLEL_ROWS} rows each, on the calling thread
     * and the helper pool, then writes them to the file in order: the file is the same as if written on one thread but
     * for where row groups end. At most one group per thread is held in memory beyond the open one.
     */
    private void writeInParallel(List<FieldVector> columns, int from, int to) throws IOException {
        if (group.rows > 0) {
            group.seal();
            group.flushTo(file);
            group = new Group();
        }
        int threads = Runtime.getRuntime().availableProcessors();
        // Equal slices, a multiple of the threads in number, so that no wave leaves a thread idle.
        long total = to - from;
        long waves = (total + (long) threads * PARALLEL_ROWS - 1) / ((long) threads * PARALLEL_ROWS);
        int perSlice = (int) ((total + waves * threads - 1) / (waves * threads));
        int start = from;
        while (start < to) {
            List<int[]> slices = new ArrayList<>();
            for (int t = 0; t < threads && start < to; t++) {
                int end = (int) Math.min(to, (long) start + perSlice);
                slices.add(new int[] {start, end});
                start = end;
            }
            List<FutureTask<List<Group>>> encoded = new ArrayList<>();
            for (int i = 1; i < slices.size(); i++) {
                int[] slice = slices.get(i);
                FutureTask<List<Group>> task = new FutureTask<>(() -> encodeSlice(columns, slice[0], slice[1]));
                encoded.add(task);
                settings.helpers().execute(task);
            }
            List<List<Group>> inOrder = new ArrayList<>();
            try {
                inOrder.add(encodeSlice(columns, slices.get(0)[0], slices.get(0)[1]));
                for (FutureTask<List<Group>> task : encoded) {
                    task.run(); // a no-op if a helper took it; else it runs here, so a busy pool never stalls the write
                    inOrder.add(task.get());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                discardAll(encoded, inOrder);
                throw new InterruptedIOException("interrupted while encoding");
            } catch (ExecutionException | RuntimeException e) {
                discardAll(encoded, inOrder);
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                if (cause instanceof RuntimeException r) {
                    throw r;
                }
                if (cause instanceof Error err) {
                    throw err;
                }
                throw new IOException(cause);
            }
            for (List<Group> groups : inOrder) {
                for (Group g : groups) {
                    rows += g.rows;
                    g.flushTo(file);
                }
            }
        }
    }

    /**
     * Releases what a failed wave encoded. Slices no helper has begun are cancelled, not encoded only to be thrown
     * away; one a helper is still encoding is left to finish and become garbage.
     */
    private static void discardAll(List<FutureTask<List<Group>>> tasks, List<List<Group>> done) {
        done.forEach(gs -> gs.forEach(Group::discard));
        for (FutureTask<List<Group>> task : tasks) {
            if (task.cancel(false) || !task.isDone()) {
                continue;
            }
            try {
                List<Group> groups = task.get();
                if (!done.contains(groups)) {
                    groups.forEach(Group::discard);
                }
            } catch (InterruptedException | ExecutionException ignored) {
                // nothing was left open by a slice that failed
            }
        }
    }

    private List<Group> encodeSlice(List<FieldVector> columns, int from, int to) {
        List<Group> out = new ArrayList<>();
        while (from < to) {
            Group g = new Group();
            from = g.encode(columns, from, to);
            g.seal();
            out.add(g);
        }
        return out;
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public long size() {
        try {
            return file.getPos() + (group == null ? 0 : group.bufferedSize());
        } catch (IOException e) {
            return group == null ? 0 : group.bufferedSize();
        }
    }

    @Override
    public long heldBytes(long streamed) {
        return Math.max(Math.max(0, size() - streamed), group == null ? 0 : group.heapBytes());
    }

    @Override
    public void close(Map<String, String> metadata) throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (group != null) {
            group.seal();
            group.flushTo(file);
        }
        Map<String, String> footer = new HashMap<>(settings.layout().metadata());
        footer.putAll(metadata);
        if (footer.remove(FileLayout.UNSORTED) == null && settings.layout().sorted()) {
            stream.sortingColumns(schema, settings.layout().sortBy());
        }
        footer.put("writer.model.name", "wrangler");
        file.end(footer);
    }

    // ---- sources: how each Arrow type's values become its Parquet type's ----

    private static FlatColumnWriter.Source source(Field field, TimestampPolicy timestamps) {
        ArrowType t = field.getType();
        switch (t.getTypeID()) {
            case Int: {
                ArrowType.Int it = (ArrowType.Int) t;
                return switch (it.getBitWidth()) {
                    case 64 -> FlatColumnWriter.LONGS;
                    case 32 -> it.getIsSigned() ? FlatColumnWriter.INTS : FlatColumnWriter.UINTS;
                    case 16 -> it.getIsSigned() ? FlatColumnWriter.each((v, r) -> v.getDataBuffer().getShort(2L * r))
                            : FlatColumnWriter.each((v, r) -> v.getDataBuffer().getShort(2L * r) & 0xFFFF);
                    default -> it.getIsSigned() ? FlatColumnWriter.each((v, r) -> v.getDataBuffer().getByte(r))
                            : FlatColumnWriter.each((v, r) -> v.getDataBuffer().getByte(r) & 0xFF);
                };
            }
            case FloatingPoint:
                // the raw bits: Arrow and Parquet PLAIN are both IEEE 754 little-endian
                return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.DOUBLE
                        ? FlatColumnWriter.LONGS : FlatColumnWriter.INTS;
            case Bool:
            case Utf8:
            case LargeUtf8:
            case Binary:
            case LargeBinary:
                return FlatColumnWriter.Source.Plain.INSTANCE;
            case FixedSizeBinary:
                return (FlatColumnWriter.Source.Bytes) (v, r) -> ((FixedSizeBinaryVector) v).get(r);
            case Decimal: {
                int precision = ((ArrowType.Decimal) t).getPrecision();
                if (precision <= 9) {
                    return FlatColumnWriter.each((v, r) -> (int) ArrowSchemas.lowLong(v, r));
                }
                if (precision <= 18) {
                    return FlatColumnWriter.each(ArrowSchemas::lowLong);
                }
                int width = ArrowSchemas.bytesFor(precision);
                return (FlatColumnWriter.Source.Bytes) (v, r) -> {
                    BigDecimal d = v instanceof DecimalVector x ? x.getObject(r) : ((Decimal256Vector) v).getObject(r);
                    return ArrowSchemas.twosComplement(d.unscaledValue(), width);
                };
            }
            case Date:
                return ((ArrowType.Date) t).getUnit() == DateUnit.DAY ? FlatColumnWriter.INTS
                        : FlatColumnWriter.each((v, r) -> Math.toIntExact(Math.floorDiv(((DateMilliVector) v).get(r), 86_400_000L)));
            case Timestamp: {
                TimeUnit unit = ((ArrowType.Timestamp) t).getUnit();
                String name = field.getName();
                if (timestamps.int96()) {
                    return (FlatColumnWriter.Source.Bytes) (v, r) -> TimestampPolicy.int96(((TimeStampVector) v).get(r), unit, name).getBytes();
                }
                if (unit == TimeUnit.SECOND) {
                    return FlatColumnWriter.each((v, r) -> TimestampPolicy.secondsAsMillis(((TimeStampVector) v).get(r)));
                }
                if (timestamps.narrows(unit)) {
                    return FlatColumnWriter.each((v, r) -> TimestampPolicy.nanosAsMicros(((TimeStampVector) v).get(r), name, r));
                }
                return FlatColumnWriter.LONGS;
            }
            default:
                throw new UnsupportedTypeException("column '" + field.getName() + "' has the Arrow type " + t
                        + ", which the columnar encoder does not write");
        }
    }
}
