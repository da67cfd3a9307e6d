package io.wrangler.commit;

import io.wrangler.InvalidWriteException;
import io.wrangler.WriteOptions;
import io.wrangler.encoding.FileLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The file layout options of a write ({@code dictionaryEncoding}, {@code bloomFilters}, {@code sortBy}) checked against
 * its input before any I/O, and their columns named as the files name them. A column is found as {@code partitionBy}
 * finds one (by its input name, exactly or ignoring case, or by the catalog's); it must be a flat data column, not a
 * partition column (those are in the folders, not the files).
 */
final class LayoutColumns {
    private final String table;
    private final WriteOptions options;
    private final Function<String, Field> find;
    private final List<Field> partitions;
    private final Function<Field, Field> inFile;

    LayoutColumns(String table, WriteOptions options, Function<String, Field> find, List<Field> partitions, Function<Field, Field> inFile) {
        this.table = table;
        this.options = options;
        this.find = find;
        this.partitions = partitions;
        this.inFile = inFile;
    }

    FileLayout layout() {
        Map<String, Boolean> dictionary = new LinkedHashMap<>();
        options.dictionaryEncoding().forEach((c, on) -> dictionary.put(column("dictionaryEncoding", c, false), on));
        Set<String> bloom = new LinkedHashSet<>();
        options.bloomFilters().forEach(c -> bloom.add(column("bloomFilters", c, true)));
        List<String> sortBy = new ArrayList<>();
        options.sortBy().forEach(c -> sortBy.add(column("sortBy", c, false)));
        return new FileLayout(dictionary, bloom, options.bloomFilterFpp(), sortBy, options.fileMetadata());
    }

    /**
     * The layout of a rewrite of an existing file whose columns are {@code columns} (a keyed rerun's rewrite): the
     * options' columns that file has, found by name ignoring case; the others are left out, as the file was written
     * before them or without them.
     */
    static FileLayout within(WriteOptions options, List<Field> columns) {
        Function<String, String> has = name -> columns.stream().map(Field::getName).filter(n -> n.equalsIgnoreCase(name)).findFirst()
                .orElse(null);
        Map<String, Boolean> dictionary = new LinkedHashMap<>();
        options.dictionaryEncoding().forEach((c, on) -> {
            if (has.apply(c) != null) {
                dictionary.put(has.apply(c), on);
            }
        });
        Set<String> bloom = new LinkedHashSet<>();
        options.bloomFilters().stream().map(has).filter(java.util.Objects::nonNull).forEach(bloom::add);
        List<String> sortBy = new ArrayList<>();
        for (String c : options.sortBy()) {
            if (has.apply(c) == null) {
                break; // a sort by columns after a missing one would claim an order the file does not have
            }
            sortBy.add(has.apply(c));
        }
        return new FileLayout(dictionary, bloom, options.bloomFilterFpp(), sortBy, options.fileMetadata());
    }

    /** The file's name of the column {@code option} names. */
    private String column(String option, String name, boolean noBoolean) {
        Field f = find.apply(name);
        if (f == null) {
            throw invalid("the " + option + " column '" + name + "' is not in the input", "Pass data columns of the input to " + option
                    + "(...), or remove it from " + option + ".");
        }
        if (partitions.contains(f)) {
            throw invalid("the " + option + " column '" + name + "' is a partition column, which is in the folder names, not in the files",
                    "Pass data columns to " + option + "(...).");
        }
        ArrowType.ArrowTypeID id = f.getType().getTypeID();
        if (!f.getChildren().isEmpty() || id == ArrowType.ArrowTypeID.List || id == ArrowType.ArrowTypeID.LargeList
                || id == ArrowType.ArrowTypeID.FixedSizeList || id == ArrowType.ArrowTypeID.Struct || id == ArrowType.ArrowTypeID.Map) {
            throw invalid("the " + option + " column '" + name + "' has the nested type " + f.getType() + ", and " + option
                    + " takes flat columns only", "Pass flat columns (numbers, strings, binary, dates, timestamps, decimals) to "
                    + option + "(...).");
        }
        if (noBoolean && id == ArrowType.ArrowTypeID.Bool) {
            throw invalid("the " + option + " column '" + name + "' is boolean, and a bloom filter of two values tells nothing "
                    + "the statistics do not", "Remove it from " + option + "(...).");
        }
        return inFile.apply(f).getName();
    }

    private InvalidWriteException invalid(String what, String todo) {
        return Outcomes.invalid(table, what, todo + " Nothing was written.");
    }
}
