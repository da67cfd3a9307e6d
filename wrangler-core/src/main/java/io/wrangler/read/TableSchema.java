package io.wrangler.read;

import io.wrangler.ReadException;
import io.wrangler.catalog.TableLayout;
import io.wrangler.hive.HiveTypes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * A table's schema as every operation sees it: the union by name of its files' columns (matched case-insensitively, as
 * Hive, Glue and Athena match them), the catalog's columns, and when two files' types of one column are one type.
 *
 * <p>Two files agree on a column when its type is the same in both, structurally: the names Parquet and Arrow give the
 * fields inside lists and maps ({@code element}, {@code item}, {@code $data$}, {@code entries}, {@code key_value}) do
 * not count, and neither does nullability, at any depth; the table's column is nullable wherever one file's is
 * ({@link #merge}). A struct's fields are matched by name and order. Reads and compaction take the table's schema, its
 * catalog's columns and their partition columns' types from here, and compare types with this one comparison.
 */
public final class TableSchema {
    private final String table;
    private final List<TableFiles.DataFile> files;
    /** The catalog's data columns, by its names in its order, with its types (null where wrangler cannot read the type). */
    private final Map<String, Field> catalogColumns;
    /** The catalog's spelling of its columns, by {@link #key}. */
    private final Map<String, String> catalogNames = new HashMap<>();

    /**
     * @param files the files whose schemas {@link #union} is given, in file order
     * @param catalogColumns the catalog's data columns ({@link #dataColumns}), or null without a catalog
     */
    TableSchema(String table, List<TableFiles.DataFile> files, Map<String, Field> catalogColumns) {
        this.table = table;
        this.files = files;
        this.catalogColumns = catalogColumns;
    }

    /**
     * The data columns a catalog declares (its columns less its partition keys), in its order, each typed as the catalog
     * types it, or null where wrangler does not read the type ({@code varchar(10)}).
     */
    public static Map<String, Field> dataColumns(TableLayout layout) {
        Set<String> keys = new HashSet<>();
        layout.partitionColumns().forEach(c -> keys.add(c.toLowerCase(Locale.ROOT)));
        Map<String, Field> out = new LinkedHashMap<>();
        layout.types().forEach((name, hive) -> {
            if (!keys.contains(name.toLowerCase(Locale.ROOT))) {
                Field f;
                try {
                    f = hive == null ? null : HiveTypes.parse(name, hive);
                } catch (IllegalArgumentException unknown) {
                    f = null;
                }
                out.put(name, f);
            }
        });
        return out;
    }

    /**
     * The Arrow types of the partition columns the catalog types, by name; a type wrangler does not write
     * ({@code varchar(10)}) is left out, to be inferred from the folders' values.
     */
    public static Map<String, Field> partitionTypes(TableLayout layout) {
        Map<String, Field> out = new HashMap<>();
        for (String c : layout.partitionColumns()) {
            String hive = layout.types().get(c);
            try {
                if (hive != null) {
                    out.put(c, HiveTypes.parse(c, hive));
                }
            } catch (IllegalArgumentException unknown) {
                // inferred from the values instead
            }
        }
        return out;
    }

    /**
     * The data columns a reader of {@code files} (without a catalog) resolves from their footers' schemas, one per file in
     * file order: their union by name, as {@link #union} makes it; for an operation that adopts files it did not write.
     *
     * @throws ReadException when two files' types of a column are not one type, or a file's type is one wrangler does
     *     not read (the message names the files)
     */
    public static List<Field> ofFiles(String table, List<TableFiles.DataFile> files, List<MessageType> schemas) {
        return new TableSchema(table, files, null).union(schemas);
    }

    /** A column's name as columns are matched: case-insensitively, as Hive, Glue and Athena do. */
    static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    static Field rename(Field f, String name) {
        return f.getName().equals(name) ? f : new Field(name, f.getFieldType(), f.getChildren());
    }

    static String describe(Field f) {
        return f.getType() + (f.getChildren().isEmpty() ? "" : " " + f.getChildren());
    }

    /**
     * The one type of {@code a} and {@code b} when they are one type structurally (names inside lists and maps and
     * nullability not counted): {@code a}'s names, nullable wherever either is; null when they are not one type.
     */
    public static Field merge(Field a, Field b) {
        if (!a.getType().equals(b.getType()) || a.getChildren().size() != b.getChildren().size()) {
            return null;
        }
        boolean struct = a.getType() instanceof ArrowType.Struct;
        List<Field> children = new ArrayList<>(a.getChildren().size());
        for (int i = 0; i < a.getChildren().size(); i++) {
            Field ca = a.getChildren().get(i);
            Field cb = b.getChildren().get(i);
            Field m = struct && !ca.getName().equals(cb.getName()) ? null : merge(ca, cb);
            if (m == null) {
                return null;
            }
            children.add(m);
        }
        boolean nullable = a.isNullable() || b.isNullable();
        if (nullable == a.isNullable() && children.equals(a.getChildren())) {
            return a;
        }
        return new Field(a.getName(), new FieldType(nullable, a.getType(), a.getDictionary(), a.getMetadata()), children);
    }

    /**
     * Whether a column of the table typed {@code table} holds the values of {@code file}'s column: one type
     * structurally, and {@code table} nullable wherever {@code file} is (names not counted).
     */
    public static boolean covers(Field table, Field file) {
        Field m = merge(table, file);
        return m != null && m.equals(table);
    }

    /**
     * The read's data columns: the union by name of the files' columns, matched case-insensitively (as Hive, Glue and
     * Athena match them), in order of first appearance and spelled as the first file that has them spells them; or,
     * with catalog columns, the catalog's columns first. A column whose types in two files are not one type
     * ({@link #merge}: nullable where one file's is), or two columns of one file that differ only by case, are refused.
     *
     * @param schemas the files' schemas, one per file in file order
     */
    List<Field> union(List<MessageType> schemas) {
        List<Field> data = new ArrayList<>();
        Map<String, Integer> at = new HashMap<>();
        Map<String, TableFiles.DataFile> typedBy = new HashMap<>();
        Map<String, Field> catalogTypes = catalogFirst(data, at);
        for (int i = 0; i < schemas.size(); i++) {
            TableFiles.DataFile file = files.get(i);
            Map<String, String> inFile = new HashMap<>();
            for (Type t : schemas.get(i).getFields()) {
                String key = key(t.getName());
                String clash = inFile.putIfAbsent(key, t.getName());
                if (clash != null) {
                    throw new ReadException(table, "Cannot read " + table + ": " + ReadErrors.uri(file) + " has the columns '" + clash
                            + "' and '" + t.getName() + "', which differ only by case; Hive, Glue and Athena match column names "
                            + "case-insensitively, so they would be one column. Rewrite the file with distinct names.", null);
                }
                Field has = field(t, file);
                Integer where = at.get(key);
                if (where == null) {
                    at.put(key, data.size());
                    data.add(has);
                    typedBy.put(key, file);
                    continue;
                }
                Field want = data.get(where);
                if (want == null) {
                    data.set(where, rename(has, catalogNames.get(key)));
                    typedBy.put(key, file);
                    continue;
                }
                Field merged = merge(want, has);
                if (merged == null) {
                    throw new ReadException(table, "Cannot read " + table + ": the column '" + want.getName() + "' is " + describe(want)
                            + " in " + ReadErrors.uri(typedBy.get(key)) + " but " + describe(has) + " in " + ReadErrors.uri(file)
                            + ". Rewrite one of them with the other's type.", null);
                }
                data.set(where, merged);
            }
        }
        return inOrder(data, at, catalogTypes);
    }

    /** Puts the catalog's columns first in {@code data} (untyped yet: typed by the first file that has them); their catalog types. */
    private Map<String, Field> catalogFirst(List<Field> data, Map<String, Integer> at) {
        Map<String, Field> catalogTypes = new HashMap<>();
        if (catalogColumns != null) {
            for (Map.Entry<String, Field> c : catalogColumns.entrySet()) {
                String key = key(c.getKey());
                if (at.putIfAbsent(key, data.size()) == null) {
                    data.add(null); // typed by the first file that has it, else by the catalog
                    catalogTypes.put(key, c.getValue() == null ? null : rename(c.getValue(), c.getKey()));
                    catalogNames.put(key, c.getKey());
                }
            }
        }
        return catalogTypes;
    }

    private static List<Field> inOrder(List<Field> data, Map<String, Integer> at, Map<String, Field> catalogTypes) {
        List<Field> out = new ArrayList<>();
        for (Map.Entry<String, Integer> e : at.entrySet().stream().sorted(Map.Entry.comparingByValue()).toList()) {
            Field f = data.get(e.getValue());
            if (f == null) {
                f = catalogTypes.get(e.getKey()); // only the catalog declares it: nulls
            }
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    /** The Arrow field of the column {@code t} of {@code file}, refused when wrangler does not read its type. */
    Field field(Type t, TableFiles.DataFile file) {
        return field(table, t, file);
    }

    static Field field(String table, Type t, TableFiles.DataFile file) {
        try {
            return ParquetArrow.field(t);
        } catch (ParquetArrow.Unsupported e) {
            throw new ReadException(table, "Cannot read " + table + ": in " + ReadErrors.uri(file) + ", " + e.getMessage() + ".", e);
        }
    }

    /**
     * The columns {@code selected} of {@code all} in that order (an exact name first, else case-insensitively), or all
     * of them for null.
     */
    static List<Field> select(String table, List<Field> all, List<String> selected) {
        if (selected == null) {
            return all;
        }
        List<Field> out = new ArrayList<>();
        for (String name : selected) {
            Field f = all.stream().filter(x -> x.getName().equals(name)).findFirst()
                    .or(() -> all.stream().filter(x -> x.getName().equalsIgnoreCase(name)).findFirst()).orElse(null);
            if (f == null) {
                throw new ReadException(table, "Cannot read " + table + ": there is no column '" + name + "'; the table's columns "
                        + "are " + all.stream().map(Field::getName).toList() + ". Select columns of the table.", null);
            }
            out.add(f);
        }
        return out;
    }
}
