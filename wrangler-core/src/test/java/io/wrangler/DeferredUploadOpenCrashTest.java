package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * With {@link CommitMethod#DEFERRED_UPLOADS} a file's multipart upload is created as the file opens, while it encodes, not
 * when its first part is full: a writer that dies then leaves an open upload with no part at the file's final key. The crash
 * is simulated in-process by an Error from the input (the write does no cleanup after an Error, as a killed process would
 * not), thrown once S3 holds the open file's upload. Nothing is visible (read back with DuckDB), and a recovery or a rerun
 * aborts the upload.
 */
class DeferredUploadOpenCrashTest {
    static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;

        SimulatedCrash() {
            super("simulated crash while a file is open");
        }
    }

    private static final Schema SCHEMA = new Schema(List.of(new Field("day", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("n", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    /**
     * A stream of one batch ({@code day} d0 and d1, {@code n} from {@code first}); with {@code crash}, asking for the
     * second batch waits until S3 holds the open uploads of both files, then throws a {@link SimulatedCrash}.
     */
    private final class Batches extends ArrowReader {
        private final long first;
        private final boolean crash;
        private int batch;

        Batches(BufferAllocator allocator, long first, boolean crash) {
            super(allocator);
            this.first = first;
            this.crash = crash;
        }

        @Override
        public boolean loadNextBatch() throws java.io.IOException {
            batch++;
            if (batch == 1) {
                VectorSchemaRoot root = super.getVectorSchemaRoot();
                root.allocateNew();
                for (int i = 0; i < 4; i++) {
                    ((VarCharVector) root.getVector(0)).setSafe(i, ("d" + (i % 2)).getBytes(StandardCharsets.UTF_8));
                    ((BigIntVector) root.getVector(1)).setSafe(i, first + i);
                }
                root.setRowCount(4);
                return true;
            }
            if (crash) {
                awaitOpenUploads();
                throw new SimulatedCrash();
            }
            return false;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
        }

        @Override
        protected Schema readSchema() {
            return SCHEMA;
        }
    }

    /**
     * Waits (at most 30 s, then fails saying what it found) until S3 holds the open uploads of both files of the batch (d0's
     * and d1's), so that no creation is still in flight when the writer dies.
     */
    private void awaitOpenUploads() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> open;
        while ((open = TestLake.memory().openMultipartUploads(bucket, "t/")).size() < 2) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the two files of the first batch are open, but in 30 s S3 got only these uploads under " + table
                        + ": " + open + " (a deferred upload must be created as its file opens)");
            }
            try {
                Thread.sleep(10); // polls S3 at most a hundred times a second; the deadline above bounds the wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for the open upload", e);
            }
        }
    }

    private WriteResult write(long first, boolean crash, WriteMode mode) {
        try (BufferAllocator a = new RootAllocator(); Batches input = new Batches(a, first, crash)) {
            return S3Parquet.write(input).partitionBy("day").mode(mode).commitMethod(CommitMethod.DEFERRED_UPLOADS)
                    .tuning(Tunings.pastLeases()).s3(TestLake.memory().client()).to(table);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT day, n FROM t ORDER BY ALL");
    }

    private static List<List<Object>> rows(long first) {
        List<List<Object>> out = new ArrayList<>();
        for (int i = 0; i < 4; i += 2) {
            out.add(List.of("d0", first + i));
        }
        for (int i = 1; i < 4; i += 2) {
            out.add(List.of("d1", first + i));
        }
        return out;
    }

    @ParameterizedTest(name = "rerun={0}")
    @ValueSource(booleans = {false, true})
    void aWriterThatDiesWhileItsFilesAreOpenLeavesNothingVisibleAndItsUploadsAreAborted(boolean rerun) {
        write(0, false, WriteMode.APPEND);
        assertThat(contents()).isEqualTo(rows(0));

        assertThatThrownBy(() -> write(100, true, WriteMode.OVERWRITE_PARTITIONS)).isInstanceOf(SimulatedCrash.class);

        // Left behind: open uploads at final keys, carrying the write's id, with no part sent, and nothing visible.
        S3Client s3 = TestLake.memory().client();
        List<MultipartUpload> open = s3.listMultipartUploads(b -> b.bucket(bucket).prefix("t/")).uploads();
        assertThat(open).hasSize(2).allSatisfy(u -> {
            assertThat(u.key()).matches("t/day=d[01]/part-\\d+-\\d+-\\d{8}T\\d{6}Z-[0-9a-f]{16}\\..*parquet");
            assertThat(s3.listParts(b -> b.bucket(bucket).key(u.key()).uploadId(u.uploadId())).parts()).isEmpty();
        });
        assertThat(contents()).isEqualTo(rows(0));

        if (rerun) {
            WriteResult r = write(100, false, WriteMode.OVERWRITE_PARTITIONS);
            assertThat(r.recovered().rolledBack()).hasSize(1);
            assertThat(contents()).isEqualTo(rows(100));
        } else {
            RecoveryResult r = Tunings.recover(table, s3);
            assertThat(r.rolledBack()).hasSize(1);
            assertThat(r.rolledForward()).isEmpty();
            assertThat(contents()).isEqualTo(rows(0));
            assertThat(Tunings.recover(table, s3).isEmpty()).as("recovery is idempotent").isTrue();
        }
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
