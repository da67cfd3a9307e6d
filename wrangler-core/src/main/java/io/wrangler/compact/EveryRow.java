package io.wrangler.compact;

import java.util.BitSet;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** The test of {@code everyRow()}: every row of the scope matches. */
public final class EveryRow implements RowMatch {
    @Override
    public List<String> columns() {
        return List.of();
    }

    @Override
    public String refusal(Schema table) {
        return null;
    }

    @Override
    public void match(VectorSchemaRoot batch, BitSet matched) {
        matched.clear();
        matched.set(0, batch.getRowCount());
    }

    @Override
    public String describe() {
        return "everyRow()";
    }
}
