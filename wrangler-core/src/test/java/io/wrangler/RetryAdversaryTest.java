package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.S3Fault;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One retry owner, through the public builders over HTTP: a request that fails with throttling, a 500 or a broken
 * connection is sent exactly the write's RetryPolicy's attempts, whatever retries the caller's client has; a plan
 * ({@link WriteBuilder#plan}) retries its reads as the write does.
 */
class RetryAdversaryTest {
    private static final LocalS3 S3 = LocalS3.start();
    private static final RetryPolicy TWO = RetryPolicy.of(2, Duration.ofMillis(1), Duration.ofMillis(2));

    @AfterAll
    static void stop() {
        S3.close();
    }

    public record Row(String id, String dt) {
    }

    private static long count(FaultyS3 proxy, String operation) {
        return proxy.requests().stream().filter(q -> q.operation().equals(operation)).count();
    }

    @Test
    void aPlanAndAWriteSendAFailingRequestExactlyThePolicysAttempts() {
        FaultyS3 proxy = FaultyS3.start(S3);
        try (S3Client threeAttempts = proxy.client(3, Duration.ofSeconds(5))) {
            String bucket = "retryadv-" + Long.toHexString(System.nanoTime());
            S3.createBucket(bucket);
            String table = "s3://" + bucket + "/t/";
            WriteBuilder w = S3Parquet.write(List.of(new Row("a", "2024-01-15"))).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS)
                    .retryPolicy(TWO).s3(threeAttempts);
            for (S3Fault fault : List.of(S3Fault.SLOW_DOWN, S3Fault.INTERNAL_ERROR, S3Fault.CONNECTION_RESET)) {
                proxy.clearRequests();
                proxy.failNext("HeadBucket", 2, fault); // a third attempt would succeed
                Throwable planned = catchThrowable(() -> w.plan(table));
                assertThat(planned).as(fault.name()).isInstanceOf(StorageException.class)
                        .hasMessageStartingWith("Cannot reach the bucket for " + table + " (step: validate): ");
                assertThat(count(proxy, "HeadBucket")).as(fault + ": the policy's 2 attempts, not 2 x the client's 3").isEqualTo(2);
                // besides the bucket's check, only the one listing that reads the table's layout from its files (no catalog)
                assertThat(proxy.requests()).as(fault.name()).allMatch(q -> q.operation().equals("HeadBucket")
                        || q.operation().equals("ListObjectsV2"));
                assertThat(count(proxy, "ListObjectsV2")).as(fault.name()).isLessThanOrEqualTo(1);
            }
            proxy.clearRequests();
            proxy.failNext("ListObjectsV2", 1, S3Fault.CONNECTION_RESET);
            PlannedWrite p = w.plan(table);
            assertThat(p.rows()).isEqualTo(1);
            proxy.clearRequests();
            proxy.failNext("ListObjectsV2", 1, S3Fault.SLOW_DOWN);
            WriteResult r = w.to(table);
            assertThat(r.rows()).isEqualTo(1);
            // the write's listing of the table (retried once) answered for the bucket: no HeadBucket is sent
            assertThat(count(proxy, "HeadBucket")).isZero();
        } finally {
            proxy.close();
        }
    }
}
