package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * An S3Endpoint answers over HTTP exactly as its MemoryS3 answers in this JVM: every scenario of
 * {@link MemoryS3ConformanceTest} (the checks MemoryS3 and LocalS3 pass alike) runs through the real SDK client over
 * HTTP and through the MemoryS3's own client, and what each request returned (values, or the exception's type, status
 * and code) must be equal. It runs with the SDK's defaults (aws-chunked bodies with a CRC trailer, Expect:
 * 100-continue) and with the plain bodies LocalS3's and wrangler-spark's clients send. The races of
 * {@link ConditionalRaces} (which LocalS3ConditionalTest runs against LocalS3) run over HTTP too.
 */
class S3EndpointConformanceTest {
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    private static S3Endpoint http;
    private static S3Client plain;
    private static MemoryS3 direct;

    @BeforeAll
    static void start() {
        http = S3Endpoint.start();
        plain = http.newClient(b -> b.serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED));
        direct = MemoryS3.start();
    }

    @AfterAll
    static void stop() {
        plain.close();
        http.close();
    }

    static Stream<Arguments> scenarios() {
        return MemoryS3ConformanceTest.scenarios().flatMap(s -> Stream.of(Arguments.of(s, "sdk defaults"), Arguments.of(s, "plain bodies")));
    }

    @ParameterizedTest(name = "{0} ({1})")
    @MethodSource("scenarios")
    void theEndpointAnswersAsItsMemoryS3(String name, String client) throws Exception {
        MemoryS3ConformanceTest.Scenario scenario = (MemoryS3ConformanceTest.Scenario) MemoryS3ConformanceTest.class
                .getDeclaredMethod(name).invoke(null);
        List<String> inJvm = run(direct, direct.client(), scenario);
        List<String> overHttp = run(http.memory(), client.equals("plain bodies") ? plain : http.client(), scenario);
        assertThat(overHttp).as(name + " over HTTP against the MemoryS3 in this JVM").isEqualTo(inJvm);
    }

    private static List<String> run(MemoryS3 s3, S3Client client, MemoryS3ConformanceTest.Scenario scenario) {
        String bucket = "conform-" + BUCKETS.incrementAndGet();
        s3.createBucket(bucket);
        MemoryS3ConformanceTest.Seen seen = new MemoryS3ConformanceTest.Seen();
        scenario.run(client, bucket, seen);
        return seen.lines;
    }

    @Test
    void racingConditionalRequestsOverHttpLeaveExactlyOneWinner() throws Exception {
        http.createBucket("races");
        ConditionalRaces.createsLeaveOneWinner(http.client(), "races", 3);
        ConditionalRaces.swapsLeaveOneWinner(http.client(), "races", 3);
        ConditionalRaces.deletesAndSwapsLeaveOneWinner(http.client(), "races", 3);
        ConditionalRaces.getsSeeAWholeVersionOrNone(http.client(), http.client(), "races", 3);
    }
}
