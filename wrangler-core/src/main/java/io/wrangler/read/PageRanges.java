package io.wrangler.read;

import io.wrangler.filter.BoundFilter;
import io.wrangler.filter.ColumnStats;
import io.wrangler.filter.FooterStats;
import io.wrangler.filter.Verdict;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * PageRanges are the rows of one row group a row filter may pass, by its pages: the row group is cut wherever a page of
 * a column the filter reads begins (the offset index's first row of each page), and each piece is judged by the filter
 * from the statistics of the page of each column it lies in (the column index: per page min, max, null pages and null
 * counts; {@link FooterStats#page}), the chunk's statistics for a filter column without a column index, and the file's
 * partition values. The pieces ruled out are not read: {@link RowGroupPages} fetches only the pages of the decoded
 * columns that hold rows of the others (the offset index's page locations), and parquet-java's column readers decode
 * only those rows ({@link #rowIndexes}). The filter is then applied exactly to the rows decoded, so what page indexes a
 * file has never changes a read's rows; a file without them is read as before.
 *
 * <p>The indexes are fetched by their own ranges (the file's reads are exact ranges under a filter), the nearby ones
 * with one GET ({@link #COALESCE}).
 */
final class PageRanges {
    /** Two ranges of a file at most this far apart are fetched with one GET: a request costs more than these bytes. */
    static final int COALESCE = 32 * 1024;

    /** Row ranges {@code [from[i], to[i])}, ascending and disjoint. */
    private final long[] from;
    private final long[] to;
    private final long rows;
    /** The offset index of each decoded column, by its path. */
    private final Map<ColumnPath, OffsetIndex> offsets;

    private PageRanges(long[] from, long[] to, Map<ColumnPath, OffsetIndex> offsets) {
        this.from = from;
        this.to = to;
        this.offsets = offsets;
        long n = 0;
        for (int i = 0; i < from.length; i++) {
            n += to[i] - from[i];
        }
        this.rows = n;
    }

    /** The rows of the ranges. */
    long rows() {
        return rows;
    }

    boolean isEmpty() {
        return rows == 0;
    }

    OffsetIndex offsets(ColumnPath column) {
        return offsets.get(column);
    }

    /** Whether any row of {@code [a, b)} is in the ranges. */
    boolean overlaps(long a, long b) {
        int i = Arrays.binarySearch(to, a);
        i = i >= 0 ? i + 1 : -i - 1; // the first range ending after a
        return i < from.length && from[i] < b;
    }

    /** The rows of the ranges in order, as parquet-java's synchronizing column readers take them. */
    PrimitiveIterator.OfLong rowIndexes() {
        return new PrimitiveIterator.OfLong() {
            private int range;
            private long next = from.length > 0 ? from[0] : 0;

            @Override
            public boolean hasNext() {
                return range < from.length;
            }

            @Override
            public long nextLong() {
                long r = next++;
                if (next >= to[range]) {
                    range++;
                    if (range < from.length) {
                        next = from[range];
                    }
                }
                return r;
            }
        };
    }

    /** No row of the row group can pass. */
    private static final PageRanges NONE = new PageRanges(new long[0], new long[0], Map.of());

    /**
     * One row group being read under a filter.
     *
     * @param in the file, whose reads the index bytes are fetched for ({@link S3InputFile#keep})
     * @param partitionValues the filter's partition columns' one value in the file
     */
    record Group(ParquetFileReader reader, S3InputFile in, BlockMetaData block, MessageType fileSchema, BoundFilter filter,
                 Map<String, VectorSchemaRoot> partitionValues) {
    }

    /** A filter column's page indexes in the row group: its type in the file, its column index and offset index. */
    private record Pages(PrimitiveType type, ColumnIndex columnIndex, OffsetIndex offsetIndex) {
    }

    /**
     * The ranges of the row group that its filter may pass, with the offset indexes of the {@code decoded} columns; an
     * empty one when no page may pass; null when the page indexes cannot narrow the row group (no column index of a
     * filter column, every piece may pass, or a decoded column without an offset index): it is then read whole.
     */
    static PageRanges of(Group g, List<ColumnDescriptor> decoded) throws IOException {
        Map<String, ColumnChunkMetaData> filterChunks = new HashMap<>();
        Map<String, PrimitiveType> types = new HashMap<>();
        List<IndexReference> wanted = new ArrayList<>();
        for (String name : g.filter().columns().keySet()) {
            PrimitiveType p = g.partitionValues().containsKey(name) ? null : FooterStats.flatColumn(g.fileSchema(), name);
            ColumnChunkMetaData c = p == null ? null : FooterStats.chunk(g.block(), p.getName());
            if (c != null && c.getColumnIndexReference() != null && c.getOffsetIndexReference() != null) {
                filterChunks.put(name, c);
                types.put(name, p);
                wanted.add(c.getColumnIndexReference());
                wanted.add(c.getOffsetIndexReference());
            }
        }
        if (filterChunks.isEmpty()) {
            return null;
        }
        List<ColumnChunkMetaData> decodedChunks = new ArrayList<>();
        for (ColumnDescriptor d : decoded) {
            ColumnChunkMetaData c = RowGroupPages.chunk(g.block(), d);
            if (c != null) {
                decodedChunks.add(c);
            }
        }
        fetch(g.in(), wanted); // the filter columns' indexes; the other columns' offset indexes only if the pieces are narrowed
        Map<String, Pages> pages = new HashMap<>();
        for (Map.Entry<String, ColumnChunkMetaData> e : filterChunks.entrySet()) {
            ColumnIndex ci = g.reader().readColumnIndex(e.getValue());
            OffsetIndex oi = g.reader().readOffsetIndex(e.getValue());
            if (ci != null && oi != null && oi.getPageCount() > 0 && ci.getNullPages().size() == oi.getPageCount()) {
                pages.put(e.getKey(), new Pages(types.get(e.getKey()), ci, oi));
            }
        }
        return pages.isEmpty() ? null : ranges(g, pages, decodedChunks);
    }

    /** The ranges the pieces between page starts leave, with the decoded columns' offset indexes (see {@link #of}). */
    private static PageRanges ranges(Group g, Map<String, Pages> pages, List<ColumnChunkMetaData> decodedChunks) throws IOException {
        long rows = g.block().getRowCount();
        TreeSet<Long> cuts = new TreeSet<>();
        cuts.add(0L);
        cuts.add(rows);
        for (Pages p : pages.values()) {
            for (int i = 0; i < p.offsetIndex().getPageCount(); i++) {
                cuts.add(p.offsetIndex().getFirstRowIndex(i));
            }
        }
        long[] from = new long[cuts.size()];
        long[] to = new long[cuts.size()];
        int n = judge(g, pages, cuts, from, to);
        if (n == 1 && from[0] == 0 && to[0] == rows) {
            return null;
        }
        if (n == 0) {
            return NONE;
        }
        List<IndexReference> more = new ArrayList<>();
        for (ColumnChunkMetaData c : decodedChunks) {
            if (c.getOffsetIndexReference() == null) {
                return null;
            }
            more.add(c.getOffsetIndexReference());
        }
        fetch(g.in(), more);
        Map<ColumnPath, OffsetIndex> offsets = new HashMap<>();
        for (ColumnChunkMetaData c : decodedChunks) {
            OffsetIndex oi = c.getOffsetIndexReference() == null ? null : g.reader().readOffsetIndex(c);
            if (oi == null || oi.getPageCount() == 0) {
                return null;
            }
            offsets.put(c.getPath(), oi);
        }
        return new PageRanges(Arrays.copyOf(from, n), Arrays.copyOf(to, n), offsets);
    }

    /** Judges each piece between two cuts; writes the merged ranges that may pass into from/to; their number. */
    private static int judge(Group g, Map<String, Pages> pages, TreeSet<Long> cuts, long[] from, long[] to) {
        Function<String, ColumnStats> chunkStats = FooterStats.of(g.block(), g.fileSchema(), g.filter().columns(), null);
        Map<String, Field> columns = g.filter().columns();
        long groupRows = g.block().getRowCount();
        int n = 0;
        Long a = null;
        for (long b : cuts) {
            if (a != null && b > a) {
                long start = a;
                long end = b;
                Function<String, ColumnStats> stats = name -> {
                    Pages p = pages.get(name);
                    return p == null ? chunkStats.apply(name) : pageStats(p, columns.get(name), groupRows, start, end);
                };
                if (g.filter().verdict(FilePruning.partitionStats(stats, g.partitionValues(), end - start)) != Verdict.NONE) {
                    if (n > 0 && to[n - 1] == start) {
                        to[n - 1] = end;
                    } else {
                        from[n] = start;
                        to[n] = end;
                        n++;
                    }
                }
            }
            a = b;
        }
        return n;
    }

    /** What the column index says of rows {@code [start, end)}, all in one page of the column. */
    private static ColumnStats pageStats(Pages pages, Field want, long groupRows, long start, long end) {
        ColumnIndex ci = pages.columnIndex();
        OffsetIndex oi = pages.offsetIndex();
        int page = page(oi, start);
        long rows = end - start;
        long pageRows = oi.getLastRowIndex(page, groupRows) + 1 - oi.getFirstRowIndex(page);
        List<Long> nullCounts = ci.getNullCounts();
        long pageNulls = nullCounts == null || nullCounts.size() <= page ? -1 : nullCounts.get(page);
        if (ci.getNullPages().get(page)) {
            return ColumnStats.allNull(rows);
        }
        // a page's null count says how many of its rows are null, not which: exact for the whole page, and 0 for any part of it
        long nulls = rows == pageRows || pageNulls == 0 ? pageNulls : -1;
        return FooterStats.page(pages.type(), want.getType(), bytes(ci.getMinValues().get(page)), bytes(ci.getMaxValues().get(page)),
                nulls, rows);
    }

    /** The page of {@code oi} that holds row {@code row}. */
    private static int page(OffsetIndex oi, long row) {
        int lo = 0;
        int hi = oi.getPageCount() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (oi.getFirstRowIndex(mid) <= row) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }


    /** Fetches the index ranges, nearby ones together: sorted, joined across gaps of at most {@link #COALESCE} bytes. */
    private static void fetch(S3InputFile in, List<IndexReference> refs) throws IOException {
        List<long[]> ranges = new ArrayList<>();
        for (IndexReference r : refs) {
            ranges.add(new long[] {r.getOffset(), r.getOffset() + r.getLength()});
        }
        keep(in, ranges);
    }

    /** Fetches {@code ranges} of {@code in} ([start, end) each) and keeps them: nearby ones with one GET. */
    static void keep(S3InputFile in, List<long[]> ranges) throws IOException {
        ranges.sort((x, y) -> Long.compare(x[0], y[0]));
        long start = -1;
        long end = -1;
        for (long[] r : ranges) {
            if (r[1] <= r[0] || r[0] < 0 || r[1] > in.getLength()) {
                continue;
            }
            if (start >= 0 && r[0] <= end + COALESCE) {
                end = Math.max(end, r[1]);
                continue;
            }
            if (start >= 0) {
                in.keep(start, Math.toIntExact(end - start));
            }
            start = r[0];
            end = r[1];
        }
        if (start >= 0) {
            in.keep(start, Math.toIntExact(end - start));
        }
    }
}
