package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import io.wrangler.storage.RequestOptions;
import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A ranged GET whose body is cut short is sent again by the SDK (its body is read inside the SDK's call), as the read's
 * retry policy says, and by nothing else. (A file this small is fetched whole by its first GET.)
 */
class RangedGetRetryTest {
    private static final LocalS3 S3 = LocalS3.start();
    private static final byte[] CONTENT = new byte[100_000];

    static {
        for (int i = 0; i < CONTENT.length; i++) {
            CONTENT[i] = (byte) (i * 31);
        }
    }

    @AfterAll
    static void stop() {
        S3.close();
    }

    private static RequestOptions attempts(int n) {
        return RequestOptions.of(Encryption.none(), null, null, RetryPolicy.of(n, Duration.ofMillis(1), Duration.ofMillis(2)));
    }

    @Test
    void aBodyCutShortIsSentAgainByTheSdkAsThePolicySays() throws Exception {
        FaultyS3 proxy = FaultyS3.start(S3);
        try (S3Client noRetries = proxy.client(1, Duration.ofSeconds(5))) {
            String bucket = "ranged-" + Long.toHexString(System.nanoTime());
            S3.createBucket(bucket);
            S3.put(bucket, "t/f.parquet", CONTENT);
            proxy.failNext("GetObject", 2, S3Fault.BODY_CUT_SHORT);
            byte[] into = new byte[1000];
            new S3InputFile(noRetries, bucket, "t/f.parquet", CONTENT.length, null, attempts(3)).read(10, into, 0, 1000);
            assertThat(into).isEqualTo(Arrays.copyOfRange(CONTENT, 10, 1010));
            assertThat(proxy.requests().stream().filter(q -> q.operation().equals("GetObject"))).hasSize(3);

            proxy.clearRequests();
            proxy.failNext("GetObject", 2, S3Fault.BODY_CUT_SHORT);
            S3InputFile twice = new S3InputFile(noRetries, bucket, "t/f.parquet", CONTENT.length, null, attempts(2));
            assertThatThrownBy(() -> twice.read(10, into, 0, 1000)).isInstanceOf(SdkClientException.class)
                    .hasMessageStartingWith("reading s3://" + bucket + "/t/f.parquet bytes 0-99999 failed: ");
            assertThat(proxy.requests().stream().filter(q -> q.operation().equals("GetObject"))).hasSize(2);
        } finally {
            proxy.close();
        }
    }

    @Test
    void memoryS3CutsABodyShortAsFaultyS3Does() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket("b");
            s3.put("b", "t/f.parquet", CONTENT);
            s3.failNext("GetObject", 2, S3Fault.BODY_CUT_SHORT);
            byte[] into = new byte[1000];
            new S3InputFile(s3.client(), "b", "t/f.parquet", CONTENT.length, null, attempts(3)).read(10, into, 0, 1000);
            assertThat(into).isEqualTo(Arrays.copyOfRange(CONTENT, 10, 1010));
            assertThat(s3.requests().stream().filter(q -> q.operation().equals("GetObject"))).hasSize(3);
        }
    }
}
