package io.wrangler.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorBatchAppender;

/**
 * FullBatches gives the batches of a {@link TableReader} (at most {@code rows} rows each, never spanning two files) as
 * batches of exactly {@code rows} rows, the last one excepted, whatever the files: a file's tail is joined to the next
 * file's first rows.
 *
 * <p>A batch of {@code rows} rows that comes while nothing is pending is handed over as it is (its buffers moved, not
 * copied), and so is a pending batch that is the whole output batch. Otherwise the source's batches are held whole
 * (their buffers moved) with the range of their rows that goes to the output batch, and the output batch is allocated
 * once at its size and filled by one copy of each range: flat vectors buffer by buffer (values, offsets rebased,
 * validity bits), the others through slices and Arrow's appender. A row is copied at most once.
 */
public final class FullBatches extends ArrowReader {
    private final TableReader source;
    private final int rows;
    /** Ranges of held batches, in order: together fewer than {@link #rows} rows between calls. */
    private final List<Piece> pending = new ArrayList<>();
    private int pendingRows;

    /** Rows {@code [from, from + count)} of {@code root}, a batch of the source held here; {@code last}: its last range. */
    private record Piece(VectorSchemaRoot root, int from, int count, boolean last) {
    }

    /** @param allocator the allocator of {@code source}'s batches */
    public FullBatches(TableReader source, BufferAllocator allocator, int rows) {
        super(allocator);
        if (rows < 1) {
            throw new IllegalArgumentException("rows must be at least 1, got " + rows);
        }
        this.source = source;
        this.rows = rows;
    }

    /** The reader whose batches are joined. */
    public TableReader source() {
        return source;
    }

    /** {@link TableReader#threads}; call before the first batch. */
    public FullBatches threads(int threads) {
        source.threads(threads);
        return this;
    }

    @Override
    protected Schema readSchema() {
        return source.schema();
    }

    @Override
    public boolean loadNextBatch() throws IOException {
        prepareLoadNextBatch();
        VectorSchemaRoot out = getVectorSchemaRoot();
        while (source.loadNextBatch()) {
            VectorSchemaRoot in = source.getVectorSchemaRoot();
            int n = in.getRowCount();
            if (n == 0) {
                continue;
            }
            if (pendingRows == 0 && n == rows) {
                move(in, out);
                return true;
            }
            VectorSchemaRoot held = detach(in);
            int take = Math.min(n, rows - pendingRows);
            hold(new Piece(held, 0, take, take == n));
            if (pendingRows < rows) {
                continue; // the batch went whole into the pending rows
            }
            emit(out);
            if (take < n) {
                hold(new Piece(held, take, n - take, true));
            }
            return true;
        }
        if (pendingRows > 0) {
            emit(out);
            return true;
        }
        out.setRowCount(0);
        return false;
    }

    private void hold(Piece p) {
        pending.add(p);
        pendingRows += p.count();
    }

    /** The source's batch moved into vectors of this reader's own: the source refills its root. */
    private VectorSchemaRoot detach(VectorSchemaRoot in) {
        List<FieldVector> moved = new ArrayList<>();
        for (FieldVector v : in.getFieldVectors()) {
            TransferPair t = v.getTransferPair(allocator);
            t.transfer();
            moved.add((FieldVector) t.getTo());
        }
        return new VectorSchemaRoot(in.getSchema().getFields(), moved, in.getRowCount());
    }

    /** The pending ranges joined into {@code out}. */
    private void emit(VectorSchemaRoot out) {
        try {
            Piece first = pending.get(0);
            if (pending.size() == 1 && first.from() == 0 && first.count() == first.root().getRowCount()) {
                move(first.root(), out);
                return;
            }
            List<FieldVector> to = out.getFieldVectors();
            for (int c = 0; c < to.size(); c++) {
                FieldVector v = to.get(c);
                if (v instanceof BaseVariableWidthVector x) {
                    joinVariableWidth(x, c);
                } else if (v instanceof BaseFixedWidthVector x) {
                    joinFixedWidth(x, c);
                } else {
                    joinSlices(v, c);
                }
            }
            out.setRowCount(pendingRows);
        } finally {
            release();
        }
    }

    private void joinFixedWidth(BaseFixedWidthVector to, int c) {
        to.allocateNew(pendingRows);
        ArrowBuf validity = to.getValidityBuffer();
        validity.setZero(0, validity.capacity());
        boolean bits = to instanceof BitVector;
        ArrowBuf data = to.getDataBuffer();
        if (bits) {
            data.setZero(0, data.capacity());
        }
        long width = bits ? 0 : to.getTypeWidth();
        int at = 0;
        for (Piece p : pending) {
            BaseFixedWidthVector from = (BaseFixedWidthVector) p.root().getVector(c);
            copyBits(from.getValidityBuffer(), p.from(), validity, at, p.count());
            if (bits) {
                copyBits(from.getDataBuffer(), p.from(), data, at, p.count());
            } else {
                data.setBytes(at * width, from.getDataBuffer(), p.from() * width, p.count() * width);
            }
            at += p.count();
        }
    }

