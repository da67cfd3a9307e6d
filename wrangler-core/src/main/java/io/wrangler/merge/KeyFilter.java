package io.wrangler.merge;

import io.wrangler.RowFilter;
import io.wrangler.filter.BoundFilter;
import io.wrangler.filter.FooterStats;
import io.wrangler.filter.Verdict;
import io.wrangler.read.Footers;
import io.wrangler.read.TableFiles;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Which files can hold one of the input's keys, by the shared row filter's pruning ({@code io.wrangler.filter}): the
 * filter {@code in(key, the input's values)} for each key column whose type has literals (integers, strings, binary,
 * dates, decimals, booleans), and'ed, judged on each row group's footer statistics and, where the bounds leave it open
 * and the file has them, its bloom filters. A file it keeps may still hold no key: the key scan ({@link MergePlan})
 * reads its key columns to know.
 */
final class KeyFilter {
    /** The bound filter, or null when no key column can be pruned by (every file of the matched partitions is read). */
    private final BoundFilter bound;
    private final MergeSpec spec;

    private KeyFilter(MergeSpec spec, BoundFilter bound) {
        this.spec = spec;
        this.bound = bound;
    }

    /** Inputs of at least this many keys have their filter made on a thread of its own while the table is listed. */
    static final int EARLY_KEYS = 4096;

    /**
     * Starts making the filter of a large input's keys ({@link #EARLY_KEYS} or more) on a thread of its own, bound to the
     * input's own key columns, while the table is listed and its footers read; null for a smaller input (made when
     * needed). The caller waits for it ({@link #of}, or {@link #ended} when the plan fails before) before the input is
     * closed.
     */
    static java.util.concurrent.CompletableFuture<KeyFilter> early(MergeSpec spec, InputRows input) {
        if (input.index.size() < EARLY_KEYS) {
            return null;
        }
        java.util.concurrent.CompletableFuture<KeyFilter> made = new java.util.concurrent.CompletableFuture<>();
        List<Field> keys = input.keys.stream().map(input.schema::findField).toList();
        Thread t = new Thread(() -> {
            try {
                made.complete(of(spec, input, k -> k, keys));
            } catch (Throwable e) {
                made.completeExceptionally(e);
            }
        }, "wrangler-merge-filter");
        t.setDaemon(true);
        t.start();
        return made;
    }

    /** Waits until the filter {@code early} started is made (or failed), whatever its outcome. */
    static void ended(java.util.concurrent.CompletableFuture<KeyFilter> early) {
        if (early == null) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                early.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (java.util.concurrent.ExecutionException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The filter of {@code input}'s keys over the table's columns {@code table}: the one {@code early} made when the table
     * spells every key column as the input does (the types are the same: the table's schema was checked), else made now.
     */
    static KeyFilter of(MergeSpec spec, InputRows input, MergeColumns columns, List<Field> table,
            java.util.concurrent.CompletableFuture<KeyFilter> early) {
        if (early != null && input.keys.stream().allMatch(k -> columns.tableName(k).equals(k))) {
            ended(early);
            try {
                return early.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw e;
            }
        }
        ended(early);
        return of(spec, input, columns::tableName, table);
    }

    /** The filter of {@code input}'s keys over the columns {@code table}, where the input's key {@code k} is named {@code name(k)}. */
    private static KeyFilter of(MergeSpec spec, InputRows input, java.util.function.UnaryOperator<String> name, List<Field> table) {
        List<RowFilter> parts = new ArrayList<>();
        for (String k : input.keys) {
            Object[] values = input.keys.size() == 1 ? distinct(input, k) : distinctInRows(input, k);
            if (values != null && values.length > 0) {
                parts.add(RowFilter.in(name.apply(k), values));
            }
        }
        if (parts.isEmpty()) {
            return new KeyFilter(spec, null);
        }
        RowFilter f = parts.size() == 1 ? parts.get(0) : RowFilter.and(parts.toArray(new RowFilter[0]));
        return new KeyFilter(spec, BoundFilter.bind(spec.table(), f, table));
    }

    /** The distinct values of the key column {@code k} as literals, first seen first; null when one is null or has none. */
    private static Object[] distinctInRows(InputRows input, String k) {
        Set<Object> values = new LinkedHashSet<>();
        for (FieldVector v : input.column(k)) {
            for (int i = 0; i < v.getValueCount(); i++) {
                Object literal = literal(v, i);
                if (literal == null) {
                    return null;
                }
                values.add(literal);
            }
        }
        return values.toArray();
    }

    /**
     * {@link #distinctInRows} of the one key column {@code k}: its distinct values are the input's keys, which its
     * {@link KeyIndex} numbered once each, first seen first; each taken from the row where it was first seen, not
     * gathered again into a set of every row's literal.
     */
    private static Object[] distinct(InputRows input, String k) {
        List<FieldVector> column = input.column(k);
        for (FieldVector v : column) {
            if (v.getNullCount() > 0) {
                return null; // a null key: no literal for it, no filter on the column (as for every row's)
            }
        }
        Object[] values = new Object[input.index.size()];
        for (int id = 0; id < values.length; id++) {
            long first = input.index.first(id);
            values[id] = literal(column.get((int) (first >>> 32)), (int) first);
            if (values[id] == null) {
                return null;
            }
        }
        return values;
    }

    /** The value of row {@code i} as a filter's literal, or null when its type has none here. */
    private static Object literal(FieldVector v, int i) {
        ArrowType t = v.getField().getType();
        if (v instanceof org.apache.arrow.vector.VarCharVector text && t.getTypeID() == ArrowType.ArrowTypeID.Utf8) {
            return text.isNull(i) ? null : new String(text.get(i), java.nio.charset.StandardCharsets.UTF_8); // no Text on the way
        }
        Object o = v.getObject(i);
        return switch (t.getTypeID()) {
            case Int -> ((ArrowType.Int) t).getIsSigned() && o instanceof Number ? ((Number) o).longValue() : null;
            case Utf8 -> o.toString();
            case Binary -> o;
            case Bool -> o;
            case Decimal -> o instanceof BigDecimal ? o : null;
            case Date -> v instanceof DateDayVector d ? LocalDate.ofEpochDay(d.get(i)) : null;
            default -> null;
        };
    }

    /** Whether {@code f}, whose footer is {@code footer}, can hold a key: statistics first, then its bloom filters. */
    boolean mayHold(TableFiles.DataFile f, ParquetMetadata footer) throws IOException {
        if (bound == null) {
            return true;
        }
        boolean open = false;
        for (BlockMetaData block : footer.getBlocks()) {
            Verdict v = bound.verdict(FooterStats.of(block, footer.getFileMetaData().getSchema(), bound.columns(), null));
            if (v != Verdict.NONE) {
                open = true;
                if (!hasBlooms(block)) {
                    return true;
                }
            }
        }
        return open && blooms(f);
    }

    private boolean hasBlooms(BlockMetaData block) {
        for (ColumnChunkMetaData c : block.getColumns()) {
            if (c.getBloomFilterOffset() >= 0) {
                return true;
            }
        }
        return false;
    }

    /** The verdict of every row group with its bloom filters (one more GET of the footer, and the filters asked for). */
    private boolean blooms(TableFiles.DataFile f) throws IOException {
        return Footers.withFile(spec.s3(), spec.requests(), f, r -> {
            for (BlockMetaData block : r.getFooter().getBlocks()) {
                Verdict v = bound.verdict(FooterStats.of(block, r.getFooter().getFileMetaData().getSchema(), bound.columns(), chunk -> {
                    try {
                        return r.readBloomFilter(chunk);
                    } catch (IOException | RuntimeException e) {
                        return null; // only an optimisation: the key scan reads the keys anyway
                    }
                }));
                if (v != Verdict.NONE) {
                    return true;
                }
            }
            return false;
        });
    }
}
