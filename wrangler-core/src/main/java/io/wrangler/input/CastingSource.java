package io.wrangler.input;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A CastingSource is a source whose batches have some columns widened ({@link Casts}): each batch is the source's batch
 * with those columns replaced by widened copies, the others shared. The copies live until the next batch.
 */
public final class CastingSource implements BatchSource {
    private final BatchSource source;
    private final Map<String, Field> targets;
    private final Schema schema;
    private final BufferAllocator allocator = new RootAllocator();
    private final List<FieldVector> made = new ArrayList<>();
    private VectorSchemaRoot current;

    /** {@code targets}: the new field of each input column (by input name) that changes. */
    public CastingSource(BatchSource source, Map<String, Field> targets) {
        this.source = source;
        this.targets = Map.copyOf(targets);
        List<Field> fields = new ArrayList<>();
        for (Field f : source.schema().getFields()) {
            fields.add(targets.getOrDefault(f.getName(), f));
        }
        this.schema = new Schema(fields, source.schema().getCustomMetadata());
    }

    @Override
    public Schema schema() {
        return schema;
    }

    @Override
    public boolean next() throws IOException {
        release();
        if (!source.next()) {
            return false;
        }
        VectorSchemaRoot batch = source.current();
        List<FieldVector> vectors = new ArrayList<>();
        for (FieldVector v : batch.getFieldVectors()) {
            Field target = targets.get(v.getField().getName());
            if (target == null) {
                vectors.add(v);
            } else {
                FieldVector cast = Casts.cast(v, target, batch.getRowCount(), allocator);
                made.add(cast);
                vectors.add(cast);
            }
        }
        current = new VectorSchemaRoot(schema.getFields(), vectors, batch.getRowCount());
        return true;
    }

    @Override
    public VectorSchemaRoot current() {
        return current;
    }

    @Override
    public boolean replayable() {
        return source.replayable();
    }

    @Override
    public void rewind() {
        release();
        source.rewind();
    }

    private void release() {
        // The root is not closed: it shares the source's vectors; only the copies are this source's.
        made.forEach(FieldVector::close);
        made.clear();
        current = null;
    }

    /** Frees the widened copies; the source itself stays open (it is its caller's to close). */
    @Override
    public void close() {
        release();
        allocator.close();
    }
}