    private void joinVariableWidth(BaseVariableWidthVector to, int c) {
        long bytes = 0;
        for (Piece p : pending) {
            ArrowBuf offsets = ((BaseVariableWidthVector) p.root().getVector(c)).getOffsetBuffer();
            bytes += offsets.getInt(4L * (p.from() + p.count())) - offsets.getInt(4L * p.from());
        }
        to.allocateNew(Math.max(1, bytes), pendingRows);
        ArrowBuf validity = to.getValidityBuffer();
        validity.setZero(0, validity.capacity());
        ArrowBuf offsets = to.getOffsetBuffer();
        ArrowBuf data = to.getDataBuffer();
        offsets.setInt(0, 0);
        int at = 0;
        int end = 0;
        for (Piece p : pending) {
            BaseVariableWidthVector from = (BaseVariableWidthVector) p.root().getVector(c);
            copyBits(from.getValidityBuffer(), p.from(), validity, at, p.count());
            ArrowBuf src = from.getOffsetBuffer();
            int start = src.getInt(4L * p.from());
            int length = src.getInt(4L * (p.from() + p.count())) - start;
            rebase(src, p.from() + 1, offsets, at + 1, p.count(), end - start);
            data.setBytes(end, from.getDataBuffer(), start, length);
            end += length;
            at += p.count();
        }
        to.setLastSet(pendingRows - 1);
    }

    /**
     * Writes the {@code n} offsets of {@code src} from slot {@code from} to {@code dst} from slot {@code to}, plus
     * {@code delta}: at memory addresses, both ranges checked against their buffers first (a VarHandle or a checked
     * ArrowBuf access per row costs a JVM's first read most, run by the interpreter).
     */
    private static void rebase(ArrowBuf src, int from, ArrowBuf dst, int to, int n, int delta) {
        if (4L * (from + n) > src.capacity() || 4L * (to + n) > dst.capacity()) {
            throw new IllegalStateException("offsets out of their buffers: " + n + " from " + from + " of " + src.capacity() + " bytes to "
                    + to + " of " + dst.capacity());
        }
        long s = src.memoryAddress() + 4L * from;
        long d = dst.memoryAddress() + 4L * to;
        for (int i = 0; i < n; i++) {
            MemoryUtil.putInt(d + 4L * i, MemoryUtil.getInt(s + 4L * i) + delta);
        }
    }

    /** Any other vector (lists, maps, structs): the ranges as slices, the first moved, the others appended. */
    private void joinSlices(FieldVector to, int c) {
        List<FieldVector> slices = new ArrayList<>();
        try {
            for (Piece p : pending) {
                TransferPair t = p.root().getVector(c).getTransferPair(allocator);
                t.splitAndTransfer(p.from(), p.count());
                slices.add((FieldVector) t.getTo());
            }
            slices.get(0).makeTransferPair(to).transfer();
            if (slices.size() > 1) {
                VectorBatchAppender.batchAppend(to, slices.subList(1, slices.size()).toArray(new FieldVector[0]));
            }
        } finally {
            slices.forEach(FieldVector::close);
        }
    }

    /**
     * Copies {@code n} bits from bit {@code from} of {@code src} to bit {@code to} of {@code dst}, whose bits there are
     * zero: bytes when both start on a byte, else 56 bits at a time through longs, the last bits one by one.
     */
    static void copyBits(ArrowBuf src, long from, ArrowBuf dst, long to, int n) {
        int i = 0;
        if ((from & 7) == 0 && (to & 7) == 0) {
            int whole = n >>> 3;
            dst.setBytes(to >>> 3, src, from >>> 3, whole);
            i = whole << 3;
        } else {
            long mask = (1L << 56) - 1;
            while (n - i >= 56 && ((from + i) >>> 3) + 8 <= src.capacity() && ((to + i) >>> 3) + 8 <= dst.capacity()) {
                long s = from + i;
                long d = to + i;
                long bits = (src.getLong(s >>> 3) >>> (s & 7)) & mask;
                long at = d >>> 3;
                dst.setLong(at, dst.getLong(at) | (bits << (d & 7)));
                i += 56;
            }
        }
        for (; i < n; i++) {
            if (BitVectorHelper.get(src, (int) (from + i)) != 0) {
                BitVectorHelper.setBit(dst, to + i);
            }
        }
    }

    private static void move(VectorSchemaRoot from, VectorSchemaRoot to) {
        List<FieldVector> src = from.getFieldVectors();
        List<FieldVector> dst = to.getFieldVectors();
        for (int c = 0; c < src.size(); c++) {
            src.get(c).makeTransferPair(dst.get(c)).transfer();
        }
        to.setRowCount(from.getRowCount());
    }

    /** Closes the held batches whose last range was emitted; keeps the one whose rest goes to the next batch. */
    private void release() {
        for (Piece p : pending) {
            if (p.last()) {
                p.root().close();
            }
        }
        pending.clear();
        pendingRows = 0;
    }

    @Override
    public long bytesRead() {
        return source.bytesRead();
    }

    @Override
    protected void closeReadSource() throws IOException {
        release();
        source.close();
    }
}
