package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/**
 * Sequences found by the review that tried to break the write path's I/O scheduling (requests overlapped on the pool and
 * on threads beside the write's own): which actor may act while another's requests are still in flight. Each failed
 * before its fix. The interleavings are made exact with SDK interceptors on the actors' own clients, not with time.
 */
class SchedulingBreaksTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private final String bucket = TestLake.bucket();
    private final String table = "s3://" + bucket + "/t/";

    /** A simulated crash: an Error from the step hook, which the write does not clean up after, as a killed process would not. */
    private static final class Crash extends Error {
        Crash() {
            super("simulated crash", null, false, false);
        }
    }

    private static WriteBuilder write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).s3(TestLake.s3().client());
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

    /** A staging folder {@code t/_tmp/<writeId>/} (not {@code _tmp/} itself). */
    private static boolean stagingFolder(String prefix) {
        return prefix != null && prefix.startsWith("t/_tmp/") && prefix.length() > "t/_tmp/".length();
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\" FROM t ORDER BY ALL");
    }

    /**
     * A plain append S stalls at its commit record (COMMITTED, nothing copied yet). A recovery takes the table over and
     * rolls S back: it deletes S's final keys, then S's staging. S resumes in between (here: while the recovery lists its
     * staging folder's uploads) and sends its copies, which need no fence (a single CopyObject): the staged source is
     * still there, so S's file appears at its final key after the recovery deleted the final keys, and stays when the
     * recovery ends S's record. S is told it was not applied (the holder undoes it), yet its rows are in the table: a
     * rerun adds them twice.
     */
    @Test
    void aStalledAppendsCopyDuringItsRollBackLeavesNoRowOfIt() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND).to(table);
        CountDownLatch sCommitted = new CountDownLatch(1);
        CountDownLatch releaseS = new CountDownLatch(1);
        CountDownLatch sCopied = new CountDownLatch(1);
        CompletableFuture<WriteResult> s = CompletableFuture.supplyAsync(() -> write(Orders.orders("b", List.of(D15), List.of("RU"), 2),
                WriteMode.APPEND).stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        sCommitted.countDown();
                        await(releaseS);
                    }
                    if (step == Step.COPIED_FILE) {
                        sCopied.countDown();
                    }
                }).to(table));
        assertThat(sCommitted.await(60, TimeUnit.SECONDS)).as("S reached its commit record").isTrue();

        AtomicBoolean once = new AtomicBoolean();
        S3Client recovery = client(r -> {
            if (r instanceof ListMultipartUploadsRequest l && stagingFolder(l.prefix()) && once.compareAndSet(false, true)) {
                releaseS.countDown();
                await(sCopied);
            }
        });
        RecoveryResult r;
        try {
            r = S3Parquet.recover(table, recovery, null, Tunings.pastLeases());
        } finally {
            releaseS.countDown();
        }
        Throwable failure = Stalls.failureOf(s);
        assertThat(once).as("the recovery removed S's staging").isTrue();
        RecoveryResult last = Tunings.recover(table, TestLake.s3().client());
        List<List<Object>> rows = contents();
        String story = "recovery " + r + "; S's outcome " + failure + "; final recovery " + last + "; table " + rows;

        assertThat(r.rolledBack()).as(story).hasSize(1);
        assertThat(failure).as(story).isInstanceOf(WriteNotAppliedException.class);
        assertThat(rows).as(story).containsExactly(List.of("2024-01-15", "RU", "a-2024-01-15-RU-0"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).as(story).isEmpty();
    }

    /**
     * An overwrite crashes (an Error, as a killed process) between two delete batches of its old files, while the staged
     * copies it removes beside them are still being removed. A crashed write must not go on sending requests: nothing of
     * it may still run once its Error has left {@code to()}.
     */
    @Test
    void aCrashedWriteLeavesNoThreadOfItsOwnRunning() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2), WriteMode.APPEND).maxRowsPerFile(1).to(table);
        AtomicReference<Thread> remover = new AtomicReference<>();
        CountDownLatch removing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        S3Client client = client(r -> {
            if (r instanceof ListObjectsV2Request l && l.delimiter() == null && stagingFolder(l.prefix())
                    && remover.compareAndSet(null, Thread.currentThread())) {
                removing.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while listing " + l.prefix(), e);
                }
            }
        });
        try {
            assertThatThrownBy(() -> write(Orders.orders("b", List.of(D15), List.of("RU"), 3), WriteMode.OVERWRITE_PARTITIONS)
                    .s3(client).stepHook((step, n) -> {
                        if (step == Step.DELETED_BATCH) {
                            await(removing);
                            throw new Crash();
                        }
                    }).to(table)).isInstanceOf(Crash.class);
            assertThat(remover.get()).as("the staging removal listed its folder").isNotNull();
            assertThat(remover.get().isAlive()).as("the crashed write's staging removal (" + remover.get().getName()
                    + ") still runs after the crash").isFalse();
        } finally {
            release.countDown();
            if (remover.get() != null) {
                remover.get().join(TimeUnit.SECONDS.toMillis(60));
            }
        }

        RecoveryResult r = Tunings.recover(table, TestLake.s3().client());
        assertThat(r.rolledForward()).as(r.toString()).hasSize(1);
        assertThat(contents()).containsExactly(
                List.of("2024-01-15", "RU", "b-2024-01-15-RU-0"),
                List.of("2024-01-15", "RU", "b-2024-01-15-RU-1"),
                List.of("2024-01-15", "RU", "b-2024-01-15-RU-2"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
