package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/** LocalS3 accepts every key AWS S3 accepts, lists them in S3's order, and no key breaks a later request. */
class LocalS3KeysTest {
    /** A file-backed server keeps its buckets and objects in its folder: a server started again there sees them. */
    @Test
    void aFileBackedServerIsSeenAgainByTheNextServerOnItsFolder() throws java.io.IOException {
        java.nio.file.Path folder = java.nio.file.Files.createTempDirectory("local-s3-kept-");
        try (LocalS3 first = LocalS3.fileBacked(folder)) {
            assertThat(first.folder()).isEqualTo(folder);
            assertThat(first.profile().firstByte(NetworkProfile.RequestType.GET)).isEqualTo(java.time.Duration.ZERO);
            first.createBucket("kept");
            first.put("kept", "t/a", new byte[] {7});
        }
        try (LocalS3 again = LocalS3.fileBacked(folder)) {
            assertThat(again.get("kept", "t/a")).containsExactly(7);
        }
    }

    private static LocalS3 s3;

    @BeforeAll
    static void start() {
        s3 = LocalS3.start();
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    /** Keys S3Mock alone answers with HTTP 500, 400, unparsable XML or a listing that loses every key. */
    private static final List<String> HARD = List.of("t/p=\uD83D\uDE00/x", "t/a\u0001b", "t/a\u007Fb", "t/\"'<>&\\", "t/\uFFFF", "t/\uFFFD",
            "t/\u00e9\u4e2d", "t/a%2Fb", "t/a+b c", "t/q?x#y&z=1", "t/tab\tnew\nline", "t/" + "\uD83D\uDE00".repeat(255), "t/" + "x".repeat(1022),
            "t/\uD800\uDC00\uDBFF\uDFFF", "t/.", "t/..", "t/~!$()*,;@[]^`{|}");

    @Test
    void everyKeyAwsAcceptsIsStoredListedCopiedAndReadBack() {
        s3.createBucket("keys");
        s3.createBucket("copies");
        for (String key : HARD) {
            assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
            s3.put("keys", key, key.getBytes(StandardCharsets.UTF_8));
            assertThat(new String(s3.get("keys", key), StandardCharsets.UTF_8)).isEqualTo(key);
            s3.client().copyObject(b -> b.sourceBucket("keys").sourceKey(key).destinationBucket("copies").destinationKey(key));
        }
        List<String> listed = new ArrayList<>();
        for (S3Object o : s3.client().listObjectsV2Paginator(b -> b.bucket("keys").prefix("t/").maxKeys(3)
                // As on AWS: control characters in keys come back in XML only when URL-encoded.
                .encodingType(EncodingType.URL)).contents()) {
            listed.add(o.key());
        }
        List<String> inS3Order = new ArrayList<>(HARD);
        inS3Order.sort(LocalS3KeysTest::utf8Order);
        assertThat(listed).containsExactlyElementsOf(inS3Order);
        assertThat(s3.client().listObjectsV2(b -> b.bucket("copies").prefix("t/\uD83D\uDE00")).contents()).hasSize(1);
        assertThat(HARD).allSatisfy(k -> assertThat(new String(s3.get("copies", k), StandardCharsets.UTF_8)).isEqualTo(k));
        assertThat(s3.client().listObjectsV2(b -> b.bucket("keys").prefix("t/p=").delimiter("/")).commonPrefixes())
                .singleElement().satisfies(p -> assertThat(p.prefix()).isEqualTo("t/p=\uD83D\uDE00/"));

        s3.client().deleteObjects(b -> b.bucket("keys").delete(d -> d.quiet(true).objects(HARD.stream()
                .map(k -> ObjectIdentifier.builder().key(k).build()).toList())));
        assertThat(s3.list("keys", "t/")).isEmpty();
    }

    @Test
    void multipartUploadsKeepTheirKeys() {
        s3.createBucket("multi");
        String key = "t/d=\uD83D\uDE00 \"<&>'/part.parquet";
        String id = s3.client().createMultipartUpload(b -> b.bucket("multi").key(key)).uploadId();
        assertThat(s3.openMultipartUploads("multi", "t/")).containsExactly(key);
        byte[] part = new byte[5 * 1024 * 1024];
        Arrays.fill(part, (byte) 7);
        String etag = s3.client().uploadPart(b -> b.bucket("multi").key(key).uploadId(id).partNumber(1), RequestBody.fromBytes(part)).eTag();
        s3.client().completeMultipartUpload(b -> b.bucket("multi").key(key).uploadId(id)
                .multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag(etag).build())));
        assertThat(s3.list("multi", "t/")).containsExactly(java.util.Map.entry(key, (long) part.length));
        assertThat(s3.get("multi", key)).isEqualTo(part);
    }

    @Test
    void aKeyLongerThanS3AllowsIsRefusedAndTheNextRequestsWork() {
        s3.createBucket("long");
        String tooLong = "t/" + "\uD83D\uDE00".repeat(256);
        assertThatThrownBy(() -> s3.put("long", tooLong, new byte[] {1}))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("KeyTooLongError");
                });
        assertThatThrownBy(() -> s3.get("long", "t/missing")).isInstanceOf(S3Exception.class);
        s3.put("long", "t/\uD83D\uDE00", new byte[] {2});
        s3.put("long", "t/plain", new byte[] {3});
        assertThat(s3.list("long", "")).containsOnlyKeys("t/plain", "t/\uD83D\uDE00");
    }

    private static int utf8Order(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
