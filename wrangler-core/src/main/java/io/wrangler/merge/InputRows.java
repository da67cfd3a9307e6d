package io.wrangler.merge;

import io.wrangler.InvalidWriteException;
import io.wrangler.WriteStep;
import io.wrangler.compact.Dedup;
import io.wrangler.input.BatchSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The merge's input, held in memory (a merge's memory is bounded by its input and one file of the table at a time) and
 * checked before anything is read from the table: the key and order columns exist, no key is null, and each key has one
 * row (or, with an order column, the row with the greatest order value wins: {@link Dedup}'s rule, nulls lowest, a tie
 * to the later row). {@link #winner} is each key's one row.
 */
final class InputRows implements AutoCloseable {
    final Schema schema;
    final List<VectorSchemaRoot> batches = new ArrayList<>();
    /** The input's key columns, as the input spells them. */
    final List<String> keys;
    /** The order column as the input spells it, or null. */
    final String order;
    /** The input's distinct keys, numbered. */
    final KeyIndex index;
    /** Each key's winning row, by its number: its batch and row, as {@code batch << 32 | row}. */
    long[] winner = new long[1024];
    long rows;

    private InputRows(Schema schema, List<String> keys, String order) {
        this.schema = schema;
        this.keys = keys;
        this.order = order;
        this.index = new KeyIndex(keys.stream().map(k -> schema.findField(k).getType()).toList(), this::keyVectors);
    }

    /** The key columns of the input's batch {@code batch}. */
    List<FieldVector> keyVectors(int batch) {
        VectorSchemaRoot root = batches.get(batch);
        return keys.stream().map(root::getVector).toList();
    }

    /** Reads {@code source} whole into {@code allocator}'s memory and checks it; see the class comment. */
    static InputRows read(MergeSpec spec, BatchSource source, BufferAllocator allocator) throws IOException {
        Schema schema = source.schema();
        List<String> keys = new ArrayList<>();
        for (String k : spec.keys()) {
            keys.add(column(spec, schema, k, "key column", "on(...)"));
        }
        String order = spec.orderBy() == null ? null : column(spec, schema, spec.orderBy(), "order column", "orderBy(...)");
        if (order != null) {
            String unordered = Dedup.unordered(schema.findField(order));
            if (unordered != null) {
                throw invalid(spec, "the order column '" + order + "' is of the type " + unordered + ", whose values have no order. "
                        + "Order by a number, string, binary, boolean, decimal, date, time or timestamp column");
            }
        }
        InputRows in = new InputRows(schema, List.copyOf(keys), order);
        try {
            while (source.next()) {
                VectorSchemaRoot b = source.current();
                VectorSchemaRoot copy = VectorSchemaRoot.create(schema, allocator);
                in.batches.add(copy);
                copy.allocateNew();
                for (int c = 0; c < schema.getFields().size(); c++) {
                    FieldVector to = copy.getVector(c);
                    FieldVector from = b.getVector(c);
                    if (b.getRowCount() > 0 && Runs.copy(from, 0, b.getRowCount(), to, 0)) {
                        continue; // flat values: copied in one run
                    }
                    for (int i = 0; i < b.getRowCount(); i++) {
                        to.copyFromSafe(i, i, from);
                    }
                }
                copy.setRowCount(b.getRowCount());
                in.rows += b.getRowCount();
            }
            in.pickWinners(spec);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
        return in;
    }

    /** The input's column named {@code name} (case aside), as the input spells it; refused when there is none. */
    private static String column(MergeSpec spec, Schema schema, String name, String what, String option) {
        for (Field f : schema.getFields()) {
            if (f.getName().equalsIgnoreCase(name)) {
                return f.getName();
            }
        }
        throw invalid(spec, "the " + what + " '" + name + "' is not a column of the input; its columns are "
                + schema.getFields().stream().map(Field::getName).toList() + ". Name columns of the input in " + option);
    }

    static InvalidWriteException invalid(MergeSpec spec, String what) {
        return new InvalidWriteException(spec.table(), WriteStep.VALIDATE, spec.cannot("validate") + what + "; nothing was changed.");
    }

    private void pickWinners(MergeSpec spec) {
        long at = 0;
        for (int b = 0; b < batches.size(); b++) {
            VectorSchemaRoot root = batches.get(b);
            List<FieldVector> k = keyVectors(b);
            FieldVector o = order == null ? null : root.getVector(order);
            for (int i = 0; i < root.getRowCount(); i++, at++) {
                int known = index.size();
                int id = index.add(k, b, i);
                if (id < 0) {
                    throw invalid(spec, "the key column '" + firstNull(k, i) + "' is null in row " + at + " of the input (rows counted "
                            + "from 0). Every row needs a key: fill it, or leave the row out");
                }
                long ref = (long) b << 32 | i;
                if (id == known) {
                    if (id == winner.length) {
                        winner = java.util.Arrays.copyOf(winner, id * 2);
                    }
                    winner[id] = ref;
                    continue;
                }
                long was = winner[id];
                if (o == null) {
                    throw invalid(spec, "the key " + shown(k, i) + " is in more than one row of the input (rows " + global(was)
                            + " and " + at + ", counted from 0). Give each key one row, or name an orderBy(...) column to keep its newest");
                }
                VectorSchemaRoot wasRoot = batches.get((int) (was >>> 32));
                int c = Dedup.compare(Dedup.order(o, i), Dedup.order(wasRoot.getVector(order), (int) was));
                if (c >= 0) {
                    winner[id] = ref; // a tie goes to the later row
                }
            }
        }
    }

    /** The global row number (from 0) of a reference {@code batch << 32 | row}. */
    long global(long ref) {
        long n = 0;
        int batch = (int) (ref >>> 32);
        for (int b = 0; b < batch; b++) {
            n += batches.get(b).getRowCount();
        }
        return n + (int) ref;
    }

    private static String firstNull(List<FieldVector> k, int i) {
        for (FieldVector v : k) {
            if (v.isNull(i)) {
                return v.getName();
            }
        }
        return k.get(0).getName();
    }

    /** {@code order_id=7, region=eu}: the key of row {@code i} as a message shows it. */
    static String shown(List<FieldVector> k, int i) {
        StringBuilder s = new StringBuilder();
        for (FieldVector v : k) {
            s.append(s.length() == 0 ? "" : ", ").append(v.getName()).append('=').append(v.getObject(i));
        }
        return s.toString();
    }

    /** The vectors of the column {@code name} in every batch. */
    List<FieldVector> column(String name) {
        return batches.stream().map(b -> b.getVector(name)).toList();
    }

    @Override
    public void close() {
        batches.forEach(VectorSchemaRoot::close);
        batches.clear();
    }
}
