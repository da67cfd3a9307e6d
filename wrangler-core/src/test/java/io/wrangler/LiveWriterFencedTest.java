package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * A live writer S stalls (held at a step hook just before its commit point, as in a long GC pause) while its lease's
 * renewals hang in the network (held by a latch on S's client). With the default options and the real clock, a second
 * writer W2 waits for S's lease to expire, takes it over, rolls S's write back and overwrites a partition S was
 * overwriting too. Then S resumes: its fence fails, its commit is refused (not applied), and the table, read with DuckDB,
 * holds exactly what W2 and the first write left, nothing of S, nothing twice. W2 logs what it waited for, its takeover
 * and its roll back of S's write ({@code io.wrangler.commit}, through System.Logger to java.util.logging).
 *
 * <p>With the former default time to live (2 minutes) W2 gives up after its one-minute wait, so this also pins the
 * default takeover time: well under a minute.
 */
class LiveWriterFencedTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);

    private final String bucket = TestLake.bucket();
    private final String table = "s3://" + bucket + "/t/";
    private final Logger log = Logger.getLogger("io.wrangler.commit");
    private final Level level = log.getLevel();
    private final List<String> logged = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r.getLevel() + " " + r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @AfterEach
    void stopListening() {
        log.removeHandler(handler);
        log.setLevel(level);
    }

    /** A client of the test lake whose lease renewals (a PutObject of the lease with If-Match) hang while {@code stalled}, until {@code gate} opens. */
    private static S3Client stallingRenewals(AtomicBoolean stalled, CountDownLatch gate, AtomicInteger held) {
        return TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (stalled.get() && context.request() instanceof PutObjectRequest p && p.key().endsWith("_tmp/_lease.json")
                        && p.ifMatch() != null) {
                    held.incrementAndGet();
                    try {
                        if (!gate.await(120, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("the test never let the stalled renewal through");
                        }
                    } catch (InterruptedException e) {
                        // the client gave the attempt up (its timeout): a request stalled in the network never arrives
                        Thread.currentThread().interrupt();
                        throw new java.io.UncheckedIOException(new java.io.InterruptedIOException("stalled in the network"));
                    }
                }
            }
        })));
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
    void aLiveWriterStalledPastTheDefaultTimeToLiveIsTakenOverAndFencedAtItsCommit() throws Exception {
        log.setLevel(Level.ALL);
        log.addHandler(handler);
        List<Order> a = Orders.orders("a", List.of(D15, D16), List.of("RU"), 3);
        S3Parquet.write(a).partitionBy("dt", "country").s3(TestLake.s3().client()).to(table);

        AtomicBoolean stalled = new AtomicBoolean();
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger heldRenewals = new AtomicInteger();
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        WriteBuilder s = S3Parquet.write(Orders.orders("b", List.of(D15, D16), List.of("RU"), 2)).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).maxRowsPerFile(1).s3(stallingRenewals(stalled, gate, heldRenewals));
        CompletableFuture<WriteResult> sWrite = Stalls.stalledAt(s, table, Step.LISTED_OLD_FILES, 1, reached, release);
        assertThat(reached.await(60, TimeUnit.SECONDS)).as("S reached the step before its commit point").isTrue();
        stalled.set(true);

        List<Order> c = Orders.orders("c", List.of(D15), List.of("RU"), 1);
        WriteResult w2;
        try {
            // The default time to live and the real clock: W2 waits for S's lease to expire.
            w2 = Stalls.within(CompletableFuture.supplyAsync(() -> S3Parquet.write(c).partitionBy("dt", "country")
                    .mode(WriteMode.OVERWRITE_PARTITIONS).leaseWait(Duration.ofSeconds(60)).s3(TestLake.s3().client()).to(table)), 90, bucket);
        } finally {
            gate.countDown();
            release.countDown();
        }
        assertThat(heldRenewals.get()).as("renewals of S held while it stalled").isPositive();
        assertThat(w2.recovered().rolledForward()).isEmpty();
        assertThat(w2.recovered().rolledBack()).as("W2 rolled S's write back").hasSize(1);
        String sWriteId = w2.recovered().rolledBack().get(0);

        Throwable failure = Stalls.failureOf(sWrite);
        assertThat(failure).isInstanceOf(CommitConflictException.class).isInstanceOf(WriteNotAppliedException.class);
        assertThat(failure.getMessage()).isEqualTo("Cannot write " + table + " (step: commit): the table lease of " + sWriteId
                + " was taken over by another writer or a recovery (it was not renewed within 10 s, or was removed). This write "
                + "stopped before its commit point; whoever holds the table now removes what it staged. Rerunning it is safe.");

        // D15: W2's row alone; D16: the first write's rows, untouched by S; nothing of S, nothing twice.
        List<List<Object>> expected = new ArrayList<>(rows(c));
        expected.addAll(rows(a.subList(3, 6)));
        assertThat(contents()).isEqualTo(expected);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();

        List<String> messages = List.copyOf(logged);
        assertThat(messages).as("logged").anyMatch(m -> m.startsWith("INFO " + w2.writeId() + " waits for the lease of " + table + ": "
                + sWriteId + " holds it, renewed ") && m.contains(" s ago. It is free when that writer ends, or taken over in about ")
                && m.matches(".* s if it is not renewed by then \\(time to live 10 s\\); waiting up to [0-9]+ s\\."));
        assertThat(messages).as("logged").anyMatch(m -> m.startsWith("INFO Took over the expired lease of " + table + " from " + sWriteId
                + " (last renewed ") && m.endsWith(" s ago, time to live 10 s) for " + w2.writeId() + "; what it left is recovered next."));
        assertThat(messages).as("logged").contains("INFO Recovery of " + table + ": interrupted write " + sWriteId
                + " (OVERWRITE_PARTITIONS, STARTED, 0 files) is rolled back: none of it stays.");
    }
}
