package io.wrangler.read;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.io.ParquetDecodingException;

/**
 * A DirectColumn decodes the data pages of one flat column chunk (a primitive, not repeated, column of one row group)
 * straight into the buffers of its Arrow vector: definition levels run by run into the validity bitmap, PLAIN
 * fixed-width values copied in bulk for each run of non-null slots, byte arrays into the offsets and data buffers,
 * dictionary ids gathered from the chunk's dictionary decoded once.
 *
 * <p>It takes only chunks whose encodings it knows ({@link DirectKind#of}): PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY values
 * (RLE values for booleans), RLE or BIT_PACKED levels, data pages V1 and V2, and the types whose Arrow layout is the
 * Parquet value's (or a narrowing of an INT32). It gives exactly the values of the converter path
 * ({@link ParquetArrow#converter}). State is kept across batches: a batch may end inside a page and a page inside a
 * batch. It holds one page and the chunk's dictionary at a time, and is done with a data page's bytes when it asks for
 * the next page, so its pages may reuse one array ({@link RowGroupPages#recyclingPageReader}).
 */
final class DirectColumn {
    /** Byte arrays of a run, whose lengths are read in a first pass: few enough for their bytes to stay in the cache. */
    private static final int RUN = 1024;
    /** Bytes a short value is copied as, past its end where there is room: see {@link #putValue}. */
    private static final int SLACK = 16;
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** What pages a column's chunks had, for tests: bits of a mask. */
    static final int V1 = 1;
    static final int V2 = 2;
    /** Values as such: PLAIN, or RLE booleans. */
    static final int PLAIN = 4;
    static final int DICTIONARY = 8;
    /** A chunk whose pages were both dictionary ids and plain values (parquet-java's fallback once a dictionary is full). */
    static final int MIXED = 16;

    private final DirectKind kind;
    private final PageReader pages;
    private final FieldVector vector;
    private final String name;
    private final boolean nullable;
    /** Pages seen in this chunk: bits {@link #V1} to {@link #MIXED}. */
    private int seen;

    // the chunk's dictionary: values by id
    private int[] dictInts;
    private long[] dictLongs;
    private byte[] dictBytes;
    private int[] dictStarts;
    private int[] dictLengths;
    private int dictSize;

    // the page being decoded
    private int pageLeft;
    private byte[] page;
    private int pos;
    private int end;
    /** Definition levels of the page; null when the column is required (every slot defined). */
    private Hybrid levels;
    /** Dictionary ids (or RLE booleans) of the page; null when its values are PLAIN. */
    private Hybrid ids;
    /** The next bit of a PLAIN boolean page. */
    private long bit;
    private int[] idBuffer = new int[0];
    /** The lengths of a run of PLAIN byte arrays. */
    private int[] sizeBuffer = new int[0];

    // the batch being filled
    private ArrowBuf validity;
    private ArrowBuf data;
    private ArrowBuf offsets;
    /** Bytes of variable-width data written in this batch. */
    private int dataEnd;
    /** The first slot whose end offset is not written yet. */
    private int offsetsDone;

    DirectColumn(DirectKind kind, ColumnDescriptor column, PageReader pages, FieldVector vector) {
        this(kind, column, pages, vector, vector.getName());
    }

    /**
     * A decoder that fills no vector: its values are handed over where they lie ({@link #scan}), for the kinds
     * {@link DirectKind#BINARY}, {@link DirectKind#FIXED4} and {@link DirectKind#FIXED8}.
     */
    DirectColumn(DirectKind kind, ColumnDescriptor column, PageReader pages, String name) {
        this(kind, column, pages, null, name);
    }

    private DirectColumn(DirectKind kind, ColumnDescriptor column, PageReader pages, FieldVector vector, String name) {
        this.kind = kind;
        this.pages = pages;
        this.vector = vector;
        this.name = name;
        this.nullable = column.getMaxDefinitionLevel() > 0;
        DictionaryPage d = pages.readDictionaryPage();
        if (d != null) {
            dictionary(d);
        }
    }

    /** Pages seen so far in this chunk: bits {@link #V1} to {@link #MIXED}. */
    int seen() {
        return (seen & (PLAIN | DICTIONARY)) == (PLAIN | DICTIONARY) ? seen | MIXED : seen;
    }

