package io.wrangler.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import io.wrangler.catalog.SdkRetries;
import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * One owner of retries: the SDK retries each request as the write's {@link RetryPolicy} says, and nothing retries on
 * top of it. A request that keeps failing is sent exactly the policy's attempts, whatever retries the caller's client
 * was built with (they used to multiply: 4 of wrangler's x 3 of the client's); a fenced request is fenced before each
 * of those attempts; a fence's own failure is passed on, not retried.
 */
class OneRetryOwnerTest {
    private static final LocalS3 S3 = LocalS3.start();
    private static final RetryPolicy FOUR = RetryPolicy.of(4, Duration.ofMillis(1), Duration.ofMillis(2));

    @AfterAll
    static void stop() {
        S3.close();
    }

    private static RequestOptions options(RetryPolicy policy) {
        return RequestOptions.of(Encryption.none(), null, null, policy);
    }

    private static long count(FaultyS3 proxy, String operation) {
        return proxy.requests().stream().filter(q -> q.operation().equals(operation)).count();
    }

    @Test
    void aPutThatKeepsFailingIsSentThePolicysAttemptsNotTimesTheClientsRetries() {
        FaultyS3 proxy = FaultyS3.start(S3);
        try (S3Client threeAttempts = proxy.client(3, Duration.ofSeconds(5))) {
            String bucket = "owner-" + Long.toHexString(System.nanoTime());
            S3.createBucket(bucket);
            S3Store store = new S3Store(threeAttempts, bucket, options(FOUR));
            proxy.failWhereKeyContains("PutObject", "t/k", S3Fault.INTERNAL_ERROR);

            assertThatThrownBy(() -> store.put("t/k", new byte[] {1, 2, 3})).isInstanceOfSatisfying(S3Exception.class,
                    e -> assertThat(e.statusCode()).isEqualTo(500));
            assertThat(count(proxy, "PutObject")).as("the policy's 4 attempts, not 4 x the client's 3").isEqualTo(4);

            proxy.clearKeyFaults();
            proxy.clearRequests();
            proxy.failNext("PutObject", 3, S3Fault.SLOW_DOWN);
            store.put("t/k", new byte[] {4});
            assertThat(count(proxy, "PutObject")).as("three throttled attempts, then the one that succeeds").isEqualTo(4);
            assertThat(S3.get(bucket, "t/k")).containsExactly(4);
        } finally {
            proxy.close();
        }
    }

