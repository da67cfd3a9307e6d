package io.wrangler.spark;

import io.wrangler.spi.DistributedRead;
import io.wrangler.spi.TableSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

/**
 * A read as Spark runs it: when Spark plans its tasks ({@link #planInputPartitions}, once per query) the driver lists
 * the table once through wrangler-core (the files of writes in flight left out, a concurrent commit seen whole or not
 * at all, only the partitions the pushed filters admit) and packs the files into input partitions of about
 * {@code spark.sql.files.maxPartitionBytes} (a file is never split); each task reads exactly its files with core's
 * decoder, with the schema the DataFrame was loaded with. A file removed after the listing fails the task: the query
 * fails with "the table changed while it was read", never a partial result.
 */
final class WranglerScan implements Scan, Batch {
    private final Map<String, String> options;
    private final TableSnapshot loaded;
    private final StructType required;
    private final PartitionFilters.Pushed pushed;
    /** The filters on data columns each task applies as core's row filter. */
    private final List<Filter> rowFilters;

    WranglerScan(Map<String, String> options, TableSnapshot loaded, StructType required, PartitionFilters.Pushed pushed,
                 List<Filter> rowFilters) {
        this.options = options;
        this.loaded = loaded;
        this.required = required;
        this.pushed = pushed;
        this.rowFilters = List.copyOf(rowFilters);
    }

    @Override
    public StructType readSchema() {
        return required;
    }

    @Override
    public String description() {
        return "wrangler " + loaded.table() + (pushed.used().isEmpty() ? "" : " partitions " + pushed.used())
                + (rowFilters.isEmpty() ? "" : " rows " + rowFilters);
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        ReadOptions read = new ReadOptions(options);
        TableSnapshot listed;
        try {
            listed = DistributedRead.plan(read.target(pushed.filter()), false);
        } finally {
            read.close();
        }
        SparkSession spark = SparkSession.active();
        long maxBytes = spark.sessionState().conf().filesMaxPartitionBytes();
        long openCost = spark.sessionState().conf().filesOpenCostInBytes();
        int parallelism = Math.max(1, spark.sparkContext().defaultParallelism());
        return pack(listed.with(loaded.schema(), listed.files()), maxBytes, openCost, parallelism);
    }

    /**
     * The snapshot's files in input partitions of at most {@code maxBytes} (counting {@code openCost} per file), fewer
     * bytes when the table is small, so that every core gets a part; in listing order, one file never split.
     */
    static InputPartition[] pack(TableSnapshot s, long maxBytes, long openCost, int parallelism) {
        long total = s.bytes() + openCost * s.files().size();
        long split = Math.min(maxBytes, Math.max(openCost, total / parallelism));
        List<InputPartition> out = new ArrayList<>();
        List<TableSnapshot.File> part = new ArrayList<>();
        long bytes = 0;
        for (TableSnapshot.File f : s.files()) {
            if (!part.isEmpty() && bytes + f.size() + openCost > split) {
                out.add(new ReadPartition(new TableSnapshot(s.table(), s.schemaJson(), s.partitionColumns(), part)));
                part = new ArrayList<>();
                bytes = 0;
            }
            part.add(f);
            bytes += f.size() + openCost;
        }
        if (!part.isEmpty()) {
            out.add(new ReadPartition(new TableSnapshot(s.table(), s.schemaJson(), s.partitionColumns(), part)));
        }
        return out.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        ReadOptions read = new ReadOptions(options);
        return new ReadTasks(read.s3(), read.retry(), read.expectedBucketOwner(), read.batchRows(),
                Arrays.stream(required.fields()).map(f -> f.name()).toList(), required, rowFilters.toArray(new Filter[0]));
    }
}
