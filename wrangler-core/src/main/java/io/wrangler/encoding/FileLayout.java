package io.wrangler.encoding;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A FileLayout is how a file's columns are laid out beyond their types: dictionary encoding forced on or off per column,
 * the columns with bloom filters, the columns each file is sorted by, and more key-value metadata for the footer. Column
 * names are the file's (as {@link FileEncoder.Settings#columns()} names them); the write checks them against the input
 * before any I/O, so an encoder takes them as given.
 *
 * @param dictionary per column, true: always try a dictionary; false: never; absent: decided from a sample
 * @param bloomFilters the columns whose row groups get a bloom filter
 * @param bloomFilterFpp the false positive probability each bloom filter is sized for
 * @param sortBy the columns each file's rows are sorted by (ascending, nulls first), in order; empty: input order
 * @param metadata added to every file's footer key-value metadata
 */
public record FileLayout(Map<String, Boolean> dictionary, Set<String> bloomFilters, double bloomFilterFpp, List<String> sortBy,
                         Map<String, String> metadata) {
    /** No layout beyond wrangler's own choices. */
    public static final FileLayout NONE = new FileLayout(Map.of(), Set.of(), 0.01, List.of(), Map.of());

    /** The footer key a sorted encoder passes to the file's encoder when the file is sorted only within each key run. */
    static final String UNSORTED = "wrangler.unsorted";

    public FileLayout {
        dictionary = Map.copyOf(dictionary);
        bloomFilters = Set.copyOf(bloomFilters);
        sortBy = List.copyOf(sortBy);
        metadata = Map.copyOf(metadata);
    }

    /** Whether each file's rows are sorted. */
    boolean sorted() {
        return !sortBy.isEmpty();
    }
}
