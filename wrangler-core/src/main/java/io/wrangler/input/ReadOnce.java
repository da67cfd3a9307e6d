package io.wrangler.input;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A BatchSource read once (not replayable) that builds each batch into a root of its own: the rows a rewrite keeps of
 * files it reads (a merge's, a keyed rerun's), made batch by batch by {@link #next()} into {@link #fresh()}. Closing it
 * closes the current batch, then {@link #closeMore()}.
 */
public abstract class ReadOnce implements BatchSource {
    private final Schema schema;
    private final BufferAllocator allocator;
    private VectorSchemaRoot out;

    protected ReadOnce(Schema schema, BufferAllocator allocator) {
        this.schema = schema;
        this.allocator = allocator;
    }

    /** The previous batch closed, a new empty one of the schema, allocated, made current. */
    protected final VectorSchemaRoot fresh() {
        if (out != null) {
            out.close();
        }
        out = VectorSchemaRoot.create(schema, allocator);
        out.allocateNew();
        return out;
    }

    @Override
    public final Schema schema() {
        return schema;
    }

    @Override
    public final VectorSchemaRoot current() {
        return out;
    }

    @Override
    public final boolean replayable() {
        return false;
    }

    @Override
    public final void rewind() {
        throw new UnsupportedOperationException("read once");
    }

    /** Closes what the source holds besides its batch (a reader); nothing by default. */
    protected void closeMore() {
    }

    @Override
    public final void close() {
        if (out != null) {
            out.close();
            out = null;
        }
        closeMore();
    }
}