    /** Decodes the chunk's dictionary into arrays indexed by id. */
    private void dictionary(DictionaryPage d) {
        if (d.getEncoding() != Encoding.PLAIN && d.getEncoding() != Encoding.PLAIN_DICTIONARY) {
            throw new ParquetDecodingException("the dictionary of the column " + name + " is encoded " + d.getEncoding()
                    + ", not PLAIN");
        }
        Slice s = slice(d.getBytes());
        int n = d.getDictionarySize();
        dictSize = n;
        byte[] b = s.bytes;
        int p = s.from;
        switch (kind) {
            case FIXED4, BYTE, SHORT -> {
                need(s, p, 4L * n);
                dictInts = new int[n];
                ByteBuffer.wrap(b, p, 4 * n).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(dictInts);
                if (vector == null) {
                    fixedDictionary(b, p, 4, n);
                }
            }
            case FIXED8 -> {
                need(s, p, 8L * n);
                dictLongs = new long[n];
                ByteBuffer.wrap(b, p, 8 * n).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(dictLongs);
                if (vector == null) {
                    fixedDictionary(b, p, 8, n);
                }
            }
            case BINARY -> {
                dictBytes = b;
                dictStarts = new int[n];
                dictLengths = new int[n];
                for (int i = 0; i < n; i++) {
                    need(s, p, 4);
                    int len = intAt(b, p);
                    need(s, p + 4, len);
                    dictStarts[i] = p + 4;
                    dictLengths[i] = len;
                    p += 4 + len;
                }
            }
            case BOOLEAN -> throw new ParquetDecodingException("the boolean column " + name + " has a dictionary, which Parquet "
                    + "does not define for booleans");
        }
    }

    /** The dictionary of fixed-width values as byte ranges, for {@link #scan}: {@code n} values of {@code width} bytes at {@code p}. */
    private void fixedDictionary(byte[] b, int p, int width, int n) {
        dictBytes = b;
        dictStarts = new int[n];
        dictLengths = new int[n];
        for (int i = 0; i < n; i++) {
            dictStarts[i] = p + width * i;
            dictLengths[i] = width;
        }
    }

    /** A byte range: the array of a page and where its bytes are. */
    private record Slice(byte[] bytes, int from, int to) {
    }

