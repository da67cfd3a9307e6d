package io.wrangler.read;

import io.wrangler.filter.BoundFilter;
import io.wrangler.filter.ColumnStats;
import io.wrangler.filter.FooterStats;
import io.wrangler.filter.Verdict;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * FilePruning judges a row filter against files' footers before any of them is decoded: each row group's verdict from
 * its statistics, the bloom filters of its chunks (read block by block, {@link ChunkBloom}) and the file's partition
 * values, for up to {@link #THREADS} files at once. A file whose every row group is ruled out is then neither opened nor
 * fetched; the others are decoded with their verdicts, not judged again. The one place a read judges row groups
 * ({@link #verdict}), for reads, counts, and the deletes that read through {@link TableReader}.
 */
final class FilePruning {
    static final int THREADS = 8;

    private FilePruning() {
    }

    /** A file's footer and a fresh input of it whose reads are exact ranges (bloom filters, page indexes). */
    interface Footers {
        ParquetMetadata footer(int index) throws IOException;

        S3InputFile input(int index);
    }

    /** The filter, the partition columns whose values it may test, and the allocator of those values. */
    record Filter(BoundFilter filter, PartitionColumns partitions, BufferAllocator allocator) {
    }

    /**
     * The verdict of every row group of each file, in file order; the bytes the bloom filters took are added to
     * {@code bytes}.
     */
    static Verdict[][] judge(String table, List<TableFiles.DataFile> files, Filter how, Footers footers,
                             java.util.concurrent.atomic.AtomicLong bytes) throws IOException {
        return judge(table, files, how, footers, bytes, new Verdict[files.size()][]);
    }

    /**
     * As {@link #judge(String, List, Filter, Footers, java.util.concurrent.atomic.AtomicLong)}, but a file whose verdicts
     * {@code known} holds (judged as its footer arrived) is not judged again.
     */
    static Verdict[][] judge(String table, List<TableFiles.DataFile> files, Filter how, Footers footers,
                             java.util.concurrent.atomic.AtomicLong bytes, Verdict[][] known) throws IOException {
        int n = files.size();
        Verdict[][] out = known.clone();
        int left = 0;
        for (Verdict[] v : out) {
            left += v == null ? 1 : 0;
        }
        if (left == 0) {
            return out;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(left, THREADS), r -> {
            Thread t = new Thread(r, "wrangler-prune");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Verdict[]>> pending = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                final int at = i;
                pending.add(out[i] != null ? null : pool.submit(() -> one(table, files.get(at), at, how, footers, bytes)));
            }
            for (int i = 0; i < n; i++) {
                if (pending.get(i) == null) {
                    continue;
                }
                try {
                    out[i] = pending.get(i).get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : ReadErrors.failed(table, files.get(i), (Exception) e.getCause());
                }
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while judging the files of " + table + " by their footers");
        } finally {
            pool.shutdownNow();
        }
    }

    /** The verdicts of file {@code f}'s row groups (it is file {@code index} of the read). */
    private static Verdict[] one(String table, TableFiles.DataFile f, int index, Filter how, Footers footers,
                                 java.util.concurrent.atomic.AtomicLong bytes) {
        try {
            return verdicts(how, f, footers.footer(index), footers.input(index), bytes);
        } catch (IOException | RuntimeException e) {
            throw ReadErrors.failed(table, f, e);
        }
    }

    /**
     * The verdicts of file {@code f}'s row groups by its footer, its bloom filters (read through {@code in}, their bytes
     * added to {@code bytes}) and its partition values.
     */
    static Verdict[] verdicts(Filter how, TableFiles.DataFile f, ParquetMetadata footer, S3InputFile in,
                              java.util.concurrent.atomic.AtomicLong bytes) throws IOException {
        Map<String, VectorSchemaRoot> values = partitionValues(how.filter(), how.partitions(), f, how.allocator());
        try {
            List<BlockMetaData> blocks = footer.getBlocks();
            Verdict[] v = new Verdict[blocks.size()];
            MessageType schema = footer.getFileMetaData().getSchema();
            for (int b = 0; b < v.length; b++) {
                v[b] = blocks.get(b).getRowCount() == 0 ? Verdict.NONE
                        : verdict(how.filter(), blocks.get(b), schema, values, chunk -> bloom(in, chunk));
            }
            return v;
        } finally {
            values.values().forEach(VectorSchemaRoot::close);
            bytes.addAndGet(in.bytesRead());
        }
    }

    /** Whether every row group of a file is ruled out (a file of no row group holds no row to read either). */
    static boolean none(Verdict[] judged) {
        if (judged == null) {
            return false;
        }
        for (Verdict v : judged) {
            if (v != Verdict.NONE) {
                return false;
            }
        }
        return true;
    }

    /** The bloom filter of {@code chunk}, block by block, or null (none, or unreadable: only an optimisation). */
    static BloomFilter bloom(S3InputFile in, ColumnChunkMetaData chunk) {
        try {
            return ChunkBloom.read(in, chunk);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The filter's partition columns' one value in file {@code f}, each in a one-row batch (the caller closes them). */
    static Map<String, VectorSchemaRoot> partitionValues(BoundFilter filter, PartitionColumns partitions, TableFiles.DataFile f,
                                                         BufferAllocator allocator) {
        Map<String, VectorSchemaRoot> out = new HashMap<>();
        for (Field field : partitions.fields()) {
            if (filter.columns().containsKey(field.getName())) {
                VectorSchemaRoot one = VectorSchemaRoot.create(new Schema(List.of(field)), allocator);
                one.allocateNew();
                partitions.fill(one, 1, f);
                one.setRowCount(1);
                out.put(field.getName(), one);
            }
        }
        return out;
    }

    /** What a row group's statistics, bloom filters and the file's partition values say of the filter. */
    static Verdict verdict(BoundFilter filter, BlockMetaData block, MessageType fileSchema, Map<String, VectorSchemaRoot> partitionValues,
                           Function<ColumnChunkMetaData, BloomFilter> blooms) {
        Function<String, ColumnStats> footer = FooterStats.of(block, fileSchema, filter.columns(), blooms);
        long rows = block.getRowCount();
        return filter.verdict(partitionStats(footer, partitionValues, rows));
    }

    /** {@code stats}, but a partition column's: its one value in the file over {@code rows} rows. */
    static Function<String, ColumnStats> partitionStats(Function<String, ColumnStats> stats, Map<String, VectorSchemaRoot> partitionValues,
                                                        long rows) {
        return name -> {
            VectorSchemaRoot one = partitionValues.get(name);
            if (one == null) {
                return stats.apply(name);
            }
            FieldVector v = one.getVector(0);
            return v.isNull(0) ? ColumnStats.allNull(rows) : ColumnStats.exactly(v, rows);
        };
    }
}
