package io.wrangler.encoding;

import org.apache.arrow.vector.ValueVector;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * A ValueWriter writes one Arrow value of one field to a Parquet record, as the field of its parent group.
 * Built once per column by {@link ArrowSchemas}, so the Parquet type and the way values are written come
 * from the same walk of the Arrow type and cannot disagree.
 */
abstract class ValueWriter {
    final String name;
    final int index;

    ValueWriter(String name, int index) {
        this.name = name;
        this.index = index;
    }

    /** Writes the value at {@code row} as field {@code name}; a null value is left out (Parquet's optional). */
    final void writeField(RecordConsumer rc, ValueVector v, int row) {
        if (v.isNull(row)) {
            return;
        }
        rc.startField(name, index);
        writeValue(rc, v, row);
        rc.endField(name, index);
    }

    abstract void writeValue(RecordConsumer rc, ValueVector v, int row);
}
