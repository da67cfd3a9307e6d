package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What an S3Endpoint sends and takes on the wire, beyond what the SDK's model shows: checksums and digests verified
 * and answered, XML escaping and {@code encoding-type=url} of awkward keys, S3's error bodies and statuses, faults of
 * the MemoryS3 as a client sees them over HTTP, storage classes, tags and copy conditions, virtual-host addressing,
 * refusals.
 */
class S3EndpointWireTest {
    private static S3Endpoint s3;
    private static HttpClient raw;

    @BeforeAll
    static void start() {
        s3 = S3Endpoint.start();
        s3.createBucket("wire");
        raw = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    private static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return raw.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(String pathAndQuery) {
        return URI.create(s3.endpoint() + pathAndQuery);
    }

    @Test
    void serveOfAMemoryS3ServesItsObjectsBothWays() {
        try (MemoryS3 memory = MemoryS3.start(); S3Endpoint http = memory.serve()) {
            memory.createBucket("both");
            memory.put("both", "in/memory", "put in the JVM".getBytes(StandardCharsets.UTF_8));
            assertThat(http.client().getObjectAsBytes(b -> b.bucket("both").key("in/memory")).asUtf8String())
                    .isEqualTo("put in the JVM");
            http.client().putObject(b -> b.bucket("both").key("over/http"), RequestBody.fromString("put over HTTP"));
            assertThat(new String(memory.get("both", "over/http"), StandardCharsets.UTF_8)).isEqualTo("put over HTTP");
            assertThat(http.memory()).isSameAs(memory);
        }
    }

    @Test
    void checksumsTheSdkSendsAreVerifiedAndAnsweredAsS3AnswersThem() {
        for (ChecksumAlgorithm algorithm : List.of(ChecksumAlgorithm.CRC32, ChecksumAlgorithm.CRC32_C, ChecksumAlgorithm.SHA1,
                ChecksumAlgorithm.SHA256)) {
            String key = "sums/" + algorithm;
            PutObjectResponse put = s3.client().putObject(b -> b.bucket("wire").key(key).checksumAlgorithm(algorithm),
                    RequestBody.fromString("payload of " + algorithm));
            String expected = S3Body.checksum(algorithm.toString().toLowerCase(java.util.Locale.ROOT).replace("_", ""),
                    ("payload of " + algorithm).getBytes(StandardCharsets.UTF_8));
            String answered = switch (algorithm) {
                case CRC32 -> put.checksumCRC32();
                case CRC32_C -> put.checksumCRC32C();
                case SHA1 -> put.checksumSHA1();
                default -> put.checksumSHA256();
            };
            assertThat(answered).as(algorithm + " answered to the PutObject").isEqualTo(expected);
            ResponseBytes<GetObjectResponse> got = s3.client().getObjectAsBytes(b -> b.bucket("wire").key(key)
                    .checksumMode(ChecksumMode.ENABLED));
            assertThat(got.asUtf8String()).isEqualTo("payload of " + algorithm);
        }
        // CRC-64/NVME's check value (the SDK computes it only with the CRT, which the testkit does not bring)
        assertThat(S3Body.crc64nvme("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xAE8B14860A799888L);
    }

    @Test
    void aWrongDigestIsRefusedWithBadDigestAndNothingIsStored() throws Exception {
        HttpResponse<String> md5 = send(HttpRequest.newBuilder(uri("/wire/bad/md5")).header("Content-MD5", "AAAAAAAAAAAAAAAAAAAAAA==")
                .PUT(HttpRequest.BodyPublishers.ofString("hello")));
        assertThat(md5.statusCode()).isEqualTo(400);
        assertThat(md5.body()).contains("<Code>BadDigest</Code>").contains("<Key>bad/md5</Key>");

        // an aws-chunked body whose CRC32 trailer does not match its content
        String chunked = "5;chunk-signature=0\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n";
        HttpResponse<String> trailer = send(HttpRequest.newBuilder(uri("/wire/bad/trailer"))
                .header("x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER").header("Content-Encoding", "aws-chunked")
                .header("x-amz-decoded-content-length", "5").header("x-amz-trailer", "x-amz-checksum-crc32")
                .PUT(HttpRequest.BodyPublishers.ofString(chunked)));
        assertThat(trailer.statusCode()).isEqualTo(400);
        assertThat(trailer.body()).contains("<Code>BadDigest</Code>").contains("The CRC32 you specified did not match the calculated checksum.");

        String good = S3Body.checksum("crc32", "hello".getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> ok = send(HttpRequest.newBuilder(uri("/wire/good/trailer"))
                .header("x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER").header("Content-Encoding", "aws-chunked")
                .header("x-amz-decoded-content-length", "5").header("x-amz-trailer", "x-amz-checksum-crc32")
                .PUT(HttpRequest.BodyPublishers.ofString(chunked.replace("AAAAAA==", good))));
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("x-amz-checksum-crc32")).contains(good);
        assertThat(ok.headers().firstValue("ETag")).contains("\"5d41402abc4b2a76b9719d911017c592\"");
        assertThat(s3.list("wire", "bad/")).isEmpty();
        assertThat(new String(s3.get("wire", "good/trailer"), StandardCharsets.UTF_8)).isEqualTo("hello");
    }

    @Test
    void awkwardKeysRoundTripThroughPathsListingsCopiesAndBatchDeletes() throws Exception {
        List<String> keys = List.of("k/a b+c", "k/100%", "k/&<>\"'", "k/ünï/😀", "k/semi;colon=eq?q#h", "k/ctl\u0001\u001f", "k//double");
        S3Client c = s3.client();
        for (String k : keys) {
            c.putObject(b -> b.bucket("wire").key(k), RequestBody.fromString(k));
        }
        List<String> listed = new ArrayList<>();
        // keys with control characters are listed with encoding-type=url (XML 1.0 cannot carry them), on AWS as here
        c.listObjectsV2Paginator(b -> b.bucket("wire").prefix("k/").maxKeys(2).encodingType(EncodingType.URL)).contents().forEach(o -> listed.add(o.key()));
        assertThat(listed).isEqualTo(keys.stream().sorted().toList());
        for (String k : keys) {
            assertThat(c.getObjectAsBytes(b -> b.bucket("wire").key(k)).asUtf8String()).isEqualTo(k);
            c.copyObject(b -> b.sourceBucket("wire").sourceKey(k).destinationBucket("wire").destinationKey("copy/" + k));
        }
        assertThat(s3.list("wire", "copy/").keySet()).containsExactlyElementsOf(keys.stream().map(k -> "copy/" + k).sorted().toList());
        // without encoding-type=url the markup is escaped
        HttpResponse<String> xml = send(HttpRequest.newBuilder(uri("/wire?list-type=2&prefix=k/%26")).GET());
        assertThat(xml.body()).contains("<Key>k/&amp;&lt;&gt;&quot;&apos;</Key>");
        HttpResponse<String> url = send(HttpRequest.newBuilder(uri("/wire?list-type=2&prefix=k/a&encoding-type=url")).GET());
        assertThat(url.body()).contains("<Key>k/a+b%2Bc</Key>").contains("<EncodingType>url</EncodingType>");
        var deleted = c.deleteObjects(b -> b.bucket("wire").delete(d -> d.objects(keys.stream().filter(k -> !k.contains("\u0001"))
                .map(k -> software.amazon.awssdk.services.s3.model.ObjectIdentifier.builder().key(k).build()).toList())));
        assertThat(deleted.errors()).isEmpty();
        assertThat(s3.list("wire", "k/").keySet()).containsExactly("k/ctl\u0001\u001f");
        assertThatThrownBy(() -> c.putObject(b -> b.bucket("wire").key("k".repeat(1025)), RequestBody.fromString("x")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("KeyTooLongError"));
    }

    @Test
    void errorsAreS3sXmlWithS3sStatusAndHeadAnswersHaveNoBody() throws Exception {
        HttpResponse<String> get = send(HttpRequest.newBuilder(uri("/wire/no/such")).GET());
        assertThat(get.statusCode()).isEqualTo(404);
        assertThat(get.headers().firstValue("Content-Type")).contains("application/xml");
        assertThat(get.body()).contains("<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
                + "<Key>no/such</Key>");
        HttpResponse<String> head = send(HttpRequest.newBuilder(uri("/wire/no/such")).method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(head.statusCode()).isEqualTo(404);
        assertThat(head.body()).isEmpty();
        assertThat(send(HttpRequest.newBuilder(uri("/nobucket/x")).GET()).body()).contains("<Code>NoSuchBucket</Code>");
        s3.put("wire", "r", "0123456789".getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> range = send(HttpRequest.newBuilder(uri("/wire/r")).header("Range", "bytes=20-30").GET());
        assertThat(range.statusCode()).isEqualTo(416);
        assertThat(range.body()).contains("<Code>InvalidRange</Code>");
        HttpResponse<String> headOk = send(HttpRequest.newBuilder(uri("/wire/r")).method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(headOk.headers().firstValue("Content-Length")).contains("10");
        assertThat(headOk.headers().firstValue("ETag")).contains("\"781e5e245d69b566979b86e28d23f2c7\"");
        HttpResponse<String> v1 = send(HttpRequest.newBuilder(uri("/wire")).GET());
        assertThat(v1.statusCode()).isEqualTo(501);
        assertThat(v1.body()).contains("<Code>NotImplemented</Code>");
    }

    @Test
    void theMemoryS3sFaultsReachAClientOverHttp() {
        S3Client once = s3.newClient(b -> b.overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1))));
        try (once) {
            s3.memory().failNext("PutObject", 1, S3Fault.CONNECTION_RESET);
            assertThatThrownBy(() -> once.putObject(b -> b.bucket("wire").key("f/reset"), RequestBody.fromString("x")))
                    .isInstanceOf(SdkClientException.class);
            s3.memory().failNext("GetObject", 1, S3Fault.SLOW_DOWN);
            s3.put("wire", "f/slow", "y".getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> once.getObjectAsBytes(b -> b.bucket("wire").key("f/slow")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode() + " " + e.awsErrorDetails().errorCode())
                            .isEqualTo("503 SlowDown"));
        }
        // the shared client retries as the SDK does: a body cut short on the wire is read again
        byte[] big = new byte[100_000];
        new java.util.Random(7).nextBytes(big);
        s3.put("wire", "f/cut", big);
        s3.memory().clearRequests();
        s3.memory().failNext("GetObject", 1, S3Fault.BODY_CUT_SHORT);
        assertThat(s3.client().getObjectAsBytes(b -> b.bucket("wire").key("f/cut")).asByteArray()).isEqualTo(big);
        assertThat(s3.memory().requests().stream().filter(r -> r.operation().equals("GetObject")).count()).isEqualTo(2);
    }

    @Test
    void aHostOfTheFormBucketDotLocalhostAddressesTheBucket() throws Exception {
        s3.put("wire", "vh/x", "virtual".getBytes(StandardCharsets.UTF_8));
        try (Socket socket = new Socket("127.0.0.1", s3.endpoint().getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET /vh/x HTTP/1.1\r\nHost: wire.localhost:" + s3.endpoint().getPort() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 200").endsWith("\r\n\r\nvirtual");
        }
    }

    @Test
    void storageClassesTagsAndCopyConditionsAreTheMemoryS3sOverHttp() {
        S3Client c = s3.client();
        String etag = c.putObject(b -> b.bucket("wire").key("sc/cold").storageClass("GLACIER_IR").tagging("team=data&tier=cold"),
                RequestBody.fromString("cold")).eTag();
        var head = c.headObject(b -> b.bucket("wire").key("sc/cold"));
        assertThat(head.storageClassAsString() + " " + head.tagCount()).isEqualTo("GLACIER_IR 2");
        assertThat(c.getObjectTagging(b -> b.bucket("wire").key("sc/cold")).tagSet())
                .extracting(t -> t.key() + "=" + t.value()).containsExactly("team=data", "tier=cold");
        assertThat(c.listObjectsV2(b -> b.bucket("wire").prefix("sc/")).contents())
                .extracting(o -> o.key() + " " + o.storageClassAsString()).containsExactly("sc/cold GLACIER_IR");
        // a copy takes the request's storage class (STANDARD without one: no header) and the source's tags
        c.copyObject(b -> b.sourceBucket("wire").sourceKey("sc/cold").destinationBucket("wire").destinationKey("sc/copy")
                .copySourceIfMatch(etag));
        var copy = c.headObject(b -> b.bucket("wire").key("sc/copy"));
        assertThat(copy.storageClassAsString() + " " + copy.tagCount()).isEqualTo("null 2");
        assertThatThrownBy(() -> c.copyObject(b -> b.sourceBucket("wire").sourceKey("sc/cold").destinationBucket("wire")
                .destinationKey("sc/stale").copySourceIfMatch("\"0123\"")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode() + " " + e.awsErrorDetails().errorCode())
                        .isEqualTo("412 PreconditionFailed"));
        assertThatThrownBy(() -> c.copyObject(b -> b.sourceBucket("wire").sourceKey("sc/cold").destinationBucket("wire")
                .destinationKey("sc/copy").ifNoneMatch("*")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode() + " " + e.awsErrorDetails().errorCode())
                        .isEqualTo("412 PreconditionFailed"));
        assertThat(s3.list("wire", "sc/").keySet()).containsExactly("sc/cold", "sc/copy");
    }
}
