package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import io.wrangler.commit.WriteSpec;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.UploadPartCopyRequest;

/**
 * A stalled overwrite resumes while the holder that took the table over rolls it forward, and starts a multipart copy
 * (UploadPartCopy, above singleCopyLimit) of one of its files. Its CompleteMultipartUpload is fenced: it must never be
 * sent, because on AWS S3 an open upload outlives the deletion of the object at its key, so a late completion would make
 * the file reappear after the new holder's own overwrite replaced it (S3Mock drops such an upload's parts, so the stale
 * completion itself cannot be shown here; what the writer sends can).
 */
class FencedCopyTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private final String bucket = TestLake.bucket();
    private final String table = "s3://" + bucket + "/t/";

    /** Multipart copies for any file (one UploadPartCopy), with the given clock offset. */
    private static S3Parquet.Tuning multipartCopies(java.time.Duration offset) {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(),
                d.maxOpenFiles(), d.deleteBatch(), 1, d.copyPartSize(), d.leaseTtl(), d.openBytes(), offset));
    }

    private static S3Client client(Consumer<SdkRequest> before) {
        return TestLake.s3().newClient(b -> b.overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                before.accept(context.request());
            }
        })));
    }

    private static void await(CountDownLatch l) {
        try {
            l.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean finalKey(String key) {
        return !key.contains("/_tmp/");
    }

    @Test
    void aStalledWritersMultipartCopyIsNeverCompletedAfterATakeover() throws Exception {
        S3Parquet.write(Orders.orders("a", List.of(D15), List.of("RU"), 2)).partitionBy("dt", "country").s3(TestLake.s3().client()).to(table);

        CountDownLatch sAtCommit = new CountDownLatch(1);
        CountDownLatch releaseS = new CountDownLatch(1);
        CountDownLatch sPartsCopied = new CountDownLatch(1);
        CountDownLatch sDone = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger sCompletes = new java.util.concurrent.atomic.AtomicInteger();
        AtomicBoolean resumed = new AtomicBoolean();
        S3Client sClient = client(r -> {
            if (resumed.get() && r instanceof UploadPartCopyRequest c && finalKey(c.destinationKey())) {
                sPartsCopied.countDown();
            }
            if (resumed.get() && r instanceof CompleteMultipartUploadRequest c && finalKey(c.key())) {
                sCompletes.incrementAndGet();
            }
        });
        AtomicBoolean first = new AtomicBoolean(true);
        S3Client rClient = client(r -> {
            if (r instanceof CreateMultipartUploadRequest c && finalKey(c.key()) && first.getAndSet(false)) {
                // The newcomer holds the table and is rolling S forward: S resumes now, and runs to its end first (S3Mock
                // drops the parts of every upload to a key when one is aborted, which AWS does not).
                releaseS.countDown();
                await(sDone);
            }
        });

        List<Order> b = Orders.orders("b", List.of(D15), List.of("RU"), 3);
        CompletableFuture<WriteResult> s = CompletableFuture.supplyAsync(() -> S3Parquet.write(b).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).tuning(multipartCopies(java.time.Duration.ZERO)).s3(sClient)
                .stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        sAtCommit.countDown();
                        await(releaseS);
                        resumed.set(true);
                    }
                }).to(table));
        s.whenComplete((r, e) -> sDone.countDown());
        assertThat(sAtCommit.await(60, TimeUnit.SECONDS)).isTrue();

        // The newcomer: its recovery finishes S's overwrite, then it overwrites the partition itself.
        WriteResult w2;
        try {
            w2 = S3Parquet.write(Orders.orders("c", List.of(D15), List.of("RU"), 1)).partitionBy("dt", "country")
                    .mode(WriteMode.OVERWRITE_PARTITIONS).tuning(multipartCopies(Tunings.PAST_LEASES)).s3(rClient).to(table);
        } finally {
            releaseS.countDown();
        }
        assertThat(w2.recovered().rolledForward()).hasSize(1);
        Throwable failure = Stalls.failureOf(s);
        RecoveryResult last = Tunings.recover(table, TestLake.s3().client());

        assertThat(sPartsCopied.getCount()).as("the stalled writer resumed into a multipart copy").isZero();
        assertThat(sCompletes).as("completions the stalled writer sent after the takeover").hasValue(0);
        assertThat(failure).isInstanceOf(WriteIncompleteException.class);
        List<List<Object>> rows = TestLake.query(bucket, "t/", "SELECT \"orderId\" FROM t ORDER BY ALL");
        assertThat(rows).as("the partition after the newer overwrite (S's outcome: " + failure + "; recovery: " + last + ")")
                .containsExactly(List.of("c-2024-01-15-RU-0"));
    }
}
