package io.wrangler.filter;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;

/** Rows keeps the selected rows of a decoded batch, in place. */
public final class Rows {
    private Rows() {
    }

    /**
     * Leaves in {@code batch} only the rows {@code rows} (ascending indexes of its rows), in that order: every vector is
     * copied to new buffers of the kept rows, which replace its own.
     */
    public static void keep(VectorSchemaRoot batch, int[] rows) {
        int n = batch.getRowCount();
        if (rows.length == n) {
            return;
        }
        for (FieldVector v : batch.getFieldVectors()) {
            BufferAllocator allocator = v.getAllocator();
            try (FieldVector copy = (FieldVector) v.getField().createVector(allocator)) {
                copy.setInitialCapacity(Math.max(1, rows.length));
                copy.allocateNew();
                TransferPair pair = v.makeTransferPair(copy);
                for (int j = 0; j < rows.length; j++) {
                    pair.copyValueSafe(rows[j], j);
                }
                copy.setValueCount(rows.length);
                copy.makeTransferPair(v).transfer();
            }
        }
        batch.setRowCount(rows.length);
    }
}
