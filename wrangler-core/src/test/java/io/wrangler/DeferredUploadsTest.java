package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.S3Fault;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * {@link CommitMethod#DEFERRED_UPLOADS}: files go straight to their final keys as multipart uploads that publish
 * completes. No copy is made, nothing is visible before publish, and uploads aborted under the write (as a lifecycle
 * rule would) make it undo itself rather than lose old files. Crashes at every step are in {@link CrashRecoveryTest}.
 */
class DeferredUploadsTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private final String bucket = TestLake.bucket();
    private final String table = "s3://" + bucket + "/t/";
    private final FaultyS3 proxy = FaultyS3.start(TestLake.s3());
    private final S3Client client = proxy.client(1, Duration.ofSeconds(5));

    @AfterEach
    void stop() {
        client.close();
        proxy.close();
    }

    private WriteBuilder write(List<Orders.Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).commitMethod(CommitMethod.DEFERRED_UPLOADS)
                .retry(6, Duration.ofMillis(1), Duration.ofMillis(20)).s3(client);
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\", \"amountCents\" FROM t ORDER BY ALL");
    }

    private Map<String, Long> requestsByOperation() {
        return proxy.requests().stream().collect(Collectors.groupingBy(FaultyS3.Request::operation, TreeMap::new, Collectors.counting()));
    }

    /** Aborts every open multipart upload of the bucket, as a lifecycle rule AbortIncompleteMultipartUpload would. */
    private void abortAllUploads() {
        S3Client direct = TestLake.s3().client();
        for (MultipartUpload u : direct.listMultipartUploads(b -> b.bucket(bucket)).uploads()) {
            direct.abortMultipartUpload(b -> b.bucket(bucket).key(u.key()).uploadId(u.uploadId()));
        }
    }

    @Test
    void filesAreUploadedToTheirFinalKeysAndCompletedAtPublishWithoutACopy() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 3), WriteMode.APPEND).to(table);
        proxy.clearRequests();

        WriteResult r = write(Orders.orders("b", List.of(D16), List.of("RU", "DE", "FR"), 4), WriteMode.OVERWRITE_PARTITIONS)
                .tuning(Tunings.longLease()).to(table);

        assertThat(r.paths()).hasSize(3);
        Map<String, Long> ops = requestsByOperation();
        assertThat(ops).doesNotContainKeys("CopyObject", "UploadPartCopy");
        assertThat(ops).containsEntry("CreateMultipartUpload", 3L).containsEntry("UploadPart", 3L).containsEntry("CompleteMultipartUpload", 3L);
        // The lease's create and its conditional-write check, the manifest's two states (STARTED, COMMITTED: without a catalog
        // the write goes from COMMITTED to its end, PUBLISHED skipped)
        // and three fencing renewals (before STARTED, before COMMITTED, before the delete batch), and the write's entry in the
        // commit log: no data file PUT. The deletes: the lease's conditional-delete check, the manifest's end and the lease's release.
        assertThat(ops).containsEntry("PutObject", 8L).containsEntry("DeleteObject", 3L);
        assertThat(proxy.requests().stream().filter(q -> q.operation().equals("UploadPart")))
                .allSatisfy(q -> assertThat(q.path()).doesNotContain("/_tmp/"));
        assertThat(contents()).isEqualTo(expected("a", "b"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }

    private List<List<Object>> expected(String first, String second) {
        String b2 = TestLake.bucket();
        S3Parquet.write(Orders.orders(first, List.of(D15, D16), List.of("RU", "DE"), 3)).partitionBy("dt", "country")
                .s3(TestLake.s3().client()).to("s3://" + b2 + "/t/");
        if (second != null) {
            S3Parquet.write(Orders.orders(second, List.of(D16), List.of("RU", "DE", "FR"), 4)).partitionBy("dt", "country")
                    .mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.s3().client()).to("s3://" + b2 + "/t/");
        }
        return TestLake.query(b2, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\", \"amountCents\" FROM t ORDER BY ALL");
    }

    @Test
    void nothingIsVisibleBeforePublishCompletesTheUploads() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 3), WriteMode.APPEND).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        List<Map<String, Long>> seen = new java.util.ArrayList<>();

        write(Orders.orders("b", List.of(D16), List.of("RU", "DE", "FR"), 4), WriteMode.OVERWRITE_PARTITIONS)
                .stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        seen.add(TestLake.s3().list(bucket, "t/dt="));
                    }
                })
                .to(table);

        Map<String, Long> dataBefore = before.keySet().stream().filter(k -> k.startsWith("t/dt="))
                .collect(Collectors.toMap(Function.identity(), k -> (long) before.get(k).length));
        assertThat(seen).containsExactly(dataBefore);
    }

    @Test
    void uploadsAbortedBeforePublishUndoTheWriteAndKeepTheOldTable() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 3), WriteMode.APPEND).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");

        assertThatThrownBy(() -> write(Orders.orders("b", List.of(D16), List.of("RU", "DE", "FR"), 4), WriteMode.OVERWRITE_PARTITIONS)
                .stepHook((step, n) -> {
                    if (step == Step.LISTED_OLD_FILES) {
                        abortAllUploads();
                    }
                })
                .to(table))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.step()).isEqualTo(WriteStep.PUBLISH);
                    assertThat(e).hasMessageStartingWith("Cannot publish " + table + " (step: publish): 3 of the write's deferred "
                                    + "multipart uploads were aborted before they could be completed")
                            .hasMessageContaining("lifecycle rule AbortIncompleteMultipartUpload")
                            .hasMessageContaining("The write was undone and the table is unchanged");
                });

        assertThat(TestLake.snapshot(bucket, "t/")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void recoveryCompletesTheUploadsOfACommittedOverwriteAndUndoesOneWhoseUploadsWereLost() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 3), WriteMode.APPEND).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        Runnable crashAfterManifest = () -> assertThatThrownBy(() -> write(Orders.orders("b", List.of(D16), List.of("RU", "DE", "FR"), 4),
                WriteMode.OVERWRITE_PARTITIONS).tuning(Tunings.pastLeases()).stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        throw new CrashRecoveryTest.SimulatedCrash(step, n);
                    }
                }).to(table)).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);

        crashAfterManifest.run();
        assertThat(TestLake.s3().openMultipartUploads(bucket, "t/")).hasSize(3);
        abortAllUploads();
        RecoveryResult undone = Tunings.recover(table, client);
        assertThat(undone.rolledBack()).hasSize(1);
        assertThat(undone.abortedUploads()).as("all were aborted before the recovery: none left for it to abort").isEmpty();
        assertThat(TestLake.snapshot(bucket, "t/")).containsExactlyInAnyOrderEntriesOf(before);

        crashAfterManifest.run();
        RecoveryResult finished = Tunings.recover(table, client);
        assertThat(finished.rolledForward()).hasSize(1);
        assertThat(contents()).isEqualTo(expected("a", "b"));
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aLostCompletionAnswerIsRetriedAndCountsAsDone() {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 3), WriteMode.APPEND).to(table);
        proxy.failNth("CompleteMultipartUpload", 1, S3Fault.APPLIED_RESPONSE_LOST);
        proxy.failNth("CompleteMultipartUpload", 2, S3Fault.INTERNAL_ERROR);

        write(Orders.orders("b", List.of(D16), List.of("RU", "DE", "FR"), 4), WriteMode.OVERWRITE_PARTITIONS).to(table);

        assertThat(contents()).isEqualTo(expected("a", "b"));
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void recoveryLeavesAnotherToolsOpenUploadsInTheTableAlone() {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2), WriteMode.APPEND).to(table);
        // A Spark writer's file in progress: its name starts like ours and its UUID's first group is all digits.
        String spark = "t/dt=2024-01-15/country=RU/part-00000-12345678-abcd-4ef0-9abc-0123456789ab-c000.snappy.parquet";
        S3Client direct = TestLake.s3().client();
        String uploadId = direct.createMultipartUpload(b -> b.bucket(bucket).key(spark)).uploadId();

        RecoveryResult r = Tunings.recover(table, client);
        write(Orders.orders("b", List.of(D15), List.of("RU"), 2), WriteMode.OVERWRITE_PARTITIONS).to(table);

        assertThat(r.isEmpty()).isTrue();
        assertThat(TestLake.s3().openMultipartUploads(bucket, "t/")).containsExactly(spark);
        direct.abortMultipartUpload(b -> b.bucket(bucket).key(spark).uploadId(uploadId));
    }

    @Test
    void aKeyedAppendWithDeferredUploadsReplacesItsEarlierRunAndAnUndoneRunKeepsIt() {
        WriteResult first = write(Orders.orders("a", List.of(D15), List.of("RU", "DE"), 2), WriteMode.APPEND).idempotencyKey("run-1").to(table);
        List<List<Object>> once = contents();
        assertThat(once).hasSize(4);
        // A rerun whose uploads are aborted under it is undone: the first run's files (same key) must stay.
        assertThatThrownBy(() -> write(Orders.orders("a", List.of(D15), List.of("RU", "DE"), 2), WriteMode.APPEND).idempotencyKey("run-1")
                .stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        abortAllUploads();
                    }
                }).to(table)).isInstanceOf(StorageException.class);
        assertThat(contents()).isEqualTo(once);
        WriteResult again = write(Orders.orders("a", List.of(D15), List.of("RU", "DE"), 2), WriteMode.APPEND).idempotencyKey("run-1").to(table);
        assertThat(again.writeId()).isNotEqualTo(first.writeId()).startsWith("k-run-1-");
        assertThat(again.deletedFiles()).hasSize(2);
        assertThat(contents()).isEqualTo(once);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