    @Test
    void aCompletionThatKeepsFailingIsFencedBeforeEachOfThePolicysAttemptsAndNoMore() {
        FaultyS3 proxy = FaultyS3.start(S3);
        try (S3Client threeAttempts = proxy.client(3, Duration.ofSeconds(5))) {
            String bucket = "owner-" + Long.toHexString(System.nanoTime());
            S3.createBucket(bucket);
            byte[] body = new byte[6 * 1024 * 1024];
            Arrays.fill(body, (byte) 5);
            S3.put(bucket, "t/_tmp/w/staged", body);
            S3Store store = new S3Store(threeAttempts, bucket, options(FOUR)).withSingleCopyLimit(1024 * 1024, 5 * 1024 * 1024);
            proxy.failWhereKeyContains("CompleteMultipartUpload", "final", S3Fault.SLOW_DOWN);
            AtomicInteger fences = new AtomicInteger();

            assertThatThrownBy(() -> store.copy("t/_tmp/w/staged", "t/dt=1/final", body.length, fences::incrementAndGet))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(503));
            assertThat(count(proxy, "CompleteMultipartUpload")).as("the policy's 4 attempts, each sent once").isEqualTo(4);
            assertThat(fences).as("a fence before each attempt").hasValue(4);
            assertThat(store.size("t/dt=1/final")).isEmpty();
            assertThat(store.openUploads("t/")).as("the upload is aborted").isEmpty();
        } finally {
            proxy.close();
        }
    }

    /** S3 may answer a copy or a completion with 200 and an error body: the SDK reads it as an error and retries it. */
    @Test
    void errorsInA200AnswerAreRetriedByTheSdk() {
        FaultyS3 proxy = FaultyS3.start(S3);
        try (S3Client noRetries = proxy.client(1, Duration.ofSeconds(5))) {
            String bucket = "owner-" + Long.toHexString(System.nanoTime());
            S3.createBucket(bucket);
            byte[] body = new byte[6 * 1024 * 1024];
            Arrays.fill(body, (byte) 3);
            S3.put(bucket, "t/_tmp/w/staged", body);
            S3Store store = new S3Store(noRetries, bucket, options(FOUR));
            proxy.failNext("CopyObject", 2, S3Fault.INTERNAL_ERROR_IN_200);
            store.copy("t/_tmp/w/staged", "t/dt=1/single", body.length, () -> { });
            assertThat(count(proxy, "CopyObject")).isEqualTo(3);
            assertThat(S3.get(bucket, "t/dt=1/single")).isEqualTo(body);

            AtomicInteger fences = new AtomicInteger();
            proxy.failNext("UploadPartCopy", 1, S3Fault.INTERNAL_ERROR_IN_200);
            proxy.failNext("CompleteMultipartUpload", 1, S3Fault.INTERNAL_ERROR_IN_200);
            store.withSingleCopyLimit(1024 * 1024, 5 * 1024 * 1024).copy("t/_tmp/w/staged", "t/dt=1/parts", body.length,
                    fences::incrementAndGet);
            assertThat(count(proxy, "UploadPartCopy")).as("two parts, one of them twice").isEqualTo(3);
            assertThat(count(proxy, "CompleteMultipartUpload")).isEqualTo(2);
            assertThat(fences).hasValue(2);
            assertThat(S3.get(bucket, "t/dt=1/parts")).isEqualTo(body);
        } finally {
            proxy.close();
        }
    }

    @Test
    void aFencesOwnTransientFailureIsPassedOnAsItIsNotRetried() {
        MemoryS3 s3 = MemoryS3.start();
        s3.createBucket("b");
        s3.minPartSize(1);
        s3.put("b", "t/_tmp/w/staged", new byte[3000]);
        S3Store store = new S3Store(s3.client(), "b", options(FOUR)).withSingleCopyLimit(1000, 1000);
        AtomicInteger fences = new AtomicInteger();
        S3Exception slowDown = (S3Exception) S3Exception.builder().statusCode(503).message("Please reduce your request rate.")
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("SlowDown").build()).build();

        assertThatThrownBy(() -> store.copy("t/_tmp/w/staged", "t/dt=1/final", 3000, () -> {
            fences.incrementAndGet();
            throw slowDown;
        })).isSameAs(slowDown);
        assertThat(fences).as("its own requests were retried by the SDK; the fence that still fails stops the step").hasValue(1);
        assertThat(s3.requests().stream().filter(q -> q.operation().equals("CompleteMultipartUpload"))).isEmpty();
        assertThat(s3.openMultipartUploads("b", "t/")).isEmpty();
    }

    /** The per-request retries replace the client's retries only: its interceptors and headers still apply to each request. */
    @Test
    void thePerRequestRetriesLeaveTheClientsOtherSettingsAsTheyAre() {
        AtomicInteger sent = new AtomicInteger();
        ExecutionInterceptor counting = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                sent.incrementAndGet();
            }
        };
        try (S3Client client = S3.newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(counting)
                .putHeader("x-amz-meta-from-client", "kept")))) {
            String bucket = "owner-" + Long.toHexString(System.nanoTime());
            S3.createBucket(bucket);
            S3Store store = new S3Store(client, bucket, options(FOUR));
            store.put("t/k", new byte[] {5});
            assertThat(store.get("t/k").orElseThrow()).containsExactly(5);
            assertThat(sent).as("the client's interceptor saw the put and the get").hasValue(2);
            assertThat(client.headObject(h -> h.bucket(bucket).key("t/k")).metadata()).containsEntry("from-client", "kept");
        }
    }

    @Test
    void memoryS3AttemptsARequestAsItsRetryStrategySays() {
        MemoryS3 s3 = MemoryS3.start();
        s3.createBucket("b");
        S3Store store = new S3Store(s3.client(), "b", options(FOUR));
        s3.failNext("PutObject", 3, S3Fault.CONNECTION_RESET);
        store.put("t/k", new byte[] {9});
        assertThat(s3.get("b", "t/k")).containsExactly(9);
        assertThat(s3.requests().stream().filter(q -> q.operation().equals("PutObject"))).hasSize(4);

        s3.clearRequests();
        S3Store once = new S3Store(s3.client(), "b", options(RetryPolicy.none()));
        s3.failNext("GetObject", 1, S3Fault.INTERNAL_ERROR);
        assertThatThrownBy(() -> once.get("t/k")).isInstanceOf(S3Exception.class);
        assertThat(s3.requests()).hasSize(1);
    }

    /** What the one strategy retries: the SDK's conditions and S3's transient failures; nothing permanent. */
    @Test
    void theStrategyRetriesThrottling5xxBrokenConnectionsAndErrorsInA200AndNothingElse() {
        RequestOptions three = options(RetryPolicy.of(3, Duration.ZERO, Duration.ZERO));
        assertThat(attempts(three, s3Error(500, "InternalError"))).isEqualTo(3);
        assertThat(attempts(three, s3Error(501, "NotImplemented"))).as("any 5xx").isEqualTo(3);
        assertThat(attempts(three, s3Error(503, "SlowDown"))).isEqualTo(3);
        assertThat(attempts(three, s3Error(429, "TooManyRequests"))).isEqualTo(3);
        assertThat(attempts(three, s3Error(200, "InternalError"))).as("S3's error in a 200 answer (copy, completion)").isEqualTo(3);
        assertThat(attempts(three, SdkClientException.builder().message("Connection reset").cause(new SocketException("reset")).build()))
                .isEqualTo(3);
        assertThat(attempts(three, ApiCallAttemptTimeoutException.builder().message("attempt timed out").build())).isEqualTo(3);
        assertThat(attempts(three, s3Error(403, "AccessDenied"))).isEqualTo(1);
        assertThat(attempts(three, s3Error(412, "PreconditionFailed"))).as("a compare-and-swap that failed: read back, not retried")
                .isEqualTo(1);
        assertThat(attempts(three, s3Error(404, "NoSuchUpload"))).isEqualTo(1);
        assertThat(attempts(three, SdkClientException.create("Unable to load credentials"))).isEqualTo(1);
        assertThat(attempts(options(RetryPolicy.none()), s3Error(503, "SlowDown"))).isEqualTo(1);
    }

    private static SdkException s3Error(int status, String code) {
        return (SdkException) S3Exception.builder().statusCode(status).message(code)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build()).build();
    }

    private static int attempts(RequestOptions options, SdkException failure) {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> SdkRetries.fenced(options.retries(), () -> { }, () -> {
            calls.incrementAndGet();
            throw failure;
        })).isSameAs(failure);
        return calls.get();
    }
}
