package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import io.wrangler.commit.WriteSpec;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * One request of a healthy writer's lease stuck in the network (held by MemoryS3 until the end of the test, far longer
 * than the lease's time to live) costs it nothing: later renewals go out at their interval on other threads, the
 * writer's fences wait for the stuck one no longer than one attempt's timeout, and a second writer waiting for the table never sees the lease expire,
 * so it takes nothing over and writes after the first has finished. (That a writer whose lease was really taken over is
 * fenced is {@code LiveWriterFencedTest} and {@code ReliabilityTest}.)
 */
class SlowRenewalTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private static final Duration TTL = Duration.ofSeconds(3);

    private final MemoryS3 s3 = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    /** The defaults with a 3 s lease (renewed every 600 ms), so that the test outlasts it several times in seconds. */
    private static S3Parquet.Tuning shortLease() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(),
                d.maxOpenFiles(), d.deleteBatch(), d.singleCopyLimit(), d.copyPartSize(), TTL, d.openBytes(), Duration.ZERO));
    }

    private WriteBuilder write(List<Order> rows) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).tuning(shortLease())
                .leaseWait(Duration.ofSeconds(60)).s3(s3.client());
    }

    /** The lease PUTs seen so far: renewals (If-Match) or creates (If-None-Match). */
    private long leasePuts(String bucketName, boolean renewals) {
        return s3.requests().stream().filter(r -> r.bucket().equals(bucketName) && r.operation().equals("PutObject")
                && r.key().endsWith("t/_tmp/_lease.json")
                && (renewals ? ((PutObjectRequest) r.request()).ifMatch() != null : ((PutObjectRequest) r.request()).ifNoneMatch() != null))
                .count();
    }

    private static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 90 s: " + what.get());
            }
            Thread.sleep(20); // polling a condition, not waiting for time to pass
        }
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

    @Test
    void oneLeaseRequestStuckFarLongerThanTheTimeToLiveCostsAHealthyWriterNothing() throws Exception {
        S3Parquet.write(Orders.orders("a", List.of(D15, D16), List.of("RU"), 2)).partitionBy("dt", "country").s3(s3.client()).to(table);
        List<Order> b = Orders.orders("b", List.of(D15, D16), List.of("RU"), 2);
        List<Order> c = Orders.orders("c", List.of(D15), List.of("RU"), 1);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> writer = Stalls.stalledAt(write(b), table, Step.LISTED_OLD_FILES, 1, reached, release);
        MemoryS3.Hold stuck = null;
        try {
            assertThat(reached.await(60, TimeUnit.SECONDS)).as("the writer holds the lease, before its commit point").isTrue();
            stuck = s3.holdOnceWhereKeyContains("PutObject", "t/_tmp/_lease.json");
            assertThat(stuck.awaitHeld(Duration.ofSeconds(60))).as("a renewal of the writer's lease is stuck").isTrue();
            long renewals = leasePuts(bucket, true);
            long creates = leasePuts(bucket, false);
            CompletableFuture<WriteResult> contender = CompletableFuture.supplyAsync(() -> write(c).to(table));
            // Renewals keep going out for three times the time to live while the stuck one stays stuck, and the contender
            // is refused meanwhile (it waits, as the lease never ages out).
            long needed = 3L * 5;
            await(() -> leasePuts(bucket, true) - renewals >= needed && leasePuts(bucket, false) > creates,
                    () -> "renewals sent while one is stuck (" + (leasePuts(bucket, true) - renewals) + " of " + needed
                            + "), and the contender refused");
            assertThat(contender).as("the contender waits; it did not take the lease over").isNotDone();

            release.countDown();
            WriteResult w = Stalls.within(writer, 90, bucket);
            assertThat(stuck.held()).as("the stuck renewal is still stuck: the writer's fences did not wait for it").isEqualTo(1);
            WriteResult second = Stalls.within(contender, 90, bucket);

            assertThat(w.recovered().isEmpty()).isTrue();
            assertThat(second.recovered().isEmpty()).as("the contender took nothing over: nothing to recover").isTrue();
            List<List<Object>> expected = new ArrayList<>(rows(c));
            expected.addAll(rows(b.subList(2, 4)));
            assertThat(contents()).isEqualTo(expected);
        } finally {
            release.countDown();
            if (stuck != null) {
                stuck.release();
            }
        }
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
