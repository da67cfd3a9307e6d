package io.wrangler.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.S3Fault;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A copy in parts runs its fence before every attempt of its completion, retries included: a writer that lost the
 * table's lease while an attempt failed or waited out its backoff completes nothing (with a 10 s lease, a retry loop of
 * seconds is long enough for a takeover). Against a real S3 on loopback, behind a proxy that fails the first completion.
 */
class S3StoreCopyFenceTest {
    private static final LocalS3 S3 = LocalS3.start();

    @AfterAll
    static void stop() {
        S3.close();
    }

    @Test
    void aFailedCompletionIsFencedAgainBeforeItsRetry() {
        FaultyS3 proxy = FaultyS3.start(S3);
        try {
            String bucket = "copyfence-" + Long.toHexString(System.nanoTime());
            S3.createBucket(bucket);
            byte[] body = new byte[6 * 1024 * 1024];
            Arrays.fill(body, (byte) 7);
            S3.put(bucket, "t/_tmp/w/staged", body);
            S3Store store = new S3Store(proxy.client(1, Duration.ofSeconds(5)), bucket, RequestOptions.defaults())
                    .withSingleCopyLimit(1024 * 1024, 5 * 1024 * 1024);
            AtomicInteger fences = new AtomicInteger();
            proxy.failNext("CompleteMultipartUpload", 1, S3Fault.SLOW_DOWN);
            assertThatThrownBy(() -> store.copy("t/_tmp/w/staged", "t/dt=1/final", body.length, () -> {
                if (fences.incrementAndGet() == 2) {
                    throw new IllegalStateException("lease lost");
                }
            })).hasMessage("lease lost");
            assertThat(fences).hasValue(2);
            assertThat(proxy.requests().stream().filter(q -> q.operation().equals("CompleteMultipartUpload")).count())
                    .as("the failed attempt only: no completion after the fence failed").isEqualTo(1);
            assertThat(store.size("t/dt=1/final")).isEmpty();
            assertThat(store.openUploads("t/")).as("the upload is aborted").isEmpty();
        } finally {
            proxy.close();
        }
    }
}
