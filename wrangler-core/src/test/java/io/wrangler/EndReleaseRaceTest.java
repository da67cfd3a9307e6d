package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Attacks on "Why the release goes out with the end" (package-info): another writer takes the lease the moment it is
 * released while the manifest's delete is still in flight, and the first writer's outcome must still be the one that
 * happened.
 */
class EndReleaseRaceTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);

    private static final Pattern TOKEN = Pattern.compile("\"token\"\\s*:\\s*\"([^\"]+)\"");

    private final MemoryS3 s3 = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private WriteBuilder write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).s3(s3.client());
    }

    private String leaseToken() {
        try {
            Matcher m = TOKEN.matcher(new String(s3.get(bucket, "t/_tmp/_lease.json"), StandardCharsets.UTF_8));
            return m.find() ? m.group(1) : "";
        } catch (S3Exception gone) {
            return "";
        }
    }

    /** Creates of the lease (If-None-Match) since the requests were last cleared. */
    private long leaseCreates() {
        return LeaseWatch.creates(s3, bucket);
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\", \"amountCents\" FROM t ORDER BY ALL");
    }

    private static List<List<Object>> rows(List<Order> orders) {
        List<List<Object>> out = new ArrayList<>();
        for (Order o : orders) {
            out.add(List.of(o.dt().toString(), o.country(), o.orderId(), o.amountCents()));
        }
        return out;
    }

    /**
     * A plain append's end (its commit point) is applied by S3 and its answer lost; the lease, released beside it, is
     * taken at once by an overwrite of the same partition, which replaces the append's files; then the end's retry finds
     * the manifest gone (404). The append was committed (its own delete ended it: its entry stands in the commit log, no
     * recovery ever claimed it), so it must not be reported not applied: a rerun the caller makes on that word adds its
     * rows a second time to what the table's history already holds.
     */
    @Test
    void aPlainAppendWhoseEndWasAppliedWithItsAnswerLostIsReportedCompleteEvenIfANextWriterReplacedItsFiles()
            throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2), WriteMode.APPEND).to(table);
        List<Order> b = Orders.orders("b", List.of(D15), List.of("RU"), 2);
        List<Order> c = Orders.orders("c", List.of(D15), List.of("RU"), 3);
        AtomicReference<MemoryS3.Hold> answer = new AtomicReference<>();
        AtomicReference<String> manifestKey = new AtomicReference<>();
        AtomicReference<String> appendersToken = new AtomicReference<>();
        CompletableFuture<WriteResult> appender = CompletableFuture.supplyAsync(() -> write(b, WriteMode.APPEND)
                .stepHook((step, n) -> {
                    if (step == Step.STAGING_REMOVED) {
                        String key = TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith("/_manifest.json"))
                                .findFirst().orElseThrow();
                        manifestKey.set(key);
                        appendersToken.set(leaseToken());
                        // its end: applied by S3, its answer held and then lost
                        s3.failWhereKeyContains("DeleteObject", key, S3Fault.APPLIED_RESPONSE_LOST);
                        answer.set(s3.holdAnswerWhereKeyContains("DeleteObject", key));
                    }
                }).to(table));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (answer.get() == null) {
            assertThat(System.nanoTime()).as("the append reaches its end within 60 s").isLessThan(deadline);
            assertThat(appender).as("the append reaches its end").isNotDone();
            Thread.sleep(20); // polling for the hook, not waiting for time to pass
        }
        CompletableFuture<WriteResult> overwriter;
        try {
            assertThat(answer.get().awaitHeld(Duration.ofSeconds(60))).as("the append's end is applied").isTrue();
            s3.clearKeyFaults();
            assertThat(TestLake.keys(bucket, "t/_tmp/")).as("the end was applied: the append is committed")
                    .doesNotContain(manifestKey.get());
            s3.clearRequests();
            // the next writer takes the lease as soon as it can, and replaces the partition
            overwriter = CompletableFuture.supplyAsync(() -> write(c, WriteMode.OVERWRITE_PARTITIONS).to(table));
            // until it is done, or it is kept waiting by the append's lease (refused twice while the append holds it)
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!overwriter.isDone() && !(leaseCreates() >= 2 && appendersToken.get().equals(leaseToken()))) {
                assertThat(System.nanoTime()).as("the overwrite takes the lease, or is refused it twice, within 60 s")
                        .isLessThan(deadline);
                Thread.sleep(20); // polling for requests, not waiting for time to pass
            }
        } finally {
            answer.get().release();
        }
        WriteResult w = appender.get(60, TimeUnit.SECONDS); // the end's retry finds the manifest gone
        assertThat(w.rows()).isEqualTo(2);
        overwriter.get(120, TimeUnit.SECONDS);
        assertThat(contents()).isEqualTo(rows(c));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    /**
     * A keyed append without a catalog goes from COMMITTED to its end; its manifest's delete is stuck in the network while
     * the lease, released beside it, is taken by a rerun with the same key. The rerun's recovery finds the write
     * COMMITTED, rolls it forward (every file in place, every staged copy gone, its log entry there) and ends it, then
     * replaces its files with its own; the stuck delete then finds the manifest gone. Both report success, the key's rows
     * are in the table once, and each run has one entry in the commit log.
     */
    @Test
    void aKeyedRerunThatTakesTheLeaseWhileTheFirstRunsEndIsStuckRollsItForwardAndTheRowsStayOnce() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2), WriteMode.APPEND).to(table);
        List<Order> b = Orders.orders("b", List.of(D15), List.of("RU"), 2);
        AtomicReference<MemoryS3.Hold> end = new AtomicReference<>();
        CompletableFuture<WriteResult> first = CompletableFuture.supplyAsync(() -> write(b, WriteMode.APPEND).idempotencyKey("k1")
                .stepHook((step, n) -> {
                    if (step == Step.STAGING_REMOVED) {
                        String key = TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith("/_manifest.json"))
                                .findFirst().orElseThrow();
                        end.set(s3.holdOnceWhereKeyContains("DeleteObject", key));
                    }
                }).to(table));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (end.get() == null) {
            assertThat(System.nanoTime()).as("the first run reaches its end within 60 s").isLessThan(deadline);
            assertThat(first).as("the first run reaches its end").isNotDone();
            Thread.sleep(20); // polling for the hook, not waiting for time to pass
        }
        WriteResult rerun;
        try {
            assertThat(end.get().awaitHeld(Duration.ofSeconds(60))).as("the first run's end is sent").isTrue();
            rerun = write(b, WriteMode.APPEND).idempotencyKey("k1").to(table);
        } finally {
            end.get().release();
        }
        assertThat(rerun.rows()).isEqualTo(2);
        WriteResult firstResult = first.get(60, TimeUnit.SECONDS);
        assertThat(firstResult.rows()).isEqualTo(2);
        assertThat(rerun.recovered().rolledForward()).as("the rerun's recovery rolled the first run forward")
                .containsExactly(firstResult.writeId());
        List<List<Object>> expected = new ArrayList<>(rows(Orders.orders("a", List.of(D15), List.of("RU"), 2)));
        expected.addAll(rows(b));
        expected.sort(java.util.Comparator.comparing(Object::toString));
        List<List<Object>> got = new ArrayList<>(contents());
        got.sort(java.util.Comparator.comparing(Object::toString));
        assertThat(got).isEqualTo(expected);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(TestLake.keys(bucket, "t/_wrangler/log/")).as("one entry per run: a, the first run, the rerun").hasSize(3);
    }
}
