package io.wrangler.read;

import io.wrangler.encoding.Codecs;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PrimitiveIterator;
import java.util.zip.CRC32;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.ParquetDecodingException;

/**
 * RowGroupPages is one row group of a file as parquet-java's {@link PageReadStore}, read page by page as its column
 * readers ask for pages, in bounded memory.
 *
 * <p>A row group whose projected column chunks span at most {@code budget} bytes is fetched whole with one GET (small
 * files: as few requests as possible). A larger one is read column by column: each column chunk through a window of at
 * most {@code budget / columns} bytes (at least {@link #MIN_WINDOW}), refilled with a ranged GET as its pages are
 * consumed; a page larger than the window is fetched by itself. So memory is bounded by the budget, plus per column the
 * page being decoded (compressed and decompressed) and its dictionary, whatever the size of the row group.
 *
 * <p>Pages are checked against their CRC when they carry one, and decompressed by wrangler's {@link Codecs}. Data
 * pages V1 and V2 and dictionary pages are read; index pages are skipped; encrypted column chunks are not read.
 */
final class RowGroupPages implements PageReadStore {
    /** The least window of a column chunk: a ranged GET of less costs more in requests than it saves in memory. */
    static final int MIN_WINDOW = 256 * 1024;

    private final long rows;
    private final Map<List<String>, ColumnPages> columns = new HashMap<>();
    /** The rows to read when only some pages are ({@link PageRanges}), else null. */
    private final PageRanges ranges;

