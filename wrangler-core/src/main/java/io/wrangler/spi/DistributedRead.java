package io.wrangler.spi;

import io.wrangler.RowFilter;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * A read of a table whose files other processes read (the tasks of a Spark job): the driver lists the table once
 * ({@link #plan}), hands each task some of the snapshot's files, and each task reads exactly those ({@link #read}) with
 * the snapshot's schema. The rows are those of {@code S3Parquet.read}: the same visibility rules (files of writes in
 * flight left out; a concurrent commit shows whole or not at all, decided once by the driver's listing), the same
 * schema (the union by name of the files' columns, or the catalog's, then the partition columns), the same decoder.
 *
 * <p>Nothing is held between the two: a file removed after the listing (a concurrent overwrite, compaction or keyed
 * rerun) fails the task that reads it with a {@code ReadException} ("the table changed while it was read"), never a
 * partial result; a column whose type changed in a file fails it too. A read changes nothing: read again.
 */
public final class DistributedRead {
    private DistributedRead() {
    }

    /**
     * Lists the table on the driver (through the catalog, if any, and only the partitions the filter admits) and, with
     * {@code resolveSchema}, reads every listed file's footer for the read's schema. Reads no row.
     *
     * @throws io.wrangler.InvalidReadException no table at the URI, or the filter names a column that is not a partition column
     * @throws io.wrangler.ReadException S3 or the catalog failed, or the files' columns cannot make one schema
     */
    public static TableSnapshot plan(ReadTarget target, boolean resolveSchema) {
        return Engine.plan(target, resolveSchema);
    }

    /**
     * Reads exactly the files of {@code part} (a snapshot from {@link #plan}, or a part of one, with its schema), in
     * order: batches of at most {@code batchRows} rows that never span two files, of the snapshot's schema restricted to
     * {@code columns} (null: all) in that order, only the rows that pass {@code where} (null: all; as {@code
     * ReadBuilder.where}: row groups its statistics rule out are skipped, every decoded row is tested). The caller closes
     * the reader.
     *
     * @param target the table's URI and this process's S3 client (catalog and filter are not used)
     * @throws io.wrangler.InvalidReadException {@code where} names an unknown column or a literal its column cannot hold
     * @throws io.wrangler.ReadException a column is unknown; on a batch: a file was removed or its column types changed
     *     since the listing, or S3 failed
     */
    public static ArrowReader read(ReadTarget target, TableSnapshot part, List<String> columns, RowFilter where, BufferAllocator allocator,
                                   int batchRows) {
        return Engine.read(target, part, new Engine.Selection(columns, where), allocator, batchRows);
    }
}
