package io.wrangler.encoding;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.column.values.bloomfilter.BloomFilterWriter;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

/**
 * A FlatColumnWriter encodes one flat optional column of one row group into Parquet v1 data pages straight from the
 * Arrow buffers, and hands each page to parquet-java's page store, which compresses it, writes its header and checksum
 * and keeps the column and offset indexes. It replaces parquet-java's per-value column writer: plain values are copied
 * buffer to buffer, definition levels are one RLE run for a page without nulls, and statistics are computed once per
 * page and given to parquet-java's own {@link Statistics} as the page's min and max, which yields the same
 * min/max/null/NaN counts as feeding it every value (its update is a min and a max under the type's comparator, with
 * NaN counted apart and zeros normalized, so only the extremes matter).
 *
 * <p>What it keeps of parquet-java's writer: pages end at {@code pageRows} rows or when the buffered page reaches 90% of
 * {@code pageBytes}, checked at least 100 rows apart as parquet-java checks; a dictionary is tried where parquet-java would try one (every type but boolean and fixed-length
 * byte arrays) when the file's encoding choice allows it, and given up for plain, the current page re-encoded, when the
 * dictionary outgrows {@code dictionaryBytes} or when the first page does not come out smaller than plain. Pages
 * already written with the dictionary keep it. Not thread-safe; one per column per row group.
 */
abstract class FlatColumnWriter {
    private static final double PAGE_TOLERANCE = 0.1;
    private static final VarHandle BIG_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int MIN_CHECK = 100;

    final PrimitiveType type;
    private final PageWriter pages;
    private final int pageCut;
    private final int pageRows;
    final Validity validity = new Validity();
    private final PageBytes page = new PageBytes(1 << 16);
    private final PageBytes levelBytes = new PageBytes(256);
    /** Rows, nulls and definition levels of the open page; levels are kept only once the page has a null. */
    int rows;
    private int nulls;
    private int[] levels = new int[0];
    private boolean hasNulls;
    /** Bytes per row of the last page written, 0 before the first. */
    private long lastPerRow;
    /** The hashes of this row group's values for its bloom filter, null without one. */
    private BloomHashes bloom;

    FlatColumnWriter(ColumnDescriptor column, PageWriter pages, int pageBytes, int pageRows) {
        this.type = column.getPrimitiveType();
        this.pages = pages;
        this.pageCut = pageBytes - (int) (pageBytes * PAGE_TOLERANCE);
        this.pageRows = pageRows;
    }

    /** Encodes rows {@code [from, to)} of {@code v}, writing each page as it fills. */
    final void write(FieldVector v, int from, int to) {
        while (from < to) {
            int n = Math.min(to - from, pageRows - rows);
            // The page's size is checked as parquet-java checks it: first after 100 rows, then after as many rows as the
            // bytes per row so far say fit, but never sooner than 100 rows on (so a page of large values holds 100).
            if (rows == 0) {
                n = (int) Math.min(n, lastPerRow == 0 ? MIN_CHECK : Math.max(MIN_CHECK, pageCut / lastPerRow));
            } else {
                long buffered = pageBuffered();
                long perRow = Math.max(1, (buffered + rows - 1) / rows);
                n = (int) Math.min(n, Math.max(MIN_CHECK, (pageCut - buffered) / perRow));
            }
            validity.load(v, from, from + n);
            if (validity.nulls > 0 || hasNulls) {
                levels(from, from + n);
            }
            append(v, from, from + n);
            rows += n;
            nulls += validity.nulls;
            from += n;
            if (rows >= pageRows || pageBuffered() >= pageCut) {
                writePage();
            }
        }
    }

    private void levels(int from, int to) {
        if (levels.length < rows + (to - from)) {
            levels = Arrays.copyOf(levels, Math.max(rows + (to - from), 2 * levels.length));
        }
        if (!hasNulls) {
            Arrays.fill(levels, 0, rows, 1);
            hasNulls = true;
        }
        for (int r = from; r < to; r++) {
            levels[rows + r - from] = validity.valid(r) ? 1 : 0;
        }
    }

    /** Bytes buffered for this row group: the open page's estimate and the pages written. */
    final long bufferedSize() {
        return pageBuffered() + pages.getMemSize();
    }

    /**
     * The heap this writer holds: the pages written and the capacity of every array it keeps, its dictionary's included.
     * {@link #bufferedSize} is parquet-java's estimate of the encoded bytes, which decides page and row group boundaries
     * and leaves out the definition levels (an int a row while the page has a null), the arrays' spare room and, while a
     * column's first page is open, its dictionary's hash table. This is what keeps many open files within a memory
     * budget; it never moves a boundary.
     */
    final long heapBytes() {
        return pages.getMemSize() + page.buf.length + levelBytes.buf.length + 4L * levels.length + arrayBytes();
    }

    /** The capacity, in bytes, of the arrays of the writer's own kind (see {@link #heapBytes}). */
    abstract long arrayBytes();

