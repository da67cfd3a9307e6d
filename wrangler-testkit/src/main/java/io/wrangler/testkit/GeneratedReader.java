package io.wrangler.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A GeneratedReader is an {@link ArrowReader} whose batches are made on demand by a function, so that a test or a
 * benchmark can stream a table of any size through {@code S3Parquet.write(ArrowReader)} without ever holding it.
 *
 * <pre>{@code
 * try (GeneratedReader stream = new GeneratedReader(allocator, schema, 50_000_000, 65_536, (root, first, count) -> {
 *     root.allocateNew();
 *     // set rows first .. first + count - 1 of the table at positions 0 .. count - 1
 *     root.setRowCount(count);
 * })) {
 *     S3Parquet.write(stream).partitionBy("dt").to(uri);
 * }
 * }</pre>
 */
public final class GeneratedReader extends ArrowReader {
    /** Makes one batch: rows {@code [first, first + count)} of the table, into {@code root}, row count included. */
    @FunctionalInterface
    public interface Batches {
        void fill(VectorSchemaRoot root, long first, int count);
    }

    private final Schema schema;
    private final long rows;
    private final int batchRows;
    private final Batches batches;
    private long next;

    /**
     * @param rows rows of the whole table
     * @param batchRows rows of each batch (the last may have fewer)
     */
    public GeneratedReader(BufferAllocator allocator, Schema schema, long rows, int batchRows, Batches batches) {
        super(allocator);
        if (batchRows < 1) {
            throw new IllegalArgumentException("batchRows must be at least 1, got " + batchRows);
        }
        this.schema = schema;
        this.rows = rows;
        this.batchRows = batchRows;
        this.batches = batches;
    }

    @Override
    public boolean loadNextBatch() {
        if (next >= rows) {
            return false;
        }
        int count = (int) Math.min(batchRows, rows - next);
        try {
            batches.fill(getVectorSchemaRoot(), next, count);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        next += count;
        return true;
    }

    @Override
    public long bytesRead() {
        return 0;
    }

    @Override
    protected void closeReadSource() {
    }

    @Override
    protected Schema readSchema() {
        return schema;
    }
}
