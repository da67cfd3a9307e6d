package io.wrangler.encoding;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * A ColumnarEncoder encodes flat Arrow columns into one Parquet file column by column: for each chunk of rows it
 * hands every value of one column to that column's Parquet writer before moving to the next column, with no
 * per-row record assembly. Pages still end on row boundaries (the page size check runs between chunks), and the
 * Parquet types are those of {@link ArrowSchemas}, as for {@link RecordEncoder}.
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
    private final Leaf[] leaves;
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
        this.file = new ParquetFileWriter(new RecordEncoder.StreamFile(out), schema, ParquetFileWriter.Mode.OVERWRITE,
                settings.rowGroupBytes(), ParquetWriterDefaults.MAX_PADDING, null, props);
        file.start();
        this.leaves = new Leaf[settings.columns().size()];
        for (int i = 0; i < leaves.length; i++) {
            leaves[i] = leaf(settings.columns().get(i), settings.keepNanos(), settings.int96());
        }
    }

    /** The file's writer properties: page size, heap buffers, dictionaries on (chooseEncodings turns some off). */
    private ParquetProperties.Builder baseProperties() {
        return ParquetProperties.builder().withPageSize(settings.pageBytes()).withDictionaryEncoding(true)
                .withAllocator(new HeapByteBufferAllocator());
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
            if (v instanceof BitVector) {
                continue;
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
        final ColumnWriteStore store;
        final ColumnWriter[] writers;
        long rows;

        Group() {
            pages = ColumnChunkPageWriteStore.builder()
                    .withCompressorProvider(c -> CODECS.getCompressor(Codecs.parquetName(settings.compression())))
                    .withSchema(schema).withAllocator(props.getAllocator())
                    .withColumnIndexTruncateLength(props.getColumnIndexTruncateLength())
                    .withPageWriteChecksumEnabled(props.getPageWriteChecksumEnabled()).build();
            store = encodings.newColumnWriteStore(schema, pages, pages);
            List<ColumnDescriptor> columns = schema.getColumns();
            writers = new ColumnWriter[columns.size()];
            for (int i = 0; i < writers.length; i++) {
                writers[i] = store.getColumnWriter(columns.get(i));
            }
        }

        /** Encodes rows {@code [from, to)} column by column, a chunk at a time; stops early when the group is full. */
        int encode(List<FieldVector> columns, int from, int to) {
            int start = from;
            while (start < to && store.getBufferedSize() < settings.rowGroupBytes()) {
                int end = Math.min(to, start + CHUNK);
                for (int c = 0; c < leaves.length; c++) {
                    leaves[c].write(columns.get(c), start, end, writers[c]);
                }
                for (int r = start; r < end; r++) {
                    store.endRecord();
                }
                rows += end - start;
                start = end;
            }
            return start;
        }

        boolean full() {
            return store.getBufferedSize() >= settings.rowGroupBytes();
        }

        /** Closes the column writers so that every page is in the page store; may run on any thread. */
        void seal() {
            store.flush();
        }

        void flushTo(ParquetFileWriter file) throws IOException {
            try {
                if (rows > 0) {
                    file.startBlock(rows);
                    pages.flushToFileWriter(file);
                    file.endBlock();
                }
            } finally {
                store.close();
                pages.close();
            }
        }

        void discard() {
            store.close();
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
            return file.getPos() + (group == null ? 0 : group.store.getBufferedSize());
        } catch (IOException e) {
            return group == null ? 0 : group.store.getBufferedSize();
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (group != null) {
            group.seal();
            group.flushTo(file);
        }
        file.end(Map.of("writer.model.name", "wrangler"));
    }

    // ---- leaves: one per Arrow type, writing a run of values of a flat optional column ----

    @FunctionalInterface
    private interface Leaf {
        void write(FieldVector v, int from, int to, ColumnWriter w);
    }

    private static Leaf leaf(Field field, boolean keepNanos, boolean int96) {
        ArrowType t = field.getType();
        switch (t.getTypeID()) {
            case Int: {
                ArrowType.Int it = (ArrowType.Int) t;
                if (it.getBitWidth() == 64) {
                    return (v, from, to, w) -> {
                        if (v instanceof BigIntVector x) {
                            for (int r = from; r < to; r++) {
                                if (x.isNull(r)) w.writeNull(0, 0); else w.write(x.get(r), 0, 1);
                            }
                        } else {
                            UInt8Vector x = (UInt8Vector) v;
                            for (int r = from; r < to; r++) {
                                if (x.isNull(r)) w.writeNull(0, 0); else w.write(x.get(r), 0, 1);
                            }
                        }
                    };
                }
                return (v, from, to, w) -> {
                    for (int r = from; r < to; r++) {
                        if (v.isNull(r)) {
                            w.writeNull(0, 0);
                        } else if (v instanceof IntVector x) {
                            w.write(x.get(r), 0, 1);
                        } else if (v instanceof SmallIntVector x) {
                            w.write((int) x.get(r), 0, 1);
                        } else if (v instanceof TinyIntVector x) {
                            w.write((int) x.get(r), 0, 1);
                        } else if (v instanceof UInt1Vector x) {
                            w.write(x.get(r) & 0xFF, 0, 1);
                        } else if (v instanceof UInt2Vector x) {
                            w.write((int) x.get(r), 0, 1);
                        } else {
                            w.write(((UInt4Vector) v).get(r), 0, 1);
                        }
                    }
                };
            }
            case FloatingPoint:
                return (v, from, to, w) -> {
                    if (v instanceof Float8Vector x) {
                        for (int r = from; r < to; r++) {
                            if (x.isNull(r)) w.writeNull(0, 0); else w.write(x.get(r), 0, 1);
                        }
                    } else {
                        Float4Vector x = (Float4Vector) v;
                        for (int r = from; r < to; r++) {
                            if (x.isNull(r)) w.writeNull(0, 0); else w.write(x.get(r), 0, 1);
                        }
                    }
                };
            case Bool:
                return (v, from, to, w) -> {
                    BitVector x = (BitVector) v;
                    for (int r = from; r < to; r++) {
                        if (x.isNull(r)) w.writeNull(0, 0); else w.write(x.get(r) == 1, 0, 1);
                    }
                };
            case Utf8:
            case LargeUtf8:
            case Binary:
            case LargeBinary:
                return (v, from, to, w) -> {
                    if (v instanceof BaseVariableWidthVector x) {
                        // One scratch array per chunk, passed as a "reused" Binary: parquet-java copies what it keeps
                        // (dictionary keys, min and max), so no array is allocated per value.
                        ArrowBuf offsets = x.getOffsetBuffer();
                        ArrowBuf data = x.getDataBuffer();
                        byte[] scratch = new byte[256];
                        for (int r = from; r < to; r++) {
                            if (x.isNull(r)) {
                                w.writeNull(0, 0);
                                continue;
                            }
                            int start = offsets.getInt(4L * r);
                            int length = offsets.getInt(4L * r + 4) - start;
                            if (length > scratch.length) {
                                scratch = new byte[Math.max(length, 2 * scratch.length)];
                            }
                            data.getBytes(start, scratch, 0, length);
                            w.write(Binary.fromReusedByteArray(scratch, 0, length), 0, 1);
                        }
                        return;
                    }
                    BaseLargeVariableWidthVector x = (BaseLargeVariableWidthVector) v;
                    for (int r = from; r < to; r++) {
                        if (x.isNull(r)) {
                            w.writeNull(0, 0);
                        } else {
                            w.write(Binary.fromConstantByteArray(x.get(r)), 0, 1);
                        }
                    }
                };
            case FixedSizeBinary:
                return (v, from, to, w) -> {
                    FixedSizeBinaryVector x = (FixedSizeBinaryVector) v;
                    for (int r = from; r < to; r++) {
                        if (x.isNull(r)) w.writeNull(0, 0); else w.write(Binary.fromConstantByteArray(x.get(r)), 0, 1);
                    }
                };
            case Decimal: {
                int precision = ((ArrowType.Decimal) t).getPrecision();
                int width = ArrowSchemas.bytesFor(Math.max(precision, 1));
                return (v, from, to, w) -> {
                    for (int r = from; r < to; r++) {
                        if (v.isNull(r)) {
                            w.writeNull(0, 0);
                        } else if (precision <= 9) {
                            w.write((int) ArrowSchemas.lowLong(v, r), 0, 1);
                        } else if (precision <= 18) {
                            w.write(ArrowSchemas.lowLong(v, r), 0, 1);
                        } else {
                            BigDecimal d = v instanceof DecimalVector x ? x.getObject(r) : ((Decimal256Vector) v).getObject(r);
                            w.write(Binary.fromConstantByteArray(ArrowSchemas.twosComplement(d.unscaledValue(), width)), 0, 1);
                        }
                    }
                };
            }
            case Date:
                return (v, from, to, w) -> {
                    if (v instanceof DateDayVector x) {
                        for (int r = from; r < to; r++) {
                            if (x.isNull(r)) w.writeNull(0, 0); else w.write(x.get(r), 0, 1);
                        }
                    } else {
                        DateMilliVector x = (DateMilliVector) v;
                        for (int r = from; r < to; r++) {
                            if (x.isNull(r)) w.writeNull(0, 0); else w.write(Math.toIntExact(Math.floorDiv(x.get(r), 86_400_000L)), 0, 1);
                        }
                    }
                };
            case Timestamp: {
                TimeUnit unit = ((ArrowType.Timestamp) t).getUnit();
                String name = field.getName();
                if (int96) {
                    return (v, from, to, w) -> {
                        TimeStampVector x = (TimeStampVector) v;
                        for (int r = from; r < to; r++) {
                            if (x.isNull(r)) w.writeNull(0, 0); else w.write(ArrowSchemas.int96(x.get(r), unit, name), 0, 1);
                        }
                    };
                }
                return (v, from, to, w) -> {
                    TimeStampVector x = (TimeStampVector) v;
                    for (int r = from; r < to; r++) {
                        if (x.isNull(r)) {
                            w.writeNull(0, 0);
                            continue;
                        }
                        long value = x.get(r);
                        if (unit == TimeUnit.SECOND) {
                            value = Math.multiplyExact(value, 1000L);
                        } else if (unit == TimeUnit.NANOSECOND && !keepNanos) {
                            if (value % 1000 != 0) {
                                throw new UnsupportedTypeException("column '" + name + "' holds the nanosecond timestamp " + value
                                        + " at row " + r + ", which a microsecond timestamp cannot hold without losing digits: truncate "
                                        + "the column to microseconds, or call preserveNanoseconds(true) (Spark and Athena cannot read "
                                        + "nanosecond Parquet timestamps)");
                            }
                            value /= 1000;
                        }
                        w.write(value, 0, 1);
                    }
                };
            }
            default:
                throw new UnsupportedTypeException("column '" + field.getName() + "' has the Arrow type " + t
                        + ", which the columnar encoder does not write");
        }
    }
}
