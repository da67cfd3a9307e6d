package io.wrangler.merge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Which files can hold one of the input's keys, from their footers alone: a row group can when its statistics of the
 * first key column are missing, or when some input key lies between its minimum and maximum. Only the first key column
 * is looked at (a file that cannot hold any value of it cannot hold a key); columns of other types than signed
 * integers, dates and strings are not pruned (every file of the matched partitions is read). A file this keeps may
 * still hold no key: the key scan ({@link MergePlan}) reads its key columns to know.
 */
final class KeyPruning {
    /** The first key column's input values, as Parquet's statistics hold them (Integer, Long or Binary); null: no pruning. */
    private final List<Comparable<?>> values;
    /** The column as the files name it. */
    private final String column;
    /** The values sorted by the comparator of each physical type met (signedness and logical type decide it). */
    private final Map<PrimitiveType, TreeSet<Object>> sorted = new HashMap<>();

    private KeyPruning(List<Comparable<?>> values, String column) {
        this.values = values;
        this.column = column;
    }

    /** The pruning by the values of {@code keys} (the input's first key column, every batch of it) named {@code column} in the files. */
    static KeyPruning of(List<FieldVector> keys, String column) {
        List<Comparable<?>> out = new ArrayList<>();
        for (FieldVector v : keys) {
            for (int i = 0; i < v.getValueCount(); i++) {
                Comparable<?> c = statValue(v, i);
                if (c == null) {
                    return new KeyPruning(null, column);
                }
                out.add(c);
            }
        }
        return new KeyPruning(out, column);
    }

    private static Comparable<?> statValue(FieldVector v, int i) {
        if (v instanceof IntVector x) {
            return x.get(i);
        }
        if (v instanceof BigIntVector x) {
            return x.get(i);
        }
        if (v instanceof SmallIntVector x) {
            return (int) x.get(i);
        }
        if (v instanceof TinyIntVector x) {
            return (int) x.get(i);
        }
        if (v instanceof DateDayVector x) {
            return x.get(i);
        }
        if (v instanceof VarCharVector x) {
            return Binary.fromConstantByteArray(x.get(i));
        }
        return null;
    }

    /** Whether the file whose footer is {@code footer} can hold one of the keys. */
    boolean mayHold(ParquetMetadata footer) {
        if (values == null) {
            return true;
        }
        for (BlockMetaData block : footer.getBlocks()) {
            if (mayHold(block)) {
                return true;
            }
        }
        return false;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private boolean mayHold(BlockMetaData block) {
        if (block.getRowCount() == 0) {
            return false;
        }
        for (ColumnChunkMetaData c : block.getColumns()) {
            if (c.getPath().size() != 1 || !c.getPath().toArray()[0].equalsIgnoreCase(column)) {
                continue;
            }
            Statistics s = c.getStatistics();
            if (s == null || s.isEmpty()) {
                return true; // no statistics: it may
            }
            if (!s.hasNonNullValue()) {
                return false; // every value null: no key (keys are never null)
            }
            TreeSet<Object> set = sorted.computeIfAbsent(c.getPrimitiveType(), t -> sortedBy(t));
            if (set == null) {
                return true;
            }
            Object first = set.ceiling(s.genericGetMin());
            return first != null && s.comparator().compare((Comparable) first, s.genericGetMax()) <= 0;
        }
        return true; // the file has no such column (a file older than the key): its rows' keys are null, read it anyway
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private TreeSet<Object> sortedBy(PrimitiveType type) {
        Class<?> want = switch (type.getPrimitiveTypeName()) {
            case INT32 -> Integer.class;
            case INT64 -> Long.class;
            case BINARY -> Binary.class;
            default -> null;
        };
        if (want == null || values.isEmpty() || !want.isInstance(values.get(0))) {
            return null;
        }
        TreeSet<Object> set = new TreeSet<>((a, b) -> type.comparator().compare(a, b));
        set.addAll(values);
        return set;
    }
}
