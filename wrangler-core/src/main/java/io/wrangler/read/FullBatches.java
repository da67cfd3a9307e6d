package io.wrangler.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorBatchAppender;

/**
 * FullBatches gives the batches of a {@link TableReader} (at most {@code rows} rows each, never spanning two files) as
 * batches of exactly {@code rows} rows, the last one excepted, whatever the files: a file's tail is joined to the next
 * file's first rows.
 *
 * <p>A batch of {@code rows} rows that comes while nothing is pending is handed over as it is (its buffers moved, not
 * copied). Otherwise the batch is cut where the pending rows reach {@code rows}, each part held as a slice that shares
 * the batch's buffers, and the slices of an output batch are joined by one copy of each but the first (moved): a row is
 * copied at most once.
 */
public final class FullBatches extends ArrowReader {
    private final TableReader source;
    private final int rows;
    /** Slices of batches, in order, owned here: together fewer than {@link #rows} rows between calls. */
    private final List<VectorSchemaRoot> pending = new ArrayList<>();
    private int pendingRows;

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
            int take = Math.min(n, rows - pendingRows);
            hold(in.slice(0, take));
            if (pendingRows < rows) {
                continue; // the batch went whole into the pending rows
            }
            emit(out);
            if (take < n) {
                hold(in.slice(take, n - take));
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

    private void hold(VectorSchemaRoot slice) {
        pending.add(slice);
        pendingRows += slice.getRowCount();
    }

    /** The pending slices joined into {@code out}: the first moved, the others appended. */
    private void emit(VectorSchemaRoot out) {
        try {
            move(pending.get(0), out);
            List<FieldVector> to = out.getFieldVectors();
            for (int c = 0; c < to.size() && pending.size() > 1; c++) {
                FieldVector[] more = new FieldVector[pending.size() - 1];
                for (int s = 1; s < pending.size(); s++) {
                    more[s - 1] = pending.get(s).getVector(c);
                }
                VectorBatchAppender.batchAppend(to.get(c), more);
            }
            out.setRowCount(pendingRows);
        } finally {
            release();
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

    private void release() {
        pending.forEach(VectorSchemaRoot::close);
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
