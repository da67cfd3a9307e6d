package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.read.FullBatches;
import io.wrangler.read.TableReader;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * A read that decodes several files at once (each on a thread of its own) hands over the same batches, in the same
 * order, as a read on the caller's thread, and releases every buffer when closed in the middle.
 */
class ParallelReadTest {
    private static String table;

    /** One table for both tests: 9 appends of every type, so many files in every partition. */
    private static synchronized String table() {
        if (table != null) {
            return table;
        }
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/types/";
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(EveryType.schema(), a)) {
            EveryType.fill(root);
            for (int run = 0; run < 9; run++) {
                S3Parquet.write(root).partitionBy("k").mode(WriteMode.APPEND).s3(TestLake.memory().client()).to(uri);
            }
        }
        table = uri;
        return uri;
    }

    private static ArrowReader open(String uri, BufferAllocator a, int threads, int batchRows) {
        return ((FullBatches) S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(batchRows).open()).threads(threads);
    }

    /** The file reader under {@link #open}: its batches never span two files. */
    private static TableReader files(String uri, BufferAllocator a, int threads, int batchRows) {
        return ((FullBatches) S3Parquet.read(uri).s3(TestLake.memory().client()).allocator(a).batchRows(batchRows).open()).source().threads(threads);
    }

    @Test
    void batchesFromManyThreadsAreTheBatchesOfOneInFileOrder() throws Exception {
        String uri = table();
        try (BufferAllocator a = new RootAllocator()) {
            Map<String, List<String>> one = ReadTest.readAll(open(uri, a, 1, 1));
            Map<String, List<String>> four = ReadTest.readAll(open(uri, a, 4, 1));
            Map<String, List<String>> fourLarge = ReadTest.readAll(open(uri, a, 4, 65_536));
            assertThat(one.get("i64")).hasSize(9 * 3); // 9 appends of EveryType's 3 rows
            assertThat(four).isEqualTo(one);
            assertThat(fourLarge).isEqualTo(one);
            // Nested columns too (lists, structs, maps), through the record path.
            assertThat(EveryType.NESTED).allSatisfy(c -> assertThat(four.get(c)).isEqualTo(one.get(c)).isNotEmpty());
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    @Test
    void eachBatchOfAParallelReadNamesTheFileItCameFrom() throws Exception {
        String uri = table();
        try (BufferAllocator a = new RootAllocator()) {
            List<String> one = batchFiles(files(uri, a, 1, 65_536));
            List<String> four = batchFiles(files(uri, a, 4, 65_536));
            assertThat(one).hasSizeGreaterThan(9).doesNotContainNull(); // 9 appends, a file per partition each
            assertThat(four).isEqualTo(one);
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    /** Each batch's file and row count, as {@code key:rows}, in the order read; closes the reader. */
    private static List<String> batchFiles(TableReader r) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (r) {
            while (r.loadNextBatch()) {
                out.add(r.currentFile() == null ? null : r.currentFile().key() + ":" + r.getVectorSchemaRoot().getRowCount());
            }
        }
        return out;
    }

    @Test
    void aParallelReadClosedAfterItsFirstBatchReleasesEveryBuffer() throws Exception {
        String uri = table();
        try (BufferAllocator a = new RootAllocator()) {
            ArrowReader r = open(uri, a, 4, 1);
            assertThat(r.loadNextBatch()).isTrue();
            assertThat(r.getVectorSchemaRoot().getRowCount()).isEqualTo(1);
            Thread.sleep(200); // the workers fill their queues meanwhile
            r.close();
            assertThat(a.getAllocatedMemory()).isZero();
        } // RootAllocator.close() fails on a leaked buffer
    }

    @Test
    void workersDecodeAtMostTwoFilesAThreadAheadOfASlowCaller() throws Exception {
        String uri = table();
        try (BufferAllocator a = new RootAllocator()) {
            long files;
            long oneFile;
            try (TableReader r = files(uri, a, 1, 65_536)) {
                assertThat(r.loadNextBatch()).isTrue();
                oneFile = a.getAllocatedMemory(); // the caller's batch and the decoder's set-up: at least one file's worth
                files = 1;
                while (r.loadNextBatch()) {
                    files++;
                }
            }
            assertThat(files).isGreaterThan(20); // 9 appends of several partitions
            // a budget whose ahead bound (an eighth) is a few files of this table, which the default's (a sixteenth of the
            // heap) is not since batches are allocated at their size: then "every file decoded" would pass the bound too
            try (TableReader r = files(uri, a, 2, 65_536).readBudget(16L << 20, 256 * 1024)) {
                assertThat(r.loadNextBatch()).isTrue();
                Thread.sleep(500); // a caller busy elsewhere: the workers go as far as they are let
                long held = a.getAllocatedMemory();
                // Two threads may hold 4 files taken and not handed over (and their working batches), and what they
                // decoded as the files arrived before the schema was known, within decodeAheadBytes(); without the bound
                // they decoded every file of the table, some 25 batches.
                assertThat(r.decodeAheadBytes()).isLessThan(8 * oneFile);
                assertThat(held).as("bytes held after the first batch; one file's read holds %d", oneFile)
                        .isLessThan(8 * oneFile + r.decodeAheadBytes());
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }
}
