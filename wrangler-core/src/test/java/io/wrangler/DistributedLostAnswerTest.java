package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.spi.StepHook;
import io.wrangler.commit.StagedFiles;
import io.wrangler.commit.TaskStager;
import io.wrangler.commit.Transaction;
import io.wrangler.commit.WriteSpec;
import io.wrangler.input.ArrowSource;
import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.S3Fault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A distributed write whose commit point (the manifest's CAS to COMMITTED) S3 applied but whose answer never reached the
 * driver, on every retry (the driver cut off from S3 right after sending it). Whatever the driver reports, the table must
 * end as that report says, and recovery must be able to finish or undo the write.
 */
class DistributedLostAnswerTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(64, true))));

    private final String bucket = TestLake.bucket();
    private final String uri = "s3://" + bucket + "/t/";
    private final FaultyS3 proxy = FaultyS3.start(TestLake.s3());
    private final S3Client client = proxy.client(1, Duration.ofSeconds(5));

    @AfterEach
    void stop() {
        client.close();
        proxy.close();
    }

    private static WriteSpec spec(String uri, S3Client s3, String prefix, CommitMethod method, boolean driver) {
        WriteOptions o = WriteOptions.builder().mode(WriteMode.OVERWRITE_PARTITIONS).partitionBy("country").lease(driver)
                .leaseWait(driver ? Duration.ofSeconds(30) : Duration.ZERO).retryPolicy(RetryPolicy.of(3, Duration.ofMillis(1), Duration.ofMillis(5)))
                .commitMethod(method).filenamePrefix(prefix).build();
        return new WriteSpec(uri, s3, o, null, StepHook.NONE, WriteSpec.Tuning.defaults().withThreads(4), null, new Progress() { }, null);
    }

    private StagedFiles task(String writeId, String prefix, CommitMethod method, String country, long n) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            ((VarCharVector) root.getVector("country")).setSafe(0, country.getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector("n")).setSafe(0, n);
            root.setRowCount(1);
            return TaskStager.stageTask(spec(uri, TestLake.s3().client(), prefix, method, false), SCHEMA, writeId, ArrowSource.of(root, null));
        }
    }

    private List<String> table() {
        List<String> out = new ArrayList<>();
        TestLake.query(bucket, "t/", "SELECT country, n FROM t").forEach(r -> out.add(r.get(0) + ":" + r.get(1)));
        out.sort(null);
        return out;
    }

    private void lostCommitAnswerLeavesWhatTheDriverReports(CommitMethod method) {
        lostCommitAnswerLeavesWhatTheDriverReports(method, false);
    }

    private void lostCommitAnswerLeavesWhatTheDriverReports(CommitMethod method, boolean unreadable) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            ((VarCharVector) root.getVector("country")).setSafe(0, "RU".getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector("n")).setSafe(0, 1);
            root.setRowCount(1);
            S3Parquet.write(root).partitionBy("country").mode(WriteMode.OVERWRITE).s3(TestLake.s3().client()).to(uri);
        }
        Throwable failure = null;
        Transaction w = Transaction.begin(spec(uri, client, "", method, true), SCHEMA);
        try {
            StagedFiles t = task(w.writeId(), "t00000-a0-", method, "RU", 50);
            // From here every request on the manifest reaches S3 and is applied, and its answer is lost.
            proxy.failWhereKeyContains("PutObject", "_manifest.json", S3Fault.APPLIED_RESPONSE_LOST);
            if (unreadable) {
                proxy.failWhereKeyContains("GetObject", "_manifest.json", S3Fault.CONNECTION_RESET);
            }
            w.commit(List.of(t));
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            proxy.clearKeyFaults();
            w.close();
        }
        if (unreadable) {
            assertThat(failure).isInstanceOf(CommitStateUnknownException.class)
                    .hasMessageStartingWith("Cannot write " + uri + " (step: commit): S3 failed while the manifest ")
                    .hasMessageEndingWith("Nothing was cleaned up. Run S3Parquet.recover (it finishes or undoes the write), then look "
                            + "at the table before rerunning.");
            // what the COMMITTED manifest lists is still there for recovery to publish
            if (method == CommitMethod.DEFERRED_UPLOADS) {
                assertThat(TestLake.s3().openMultipartUploads(bucket, "t/")).hasSize(1);
            } else {
                assertThat(TestLake.keys(bucket, "t/_tmp/")).anyMatch(k -> k.endsWith(".parquet"));
            }
        }
        // The operator does what the exception says: recover (a rerun recovers first). It must not be stuck.
        S3Parquet.recover(uri, TestLake.s3().client());
        if (failure == null || failure instanceof WriteIncompleteException) {
            assertThat(table()).containsExactly("RU:50");
        } else if (failure instanceof WriteNotAppliedException) {
            assertThat(table()).as("reported as not applied: %s", failure.getMessage()).containsExactly("RU:1");
        } else {
            assertThat(failure).isInstanceOf(CommitStateUnknownException.class);
            assertThat(table()).isIn(List.of("RU:1"), List.of("RU:50"));
        }
        assertThat(TestLake.keys(bucket, "t/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void aStagedWriteWhoseCommitAnswerIsLostEndsAsReportedAndRecoveryIsNotStuck() {
        lostCommitAnswerLeavesWhatTheDriverReports(CommitMethod.STAGE_AND_COPY);
    }

    @Test
    void aDeferredWriteWhoseCommitAnswerIsLostEndsAsReportedAndRecoveryIsNotStuck() {
        lostCommitAnswerLeavesWhatTheDriverReports(CommitMethod.DEFERRED_UPLOADS);
    }

    @Test
    void aDeferredWriteWhoseCommitAnswerIsLostAndCannotBeReadBackReportsUnknownAndAbortsNothing() {
        lostCommitAnswerLeavesWhatTheDriverReports(CommitMethod.DEFERRED_UPLOADS, true);
    }

    @Test
    void aStagedWriteWhoseCommitAnswerIsLostAndCannotBeReadBackReportsUnknownAndRemovesNothing() {
        lostCommitAnswerLeavesWhatTheDriverReports(CommitMethod.STAGE_AND_COPY, true);
    }
}
