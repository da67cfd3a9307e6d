package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The protocol steps a write sends together instead of one after the other (package-info, "Round trips"), each shown
 * with a request held by MemoryS3 while the test waits for the one that must go out beside it (a held request never
 * times out here, so the old order, which waits for the held answer, fails the wait with a message), and the state a
 * write without a catalog ends from.
 */
class WriteRoundTripsTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private static final String PROBE_ETAG = "\"00000000000000000000000000000000\"";

    private final MemoryS3 s3 = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private WriteBuilder write(List<Order> rows) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3.client());
    }

    private long requests(Predicate<MemoryS3.Request> which) {
        return s3.requests().stream().filter(r -> bucket.equals(r.bucket())).filter(which).count();
    }

    private static boolean is(MemoryS3.Request r, String operation, String keyEnd) {
        return r.operation().equals(operation) && r.key() != null && r.key().endsWith(keyEnd);
    }

    private void await(Predicate<MemoryS3.Request> which, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (requests(which) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not sent within 30 s while the other request was held: " + what);
            }
            Thread.sleep(20); // polling for a request, not waiting for time to pass
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
    void theCheckOfConditionalRequestsGoesOutBesideTheFirstFenceAndTheRecoverysListingsAndIsAwaitedBeforeTheRecord()
            throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2)).to(table);
        s3.clearRequests();
        List<Order> b = Orders.orders("b", List.of(D15, D16), List.of("RU"), 2);
        // the lease's probe of a conditional delete on a wrong ETag, stuck in the network
        MemoryS3.Hold probe = s3.holdOnceWhereKeyContains("DeleteObject", "t/_tmp/_lease.json");
        CompletableFuture<WriteResult> writer = CompletableFuture.supplyAsync(() -> write(b).to(table));
        try {
            assertThat(probe.awaitHeld(Duration.ofSeconds(60))).as("the lease's probe is sent").isTrue();
            await(r -> r.operation().equals("ListMultipartUploads"), "the recovery's listing of open uploads");
            await(r -> is(r, "PutObject", "t/_tmp/_lease.json") && ((PutObjectRequest) r.request()).ifMatch() != null,
                    "the first fence (a compare-and-swap of the lease)");
            assertThat(requests(r -> is(r, "PutObject", "/_manifest.json")))
                    .as("nothing is written under the lease before the check is answered: no STARTED record").isZero();
            assertThat(writer).isNotDone();
        } finally {
            probe.release();
        }
        WriteResult w = writer.get(60, TimeUnit.SECONDS);
        assertThat(w.rows()).isEqualTo(4);
        assertThat(contents()).isEqualTo(rows(b));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void theLeasesReleaseGoesOutWithTheManifestsDelete() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2)).to(table);
        s3.clearRequests();
        List<Order> b = Orders.orders("b", List.of(D15, D16), List.of("RU"), 2);
        MemoryS3.Hold end = s3.holdOnceWhereKeyContains("DeleteObject", "/_manifest.json");
        CompletableFuture<WriteResult> writer = CompletableFuture.supplyAsync(() -> write(b).to(table));
        try {
            assertThat(end.awaitHeld(Duration.ofSeconds(60))).as("the manifest's delete (the write's end) is sent").isTrue();
            await(r -> is(r, "DeleteObject", "t/_tmp/_lease.json") && !PROBE_ETAG.equals(((DeleteObjectRequest) r.request()).ifMatch()),
                    "the lease's release (its conditional delete)");
            assertThat(writer).isNotDone();
        } finally {
            end.release();
        }
        WriteResult w = writer.get(60, TimeUnit.SECONDS);
        assertThat(w.rows()).isEqualTo(4);
        assertThat(contents()).isEqualTo(rows(b));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).as("manifest ended, lease released").isEmpty();
    }

    @Test
    void aWriteWithoutACatalogGoesFromCommittedToItsEndAndACrashThereIsRolledForwardOnce() {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2)).to(table);
        s3.clearRequests();
        List<Order> b = Orders.orders("b", List.of(D15, D16), List.of("RU"), 2);
        write(b).to(table);
        assertThat(requests(r -> is(r, "PutObject", "/_manifest.json"))).as("the manifest's PUTs: STARTED and COMMITTED only")
                .isEqualTo(2);

        // Cut right before its end: the manifest says COMMITTED, every file in place, the old ones and the staged copies gone.
        List<Order> c = Orders.orders("c", List.of(D16), List.of("RU"), 3);
        assertThatThrownBy(() -> write(c).stepHook((step, n) -> {
            if (step == Step.STAGING_REMOVED) {
                throw new CrashRecoveryTest.SimulatedCrash(step, n);
            }
        }).to(table)).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        List<String> manifests = TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith("/_manifest.json")).toList();
        assertThat(manifests).hasSize(1);
        assertThat(new String(s3.get(bucket, manifests.get(0)), StandardCharsets.UTF_8)).contains("\"COMMITTED\"");
        assertThat(TestLake.keys(bucket, "t/_wrangler/log/")).as("its entry in the commit log, once").hasSize(3);

        RecoveryResult r = S3Parquet.recover(table, s3.client(), null, Tunings.pastLeases());
        assertThat(r.rolledForward()).hasSize(1);
        List<List<Object>> expected = new ArrayList<>(rows(b.subList(0, 2)));
        expected.addAll(rows(c));
        assertThat(contents()).isEqualTo(expected);
        assertThat(TestLake.keys(bucket, "t/_wrangler/log/")).as("recovery adds no second entry").hasSize(3);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
