package io.wrangler.encoding;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.ArrowBufPointer;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.ElementAddressableVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.TransferPair;

/**
 * A SortingEncoder holds a file's rows until the file is finished, then hands them to the file's encoder sorted by the
 * layout's {@code sortBy} columns, ascending, nulls first, ties in input order: the file is sorted, and its row groups
 * say so in their {@code sorting_columns}.
 *
 * <p>Rows with key runs ({@link KeyRuns}: a compaction's or a keyed rewrite's input) are sorted by their key first, in
 * the order keys first appear, then by the columns: the rows of each key stay one run (a sort by the columns alone could
 * cut them into a run per row), and a file holding more than one key says it is sorted by nothing, as it is sorted only
 * within each key's rows. Likewise within a key by the rows' commit stamps ({@link CommitRuns}: a rewrite's rows of several
 * commits), so that their commit runs stay one per commit: such a file is sorted within each commit's rows only.
 *
 * <p>Memory is the file's rows as Arrow holds them, counted by {@link #heldBytes}, so a write's memory budget finishes a
 * sorted file early rather than run out; {@link #size} is that too, so that a file ends near {@code targetFileSize}
 * of unencoded rows. Not thread-safe.
 */
final class SortingEncoder implements FileEncoder {
    private static final int BATCH = 65_536;

    private final Settings settings;
    private final FileEncoder file;
    private BufferAllocator allocator;
    private List<FieldVector> held;
    private int rows;
    private boolean closed;

    SortingEncoder(Settings settings, FileEncoder file) {
        this.settings = settings;
        this.file = file;
    }

    @Override
    public void write(List<FieldVector> columns, int from, int to) throws IOException {
        if (held == null) {
            allocator = columns.get(0).getAllocator().newChildAllocator("sortBy", 0, Long.MAX_VALUE);
            held = new ArrayList<>();
            for (FieldVector v : columns) {
                FieldVector h = v.getField().createVector(allocator);
                h.allocateNew();
                held.add(h);
            }
        }
        for (int c = 0; c < columns.size(); c++) {
            TransferPair t = columns.get(c).makeTransferPair(held.get(c));
            int at = rows;
            for (int r = from; r < to; r++) {
                t.copyValueSafe(r, at++);
            }
        }
        rows += to - from;
        for (FieldVector h : held) {
            h.setValueCount(rows);
        }
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public long size() {
        return file.size() + heldBytes(0);
    }

    @Override
    public long heldBytes(long streamed) {
        return (allocator == null ? 0 : allocator.getAllocatedMemory()) + file.heldBytes(streamed);
    }

    @Override
    public void close(Map<String, String> metadata) throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        Map<String, String> footer = new HashMap<>(metadata);
        try {
            if (held != null && rows > 0) {
                Integer[] order = order(footer);
                writeSorted(order);
            }
        } finally {
            release();
        }
        file.close(footer);
    }

