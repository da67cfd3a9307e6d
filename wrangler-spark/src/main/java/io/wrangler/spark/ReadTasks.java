package io.wrangler.spark;

import io.wrangler.RetryPolicy;
import io.wrangler.spi.DistributedRead;
import io.wrangler.spi.ReadTarget;
import io.wrangler.spi.TableSnapshot;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * ReadTasks make each task's reader (serializable: it goes to the executors): the task builds its S3 client from the
 * settings and reads exactly the files of its {@link ReadPartition} with wrangler-core's decoder into Arrow batches,
 * which Spark reads in place as columns ({@link ArrowColumns}), only the rows that pass the filters on data columns
 * ({@link RowFilters}; Spark filters them again). Rows are offered too (the same batches, row by row).
 */
final class ReadTasks implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    private final S3Settings s3;
    /** The retry policy's attempts, base and cap in milliseconds (RetryPolicy is not serializable). */
    private final int retryAttempts;
    private final long retryBaseMillis;
    private final long retryCapMillis;
    private final String expectedBucketOwner;
    private final int batchRows;
    private final List<String> columns;
    private final StructType schema;
    /** Spark's filters on data columns, turned into core's row filter on the executor ({@link RowFilters}). */
    private final Filter[] rowFilters;

    ReadTasks(S3Settings s3, RetryPolicy retry, String expectedBucketOwner, int batchRows, List<String> columns, StructType schema,
              Filter[] rowFilters) {
        this.rowFilters = rowFilters.clone();
        this.s3 = s3;
        this.retryAttempts = retry.attempts();
        this.retryBaseMillis = retry.base().toMillis();
        this.retryCapMillis = retry.cap().toMillis();
        this.expectedBucketOwner = expectedBucketOwner;
        this.batchRows = batchRows;
        this.columns = List.copyOf(columns);
        this.schema = schema;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        return new Batches(((ReadPartition) partition).part());
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        Batches batches = new Batches(((ReadPartition) partition).part());
        return new PartitionReader<>() {
            private Iterator<InternalRow> rows = java.util.Collections.emptyIterator();
            private InternalRow row;

            @Override
            public boolean next() throws IOException {
                while (!rows.hasNext()) {
                    if (!batches.next()) {
                        return false;
                    }
                    rows = batches.get().rowIterator();
                }
                row = rows.next();
                return true;
            }

            @Override
            public InternalRow get() {
                return row;
            }

            @Override
            public void close() throws IOException {
                batches.close();
            }
        };
    }

    /** One task's batches: its files read by core, each batch valid until the next. */
    private final class Batches implements PartitionReader<ColumnarBatch> {
        private final BufferAllocator allocator = new RootAllocator();
        private final ArrowReader reader;
        private ColumnarBatch batch;

        Batches(TableSnapshot part) {
            ArrowReader r;
            try {
                RetryPolicy retry = RetryPolicy.of(retryAttempts, Duration.ofMillis(retryBaseMillis), Duration.ofMillis(retryCapMillis));
                r = DistributedRead.read(new ReadTarget(part.table(), null, s3.client(), io.wrangler.PartitionFilter.all(), retry,
                        expectedBucketOwner), part, columns, RowFilters.of(rowFilters, part.schema(), part.partitionColumns()).where(),
                        allocator, batchRows);
            } catch (RuntimeException e) {
                allocator.close();
                throw e;
            }
            this.reader = r;
        }

        @Override
        public boolean next() throws IOException {
            if (!reader.loadNextBatch()) {
                return false;
            }
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            List<FieldVector> vectors = root.getFieldVectors();
            ColumnVector[] out = new ColumnVector[vectors.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = new ArrowColumns(vectors.get(i), schema.fields()[i].dataType());
            }
            batch = new ColumnarBatch(out, root.getRowCount());
            return true;
        }

        @Override
        public ColumnarBatch get() {
            return batch;
        }

        @Override
        public void close() throws IOException {
            try {
                reader.close();
            } finally {
                allocator.close();
            }
        }
    }
}