    /** Writes the last page and the dictionary page, if any page used the dictionary. */
    final void finish() {
        if (rows > 0) {
            writePage();
        }
        DictionaryPage dictionary = dictionaryPage();
        if (dictionary != null) {
            try {
                pages.writeDictionaryPage(dictionary);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (bloom != null) {
            bloom.writeTo();
        }
    }

    /**
     * Gives this row group's column a bloom filter, written with its pages through {@code writer}: the standard place
     * (before the footer, its offset in the column chunk's metadata) where parquet-java and the engines look for it.
     */
    final FlatColumnWriter withBloomFilter(BloomFilterWriter writer, double fpp) {
        this.bloom = new BloomHashes(writer, fpp);
        return this;
    }

    /** Adds the hashes of the open page's non-null values, as Parquet's bloom filter hashes them (their PLAIN bytes). */
    abstract void hashValues(BloomHashes out);

    /**
     * The xxHash64 values of one row group's column, kept until it is finished; the filter is then sized for their
     * distinct count at the chosen false positive probability (parquet-java sizes it from a guess given in advance).
     */
    static final class BloomHashes {
        /**
         * Hashes only, one per thread: parquet-java's {@code hash(long)}, {@code hash(int)}, ... write the value into a
         * buffer the filter keeps, so one filter shared by the files encoded in parallel overflowed that buffer or, worse,
         * hashed another thread's value (a bloom filter missing a value it holds rules out a row group that matches).
         */
        private static final ThreadLocal<BlockSplitBloomFilter> HASHERS =
                ThreadLocal.withInitial(() -> new BlockSplitBloomFilter(BlockSplitBloomFilter.LOWER_BOUND_BYTES));

        /** This thread's hasher: the format's one bloom filter hash, xxHash64 of the plain encoding. */
        static BlockSplitBloomFilter hasher() {
            return HASHERS.get();
        }
        private static final int MAX_BYTES = 1024 * 1024;
        private final BloomFilterWriter writer;
        private final double fpp;
        private long[] hashes = new long[1024];
        private int count;

        BloomHashes(BloomFilterWriter writer, double fpp) {
            this.writer = writer;
            this.fpp = fpp;
        }

        void add(long hash) {
            if (count == hashes.length) {
                hashes = Arrays.copyOf(hashes, 2 * count);
            }
            hashes[count++] = hash;
        }

        void writeTo() {
            Arrays.sort(hashes, 0, count);
            int distinct = 0;
            for (int i = 0; i < count; i++) {
                if (i == 0 || hashes[i] != hashes[i - 1]) {
                    hashes[distinct++] = hashes[i];
                }
            }
            int bytes = BlockSplitBloomFilter.optimalNumOfBits(Math.max(1, distinct), fpp) / 8;
            BlockSplitBloomFilter filter = new BlockSplitBloomFilter(Math.min(MAX_BYTES, bytes), MAX_BYTES);
            for (int i = 0; i < distinct; i++) {
                filter.insertHash(hashes[i]);
            }
            writer.writeBloomFilter(filter);
            hashes = null;
        }
    }

    private void writePage() {
        lastPerRow = Math.max(1, (pageBuffered() + rows - 1) / rows);
        levelBytes.reset();
        if (hasNulls) {
            levelBytes.hybrid(levels, rows, 1);
        } else {
            levelBytes.allDefined(rows);
        }
        page.reset();
        page.writeInt(levelBytes.size);
        page.write(levelBytes.buf, 0, levelBytes.size);
        Encoding encoding = values(page);
        if (bloom != null) {
            hashValues(bloom);
        }
        Statistics<?> stats = Statistics.createStats(type);
        statistics(stats);
        stats.incrementNumNulls(nulls);
        SizeStatistics sizes = new SizeStatistics(type, unencodedBytes(), new ArrayList<>(0), new ArrayList<>(0));
        try {
            pages.writePage(BytesInput.from(page.buf, 0, page.size), rows, rows, stats, sizes,
                    GeospatialStatistics.newBuilder(type).build(), Encoding.BIT_PACKED, Encoding.RLE, encoding);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rows = 0;
        nulls = 0;
        hasNulls = false;
        pageWritten();
    }

    /** Appends the non-null values of rows {@code [from, to)}; {@link #validity} holds their validity. */
    abstract void append(FieldVector v, int from, int to);

    /** The open page's values in bytes, as parquet-java estimates them (4 bytes a dictionary id). */
    abstract long pageBuffered();

    /** Writes the open page's values to {@code out} and returns their encoding. */
    abstract Encoding values(PageBytes out);

    /** Puts the open page's min and max (and NaN count) into {@code stats}. */
    abstract void statistics(Statistics<?> stats);

    long unencodedBytes() {
        return 0;
    }

    /** Forgets the open page's values once written. */
    abstract void pageWritten();

    DictionaryPage dictionaryPage() {
        return null;
    }

    /** A writer for the column {@code column} of Arrow values {@code source}. */
    static FlatColumnWriter of(ColumnDescriptor column, PageWriter pages, int pageBytes, int pageRows, int dictionaryBytes,
                               boolean dictionary, Source source) {
        PrimitiveType t = column.getPrimitiveType();
        return switch (t.getPrimitiveTypeName()) {
            case BOOLEAN -> new BooleanWriter(column, pages, pageBytes, pageRows);
            case INT32, INT64, FLOAT, DOUBLE -> new FixedWidthWriter(column, pages, pageBytes, pageRows,
                    dictionary ? dictionaryBytes : -1, (Source.Fixed) source);
            case BINARY -> new BinaryWriter(column, pages, pageBytes, pageRows, dictionary ? dictionaryBytes : -1);
            case FIXED_LEN_BYTE_ARRAY, INT96 -> new FixedLengthWriter(column, pages, pageBytes, pageRows, (Source.Bytes) source);
        };
    }

    /** Where a column's values come from: how an Arrow vector's values become the Parquet type's. */
    sealed interface Source permits Source.Fixed, Source.Bytes, Source.Plain {
        /** INT32/INT64/FLOAT/DOUBLE values as longs (32-bit ones sign-extended, or zero-extended if unsigned). */
        non-sealed interface Fixed extends Source {
            /** Stores the non-null values of rows {@code [from, to)} at {@code dst[at...]} and returns their count. */
            int read(FieldVector v, int from, int to, Validity valid, long[] dst, int at);
        }

        /** FIXED_LEN_BYTE_ARRAY / INT96 values, one array per value. */
        non-sealed interface Bytes extends Source {
            byte[] get(FieldVector v, int row);
        }

        /** Values taken as Arrow holds them (booleans, variable-width bytes). */
        enum Plain implements Source { INSTANCE }
    }

    /** 8-byte values copied as Arrow holds them (Parquet's PLAIN is little-endian too). */
    static final Source.Fixed LONGS = (v, from, to, valid, dst, at) -> {
        int n = to - from;
        v.getDataBuffer().nioBuffer(8L * from, 8 * n).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(dst, at, n);
        return compact(valid, from, to, dst, at);
    };

    /** 4-byte values as Arrow holds them, sign-extended. */
    static final Source.Fixed INTS = (v, from, to, valid, dst, at) -> {
        ArrowBuf data = v.getDataBuffer();
        int k = at;
        for (int r = from; r < to; r++) {
            if (valid.valid(r)) {
                dst[k++] = data.getInt(4L * r);
            }
        }
        return k - at;
    };

    /** Unsigned 4-byte values, zero-extended so that long order is their order. */
    static final Source.Fixed UINTS = (v, from, to, valid, dst, at) -> {
        ArrowBuf data = v.getDataBuffer();
        int k = at;
        for (int r = from; r < to; r++) {
            if (valid.valid(r)) {
                dst[k++] = data.getInt(4L * r) & 0xFFFFFFFFL;
            }
        }
        return k - at;
    };

    /** One value of a row, converted to the Parquet type's. */
    @FunctionalInterface
    interface LongAt {
        long at(FieldVector v, int row);
    }

    /** A value at a time through {@code get}, for the types converted on the way. */
    static Source.Fixed each(LongAt get) {
        return (v, from, to, valid, dst, at) -> {
            int k = at;
            for (int r = from; r < to; r++) {
                if (valid.valid(r)) {
                    dst[k++] = get.at(v, r);
                }
            }
            return k - at;
        };
    }

    private static int compact(Validity valid, int from, int to, long[] dst, int at) {
        if (valid.nulls == 0) {
            return to - from;
        }
        int k = at;
        for (int r = from; r < to; r++) {
            if (valid.valid(r)) {
                dst[k++] = dst[at + r - from];
            }
        }
        return k - at;
    }

    // ---- INT32, INT64, FLOAT, DOUBLE ----

    private static final class FixedWidthWriter extends FlatColumnWriter {
        private enum Order { SIGNED, UNSIGNED, FLOAT, DOUBLE }

        private final int width;
        private final Order order;
        private final Source.Fixed source;
        private final int dictionaryLimit;
        private long[] values = new long[4096];
        private int count;
        /** The dictionary while pages use it; null once given up (or never tried). */
        private LongDictionary dictionary;
        private int[] ids = new int[0];
        /** The dictionary that written pages use, kept for the dictionary page after a fallback. */
        private LongDictionary used;
        private boolean firstPage = true;
        private final PageBytes idBytes = new PageBytes(1024);

        FixedWidthWriter(ColumnDescriptor column, PageWriter pages, int pageBytes, int pageRows, int dictionaryLimit,
                         Source.Fixed source) {
            super(column, pages, pageBytes, pageRows);
            PrimitiveType.PrimitiveTypeName p = type.getPrimitiveTypeName();
            this.width = p == PrimitiveType.PrimitiveTypeName.INT64 || p == PrimitiveType.PrimitiveTypeName.DOUBLE ? 8 : 4;
            this.order = switch (p) {
                case FLOAT -> Order.FLOAT;
                case DOUBLE -> Order.DOUBLE;
                default -> type.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
                        && !i.isSigned() ? Order.UNSIGNED : Order.SIGNED;
            };
            this.source = source;
            this.dictionaryLimit = dictionaryLimit;
            if (dictionaryLimit >= 0) {
                dictionary = new LongDictionary();
            }
        }

        @Override
        void hashValues(BloomHashes out) {
            BlockSplitBloomFilter h = BloomHashes.hasher();
            for (int i = 0; i < count; i++) {
                out.add(width == 8 ? h.hash(values[i]) : h.hash((int) values[i]));
            }
        }

        @Override
        void append(FieldVector v, int from, int to) {
            if (values.length < count + (to - from)) {
                values = Arrays.copyOf(values, Math.max(count + (to - from), 2 * values.length));
            }
            int n = source.read(v, from, to, validity, values, count);
            if (dictionary != null) {
                if (ids.length < values.length) {
                    ids = Arrays.copyOf(ids, values.length);
                }
                for (int i = count; i < count + n; i++) {
                    ids[i] = dictionary.id(values[i]);
                    if ((long) dictionary.size() * width > dictionaryLimit) {
                        dictionary = null; // the open page goes plain, from the values kept beside the ids
                        break;
                    }
                }
            }
            count += n;
        }

        @Override
        long pageBuffered() {
            return (long) count * (dictionary != null ? 4 : width);
        }

        @Override
        long arrayBytes() {
            return 8L * values.length + 4L * ids.length + idBytes.buf.length + (dictionary != null ? dictionary.heapBytes() : 0)
                    + (used != null && used != dictionary ? used.heapBytes() : 0);
        }

        @Override
        Encoding values(PageBytes out) {
            if (dictionary != null) {
                int bits = PageBytes.bitWidth(dictionary.size());
                idBytes.reset();
                idBytes.write(bits);
                idBytes.hybrid(ids, count, bits);
                // parquet-java's test of the first page: the dictionary must pay for itself against plain values
                if (!firstPage || idBytes.size + (long) dictionary.size() * width < (long) count * width) {
                    out.write(idBytes.buf, 0, idBytes.size);
                    used = dictionary;
                    return Encoding.PLAIN_DICTIONARY;
                }
                dictionary = null;
            }
            out.ensure(count * width);
            byte[] b = out.buf;
            int p = out.size;
            if (width == 8) {
                for (int i = 0; i < count; i++, p += 8) {
                    PageBytes.LONGS.set(b, p, values[i]);
                }
            } else {
                for (int i = 0; i < count; i++, p += 4) {
                    PageBytes.INTS.set(b, p, (int) values[i]);
                }
            }
            out.size = p;
            return Encoding.PLAIN;
        }

        @Override
        @SuppressWarnings("unchecked")
        void statistics(Statistics<?> stats) {
            if (count == 0) {
                return;
            }
            switch (order) {
                case SIGNED, UNSIGNED -> {
                    long min = values[0];
                    long max = min;
                    for (int i = 1; i < count; i++) {
                        long x = values[i];
                        min = Math.min(min, x);
                        max = Math.max(max, x);
                    }
                    if (width == 8 && order == Order.UNSIGNED) {
                        min = values[0];
                        max = min;
                        for (int i = 1; i < count; i++) {
                            long x = values[i];
                            min = Long.compareUnsigned(x, min) < 0 ? x : min;
                            max = Long.compareUnsigned(x, max) > 0 ? x : max;
                        }
                    }
                    if (width == 8) {
                        ((Statistics<Long>) stats).updateStats(min);
                        ((Statistics<Long>) stats).updateStats(max);
                    } else {
                        ((Statistics<Integer>) stats).updateStats((int) min);
                        ((Statistics<Integer>) stats).updateStats((int) max);
                    }
                }
                case DOUBLE -> {
                    long nans = 0;
                    double min = Double.NaN;
                    double max = Double.NaN;
                    for (int i = 0; i < count; i++) {
                        double x = Double.longBitsToDouble(values[i]);
                        if (x != x) {
                            nans++;
                        } else if (min != min) {
                            min = x;
                            max = x;
                        } else {
                            min = Double.compare(x, min) < 0 ? x : min;
                            max = Double.compare(x, max) > 0 ? x : max;
                        }
                    }
                    if (min == min) {
                        ((Statistics<Double>) stats).updateStats(min);
                        ((Statistics<Double>) stats).updateStats(max);
                    }
                    stats.incrementNanCount(nans);
                }
                case FLOAT -> {
                    long nans = 0;
                    float min = Float.NaN;
                    float max = Float.NaN;
                    for (int i = 0; i < count; i++) {
                        float x = Float.intBitsToFloat((int) values[i]);
                        if (x != x) {
                            nans++;
                        } else if (min != min) {
                            min = x;
                            max = x;
                        } else {
                            min = Float.compare(x, min) < 0 ? x : min;
                            max = Float.compare(x, max) > 0 ? x : max;
                        }
                    }
                    if (min == min) {
                        ((Statistics<Float>) stats).updateStats(min);
                        ((Statistics<Float>) stats).updateStats(max);
                    }
                    stats.incrementNanCount(nans);
                }
            }
        }

        @Override
        void pageWritten() {
            count = 0;
            firstPage = false;
        }

        @Override
        DictionaryPage dictionaryPage() {
            if (used == null) {
                return null;
            }
            LongDictionary d = used;
            PageBytes bytes = new PageBytes(d.size() * width);
            for (int i = 0; i < d.size(); i++) {
                if (width == 8) {
                    bytes.writeLong(d.value(i));
                } else {
                    bytes.writeInt((int) d.value(i));
                }
            }
            return new DictionaryPage(BytesInput.from(bytes.buf, 0, bytes.size), d.size(), Encoding.PLAIN_DICTIONARY);
        }

    }

    // ---- BINARY ----

    private static final class BinaryWriter extends FlatColumnWriter {
        private final int dictionaryLimit;
        private final PageBytes plain = new PageBytes(1 << 16);
        private int count;
        private long unencoded;
        private BinaryDictionary dictionary;
        private BinaryDictionary used;
        private int[] ids = new int[4096];
        private boolean firstPage = true;
        private final PageBytes idBytes = new PageBytes(1024);
        private byte[] data = new byte[1 << 16];
        private long[] offsets = new long[4097];
        private int[] intOffsets = new int[0];
        private int[] seen = new int[0];
        private int pageNumber;

        BinaryWriter(ColumnDescriptor column, PageWriter pages, int pageBytes, int pageRows, int dictionaryLimit) {
            super(column, pages, pageBytes, pageRows);
            this.dictionaryLimit = dictionaryLimit;
            if (dictionaryLimit >= 0) {
                dictionary = new BinaryDictionary();
            }
        }

        /** Copies the offsets and the data bytes of rows {@code [from, to)} out of Arrow at once; returns the data's first offset. */
        private long load(FieldVector v, int from, int to) {
            int n = to - from;
            if (offsets.length < n + 1) {
                offsets = new long[Math.max(n + 1, 2 * offsets.length)];
            }
            ArrowBuf off = v.getOffsetBuffer();
            if (v instanceof BaseVariableWidthVector) {
                // one bulk copy through an NIO view, then widened: not an ArrowBuf get (bounds and reference checks) per row
                if (intOffsets.length < n + 1) {
                    intOffsets = new int[offsets.length];
                }
                off.nioBuffer(4L * from, 4 * (n + 1)).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(intOffsets, 0, n + 1);
                for (int i = 0; i <= n; i++) {
                    offsets[i] = intOffsets[i];
                }
            } else {
                off.nioBuffer(8L * from, 8 * (n + 1)).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(offsets, 0, n + 1);
            }
            long start = offsets[0];
            int bytes = Math.toIntExact(offsets[n] - start);
            if (data.length < bytes) {
                data = new byte[Math.max(bytes, 2 * data.length)];
            }
            v.getDataBuffer().getBytes(start, data, 0, bytes);
            return start;
        }

        @Override
        void hashValues(BloomHashes out) {
            BlockSplitBloomFilter h = BloomHashes.hasher();
            if (dictionary != null) {
                for (int i = 0; i < count; i++) {
                    int id = ids[i];
                    out.add(h.hash(Binary.fromConstantByteArray(dictionary.arena.buf, dictionary.start(id), dictionary.length(id))));
                }
                return;
            }
            int p = 0;
            for (int i = 0; i < count; i++) {
                int length = (int) PageBytes.INTS.get(plain.buf, p);
                out.add(h.hash(Binary.fromConstantByteArray(plain.buf, p + 4, length)));
                p += 4 + length;
            }
        }

        @Override
        void append(FieldVector v, int from, int to) {
            long start = load(v, from, to);
            int n = to - from;
            if (ids.length < count + n) {
                ids = Arrays.copyOf(ids, Math.max(count + n, 2 * ids.length));
            }
            for (int i = 0; i < n; i++) {
                if (!validity.valid(from + i)) {
                    continue;
                }
                int s = (int) (offsets[i] - start);
                int length = (int) (offsets[i + 1] - offsets[i]);
                unencoded += length;
                if (dictionary != null) {
                    ids[count++] = dictionary.id(data, s, length);
                    if (dictionary.bytes() > dictionaryLimit) {
                        giveUp();
                    }
                } else {
                    plain.ensure(4 + length);
                    PageBytes.INTS.set(plain.buf, plain.size, length);
                    System.arraycopy(data, s, plain.buf, plain.size + 4, length);
                    plain.size += 4 + length;
                    count++;
                }
            }
        }

        /** Leaves the dictionary for plain: the open page's values are rewritten plain, earlier pages keep theirs. */
        private void giveUp() {
            plain.reset();
            for (int i = 0; i < count; i++) {
                plain.writeInt(dictionary.length(ids[i]));
                plain.write(dictionary.arena.buf, dictionary.start(ids[i]), dictionary.length(ids[i]));
            }
            dictionary = null;
        }

        @Override
        long pageBuffered() {
            return dictionary != null ? 4L * count : plain.size;
        }

        @Override
        long arrayBytes() {
            return plain.buf.length + 4L * ids.length + idBytes.buf.length + data.length + 8L * offsets.length + 4L * intOffsets.length
                    + 4L * seen.length
                    + (dictionary != null ? dictionary.heapBytes() : 0) + (used != null && used != dictionary ? used.heapBytes() : 0);
        }

        @Override
        Encoding values(PageBytes out) {
            if (dictionary != null) {
                int bits = PageBytes.bitWidth(dictionary.size());
                idBytes.reset();
                idBytes.write(bits);
                idBytes.hybrid(ids, count, bits);
                if (!firstPage || idBytes.size + dictionary.bytes() < unencoded + 4L * count) {
                    out.write(idBytes.buf, 0, idBytes.size);
                    used = dictionary;
                    return Encoding.PLAIN_DICTIONARY;
                }
                giveUp();
            }
            out.write(plain.buf, 0, plain.size);
            return Encoding.PLAIN;
        }

        @Override
        void statistics(Statistics<?> stats) {
            if (count == 0) {
                return;
            }
            byte[] b;
            int minAt;
            int minLength;
            int maxAt;
            int maxLength;
            if (dictionary != null) {
                // the extremes among the page's distinct ids
                pageNumber++;
                if (seen.length < dictionary.size()) {
                    seen = Arrays.copyOf(seen, Math.max(dictionary.size(), 2 * seen.length));
                }
                b = dictionary.arena.buf;
                int first = ids[0];
                minAt = maxAt = dictionary.start(first);
                minLength = maxLength = dictionary.length(first);
                for (int i = 0; i < count; i++) {
                    int id = ids[i];
                    if (seen[id] == pageNumber) {
                        continue;
                    }
                    seen[id] = pageNumber;
                    int s = dictionary.start(id);
                    int length = dictionary.length(id);
                    if (Arrays.compareUnsigned(b, s, s + length, b, minAt, minAt + minLength) < 0) {
                        minAt = s;
                        minLength = length;
                    }
                    if (Arrays.compareUnsigned(b, s, s + length, b, maxAt, maxAt + maxLength) > 0) {
                        maxAt = s;
                        maxLength = length;
                    }
                }
            } else {
                b = plain.buf;
                minAt = maxAt = 4;
                minLength = maxLength = (int) PageBytes.INTS.get(b, 0);
                // Each value's first 8 bytes as an unsigned big-endian long (zero-padded) decide most comparisons: a
                // smaller prefix is a smaller value; only equal prefixes compare the whole values.
                long minKey = prefix(b, minAt, minLength);
                long maxKey = minKey;
                int p = 0;
                for (int i = 0; i < count; i++) {
                    int length = (int) PageBytes.INTS.get(b, p);
                    int s = p + 4;
                    long key = prefix(b, s, length);
                    int low = Long.compareUnsigned(key, minKey);
                    if (low < 0 || low == 0 && Arrays.compareUnsigned(b, s, s + length, b, minAt, minAt + minLength) < 0) {
                        minAt = s;
                        minLength = length;
                        minKey = key;
                    } else {
                        int high = Long.compareUnsigned(key, maxKey);
                        if (high > 0 || high == 0 && Arrays.compareUnsigned(b, s, s + length, b, maxAt, maxAt + maxLength) > 0) {
                            maxAt = s;
                            maxLength = length;
                            maxKey = key;
                        }
                    }
                    p = s + length;
                }
            }
            @SuppressWarnings("unchecked")
            Statistics<Binary> s = (Statistics<Binary>) stats;
            s.updateStats(Binary.fromConstantByteArray(Arrays.copyOfRange(b, minAt, minAt + minLength)));
            s.updateStats(Binary.fromConstantByteArray(Arrays.copyOfRange(b, maxAt, maxAt + maxLength)));
        }

        /** The first 8 bytes of {@code b[at, at + length)}, big-endian, zero-padded past the value's end, as an unsigned key. */
        private static long prefix(byte[] b, int at, int length) {
            if (length >= 8) {
                return (long) BIG_LONGS.get(b, at);
            }
            if (length == 0) {
                return 0;
            }
            if (at + 8 <= b.length) {
                return (long) BIG_LONGS.get(b, at) & (-1L << (8 * (8 - length)));
            }
            long key = 0;
            for (int i = 0; i < length; i++) {
                key |= (b[at + i] & 0xFFL) << (8 * (7 - i));
            }
            return key;
        }

        @Override
        long unencodedBytes() {
            return unencoded;
        }

        @Override
        void pageWritten() {
            count = 0;
            unencoded = 0;
            plain.reset();
            firstPage = false;
        }

        @Override
        DictionaryPage dictionaryPage() {
            if (used == null) {
                return null;
            }
            return new DictionaryPage(BytesInput.from(used.arena.buf, 0, used.arena.size), used.size(), Encoding.PLAIN_DICTIONARY);
        }
    }

    // ---- BOOLEAN ----

    private static final class BooleanWriter extends FlatColumnWriter {
        private long[] bits = new long[64];
        private int count;
        private boolean anyTrue;
        private boolean anyFalse;

        BooleanWriter(ColumnDescriptor column, PageWriter pages, int pageBytes, int pageRows) {
            super(column, pages, pageBytes, pageRows);
        }

        @Override
        void hashValues(BloomHashes out) {
            // the write refuses bloom filters on boolean columns: two values, which statistics already tell apart
        }

        @Override
        void append(FieldVector v, int from, int to) {
            BitVector x = (BitVector) v;
            if (bits.length * 64L < count + (to - from)) {
                bits = Arrays.copyOf(bits, Math.max((count + (to - from)) / 64 + 1, 2 * bits.length));
            }
            for (int r = from; r < to; r++) {
                if (!validity.valid(r)) {
                    continue;
                }
                if (x.get(r) != 0) {
                    bits[count >>> 6] |= 1L << count;
                    anyTrue = true;
                } else {
                    bits[count >>> 6] &= ~(1L << count);
                    anyFalse = true;
                }
                count++;
            }
        }

        @Override
        long pageBuffered() {
            return (count + 7) / 8;
        }

        @Override
        long arrayBytes() {
            return 8L * bits.length;
        }

        @Override
        Encoding values(PageBytes out) {
            int bytes = (count + 7) / 8;
            out.ensure(bytes);
            for (int i = 0; i < bytes; i++) {
                out.buf[out.size + i] = (byte) (bits[i >>> 3] >>> (8 * (i & 7)));
            }
            if (count % 8 != 0) {
                out.buf[out.size + bytes - 1] &= (byte) ((1 << (count % 8)) - 1); // zero padding, not an earlier page's bits
            }
            out.size += bytes;
            return Encoding.PLAIN;
        }

        @Override
        @SuppressWarnings("unchecked")
        void statistics(Statistics<?> stats) {
            if (anyFalse) {
                ((Statistics<Boolean>) stats).updateStats(false);
            }
            if (anyTrue) {
                ((Statistics<Boolean>) stats).updateStats(true);
            }
        }

        @Override
        void pageWritten() {
            count = 0;
            anyTrue = false;
            anyFalse = false;
        }
    }

    // ---- FIXED_LEN_BYTE_ARRAY, INT96: plain, as parquet-java's v1 writer has them, a value at a time ----

    private static final class FixedLengthWriter extends FlatColumnWriter {
        private final Source.Bytes source;
        private final int width;
        private final PageBytes plain = new PageBytes(1 << 12);
        private int count;

        FixedLengthWriter(ColumnDescriptor column, PageWriter pages, int pageBytes, int pageRows, Source.Bytes source) {
            super(column, pages, pageBytes, pageRows);
            this.source = source;
            this.width = type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96 ? 12 : type.getTypeLength();
        }

        @Override
        void hashValues(BloomHashes out) {
            BlockSplitBloomFilter h = BloomHashes.hasher();
            for (int i = 0; i < count; i++) {
                out.add(h.hash(Binary.fromConstantByteArray(plain.buf, i * width, width)));
            }
        }

        @Override
        void append(FieldVector v, int from, int to) {
            for (int r = from; r < to; r++) {
                if (validity.valid(r)) {
                    byte[] b = source.get(v, r);
                    plain.write(b, 0, width);
                    count++;
                }
            }
        }

        @Override
        long pageBuffered() {
            return plain.size;
        }

        @Override
        long arrayBytes() {
            return plain.buf.length;
        }

        @Override
        Encoding values(PageBytes out) {
            out.write(plain.buf, 0, plain.size);
            return Encoding.PLAIN;
        }

        @Override
        @SuppressWarnings("unchecked")
        void statistics(Statistics<?> stats) {
            // the type's own comparator (signed for decimals), value by value: these columns are rare
            for (int i = 0; i < count; i++) {
                ((Statistics<Binary>) stats).updateStats(Binary.fromReusedByteArray(plain.buf, i * width, width));
            }
        }

        @Override
        void pageWritten() {
            count = 0;
            plain.reset();
        }
    }

    // ---- dictionaries ----

    /** An insertion-ordered set of 64-bit values, each with its id (its index). */
    static final class LongDictionary {
        private long[] values = new long[256];
        private int[] slots = new int[512]; // id + 1, 0 for empty
        private int size;

        int id(long value) {
            int mask = slots.length - 1;
            int h = mix(value) & mask;
            while (true) {
                int s = slots[h];
                if (s == 0) {
                    if (size == values.length) {
                        values = Arrays.copyOf(values, 2 * size);
                    }
                    values[size] = value;
                    slots[h] = ++size;
                    if (2 * size > slots.length) {
                        rehash();
                    }
                    return size - 1;
                }
                if (values[s - 1] == value) {
                    return s - 1;
                }
                h = (h + 1) & mask;
            }
        }

        private void rehash() {
            slots = new int[2 * slots.length];
            int mask = slots.length - 1;
            for (int i = 0; i < size; i++) {
                int h = mix(values[i]) & mask;
                while (slots[h] != 0) {
                    h = (h + 1) & mask;
                }
                slots[h] = i + 1;
            }
        }

        private static int mix(long v) {
            long h = v * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 29) ^ (h >>> 47));
        }

        int size() {
            return size;
        }

        /** The capacity of its arrays in bytes. */
        long heapBytes() {
            return 8L * values.length + 4L * slots.length;
        }

        long value(int id) {
            return values[id];
        }
    }

    /** An insertion-ordered set of byte strings, held as the PLAIN bytes of a dictionary page. */
    static final class BinaryDictionary {
        final PageBytes arena = new PageBytes(1 << 12);
        private int[] starts = new int[256];
        private int[] hashes = new int[256];
        private int[] slots = new int[512];
        private int size;

        int id(byte[] b, int from, int length) {
            if (length <= 8) {
                return shortId(b, from, length);
            }
            int hash = hash(b, from, length);
            int mask = slots.length - 1;
            int h = hash & mask;
            while (true) {
                int s = slots[h];
                if (s == 0) {
                    return add(b, from, length, hash, h);
                }
                int id = s - 1;
                if (hashes[id] == hash && length(id) == length
                        && Arrays.equals(arena.buf, starts[id], starts[id] + length, b, from, from + length)) {
                    return id;
                }
                h = (h + 1) & mask;
            }
        }

        /**
         * {@link #id} of a value of at most 8 bytes (codes, flags, short names): its bytes in one long are its hash's input
         * and compared with the stored value's bytes read as one long, with no loop over bytes.
         */
        private int shortId(byte[] b, int from, int length) {
            long mask = length == 8 ? -1L : (1L << (8 * length)) - 1;
            long key;
            if (from + 8 <= b.length) {
                key = (long) PageBytes.LONGS.get(b, from) & mask;
            } else {
                key = 0;
                for (int i = 0; i < length; i++) {
                    key |= (b[from + i] & 0xFFL) << (8 * i);
                }
            }
            long m = (key ^ length) * 0x9E3779B97F4A7C15L;
            int hash = (int) (m ^ (m >>> 29) ^ (m >>> 47));
            int slotMask = slots.length - 1;
            int h = hash & slotMask;
            while (true) {
                int s = slots[h];
                if (s == 0) {
                    return add(b, from, length, hash, h);
                }
                int id = s - 1;
                // the arena keeps 8 bytes past every value's start (see add), so the read stays inside it
                if (hashes[id] == hash && length(id) == length && ((long) PageBytes.LONGS.get(arena.buf, starts[id]) & mask) == key) {
                    return id;
                }
                h = (h + 1) & slotMask;
            }
        }

        /** Adds a value not in the dictionary at the free slot {@code h}; returns its id. */
        private int add(byte[] b, int from, int length, int hash, int h) {
            if (size == starts.length) {
                starts = Arrays.copyOf(starts, 2 * size);
                hashes = Arrays.copyOf(hashes, 2 * size);
            }
            arena.ensure(4 + Math.max(length, 8)); // at least 8 bytes from the value's start: shortId reads them as one long
            arena.writeInt(length);
            starts[size] = arena.size;
            hashes[size] = hash;
            arena.write(b, from, length);
            slots[h] = ++size;
            if (2 * size > slots.length) {
                rehash();
            }
            return size - 1;
        }

        private void rehash() {
            slots = new int[2 * slots.length];
            int mask = slots.length - 1;
            for (int i = 0; i < size; i++) {
                int h = hashes[i] & mask;
                while (slots[h] != 0) {
                    h = (h + 1) & mask;
                }
                slots[h] = i + 1;
            }
        }

        private static int hash(byte[] b, int from, int length) {
            long h = length * 0x9E3779B97F4A7C15L;
            int i = 0;
            for (; i + 8 <= length; i += 8) {
                h = (h ^ (long) PageBytes.LONGS.get(b, from + i)) * 0xC2B2AE3D27D4EB4FL;
                h ^= h >>> 31;
            }
            for (; i < length; i++) {
                h = (h ^ b[from + i]) * 0x100000001B3L;
            }
            h *= 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32));
        }

        int size() {
            return size;
        }

        /** The dictionary page's size so far, as parquet-java counts it (4 + length per value). */
        long bytes() {
            return arena.size;
        }

        /** The capacity of its arrays in bytes. */
        long heapBytes() {
            return arena.buf.length + 4L * (starts.length + hashes.length + slots.length);
        }

        int start(int id) {
            return starts[id];
        }

        int length(int id) {
            return (int) PageBytes.INTS.get(arena.buf, starts[id] - 4);
        }
    }
}