    private static Slice slice(BytesInput in) {
        try {
            ByteBuffer b = in.toByteBuffer();
            if (b.hasArray()) {
                return new Slice(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
            }
            byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            return new Slice(copy, 0, copy.length);
        } catch (IOException e) {
            throw new ParquetDecodingException("could not read a page: " + e, e);
        }
    }

    private void need(Slice s, int p, long bytes) {
        if (bytes < 0 || p + bytes > s.to) {
            throw new ParquetDecodingException("a page of the column " + name + " ends before its values do");
        }
    }

    /** The little-endian int at {@code p}, as one load (the caller has checked that its four bytes are in the page). */
    private static int intAt(byte[] b, int p) {
        return (int) INT_LE.get(b, p);
    }

    /** Moves to the next data page of the chunk, its levels and values ready. */
    private void nextPage() {
        DataPage p = pages.readPage();
        if (p == null) {
            throw new ParquetDecodingException("the column chunk of " + name + " ends before the rows of its row group");
        }
        pageLeft = p.getValueCount();
        startValues(p instanceof DataPageV1 v1 ? startV1(v1) : startV2((DataPageV2) p));
    }

    /** Takes a data page V1: its definition levels, then its values from {@link #pos} to {@link #end}; their encoding. */
    private Encoding startV1(DataPageV1 v1) {
        seen |= V1;
        Slice s = slice(v1.getBytes());
        int at = s.from;
        levels = null;
        if (nullable) {
            if (v1.getDlEncoding() == Encoding.RLE) {
                need(s, at, 4);
                int len = intAt(s.bytes, at);
                need(s, at + 4, len);
                levels = new Hybrid(s.bytes, at + 4, at + 4 + len, 1);
                at += 4 + len;
            } else if (v1.getDlEncoding() == Encoding.BIT_PACKED) {
                int len = (pageLeft + 7) / 8;
                need(s, at, len);
                levels = Hybrid.legacy(s.bytes, at, at + len);
                at += len;
            } else {
                throw new ParquetDecodingException("the definition levels of the column " + name + " are encoded "
                        + v1.getDlEncoding() + ", not RLE or BIT_PACKED");
            }
        }
        page = s.bytes;
        pos = at;
        end = s.to;
        return v1.getValueEncoding();
    }

    /** Takes a data page V2: its definition levels, then its values from {@link #pos} to {@link #end}; their encoding. */
    private Encoding startV2(DataPageV2 v2) {
        seen |= V2;
        levels = null;
        if (nullable) {
            Slice l = slice(v2.getDefinitionLevels());
            levels = new Hybrid(l.bytes, l.from, l.to, 1);
        }
        if (v2.isCompressed()) {
            throw new ParquetDecodingException("a data page V2 of the column " + name + " was handed over compressed");
        }
        Slice s = slice(v2.getData());
        page = s.bytes;
        pos = s.from;
        end = s.to;
        return v2.getDataEncoding();
    }

    /** Readies the page's values, from {@link #pos} to {@link #end}, encoded {@code values}. */
    private void startValues(Encoding values) {
        Slice s = new Slice(page, pos, end);
        ids = null;
        bit = 0;
        if (values == Encoding.PLAIN) {
            seen |= PLAIN;
        } else if (values == Encoding.PLAIN_DICTIONARY || values == Encoding.RLE_DICTIONARY) {
            seen |= DICTIONARY;
            if (kind == DirectKind.BOOLEAN || (dictInts == null && dictLongs == null && dictStarts == null)) {
                throw new ParquetDecodingException("a page of the column " + name + " holds dictionary ids but its chunk has no dictionary");
            }
            need(s, pos, 1);
            int width = page[pos];
            if (width < 0 || width > 32) {
                throw new ParquetDecodingException("a page of the column " + name + " has dictionary ids of " + width + " bits");
            }
            ids = new Hybrid(page, pos + 1, end, width);
        } else if (values == Encoding.RLE && kind == DirectKind.BOOLEAN) {
            seen |= PLAIN;
            need(s, pos, 4);
            int len = intAt(page, pos);
            need(s, pos + 4, len);
            ids = new Hybrid(page, pos + 4, pos + 4 + len, 1);
        } else {
            throw new ParquetDecodingException("a page of the column " + name + " is encoded " + values + ", which its chunk's "
                    + "encodings did not list");
        }
    }

    /** Decodes the next {@code n} rows of the chunk into slots 0 to n - 1 of the vector (allocated, empty). */
    void read(int n) {
        prepare(n);
        int at = 0;
        while (at < n) {
            if (pageLeft == 0) {
                nextPage();
                continue;
            }
            int take = Math.min(n - at, pageLeft);
            if (levels == null) {
                values(at, take);
            } else {
                int stop = at + take;
                int i = at;
                while (i < stop) {
                    int len = levels.run(stop - i);
                    if (levels.value == 1) {
                        values(i, len);
                    } else if (levels.value != 0) {
                        throw new ParquetDecodingException("the column " + name + " has the definition level " + levels.value
                                + ", above its maximum 1");
                    }
                    i += len;
                }
            }
            at += take;
            pageLeft -= take;
        }
        finish(n);
    }

    /** Whether the chunk's dictionary was handed to the sink of {@link #scan}. */
    private boolean dictionaryHanded;
    /** The starts of a run's values for {@link #scan} (their lengths: {@link #sizeBuffer}). */
    private int[] startBuffer = new int[0];

    /**
     * Hands the next {@code n} rows' values to {@code sink} where they lie in the decompressed pages, the first of them
     * row {@code first}: the chunk's dictionary once, before its first ids; then, in row order, each run of at most
     * {@link #RUN} defined values as their byte ranges (PLAIN) or as dictionary ids, checked as {@link #read} checks them
     * (every length within its page, every id within the dictionary). Null rows are skipped: no value is handed for them.
     * The ranges and ids are valid only during the call. For a decoder made without a vector.
     */
    void scan(int n, long first, ColumnValues.Sink sink) {
        if (!dictionaryHanded && dictStarts != null) {
            dictionaryHanded = true;
            sink.dictionary(dictBytes, dictStarts, dictLengths, dictSize);
        }
        int at = 0;
        while (at < n) {
            if (pageLeft == 0) {
                nextPage();
                continue;
            }
            int take = Math.min(n - at, pageLeft);
            if (levels == null) {
                scanValues(first + at, take, sink);
            } else {
                int stop = at + take;
                int i = at;
                while (i < stop) {
                    int len = levels.run(stop - i);
                    if (levels.value == 1) {
                        scanValues(first + i, len, sink);
                    } else if (levels.value != 0) {
                        throw new ParquetDecodingException("the column " + name + " has the definition level " + levels.value
                                + ", above its maximum 1");
                    }
                    i += len;
                }
            }
            at += take;
            pageLeft -= take;
        }
    }

    /** {@link #scan}'s {@code len} defined values of the page, the first of them row {@code row}, run by run. */
    private void scanValues(long row, int len, ColumnValues.Sink sink) {
        for (int done = 0; done < len; done += RUN) {
            int m = Math.min(RUN, len - done);
            if (ids != null) {
                int[] v = ids(m);
                ids.read(v, m);
                for (int i = 0; i < m; i++) {
                    if (v[i] < 0 || v[i] >= dictSize) {
                        throw new ParquetDecodingException("a page of the column " + name + " holds the dictionary id " + v[i]
                                + ", past its dictionary of " + dictSize);
                    }
                }
                sink.ids(row + done, m, v);
                continue;
            }
            if (startBuffer.length < m || sizeBuffer.length < m) {
                startBuffer = new int[Math.max(m, RUN)];
                sizeBuffer = new int[Math.max(m, RUN)];
            }
            int[] starts = startBuffer;
            int[] sizes = sizeBuffer;
            switch (kind) {
                case BINARY -> {
                    int p = pos;
                    for (int i = 0; i < m; i++) {
                        int size = lengthAt(p);
                        starts[i] = p + 4;
                        sizes[i] = size;
                        p += 4 + size;
                    }
                    pos = p;
                }
                case FIXED4, FIXED8 -> {
                    int width = kind == DirectKind.FIXED4 ? 4 : 8;
                    checkPlain((long) width * m);
                    for (int i = 0; i < m; i++) {
                        starts[i] = pos + width * i;
                        sizes[i] = width;
                    }
                    pos += width * m;
                }
                default -> throw new IllegalStateException("the values of the column " + name + " (" + kind + ") are not handed over "
                        + "where they lie");
            }
            sink.values(row + done, m, page, starts, sizes);
        }
    }

    private void prepare(int n) {
        if (kind == DirectKind.BINARY) {
            BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
            while (v.getValueCapacity() < n) {
                v.reallocValidityAndOffsetBuffers();
            }
            offsets = v.getOffsetBuffer();
            data = v.getDataBuffer();
            offsets.setInt(0, 0);
            dataEnd = 0;
            offsetsDone = 0;
        } else {
            BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
            while (v.getValueCapacity() < n) {
                v.reAlloc();
            }
            data = v.getDataBuffer();
            if (kind == DirectKind.BOOLEAN) {
                data.setZero(0, (n + 7) / 8);
            }
        }
        validity = vector.getValidityBuffer();
        validity.setZero(0, (n + 7) / 8);
    }

    private void finish(int n) {
        if (kind == DirectKind.BINARY) {
            nullOffsets(n);
            ((BaseVariableWidthVector) vector).setLastSet(n - 1);
        }
    }

    /** The end offsets of the null slots before {@code slot}: empty values. */
    private void nullOffsets(int slot) {
        for (int i = offsetsDone; i < slot; i++) {
            offsets.setInt((long) (i + 1) * 4, dataEnd);
        }
        offsetsDone = slot;
    }

    /** Decodes {@code len} values of the page into slots {@code at} to {@code at + len - 1}, all defined. */
    private void values(int at, int len) {
        setBits(validity, at, len);
        if (ids != null && kind != DirectKind.BOOLEAN) {
            gather(at, len);
            return;
        }
        switch (kind) {
            case FIXED4 -> copy(at, len, 4);
            case FIXED8 -> copy(at, len, 8);
            case BYTE -> {
                checkPlain(4L * len);
                for (int i = 0; i < len; i++) {
                    data.setByte(at + i, page[pos + 4 * i]);
                }
                pos += 4 * len;
            }
            case SHORT -> {
                checkPlain(4L * len);
                for (int i = 0; i < len; i++) {
                    int p = pos + 4 * i;
                    data.setShort((long) (at + i) * 2, (short) ((page[p] & 0xFF) | (page[p + 1] & 0xFF) << 8));
                }
                pos += 4 * len;
            }
            case BOOLEAN -> booleans(at, len);
            case BINARY -> {
                nullOffsets(at);
                for (int done = 0; done < len; done += RUN) {
                    plainBytes(at + done, Math.min(RUN, len - done));
                }
                offsetsDone = at + len;
            }
        }
    }

    /**
     * PLAIN byte arrays, straight into the vector's memory: a first pass reads and checks every length of the run
     * (the page's bytes, in cache), the data buffer is grown once for the run's bytes, then each value is written at
     * its address and its end offset after it, with no scratch array between page and vector and no bounds-checked
     * ArrowBuf call per value (those cost more than the copy itself for short strings: half the decoding samples of a
     * JFR profile of the standard table's read, then the scratch's second copy a quarter).
     */
    private void plainBytes(int at, int len) {
        // the run's values take at most the page's bytes left less their lengths: when the buffer holds that much
        // already (it is allocated at the chunk's share of the row group), one pass reads, checks and writes each value
        long most = (long) (end - pos) - 4L * len;
        if (most >= 0 && dataEnd + most <= data.capacity()) {
            plainBytesInRoom(at, len);
            return;
        }
        if (sizeBuffer.length < len) {
            sizeBuffer = new int[Math.max(len, RUN)];
        }
        int[] sizes = sizeBuffer;
        long total = 0;
        int p = pos;
        for (int i = 0; i < len; i++) {
            int size = lengthAt(p);
            sizes[i] = size;
            total += size;
            p += 4 + size;
        }
        reserve(total);
        long base = data.memoryAddress();
        long ends = offsets.memoryAddress() + 4L * (at + 1);
        long room = data.capacity();
        int q = dataEnd;
        p = pos + 4;
        for (int i = 0; i < len; i++) {
            int size = sizes[i];
            putValue(page, p, base, q, size, room);
            q += size;
            MemoryUtil.putInt(ends + 4L * i, q);
            p += size + 4;
        }
        pos = p - 4;
        dataEnd = q;
    }

    /**
     * {@link #plainBytes} in one pass, for a run whose values fit in the data buffer whatever their lengths: each length
     * is read and checked, then its value written and its end offset after it, while the page's bytes are in cache
     * (the two passes read every length twice and kept them in an array between, about a third of the decoding).
     */
    private void plainBytesInRoom(int at, int len) {
        byte[] b = page;
        long base = data.memoryAddress();
        long ends = offsets.memoryAddress() + 4L * (at + 1);
        long room = data.capacity();
        int q = dataEnd;
        int p = pos;
        for (int i = 0; i < len; i++) {
            int size = lengthAt(p);
            putValue(b, p + 4, base, q, size, room);
            q += size;
            MemoryUtil.putInt(ends + 4L * i, q);
            p += 4 + size;
        }
        pos = p;
        dataEnd = q;
    }

    /** The length of the PLAIN byte array at {@code p} of the page, checked to end within the page. */
    private int lengthAt(int p) {
        if (p + 4L > end) {
            throw new ParquetDecodingException("a page of the column " + name + " ends before its values do");
        }
        int size = intAt(page, p);
        if (size < 0 || p + 4L + size > end) {
            throw new ParquetDecodingException("a page of the column " + name + " ends before its values do");
        }
        return size;
    }

    /** Dictionary byte arrays of the ids {@code v[from..from+len)}, written as {@link #plainBytes} writes. */
    private void dictionaryBytes(int[] v, int from, int at, int len) {
        long total = 0;
        for (int i = 0; i < len; i++) {
            total += dictLengths[v[from + i]];
        }
        reserve(total);
        long base = data.memoryAddress();
        long ends = offsets.memoryAddress() + 4L * (at + 1);
        long room = data.capacity();
        int q = dataEnd;
        for (int i = 0; i < len; i++) {
            int id = v[from + i];
            int size = dictLengths[id];
            putValue(dictBytes, dictStarts[id], base, q, size, room);
            q += size;
            MemoryUtil.putInt(ends + 4L * i, q);
        }
        dataEnd = q;
    }

    /**
     * Writes {@code size} bytes of {@code from} at {@code at} to the vector's data at {@code q} (its buffer at
     * {@code base}, {@code room} bytes long, holding at least {@code q + size}). A short value goes as two 8-byte words
     * where both arrays have {@link #SLACK} bytes past it ({@code System.arraycopy} or a memory copy of a few bytes
     * costs more than the value): the words may read past the value, never past {@code from}'s end, and write past it,
     * never past the buffer's end; what they write there is overwritten by the next value or left past the data's end.
     */
    private static void putValue(byte[] from, int at, long base, int q, int size, long room) {
        if (size <= SLACK && at + SLACK <= from.length && q + SLACK <= room) {
            MemoryUtil.putLong(base + q, MemoryUtil.getLong(from, at));
            MemoryUtil.putLong(base + q + 8, MemoryUtil.getLong(from, at + 8));
        } else if (size > 0) {
            MemoryUtil.copyToMemory(from, at, base + q, size);
        }
    }

    /**
     * Grows the data buffer to hold {@code bytes} more past {@link #dataEnd}; the offsets and validity buffers are
     * taken again (a reallocation may move them).
     */
    private void reserve(long bytes) {
        long need = dataEnd + bytes;
        if (need > Integer.MAX_VALUE) {
            throw new ParquetDecodingException("the values of the column " + name + " in one batch pass 2 GiB, more than an Arrow "
                    + vector.getMinorType() + " vector holds: read with a smaller batchRows");
        }
        if (need > data.capacity()) {
            BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
            while (v.getDataBuffer().capacity() < need) {
                v.reallocDataBuffer();
            }
            data = v.getDataBuffer();
            offsets = v.getOffsetBuffer();
            validity = v.getValidityBuffer();
        }
    }

    private void checkPlain(long bytes) {
        if (bytes < 0 || pos + bytes > end) {
            throw new ParquetDecodingException("a page of the column " + name + " ends before its values do");
        }
    }

    /** PLAIN fixed-width values: the page's bytes are the vector's, so one copy for the run. */
    private void copy(int at, int len, int width) {
        long bytes = (long) len * width;
        checkPlain(bytes);
        data.setBytes((long) at * width, page, pos, bytes);
        pos += (int) bytes;
    }

    private void booleans(int at, int len) {
        if (ids != null) {
            int[] v = ids(len);
            ids.read(v, len);
            for (int i = 0; i < len; i++) {
                if (v[i] != 0) {
                    setBit(data, at + i);
                }
            }
            return;
        }
        if (pos + ((bit + len + 7) >> 3) > end) {
            throw new ParquetDecodingException("a page of the column " + name + " ends before its values do");
        }
        for (int i = 0; i < len; i++) {
            long b = bit + i;
            if ((page[pos + (int) (b >> 3)] >> (b & 7) & 1) != 0) {
                setBit(data, at + i);
            }
        }
        bit += len;
    }

    private int[] ids(int len) {
        if (idBuffer.length < len) {
            idBuffer = new int[Math.max(len, 1024)];
        }
        return idBuffer;
    }

    /** Dictionary ids of the run, then their values. */
    private void gather(int at, int len) {
        int[] v = ids(len);
        ids.read(v, len);
        for (int i = 0; i < len; i++) {
            if (v[i] < 0 || v[i] >= dictSize) {
                throw new ParquetDecodingException("a page of the column " + name + " holds the dictionary id " + v[i]
                        + ", past its dictionary of " + dictSize);
            }
        }
        switch (kind) {
            case FIXED4 -> {
                // slots at to at + len - 1 are within the buffer: prepare() made room for the batch
                long to = data.memoryAddress() + 4L * at;
                for (int i = 0; i < len; i++) {
                    MemoryUtil.putInt(to + 4L * i, dictInts[v[i]]);
                }
            }
            case FIXED8 -> {
                long to = data.memoryAddress() + 8L * at;
                for (int i = 0; i < len; i++) {
                    MemoryUtil.putLong(to + 8L * i, dictLongs[v[i]]);
                }
            }
            case BYTE -> {
                for (int i = 0; i < len; i++) {
                    data.setByte(at + i, dictInts[v[i]]);
                }
            }
            case SHORT -> {
                for (int i = 0; i < len; i++) {
                    data.setShort((long) (at + i) * 2, (short) dictInts[v[i]]);
                }
            }
            case BINARY -> {
                nullOffsets(at);
                for (int done = 0; done < len; done += RUN) {
                    dictionaryBytes(v, done, at + done, Math.min(RUN, len - done));
                }
                offsetsDone = at + len;
            }
            case BOOLEAN -> throw new IllegalStateException("booleans have no dictionary");
        }
    }

    private static void setBit(ArrowBuf buf, int i) {
        buf.setByte(i >> 3, buf.getByte(i >> 3) | (1 << (i & 7)));
    }

    /** Sets bits {@code from} to {@code from + len - 1}: whole bytes at once. */
    static void setBits(ArrowBuf buf, int from, int len) {
        int i = from;
        int stop = from + len;
        while (i < stop && (i & 7) != 0) {
            setBit(buf, i++);
        }
        int bytes = (stop - i) >> 3;
        if (bytes > 0) {
            buf.setOne(i >> 3, bytes);
            i += bytes << 3;
        }
        while (i < stop) {
            setBit(buf, i++);
        }
    }
}
