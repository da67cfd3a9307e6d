package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.MemoryS3;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The plan's footer reads (round 9, h-hold9): one GET per matched file, several at once on threads of their own, which
 * the plan stops without waiting for when one fails. What a thread still in its GET does afterwards touches nothing the
 * merge's caller goes on with: it parses the footer on the heap (parquet-java's heap buffers, a codec factory of its
 * own: not the merge's Arrow allocator, which the caller closes) and hands it to its own future, which nobody reads;
 * the plan's map of footers is filled by the caller's thread alone. So the failure is the merge's, at once, whole.
 */
class MergeFooterReadFailureTest {
    record Ev(String user, LocalDate seen_on, String payload, long updated_at, String region) {
    }

    private static final LocalDate D = LocalDate.of(2024, 3, 1);

    private final MemoryS3 mem = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private List<String> tableRows() {
        return TestLake.query(bucket, "t/", "SELECT user, payload FROM t").stream().map(r -> r.get(0) + "|" + r.get(1)).sorted().toList();
    }

    /**
     * Two files of the partition; the footer GET of one answers AccessDenied while the other's waits, deaf to interrupts
     * (a socket read). The merge fails with its read failure naming the file, nothing suppressed into it (the merge's
     * allocator closed without a leak), nothing changed; the GET left in flight ends on its own afterwards, and a merge
     * then runs as usual.
     */
    @Test
    void aFooterGetFailingWhileAnotherIsInFlightIsTheMergesFailureAndChangesNothing() throws Exception {
        S3Parquet.write(List.of(new Ev("a", D, "old", 1, "eu"))).partitionBy("region").mode(WriteMode.APPEND).s3(mem.client()).to(table);
        S3Parquet.write(List.of(new Ev("b", D, "old", 1, "eu"))).partitionBy("region").mode(WriteMode.APPEND).s3(mem.client()).to(table);
        List<String> files = TestLake.keys(bucket, "t/region=eu/").stream().sorted().toList();
        assertThat(files).hasSize(2);
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        S3Client s3 = footerGets(files.get(0), files.get(1), waiting, release, ended);
        Throwable thrown;
        try {
            S3Parquet.merge(List.of(new Ev("a", D, "new", 2, "eu"), new Ev("b", D, "new", 2, "eu"))).on("user", "seen_on").s3(s3).to(table);
            thrown = null;
        } catch (Throwable t) {
            thrown = t;
        } finally {
            release.countDown();
        }
        assertThat(waiting.getCount()).as("the other footer GET was in flight").isZero();
        assertThat(thrown).isInstanceOf(ReadException.class).hasMessageContaining("Access Denied");
        assertThat(thrown.getSuppressed()).as("suppressed into the merge's failure").isEmpty();
        assertThat(ended.await(1, TimeUnit.MINUTES)).as("the GET left in flight ended").isTrue();
        assertThat(tableRows()).containsExactly("a|old", "b|old");
        assertThat(TestLake.keys(bucket, "t/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));
        S3Parquet.merge(List.of(new Ev("a", D, "new", 2, "eu"), new Ev("b", D, "new", 2, "eu"))).on("user", "seen_on").s3(mem.client()).to(table);
        assertThat(tableRows()).containsExactly("a|new", "b|new");
    }

    /**
     * A client whose first GET of {@code blocked} waits, deaf to interrupts, until {@code release}, and whose first GET of
     * {@code failing} answers AccessDenied once the blocked one waits: the plan's footer reads, the first GETs of each file.
     */
    private S3Client footerGets(String failing, String blocked, CountDownLatch waiting, CountDownLatch release, CountDownLatch ended) {
        S3Client to = mem.client();
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean();
        return (S3Client) java.lang.reflect.Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                (proxy, method, args) -> {
                    boolean holding = false;
                    if (args != null && args.length > 0 && args[0] instanceof GetObjectRequest g) {
                        if (g.key().equals(blocked) && held.compareAndSet(false, true)) {
                            holding = true;
                            waiting.countDown();
                            deaf(release);
                        } else if (g.key().equals(failing) && failed.compareAndSet(false, true)) {
                            deaf(waiting);
                            throw S3Exception.builder().statusCode(403).awsErrorDetails(AwsErrorDetails.builder().errorCode("AccessDenied")
                                    .errorMessage("Access Denied").build()).message("Access Denied").build();
                        }
                    }
                    try {
                        return method.invoke(to, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (holding) {
                            ended.countDown();
                        }
                    }
                });
    }

    /** Waits for {@code latch}, deaf to interrupts as a socket read is (the interrupt kept for later). */
    private static void deaf(CountDownLatch latch) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!latch.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("a latch of the test was never counted down");
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