    RowGroupPages(S3InputFile file, BlockMetaData block, List<ColumnDescriptor> wanted, long budget, int minWindow) throws IOException {
        this.rows = block.getRowCount();
        this.ranges = null;
        ColumnChunkMetaData[] chunks = new ColumnChunkMetaData[wanted.size()];
        long from = Long.MAX_VALUE;
        long to = 0;
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = chunk(block, wanted.get(i));
            if (chunks[i] == null) {
                continue;
            }
            from = Math.min(from, chunks[i].getStartingPos());
            to = Math.max(to, chunks[i].getStartingPos() + chunks[i].getTotalSize());
        }
        byte[] whole = null;
        int base = 0;
        if (to > from && to - from <= budget) {
            S3InputFile.Held held = file.held(from, to - from);
            if (held != null) {
                // the file is in memory already (fetched whole with its footer): its pages are read in place
                whole = held.bytes();
                base = held.offset();
            } else {
                whole = new byte[Math.toIntExact(to - from)];
                file.read(from, whole, 0, whole.length);
            }
        }
        int window = (int) Math.max(minWindow, Math.min(Integer.MAX_VALUE - 16, budget / Math.max(1, chunks.length)));
        for (int i = 0; i < chunks.length; i++) {
            ColumnChunkMetaData c = chunks[i];
            if (c == null) {
                continue;
            }
            if (c.isEncrypted()) {
                throw new ParquetDecodingException("the column " + wanted.get(i) + " of " + file + " is encrypted, which wrangler "
                        + "does not read");
            }
            ChunkStream in = whole != null
                    ? new ChunkStream(file, whole, base + (int) (c.getStartingPos() - from), c.getTotalSize())
                    : new ChunkStream(file, c.getStartingPos(), c.getTotalSize(), window);
            columns.put(List.of(wanted.get(i).getPath()), new ColumnPages(file, wanted.get(i), c, in));
        }
    }

    /**
     * The pages of {@code wanted} that hold rows of {@code ranges} (each column's offset index says where its pages are and
     * which rows they hold), and each chunk's dictionary page: fetched by their ranges, nearby ones with one GET
     * ({@link PageRanges#keep}); the column readers then read only the rows of the ranges ({@link #getRowIndexes}).
     */
    RowGroupPages(S3InputFile file, BlockMetaData block, List<ColumnDescriptor> wanted, PageRanges ranges) throws IOException {
        this.rows = block.getRowCount();
        this.ranges = ranges;
        List<long[]> fetch = new ArrayList<>();
        Map<ColumnDescriptor, List<Integer>> needed = new HashMap<>();
        for (ColumnDescriptor d : wanted) {
            ColumnChunkMetaData c = chunk(block, d);
            if (c == null) {
                continue;
            }
            OffsetIndex oi = ranges.offsets(c.getPath());
            if (c.getStartingPos() < oi.getOffset(0)) {
                fetch.add(new long[] {c.getStartingPos(), oi.getOffset(0)}); // the dictionary page
            }
            List<Integer> pages = pages(oi, ranges, rows);
            for (int i : pages) {
                fetch.add(new long[] {oi.getOffset(i), oi.getOffset(i) + oi.getCompressedPageSize(i)});
            }
            needed.put(d, pages);
        }
        PageRanges.keep(file, fetch);
        for (ColumnDescriptor d : wanted) {
            ColumnChunkMetaData c = chunk(block, d);
            if (c == null) {
                continue;
            }
            if (c.isEncrypted()) {
                throw new ParquetDecodingException("the column " + d + " of " + file + " is encrypted, which wrangler does not read");
            }
            OffsetIndex oi = ranges.offsets(c.getPath());
            ChunkStream dictionary = c.getStartingPos() < oi.getOffset(0) ? slice(file, c.getStartingPos(), oi.getOffset(0) - c.getStartingPos()) : null;
            List<Integer> pages = needed.get(d);
            ChunkStream[] streams = new ChunkStream[pages.size()];
            long[] firstRows = new long[pages.size()];
            int[] rowCounts = new int[pages.size()];
            for (int j = 0; j < streams.length; j++) {
                int i = pages.get(j);
                streams[j] = slice(file, oi.getOffset(i), oi.getCompressedPageSize(i));
                firstRows[j] = oi.getFirstRowIndex(i);
                rowCounts[j] = Math.toIntExact(oi.getLastRowIndex(i, rows) + 1 - oi.getFirstRowIndex(i));
            }
            ColumnPages p = new ColumnPages(file, d, c, dictionary != null ? dictionary : streams.length > 0 ? streams[0] : null);
            p.pruned(dictionary != null, streams, firstRows, rowCounts);
            columns.put(List.of(d.getPath()), p);
        }
    }

    /** The pages of {@code oi} holding rows of {@code ranges}. */
    private static List<Integer> pages(OffsetIndex oi, PageRanges ranges, long rows) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < oi.getPageCount(); i++) {
            if (ranges.overlaps(oi.getFirstRowIndex(i), oi.getLastRowIndex(i, rows) + 1)) {
                out.add(i);
            }
        }
        return out;
    }

    /** The bytes of the pages {@link #RowGroupPages(S3InputFile, BlockMetaData, List, PageRanges)} would fetch. */
    static long pagesBytes(BlockMetaData block, List<ColumnDescriptor> wanted, PageRanges ranges) {
        long n = 0;
        for (ColumnDescriptor d : wanted) {
            ColumnChunkMetaData c = chunk(block, d);
            if (c == null) {
                continue;
            }
            OffsetIndex oi = ranges.offsets(c.getPath());
            n += Math.max(0, oi.getOffset(0) - c.getStartingPos());
            for (int i : pages(oi, ranges, block.getRowCount())) {
                n += oi.getCompressedPageSize(i);
            }
        }
        return n;
    }

    /** The bytes of the column chunks of {@code wanted} in {@code block}. */
    static long chunksBytes(BlockMetaData block, List<ColumnDescriptor> wanted) {
        long n = 0;
        for (ColumnDescriptor d : wanted) {
            ColumnChunkMetaData c = chunk(block, d);
            n += c == null ? 0 : c.getTotalSize();
        }
        return n;
    }

    /** {@code [pos, pos + n)} of the file, kept in memory ({@link S3InputFile#keep}), as a stream. */
    private static ChunkStream slice(S3InputFile file, long pos, long n) throws IOException {
        S3InputFile.Held h = file.held(pos, n);
        if (h == null) {
            byte[] b = new byte[Math.toIntExact(n)];
            file.read(pos, b, 0, b.length);
            h = new S3InputFile.Held(b, 0);
        }
        return new ChunkStream(file, h.bytes(), h.offset(), n);
    }

    static ColumnChunkMetaData chunk(BlockMetaData block, ColumnDescriptor column) {
        for (ColumnChunkMetaData c : block.getColumns()) {
            if (Arrays.equals(c.getPath().toArray(), column.getPath())) {
                return c;
            }
        }
        return null;
    }

    @Override
    public PageReader getPageReader(ColumnDescriptor column) {
        ColumnPages p = columns.get(List.of(column.getPath()));
        if (p == null) {
            throw new ParquetDecodingException("no column chunk for " + Arrays.toString(column.getPath()) + " in this row group");
        }
        return p;
    }

    /**
     * The pages of {@code column} for a reader that is done with a data page when it asks for the next: every data page
     * is decompressed into one array reused for the whole chunk (no page-sized array to allocate, zero and collect per
     * page), so a data page's bytes are valid only until the next {@link PageReader#readPage}. The dictionary page
     * keeps an array of its own. parquet-java's column readers may keep values that point into a page's bytes, so they
     * get {@link #getPageReader} instead.
     */
    PageReader recyclingPageReader(ColumnDescriptor column) {
        ColumnPages p = (ColumnPages) getPageReader(column);
        p.recycling = true;
        return p;
    }

    @Override
    public long getRowCount() {
        return ranges != null ? ranges.rows() : rows;
    }

    @Override
    public Optional<PrimitiveIterator.OfLong> getRowIndexes() {
        return ranges == null ? Optional.empty() : Optional.of(ranges.rowIndexes());
    }

    /**
     * The bytes of one column chunk as a stream: either a slice of the row group fetched whole, or a window over the
     * object refilled by ranged GETs.
     */
    static final class ChunkStream extends InputStream {
        private final S3InputFile file;
        private final long end;
        private final int window;
        private byte[] buf;
        private int pos;
        private int limit;
        /** Where in the file the byte after {@code buf[limit - 1]} is. */
        private long next;

        ChunkStream(S3InputFile file, byte[] whole, int offset, long length) {
            this.file = file;
            this.buf = whole;
            this.pos = offset;
            this.limit = Math.toIntExact(offset + length);
            this.end = 0;
            this.next = 0;
            this.window = 0;
        }

        ChunkStream(S3InputFile file, long start, long length, int window) {
            this.file = file;
            this.next = start;
            this.end = start + length;
            this.window = window;
            this.buf = new byte[0];
        }

        private boolean fill() throws IOException {
            if (next >= end) {
                return false;
            }
            int n = (int) Math.min(window, end - next);
            if (buf.length < n) {
                buf = new byte[n];
            }
            file.read(next, buf, 0, n);
            next += n;
            pos = 0;
            limit = n;
            return true;
        }

        @Override
        public int read() throws IOException {
            if (pos == limit && !fill()) {
                return -1;
            }
            return buf[pos++] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos == limit && !fill()) {
                return -1;
            }
            int n = Math.min(len, limit - pos);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            return n;
        }

        /**
         * The next {@code n} bytes where they lie: in the buffer when they are all in it (valid until the next read of
         * this stream), else in a new array of their own. Saves a page-sized copy of every compressed page.
         */
        Region region(int n) throws IOException {
            if (n <= limit - pos) {
                Region r = new Region(buf, pos);
                pos += n;
                return r;
            }
            return new Region(take(n), 0);
        }

        /** The next {@code n} bytes in a new array; a run longer than the window is fetched by itself. */
        byte[] take(int n) throws IOException {
            byte[] out = new byte[n];
            int have = Math.min(n, limit - pos);
            System.arraycopy(buf, pos, out, 0, have);
            pos += have;
            int rest = n - have;
            if (rest == 0) {
                return out;
            }
            if (rest > end - next) {
                throw new EOFException("a page of " + file + " runs past the end of its column chunk");
            }
            if (rest >= window) {
                file.read(next, out, have, rest);
                next += rest;
                return out;
            }
            fill();
            System.arraycopy(buf, 0, out, have, rest);
            pos = rest;
            return out;
        }

        void release() {
            buf = null;
        }
    }

    /** Bytes of a stream where they lie: {@code bytes} from {@code from}. */
    private record Region(byte[] bytes, int from) {
    }

    /** The pages of one column chunk, read as they are asked for. */
    private static final class ColumnPages implements PageReader {
        private final S3InputFile file;
        private final ColumnDescriptor column;
        private final ColumnChunkMetaData meta;
        private ChunkStream in;
        private final Codecs.PageDecompressor decompressor;
        /** Only some data pages are read ({@link #pruned}): each one's stream, first row and rows; the next to read. */
        private ChunkStream[] pageStreams;
        private long[] firstRows;
        private int[] rowCounts;
        private int nextPage;
        private boolean hasDictionary;
        private final CRC32 crc = new CRC32();
        private PageHeader pending;
        private boolean dictionaryRead;
        private long valuesRead;
        /** Whether data pages go into {@link #reuse}: see {@link #recyclingPageReader}. */
        private boolean recycling;
        private byte[] reuse;

        ColumnPages(S3InputFile file, ColumnDescriptor column, ColumnChunkMetaData meta, ChunkStream in) {
            this.file = file;
            this.column = column;
            this.meta = meta;
            this.in = in;
            this.decompressor = Codecs.pageDecompressor(meta.getCodec());
        }

        /** Reads only the data pages of {@code streams} (each from its first row), after the dictionary page if it has one. */
        void pruned(boolean dictionary, ChunkStream[] streams, long[] firstRows, int[] rowCounts) {
            this.hasDictionary = dictionary;
            this.pageStreams = streams;
            this.firstRows = firstRows;
            this.rowCounts = rowCounts;
        }

        /** The next of the pruned data pages, with its first row and rows; null after the last. */
        private DataPage nextPrunedPage() throws IOException {
            while (nextPage < pageStreams.length) {
                int j = nextPage++;
                in = pageStreams[j];
                PageHeader h = header();
                switch (h.type) {
                    case DATA_PAGE: {
                        DataPageHeader d = h.getData_page_header();
                        int size = h.getUncompressed_page_size();
                        byte[] plain = decompress(body(h), h);
                        return new DataPageV1(BytesInput.from(plain, 0, size), d.getNum_values(), size, firstRows[j], rowCounts[j], null,
                                Encoding.valueOf(d.getRepetition_level_encoding().name()),
                                Encoding.valueOf(d.getDefinition_level_encoding().name()), Encoding.valueOf(d.getEncoding().name()));
                    }
                    case DATA_PAGE_V2: {
                        DataPageV2 v2 = (DataPageV2) pageV2(h);
                        return DataPageV2.uncompressed(v2.getRowCount(), v2.getNullCount(), v2.getValueCount(), firstRows[j],
                                v2.getRepetitionLevels(), v2.getDefinitionLevels(), v2.getDataEncoding(), v2.getData(), null);
                    }
                    default:
                        throw new ParquetDecodingException("the offset index of " + Arrays.toString(column.getPath()) + " in " + file
                                + " points at a " + h.type + ", not a data page");
                }
            }
            return null;
        }

        @Override
        public long getTotalValueCount() {
            return meta.getValueCount();
        }

        @Override
        public DictionaryPage readDictionaryPage() {
            if (dictionaryRead) {
                return null;
            }
            dictionaryRead = true;
            if (meta.getValueCount() == 0 || pageStreams != null && !hasDictionary) {
                return null;
            }
            try {
                PageHeader h = header();
                if (h.type != PageType.DICTIONARY_PAGE) {
                    pending = h;
                    return null;
                }
                byte[] plain = decompress(body(h), h);
                return new DictionaryPage(BytesInput.from(plain), h.getUncompressed_page_size(), h.getDictionary_page_header().getNum_values(),
                        Encoding.valueOf(h.getDictionary_page_header().getEncoding().name()));
            } catch (IOException e) {
                throw new ParquetDecodingException("could not read the dictionary page of " + Arrays.toString(column.getPath()) + " in "
                        + file + ": " + e, e);
            }
        }

        @Override
        public DataPage readPage() {
            if (!dictionaryRead) {
                readDictionaryPage();
            }
            try {
                if (pageStreams != null) {
                    return nextPrunedPage();
                }
                while (valuesRead < meta.getValueCount()) {
                    PageHeader h = pending != null ? pending : header();
                    pending = null;
                    switch (h.type) {
                        case DATA_PAGE: {
                            DataPageHeader d = h.getData_page_header();
                            int size = h.getUncompressed_page_size();
                            byte[] plain = recycling ? into(body(h), h.getCompressed_page_size(), size) : decompress(body(h), h);
                            valuesRead += d.getNum_values();
                            return new DataPageV1(BytesInput.from(plain, 0, size), d.getNum_values(), size, null,
                                    Encoding.valueOf(d.getRepetition_level_encoding().name()),
                                    Encoding.valueOf(d.getDefinition_level_encoding().name()), Encoding.valueOf(d.getEncoding().name()));
                        }
                        case DATA_PAGE_V2:
                            return pageV2(h);
                        case DICTIONARY_PAGE:
                            throw new ParquetDecodingException("more than one dictionary page in the column chunk "
                                    + Arrays.toString(column.getPath()) + " of " + file);
                        default:
                            body(h); // an index page: not needed to decode
                    }
                }
                in.release();
                return null;
            } catch (IOException e) {
                throw new ParquetDecodingException("could not read a page of " + Arrays.toString(column.getPath()) + " in " + file + ": "
                        + e, e);
            }
        }

        /** The data page V2 of header {@code h}: its levels copied, its values decompressed (into the recycled array). */
        private DataPage pageV2(PageHeader h) throws IOException {
            DataPageHeaderV2 d = h.getData_page_header_v2();
            Region r = body(h);
            int rl = d.getRepetition_levels_byte_length();
            int dl = d.getDefinition_levels_byte_length();
            int size = h.getCompressed_page_size();
            if (rl < 0 || dl < 0 || (long) rl + dl > size) {
                throw new ParquetDecodingException("a data page of " + Arrays.toString(column.getPath()) + " in " + file
                        + " has levels of " + rl + " and " + dl + " bytes in a page of " + size);
            }
            // the levels are copied: the region is the stream's buffer, refilled by the next read
            byte[] body = Arrays.copyOfRange(r.bytes(), r.from(), r.from() + rl + dl);
            int dataSize = d.isIs_compressed() ? h.getUncompressed_page_size() - rl - dl : size - rl - dl;
            if (dataSize < 0) {
                throw new ParquetDecodingException("a data page of " + Arrays.toString(column.getPath()) + " in " + file
                        + " has levels of " + rl + " and " + dl + " bytes in a page of " + h.getUncompressed_page_size()
                        + " bytes uncompressed");
            }
            byte[] data;
            if (!d.isIs_compressed()) {
                data = recycling ? reuse(dataSize, dataSize) : new byte[dataSize];
                System.arraycopy(r.bytes(), r.from() + rl + dl, data, 0, dataSize);
            } else if (recycling) {
                data = into(new Region(r.bytes(), r.from() + rl + dl), size - rl - dl, dataSize);
            } else {
                data = decompressor.decompress(r.bytes(), r.from() + rl + dl, size - rl - dl, dataSize);
            }
            valuesRead += d.getNum_values();
            return DataPageV2.uncompressed(d.getNum_rows(), d.getNum_nulls(), d.getNum_values(),
                    BytesInput.from(body, 0, rl), BytesInput.from(body, rl, dl), Encoding.valueOf(d.getEncoding().name()),
                    BytesInput.from(data, 0, dataSize), null);
        }

        /**
         * The next page header, refused when it states a negative size or lacks the part its type needs: every size
         * below is then at least 0 (a V2 page's data size too, computed from sizes that are).
         */
        private PageHeader header() throws IOException {
            PageHeader h = Util.readPageHeader(in);
            String wrong = null;
            if (h.getUncompressed_page_size() < 0 || h.getCompressed_page_size() < 0) {
                wrong = "states a negative size (" + h.getCompressed_page_size() + " bytes compressed, " + h.getUncompressed_page_size()
                        + " uncompressed)";
            } else if (h.type == PageType.DATA_PAGE && !h.isSetData_page_header()
                    || h.type == PageType.DATA_PAGE_V2 && !h.isSetData_page_header_v2()
                    || h.type == PageType.DICTIONARY_PAGE && !h.isSetDictionary_page_header()) {
                wrong = "is a " + h.type + " without its " + h.type + " header";
            }
            if (wrong != null) {
                throw new ParquetDecodingException("a page of " + Arrays.toString(column.getPath()) + " in " + file + " " + wrong);
            }
            return h;
        }

        /** The page's bytes where they lie, checked against its CRC when it has one. */
        private Region body(PageHeader h) throws IOException {
            int n = h.getCompressed_page_size();
            if (n < 0) {
                throw new ParquetDecodingException("a page of " + Arrays.toString(column.getPath()) + " in " + file + " has the size " + n);
            }
            Region b = in.region(n);
            if (h.isSetCrc()) {
                crc.reset();
                crc.update(b.bytes(), b.from(), n);
                if (crc.getValue() != (h.getCrc() & 0xFFFFFFFFL)) {
                    throw new ParquetDecodingException("could not verify page integrity, CRC checksum verification failed");
                }
            }
            return b;
        }

        /**
         * The array reused for the chunk's data pages, at least {@code size} bytes long; {@code stored} is what the page
         * takes in the chunk. An uncompressed page stating more than it takes is refused before an array of that size is
         * made (a negative size never gets here: {@link #header} refuses it).
         */
        private byte[] reuse(int size, int stored) {
            if (meta.getCodec() == CompressionCodecName.UNCOMPRESSED && size > stored) {
                throw new ParquetDecodingException("a data page of " + Arrays.toString(column.getPath()) + " in " + file
                        + " states " + size + " bytes uncompressed, more than its " + stored + " bytes uncompressed");
            }
            if (reuse == null || reuse.length < size) {
                reuse = new byte[size];
            }
            return reuse;
        }

        /** {@code len} compressed bytes at {@code body} decompressed into the first {@code size} bytes of {@link #reuse}. */
        private byte[] into(Region body, int len, int size) throws IOException {
            byte[] out = reuse(size, len);
            decompressor.decompress(body.bytes(), body.from(), len, out, size);
            return out;
        }

        /** The page decompressed into an array of its own (the region's buffer is the stream's). */
        private byte[] decompress(Region body, PageHeader h) throws IOException {
            return decompressor.decompress(body.bytes(), body.from(), h.getCompressed_page_size(), h.getUncompressed_page_size());
        }
    }
}
