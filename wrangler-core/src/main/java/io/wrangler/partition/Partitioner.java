package io.wrangler.partition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A Partitioner assigns each row of a batch to its partition and regroups the batch's data columns so that
 * every partition's rows form one contiguous run.
 *
 * <p>The regrouping is a counting sort: one pass computes each row's partition, a second pass copies each
 * data column, column by column, into a new vector in partition order ({@link Gather}, nested columns included).
 * Encoders then write runs of consecutive rows. A batch whose rows all fall into one partition is passed through without a copy.
 *
 * <p>Partition ids are stable across batches of one write, numbered in the order partitions are first seen.
 */
public final class Partitioner {
    private final List<String> partitionColumns;
    private final List<String> dataColumns;
    private final Map<PartitionKey, Integer> ids = new HashMap<>();
    private final List<PartitionKey> keys = new ArrayList<>();
    private final ColumnCoder[] coders;
    private final LongIntMap byCodes = new LongIntMap();

    public Partitioner(List<String> partitionColumns, List<String> dataColumns) {
        this.partitionColumns = List.copyOf(partitionColumns);
        this.dataColumns = List.copyOf(dataColumns);
        this.coders = new ColumnCoder[partitionColumns.size()];
        for (int c = 0; c < coders.length; c++) {
            coders[c] = new ColumnCoder();
        }
    }

    /** Every partition seen so far, by id. */
    public List<PartitionKey> keys() {
        return List.copyOf(keys);
    }

    /** A listener told of each partition the first time a row of it is seen, before any of its rows is grouped. */
    public interface NewPartition {
        void seen(PartitionKey key);
    }

    /**
     * Computes each row's partition id without copying anything. Each partition column is coded first (one hash
     * lookup a row, a String only per distinct value), then the codes of a row map to its partition.
     *
     * @return the partition id of every row
     */
    public int[] assign(VectorSchemaRoot batch, NewPartition listener) {
        int rows = batch.getRowCount();
        int[] out = new int[rows];
        if (partitionColumns.isEmpty()) {
            if (keys.isEmpty()) {
                register(new PartitionKey(List.of()), listener);
            }
            return out;
        }
        int k = partitionColumns.size();
        int[][] codes = new int[k][rows];
        for (int c = 0; c < k; c++) {
            coders[c].code(batch.getVector(partitionColumns.get(c)), rows, codes[c]);
        }
        long lastKey = Long.MIN_VALUE;
        int lastId = -1;
        for (int r = 0; r < rows; r++) {
            long key = packed(codes, r);
            // A row of the previous row's partition: the same packed codes, or (codes that do not pack) the same codes
            // column by column. Long.MAX_VALUE is no key: equal for every such row, it says nothing of the partition.
            if (key == lastKey && (key != Long.MAX_VALUE || sameCodes(codes, r, r - 1))) {
                out[r] = lastId;
                continue;
            }
            int id = key == Long.MAX_VALUE ? -1 : byCodes.get(key);
            if (id < 0) {
                String[] values = new String[k];
                for (int c = 0; c < k; c++) {
                    values[c] = coders[c].text(codes[c][r]);
                }
                PartitionKey pk = new PartitionKey(Arrays.asList(values));
                Integer known = ids.get(pk);
                id = known != null ? known : register(pk, listener);
                if (key != Long.MAX_VALUE) {
                    byCodes.put(key, id);
                }
            }
            out[r] = id;
            lastKey = key;
            lastId = id;
        }
        return out;
    }

    private static boolean sameCodes(int[][] codes, int row, int other) {
        for (int[] column : codes) {
            if (column[row] != column[other]) {
                return false;
            }
        }
        return true;
    }

    /** The row's codes in one long (21 bits a column, up to 3 columns), or Long.MAX_VALUE when they do not fit. */
    private static long packed(int[][] codes, int row) {
        if (codes.length > 3) {
            return Long.MAX_VALUE;
        }
        long key = 0;
        for (int[] column : codes) {
            int code = column[row];
            if (code >= (1 << 21)) {
                return Long.MAX_VALUE;
            }
            key = (key << 21) | code;
        }
        return key;
    }

    private int register(PartitionKey key, NewPartition listener) {
        listener.seen(key);
        int id = keys.size();
        ids.put(key, id);
        keys.add(key);
        return id;
    }

    /**
     * Regroups the batch's data columns by partition.
     *
     * @param partitionOfRow the result of {@link #assign} for this batch
     */
    public Grouped group(VectorSchemaRoot batch, int[] partitionOfRow, BufferAllocator allocator, Executor executor) {
        List<FieldVector> source = new ArrayList<>(dataColumns.size());
        for (String name : dataColumns) {
            source.add(batch.getVector(name));
        }
        int rows = partitionOfRow.length;
        int maxId = -1;
        boolean single = true;
        for (int r = 0; r < rows; r++) {
            maxId = Math.max(maxId, partitionOfRow[r]);
            if (partitionOfRow[r] != partitionOfRow[0]) {
                single = false;
            }
        }
        if (rows == 0) {
            return new Grouped(source, List.of(), false);
        }
        if (single) {
            return new Grouped(source, List.of(new Run(partitionOfRow[0], 0, rows)), false);
        }
        int[] counts = new int[maxId + 1];
        for (int id : partitionOfRow) {
            counts[id]++;
        }
        int[] start = new int[maxId + 1];
        List<Run> runs = new ArrayList<>();
        int offset = 0;
        for (int id = 0; id <= maxId; id++) {
            if (counts[id] > 0) {
                start[id] = offset;
                runs.add(new Run(id, offset, offset + counts[id]));
                offset += counts[id];
            }
        }
        // sourceRow[t] is the row that lands at position t; targets are filled in order, which
        // variable-width vectors (offsets) require.
        int[] sourceRow = new int[rows];
        int[] next = start.clone();
        for (int r = 0; r < rows; r++) {
            sourceRow[next[partitionOfRow[r]]++] = r;
        }
        List<FieldVector> copies = new ArrayList<>(source.size());
        List<Runnable> gathers = new ArrayList<>(source.size());
        try {
            for (FieldVector from : source) {
                FieldVector to = from.getField().createVector(allocator);
                copies.add(to);
                gathers.add(() -> Gather.gather(from, to, sourceRow));
            }
            // Columns are independent: each is gathered by its own task (the calling thread takes part).
            CompletableFuture<?>[] running = new CompletableFuture<?>[gathers.size()];
            for (int c = 1; c < gathers.size(); c++) {
                running[c] = CompletableFuture.runAsync(gathers.get(c), executor);
            }
            gathers.get(0).run();
            for (int c = 1; c < gathers.size(); c++) {
                running[c].join();
            }
        } catch (RuntimeException e) {
            copies.forEach(FieldVector::close);
            throw e;
        }
        return new Grouped(copies, runs, true);
    }

    /** A run of consecutive rows, {@code [from, to)}, of one partition. */
    public record Run(int partition, int from, int to) {
    }

    /** A batch's data columns in partition order, and the runs; closes the copies it owns. */
    public static final class Grouped implements AutoCloseable {
        private final List<FieldVector> columns;
        private final List<Run> runs;
        private final boolean owned;

        Grouped(List<FieldVector> columns, List<Run> runs, boolean owned) {
            this.columns = columns;
            this.runs = runs;
            this.owned = owned;
        }

        public List<FieldVector> columns() {
            return columns;
        }

        public List<Run> runs() {
            return runs;
        }

        @Override
        public void close() {
            if (owned) {
                columns.forEach(FieldVector::close);
            }
        }
    }
}
