package io.wrangler.merge;

import io.wrangler.catalog.TableLayout;
import io.wrangler.hive.HivePaths;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.read.TableSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The merge's columns: the table's partition columns and their types (the catalog's; without one the folder text, so
 * that every row lands in the very folder its value names, as a compaction keeps them), the table's columns as a read
 * has them, and the new files' columns: the table's, then the input's columns the table lacks (added, as a write adds
 * them; the table's rows have nulls there). An input column of another type than the table's is refused before any
 * change: a merge rewrites rows, it does not change a column's type.
 */
final class MergeColumns {
    final List<String> partitionColumns;
    final Map<String, Field> partitionTypes = new HashMap<>();
    /** The catalog's data columns, or null without a catalog. */
    final Map<String, Field> catalogColumns;
    /** The table's columns by lower-case name (data and partition), once known. */
    private final Map<String, Field> table = new HashMap<>();
    /** The input's partition columns, in the table's order, as the input spells them. */
    private final List<String> inputPartitions = new ArrayList<>();
    /** The new files' columns (partition columns included). */
    Schema output;

    private MergeColumns(List<String> partitionColumns, Map<String, Field> catalogColumns) {
        this.partitionColumns = List.copyOf(partitionColumns);
        this.catalogColumns = catalogColumns;
    }

    static MergeColumns of(MergeSpec spec, InputRows input, TableFiles.Listing listing, TableLayout layout) {
        List<String> given = spec.options().partitionBy();
        List<String> partitions = listing.files().isEmpty() && layout == null ? given : listing.partitionColumns();
        if (!given.isEmpty() && !lower(given).equals(lower(partitions))) {
            throw InputRows.invalid(spec, "partitionBy " + given + " differs from the table's partition columns " + partitions
                    + ". Leave partitionBy out (a merge keeps the table's partitions) or name the table's");
        }
        MergeColumns c = new MergeColumns(partitions, layout == null ? null : TableSchema.dataColumns(layout));
        if (layout != null) {
            c.partitionTypes.putAll(TableSchema.partitionTypes(layout));
        }
        for (String p : partitions) {
            Field f = field(input.schema, p);
            if (f == null) {
                throw InputRows.invalid(spec, "the input has no column '" + p + "', a partition column of the table, so its rows "
                        + "have no partition. Add the column to the input");
            }
            c.inputPartitions.add(f.getName());
            if (listing.files().isEmpty() && layout == null) {
                c.partitionTypes.put(p, new Field(p, f.getFieldType(), f.getChildren())); // a new table: the input's types
            } else {
                c.partitionTypes.putIfAbsent(p, new Field(p, FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
            }
        }
        for (String k : input.keys) {
            if (partitions.stream().anyMatch(k::equalsIgnoreCase)) {
                throw InputRows.invalid(spec, "the key column '" + k + "' is a partition column of the table. Merge on columns "
                        + "of the rows (a partition is replaced whole with a write of mode OVERWRITE_PARTITIONS)");
            }
        }
        return c;
    }

    /**
     * Sets the table's columns from {@code reader} (null: the table has no file yet, and the input's columns are the
     * table's), checks the input's columns against them, and makes the new files' columns. Closes the reader.
     */
    void tableSchema(TableReader reader, MergeSpec spec, InputRows input) throws IOException {
        List<Field> fields = new ArrayList<>();
        if (reader == null) {
            for (Field f : input.schema.getFields()) {
                if (partitionColumns.stream().noneMatch(f.getName()::equalsIgnoreCase)) {
                    fields.add(f);
                }
            }
            partitionColumns.forEach(p -> fields.add(partitionTypes.get(p)));
        } else {
            try (reader) {
                fields.addAll(reader.schema().getFields());
            }
        }
        fields.forEach(f -> table.put(f.getName().toLowerCase(Locale.ROOT), f));
        for (String k : input.keys) {
            if (!table.containsKey(k.toLowerCase(Locale.ROOT))) {
                throw InputRows.invalid(spec, "the key column '" + k + "' is not a column of the table; its columns are "
                        + fields.stream().map(Field::getName).toList() + ". Merge on columns the table has");
            }
        }
        for (Field f : input.schema.getFields()) {
            Field t = table.get(f.getName().toLowerCase(Locale.ROOT));
            if (t == null) {
                fields.add(new Field(f.getName(), FieldType.nullable(f.getType()), f.getChildren())); // the table's rows: null
            } else if (!inputPartitions.contains(f.getName()) && !sameType(t, f)) {
                String what = input.keys.contains(f.getName()) ? "key column" : "column";
                throw InputRows.invalid(spec, "the " + what + " '" + f.getName() + "' is " + f.getType() + " in the input and "
                        + t.getType() + " in the table. Give it the table's type");
            } else if (inputPartitions.contains(f.getName()) && !t.getType().equals(ArrowType.Utf8.INSTANCE) && !sameType(t, f)) {
                throw InputRows.invalid(spec, "the partition column '" + f.getName() + "' is " + f.getType() + " in the input and "
                        + t.getType() + " in the catalog. Give it the catalog's type");
            }
        }
        output = new Schema(fields);
    }

    static boolean sameType(Field a, Field b) {
        if (!a.getType().equals(b.getType()) || a.getChildren().size() != b.getChildren().size()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameType(a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }

    /** The table's columns (data and partition), as a read types them. */
    List<Field> tableFields() {
        return new ArrayList<>(table.values());
    }

    /** The table's spelling of the input column {@code name}. */
    String tableName(String name) {
        return table.get(name.toLowerCase(Locale.ROOT)).getName();
    }

    /** The table's spelling of the input column {@code name}, or null when the table lacks it. */
    String tableNameOrNull(String name) {
        Field f = table.get(name.toLowerCase(Locale.ROOT));
        return f == null ? null : f.getName();
    }

    /** The input's partition columns of {@code b}, in the table's order. */
    List<FieldVector> inputPartitionVectors(VectorSchemaRoot b) {
        return inputPartitions.stream().map(b::getVector).toList();
    }

    /** The input's spelling of the partition column {@code p}, or null when {@code p} is not one. */
    String inputPartition(String p) {
        for (int i = 0; i < partitionColumns.size(); i++) {
            if (partitionColumns.get(i).equalsIgnoreCase(p)) {
                return inputPartitions.get(i);
            }
        }
        return null;
    }

    /** The Hive folder of a partition's values. */
    String folderOf(List<String> values) {
        return HivePaths.folder(partitionColumns, values);
    }

    private static Field field(Schema s, String name) {
        return s.getFields().stream().filter(f -> f.getName().equalsIgnoreCase(name)).findFirst().orElse(null);
    }

    private static List<String> lower(List<String> names) {
        return names.stream().map(n -> n.toLowerCase(Locale.ROOT)).toList();
    }
}