    /** The rows in sorted order; with key runs of more than one key, marks {@code footer} as sorted within each key only. */
    private Integer[] order(Map<String, String> footer) {
        List<Key> keys = new ArrayList<>();
        if (settings.keyRuns()) {
            // by key, then by commit stamp (CommitRuns), each in the order first seen: one run per key, one per commit in it
            FieldVector ids = held.get(held.size() - 1);
            Map<String, Integer> rank = new HashMap<>();
            Map<String, Integer> stampRank = new HashMap<>();
            int[] ranks = new int[rows];
            int[] stampRanks = new int[rows];
            for (int r = 0; r < rows; r++) {
                String id = ids.isNull(r) ? "" : ids.getObject(r).toString();
                ranks[r] = rank.computeIfAbsent(CommitRuns.keyOf(id), k -> rank.size());
                stampRanks[r] = stampRank.computeIfAbsent(id, k -> stampRank.size());
            }
            if (stampRank.size() > 1) {
                footer.put(FileLayout.UNSORTED, "true");
                keys.add((a, b) -> Integer.compare(ranks[a], ranks[b]));
                keys.add((a, b) -> Integer.compare(stampRanks[a], stampRanks[b]));
            }
        }
        for (String name : settings.layout().sortBy()) {
            int c = -1;
            for (int i = 0; i < settings.columns().size(); i++) {
                if (settings.columns().get(i).getName().equals(name)) {
                    c = i;
                }
            }
            if (c < 0) {
                throw new IllegalStateException("the sort column '" + name + "' is not a column of the file " + settings.columns());
            }
            keys.add(key(held.get(c)));
        }
        Integer[] order = new Integer[rows];
        for (int i = 0; i < rows; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            for (Key k : keys) {
                int x = k.compare(a, b);
                if (x != 0) {
                    return x;
                }
            }
            return Integer.compare(a, b);
        });
        return order;
    }

    private void writeSorted(Integer[] order) throws IOException {
        List<FieldVector> out = new ArrayList<>();
        try {
            for (FieldVector h : held) {
                FieldVector o = h.getField().createVector(allocator);
                o.allocateNew();
                out.add(o);
            }
            TransferPair[] pairs = new TransferPair[held.size()];
            for (int c = 0; c < pairs.length; c++) {
                pairs[c] = held.get(c).makeTransferPair(out.get(c));
            }
            for (int start = 0; start < rows; start += BATCH) {
                int n = Math.min(BATCH, rows - start);
                for (FieldVector o : out) {
                    o.clear();
                    o.allocateNew();
                }
                for (int c = 0; c < pairs.length; c++) {
                    for (int i = 0; i < n; i++) {
                        pairs[c].copyValueSafe(order[start + i], i);
                    }
                    out.get(c).setValueCount(n);
                }
                file.write(out, 0, n);
            }
        } finally {
            out.forEach(FieldVector::close);
        }
    }

    private void release() {
        if (held != null) {
            held.forEach(FieldVector::close);
            held = null;
        }
        if (allocator != null) {
            allocator.close();
            allocator = null;
        }
    }

    /** An order of two rows by one column: nulls first. */
    @FunctionalInterface
    private interface Key {
        int compare(int a, int b);
    }

    /** The order of a column's values as Parquet orders its type: unsigned bytes for strings and binary, unsigned for unsigned ints. */
    private static Key key(FieldVector v) {
        ArrowType t = v.getField().getType();
        Key values;
        if (t instanceof ArrowType.Int i && !i.getIsSigned()) {
            BaseIntVector n = (BaseIntVector) v;
            long mask = i.getBitWidth() == 64 ? -1L : (1L << i.getBitWidth()) - 1;
            values = (a, b) -> Long.compareUnsigned(n.getValueAsLong(a) & mask, n.getValueAsLong(b) & mask);
        } else if (v instanceof BaseIntVector n) {
            values = (a, b) -> Long.compare(n.getValueAsLong(a), n.getValueAsLong(b));
        } else if (v instanceof FloatingPointVector f) {
            values = (a, b) -> Double.compare(f.getValueAsDouble(a), f.getValueAsDouble(b));
        } else if (v instanceof BitVector bits) {
            values = (a, b) -> Integer.compare(bits.get(a), bits.get(b));
        } else if (v instanceof TimeStampVector ts) {
            values = (a, b) -> Long.compare(ts.get(a), ts.get(b));
        } else if (v instanceof DateDayVector d) {
            values = (a, b) -> Integer.compare(d.get(a), d.get(b));
        } else if (v instanceof DateMilliVector d) {
            values = (a, b) -> Long.compare(d.get(a), d.get(b));
        } else if (v instanceof DecimalVector d) {
            values = (a, b) -> d.getObject(a).compareTo(d.getObject(b));
        } else if (v instanceof Decimal256Vector d) {
            values = (a, b) -> d.getObject(a).compareTo(d.getObject(b));
        } else if (v instanceof ElementAddressableVector e) {
            values = (a, b) -> compareBytes(e.getDataPointer(a), e.getDataPointer(b));
        } else {
            values = (a, b) -> {
                @SuppressWarnings({"unchecked", "rawtypes"})
                int x = ((Comparable) v.getObject(a)).compareTo(v.getObject(b));
                return x;
            };
        }
        return (a, b) -> {
            boolean na = v.isNull(a);
            boolean nb = v.isNull(b);
            if (na || nb) {
                return na == nb ? 0 : na ? -1 : 1;
            }
            return values.compare(a, b);
        };
    }

    private static int compareBytes(ArrowBufPointer a, ArrowBufPointer b) {
        byte[] x = new byte[(int) a.getLength()];
        byte[] y = new byte[(int) b.getLength()];
        if (x.length > 0) {
            a.getBuf().getBytes(a.getOffset(), x);
        }
        if (y.length > 0) {
            b.getBuf().getBytes(b.getOffset(), y);
        }
        return Arrays.compareUnsigned(x, y);
    }
}
