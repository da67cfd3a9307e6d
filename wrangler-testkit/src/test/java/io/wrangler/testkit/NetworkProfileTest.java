package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.NetworkProfile.RequestType;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * LocalS3 with a NetworkProfile waits the first-byte delay and keeps to the bandwidth. Lower bounds only (a loaded
 * machine makes requests slower, never faster), on a handful of small requests: about two seconds besides the start.
 */
class NetworkProfileTest {
    private static final Duration FIRST_BYTE = Duration.ofMillis(50);
    private static final long RATE = 10_000_000; // 10 MB/s
    private static LocalS3 s3;

    @BeforeAll
    static void start() {
        s3 = LocalS3.start(NetworkProfile.builder().firstByte(FIRST_BYTE).bytesPerSecond(RATE).maxConcurrentRequests(1).build());
        s3.createBucket("net");
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    @Test
    void aServerKeepsItsProfileAndNoneIsNoDelay() {
        assertThat(s3.profile().firstByte(RequestType.GET)).isEqualTo(FIRST_BYTE);
        assertThat(s3.profile().bytesPerSecond()).isEqualTo(RATE);
        assertThat(NetworkProfile.none().firstByte(RequestType.GET)).isEqualTo(Duration.ZERO);
        assertThat(NetworkProfile.none().bytesPerSecond()).isZero();
    }

    @Test
    void everyAnswerWaitsTheFirstByteDelay() {
        s3.put("net", "small", new byte[] {1, 2, 3});
        for (int i = 0; i < 2; i++) {
            assertThat(millis(() -> s3.put("net", "small", new byte[] {1, 2, 3}))).isGreaterThanOrEqualTo(45);
            assertThat(millis(() -> s3.get("net", "small"))).isGreaterThanOrEqualTo(45);
            assertThat(millis(() -> s3.client().headObject(b -> b.bucket("net").key("small")))).isGreaterThanOrEqualTo(45);
            assertThat(millis(() -> s3.list("net", ""))).isGreaterThanOrEqualTo(45);
        }
    }

    @Test
    void bodiesFlowAtTheBandwidthBothWays() {
        byte[] twoMegabytes = new byte[2_000_000];
        // 2 MB at 10 MB/s: 200 ms of body, plus the first-byte delay
        assertThat(millis(() -> s3.client().putObject(b -> b.bucket("net").key("big"), RequestBody.fromBytes(twoMegabytes))))
                .isGreaterThanOrEqualTo(180 + 45);
        long[] size = new long[1];
        assertThat(millis(() -> size[0] = s3.get("net", "big").length)).isGreaterThanOrEqualTo(180 + 45);
        assertThat(size[0]).isEqualTo(twoMegabytes.length);
    }

    @Test
    void theCapServesRequestsOneAtATime() {
        s3.put("net", "a", new byte[] {1});
        // two requests at once against a cap of one: the second waits for the first, so both take two delays
        long both = millis(() -> CompletableFuture.allOf(
                CompletableFuture.runAsync(() -> s3.get("net", "a")), CompletableFuture.runAsync(() -> s3.get("net", "a"))).join());
        assertThat(both).isGreaterThanOrEqualTo(2 * 45);
    }

    @Test
    void requestsAreTypedAsS3Does() {
        Map<String, String> none = Map.of();
        Map<String, String> copy = Map.of("x-amz-copy-source", "b/src");
        assertThat(KeyProxy.type("PUT", URI.create("/b/k"), none)).isEqualTo(RequestType.PUT);
        assertThat(KeyProxy.type("PUT", URI.create("/b/k"), copy)).isEqualTo(RequestType.COPY);
        assertThat(KeyProxy.type("PUT", URI.create("/b/k?partNumber=2&uploadId=x"), copy)).isEqualTo(RequestType.COPY);
        assertThat(KeyProxy.type("PUT", URI.create("/b/k?partNumber=2&uploadId=x"), none)).isEqualTo(RequestType.UPLOAD_PART);
        assertThat(KeyProxy.type("PUT", URI.create("/b"), none)).isEqualTo(RequestType.OTHER);
        assertThat(KeyProxy.type("GET", URI.create("/b/k"), none)).isEqualTo(RequestType.GET);
        assertThat(KeyProxy.type("GET", URI.create("/b/k?uploadId=x"), none)).isEqualTo(RequestType.LIST);
        assertThat(KeyProxy.type("GET", URI.create("/b?list-type=2&prefix=t/"), none)).isEqualTo(RequestType.LIST);
        assertThat(KeyProxy.type("GET", URI.create("/b?uploads&prefix=t/"), none)).isEqualTo(RequestType.LIST);
        assertThat(KeyProxy.type("GET", URI.create("/"), none)).isEqualTo(RequestType.LIST);
        assertThat(KeyProxy.type("GET", URI.create("/b?location"), none)).isEqualTo(RequestType.OTHER);
        assertThat(KeyProxy.type("POST", URI.create("/b?delete"), none)).isEqualTo(RequestType.DELETE);
        assertThat(KeyProxy.type("DELETE", URI.create("/b/k"), none)).isEqualTo(RequestType.DELETE);
        assertThat(KeyProxy.type("DELETE", URI.create("/b/k?uploadId=x"), none)).isEqualTo(RequestType.DELETE);
        assertThat(KeyProxy.type("POST", URI.create("/b/k?uploads"), none)).isEqualTo(RequestType.CREATE_MULTIPART);
        assertThat(KeyProxy.type("POST", URI.create("/b/k?uploadId=x"), none)).isEqualTo(RequestType.COMPLETE_MULTIPART);
        assertThat(KeyProxy.type("HEAD", URI.create("/b/k"), none)).isEqualTo(RequestType.HEAD);
        assertThat(KeyProxy.type("HEAD", URI.create("/b"), none)).isEqualTo(RequestType.HEAD);
    }

    private static long millis(Runnable r) {
        long start = System.nanoTime();
        r.run();
        return (System.nanoTime() - start) / 1_000_000;
    }
}
