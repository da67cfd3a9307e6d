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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Attacks on "Why a write without a catalog skips PUBLISHED" (package-info, "Round trips"): a reader through
 * S3Parquet.read, in the windows where such a write's manifest says COMMITTED though its old files are going or gone,
 * sees the table before or after it, never both and never neither.
 */
class CommittedEndReadTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);

    private final MemoryS3 s3 = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private WriteBuilder write(List<Order> rows) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3.client());
    }

    private List<String> read() throws Exception {
        List<String> ids = new ArrayList<>(ReadTest.readAll(S3Parquet.read(table).s3(s3.client()).columns("orderId").open())
                .get("orderId"));
        ids.sort(null);
        return ids;
    }

    private static List<String> ids(List<Order> orders) {
        List<String> out = new ArrayList<>();
        orders.forEach(o -> out.add(o.orderId()));
        out.sort(null);
        return out;
    }

    @Test
    void aReaderSeesACommittedWriteWithoutACatalogAsAfterWhileItsEndIsInFlight() throws Exception {
        List<Order> a = Orders.orders("a", List.of(D15, D16), List.of("RU"), 2);
        write(a).to(table);
        assertThat(read()).isEqualTo(ids(a));
        List<Order> b = Orders.orders("b", List.of(D15, D16), List.of("RU"), 3);
        AtomicReference<MemoryS3.Hold> end = new AtomicReference<>();
        CompletableFuture<WriteResult> writer = CompletableFuture.supplyAsync(() -> write(b).stepHook((step, n) -> {
            if (step == Step.STAGING_REMOVED) {
                String key = TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith("/_manifest.json")).findFirst()
                        .orElseThrow();
                end.set(s3.holdOnceWhereKeyContains("DeleteObject", key));
            }
        }).to(table));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (end.get() == null) {
            assertThat(System.nanoTime()).as("the write reaches its end within 60 s").isLessThan(deadline);
            assertThat(writer).as("the write reaches its end").isNotDone();
            Thread.sleep(20); // polling for the hook, not waiting for time to pass
        }
        try {
            assertThat(end.get().awaitHeld(Duration.ofSeconds(60))).isTrue();
            String manifest = TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith("/_manifest.json")).findFirst()
                    .orElseThrow();
            assertThat(new String(s3.get(bucket, manifest), StandardCharsets.UTF_8)).contains("\"COMMITTED\"");
            assertThat(read()).as("COMMITTED, its old files gone: as after").isEqualTo(ids(b));
        } finally {
            end.get().release();
        }
        writer.get(60, TimeUnit.SECONDS);
        assertThat(read()).isEqualTo(ids(b));
    }

    @Test
    void aReaderSeesAWriteCutInTheMiddleOfItsDeleteBatchAsAfter() throws Exception {
        List<Order> a = Orders.orders("a", List.of(D15, D16), List.of("RU"), 2);
        write(a).to(table);
        String kept = TestLake.keys(bucket, "t/dt=2024-01-16/").get(0);
        s3.denyDeleteWhereKeyContains(kept.substring(kept.lastIndexOf('/') + 1));
        List<Order> b = Orders.orders("b", List.of(D15, D16), List.of("RU"), 3);
        assertThatThrownBy(() -> write(b).to(table)).isInstanceOf(WriteIncompleteException.class);
        assertThat(TestLake.keys(bucket, "t/dt=2024-01-16/")).as("the batch applied in part").contains(kept);
        assertThat(read()).as("one old file gone, one left: as after").isEqualTo(ids(b));
    }
}
