package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * MemoryS3's knobs: each {@link S3Fault} reaches the caller as it does through {@link FaultyS3} (the same exception
 * type, status and code, the same cause, the request applied or not), and holds stall a request before or after it is
 * applied until released.
 */
class MemoryS3FaultsTest {
    private static LocalS3 local;
    private static FaultyS3 faulty;
    private static S3Client faultyClient;

    @BeforeAll
    static void start() {
        local = LocalS3.start();
        faulty = FaultyS3.start(local);
        faulty.timeoutDelay(Duration.ofSeconds(8));
        // one attempt: what the caller sees of one faulty request, as MemoryS3 shows it for a request without a retry
        // strategy of its own;
        // an attempt may take 5 s (a loaded machine), a TIMEOUT holds longer
        faultyClient = faulty.client(1, Duration.ofSeconds(5));
    }

    @AfterAll
    static void stop() {
        faultyClient.close();
        faulty.close();
        local.close();
    }

    /** The exception's type, status and code, whether an I/O failure caused it, and whether the PUT was applied. */
    private static String outcome(S3Client client, S3Fixture s3, String bucket, String key) {
        String seen;
        try {
            client.putObject(PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("v"));
            seen = "ok";
        } catch (AwsServiceException e) {
            seen = e.getClass().getSimpleName() + " " + e.statusCode() + " " + e.awsErrorDetails().errorCode();
        } catch (SdkClientException e) {
            boolean io = false;
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                io |= c instanceof IOException;
            }
            seen = e.getClass().getSimpleName() + (io ? " caused by an IOException" : "");
        }
        return seen + ", applied: " + s3.list(bucket, key).containsKey(key);
    }

    /**
     * On a PutObject; INTERNAL_ERROR_IN_200 is modelled for the operations whose 200 answers the SDK reads for an error,
     * BODY_CUT_SHORT for GetObject.
     */
    @ParameterizedTest
    @EnumSource(value = S3Fault.class, mode = EnumSource.Mode.EXCLUDE, names = {"INTERNAL_ERROR_IN_200", "BODY_CUT_SHORT"})
    void aFaultReachesTheCallerAsThroughFaultyS3(S3Fault fault) {
        String key = "t/_tmp/" + fault + ".json";
        local.createBucket("faults");
        faulty.failNext("PutObject", 1, fault);
        String throughProxy = outcome(faultyClient, local, "faults", key);

        try (MemoryS3 memory = MemoryS3.start()) {
            memory.createBucket("faults");
            memory.failNext("PutObject", 1, fault);
            assertThat(outcome(memory.client(), memory, "faults", key)).as(fault.toString()).isEqualTo(throughProxy);
            assertThat(outcome(memory.client(), memory, "faults", key + ".next")).as("the request after").isEqualTo("ok, applied: true");
        }
    }

    @Test
    void anErrorInA200AnswerToACopyReachesTheCallerAsThroughFaultyS3() {
        local.createBucket("faults200");
        local.put("faults200", "src", new byte[] {1});
        faulty.failNext("CopyObject", 1, S3Fault.INTERNAL_ERROR_IN_200);
        String throughProxy = copyOutcome(faultyClient, local, "faults200");
        assertThat(throughProxy).isEqualTo("S3Exception 200 InternalError, applied: false");
        try (MemoryS3 memory = MemoryS3.start()) {
            memory.createBucket("faults200");
            memory.put("faults200", "src", new byte[] {1});
            memory.failNext("CopyObject", 1, S3Fault.INTERNAL_ERROR_IN_200);
            assertThat(copyOutcome(memory.client(), memory, "faults200")).isEqualTo(throughProxy);
        }
    }

    private static String copyOutcome(S3Client client, S3Fixture s3, String bucket) {
        String seen;
        try {
            client.copyObject(c -> c.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket).destinationKey("dst"));
            seen = "ok";
        } catch (AwsServiceException e) {
            seen = e.getClass().getSimpleName() + " " + e.statusCode() + " " + e.awsErrorDetails().errorCode();
        }
        return seen + ", applied: " + s3.list(bucket, "dst").containsKey("dst");
    }

    @Test
    void keyFaultsHitOnlyMatchingKeysAndTheNthCountsFromNow() {
        try (MemoryS3 memory = MemoryS3.start()) {
            memory.createBucket("b");
            memory.put("b", "x", new byte[] {1});
            memory.failWhereKeyContains("PutObject", "attempt-7", S3Fault.ACCESS_DENIED);
            memory.failNth("GetObject", 2, S3Fault.INTERNAL_ERROR);
            assertThatThrownBy(() -> memory.put("b", "t/part-attempt-7.parquet", new byte[] {1}))
                    .isInstanceOfSatisfying(AwsServiceException.class, e -> assertThat(e.statusCode()).isEqualTo(403));
            memory.put("b", "t/part-attempt-8.parquet", new byte[] {1});
            assertThat(memory.client().getObjectAsBytes(g -> g.bucket("b").key("x")).asByteArray()).containsExactly(1);
            assertThatThrownBy(() -> memory.client().getObjectAsBytes(g -> g.bucket("b").key("x")))
                    .isInstanceOfSatisfying(AwsServiceException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InternalError"));
            memory.clearKeyFaults();
            memory.put("b", "t/part-attempt-7.parquet", new byte[] {2});
            assertThat(memory.list("b", "t/").keySet()).containsExactly("t/part-attempt-7.parquet", "t/part-attempt-8.parquet");
            assertThat(memory.requests()).extracting(MemoryS3.Request::operation).containsSubsequence("PutObject", "PutObject",
                    "GetObject", "GetObject", "PutObject");
        }
    }

    @Test
    void aHeldRequestIsAppliedOnlyOnceReleasedAndAHeldAnswerAfterItIsApplied() throws Exception {
        try (MemoryS3 memory = MemoryS3.start()) {
            memory.createBucket("b");
            MemoryS3.Hold before = memory.holdWhereKeyContains("PutObject", "_lease");
            CompletableFuture<Void> put = CompletableFuture.runAsync(() -> memory.put("b", "t/_tmp/_lease.json", new byte[] {1}));
            assertThat(before.awaitHeld(Duration.ofSeconds(30))).as("the PUT was held").isTrue();
            assertThat(memory.list("b", "t/")).as("not applied while held").isEmpty();
            assertThat(put).isNotDone();
            before.release();
            put.get(30, TimeUnit.SECONDS);
            assertThat(memory.list("b", "t/")).containsOnlyKeys("t/_tmp/_lease.json");

            MemoryS3.Hold after = memory.holdAnswerWhereKeyContains("DeleteObjects", "part-");
            memory.put("b", "t/part-1.parquet", new byte[] {1});
            CompletableFuture<Void> delete = CompletableFuture.runAsync(() -> memory.client().deleteObjects(d -> d.bucket("b")
                    .delete(x -> x.objects(o -> o.key("t/part-1.parquet")).quiet(true))));
            assertThat(after.awaitHeld(Duration.ofSeconds(30))).as("the answer was held").isTrue();
            assertThat(memory.list("b", "t/")).as("applied before the answer").containsOnlyKeys("t/_tmp/_lease.json");
            assertThat(delete).isNotDone();
            after.release();
            delete.get(30, TimeUnit.SECONDS);
            assertThat(after.held()).isEqualTo(1);
        }
    }

    @Test
    void deniedDeletesComeBackAsPerKeyErrorsAndTheObjectsStay() {
        try (MemoryS3 memory = MemoryS3.start()) {
            memory.createBucket("b");
            memory.put("b", "t/a.parquet", new byte[] {1});
            memory.put("b", "t/b.parquet", new byte[] {1});
            memory.denyDeleteWhereKeyContains("b.parquet");
            var r = memory.client().deleteObjects(d -> d.bucket("b").delete(x -> x.objects(o -> o.key("t/a.parquet"), o -> o.key("t/b.parquet"))
                    .quiet(true)));
            assertThat(r.sdkHttpResponse().statusCode()).isEqualTo(200);
            assertThat(r.errors()).extracting(e -> e.key() + " " + e.code()).containsExactly("t/b.parquet AccessDenied");
            assertThat(memory.list("b", "t/").keySet()).containsExactly("t/b.parquet");
        }
    }

    @Test
    void aCopyHoldsTheObjectsAsTheyAreAndThenGoesItsOwnWay() {
        try (MemoryS3 memory = MemoryS3.start()) {
            memory.createBucket("b");
            memory.client().putObject(p -> p.bucket("b").key("x").contentType("text/plain").metadata(java.util.Map.of("m", "1"))
                    .storageClass("STANDARD_IA").tagging("k=v"), RequestBody.fromBytes(new byte[] {1, 2}));
            String upload = memory.client().createMultipartUpload(c -> c.bucket("b").key("u")).uploadId();
            memory.client().uploadPart(p -> p.bucket("b").key("u").uploadId(upload).partNumber(1), RequestBody.fromBytes(new byte[] {3}));
            memory.failNext("GetObject", 1, S3Fault.SLOW_DOWN);

            MemoryS3 copy = memory.copy();
            var original = memory.client().headObject(h -> h.bucket("b").key("x"));
            var copied = copy.client().headObject(h -> h.bucket("b").key("x")); // the fault stays with the original
            assertThat(copy.get("b", "x")).containsExactly(1, 2);
            assertThat(copied.eTag()).isEqualTo(original.eTag());
            assertThat(copied.lastModified()).isEqualTo(original.lastModified());
            assertThat(copied.contentType()).isEqualTo("text/plain");
            assertThat(copied.metadata()).isEqualTo(java.util.Map.of("m", "1"));
            assertThat(copied.storageClassAsString()).isEqualTo("STANDARD_IA");
            assertThat(copy.client().getObjectTagging(t -> t.bucket("b").key("x")).tagSet()).extracting(t -> t.key() + "=" + t.value())
                    .containsExactly("k=v");
            assertThat(copy.client().getObjectAsBytes(g -> g.bucket("b").key("x")).asByteArray()).containsExactly(1, 2);
            assertThat(copy.client().listParts(l -> l.bucket("b").key("u").uploadId(upload)).parts()).hasSize(1);
            assertThat(copy.requests()).extracting(MemoryS3.Request::operation).doesNotContain("PutObject");

            copy.put("b", "x", new byte[] {9});
            copy.client().abortMultipartUpload(a -> a.bucket("b").key("u").uploadId(upload));
            memory.put("b", "y", new byte[] {8});
            assertThat(memory.get("b", "x")).containsExactly(1, 2);
            assertThat(memory.openMultipartUploads("b", "")).containsExactly("u");
            assertThat(copy.list("b", "").keySet()).containsExactly("x");
            assertThatThrownBy(() -> memory.client().getObject(g -> g.bucket("b").key("x"))).isInstanceOf(AwsServiceException.class);
        }
    }

    @Test
    void theClockMovesLastModifiedAndDate() {
        try (MemoryS3 memory = MemoryS3.start()) {
            memory.createBucket("b");
            memory.put("b", "x", new byte[] {1});
            var first = memory.client().headObject(h -> h.bucket("b").key("x")).lastModified();
            memory.advanceClock(Duration.ofHours(2));
            memory.put("b", "x", new byte[] {2});
            var r = memory.client().getObjectAsBytes(g -> g.bucket("b").key("x"));
            assertThat(Duration.between(first, r.response().lastModified())).isGreaterThanOrEqualTo(Duration.ofHours(2));
            assertThat(r.response().sdkHttpResponse().firstMatchingHeader("Date")).isPresent();
        }
    }
}
