package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;

/**
 * MemoryS3 answers as LocalS3 (S3Mock behind the key proxy, over HTTP) does: each scenario runs the same requests on
 * both, through the SDK's S3Client, and what each request returned (values, or the exception's type, status and code)
 * must be equal. Where S3Mock is known to answer otherwise than AWS S3, MemoryS3 must give AWS's answer
 * ({@link #DIVERGENCES}) and S3Mock's is not compared.
 */
class MemoryS3ConformanceTest {
    /**
     * "scenario: request" to AWS S3's answer, where S3Mock 4.7 answers otherwise: a range that starts past the end is
     * 416 InvalidRange on AWS (S3Mock: an empty 200); KeyCount counts common prefixes and MaxKeys caps them on AWS (S3Mock
     * counts objects only and returns every common prefix in one page); CompleteMultipartUpload with If-None-Match over
     * an existing key is 412 on AWS (S3Mock: 304); a part list not in ascending order is InvalidPartOrder, as AWS documents
     * it (S3Mock checks the parts' sizes first and answers EntityTooSmall).
     */
    private static final Map<String, String> DIVERGENCES = Map.of(
            "ranges: bytes=10-12", "S3Exception 416 InvalidRange",
            "listings: folders of t/", "[t/top1, t/top2, t/_tmp/, t/a=1/, t/a=2/] count=5 truncated=false",
            "listings: pages of two with folders", "[[t/_tmp/, t/a=1/] count=2 truncated=true, [t/top1, t/a=2/] count=2 "
                    + "truncated=true, [t/top2] count=1 truncated=false]",
            "multipart: create-only completion over an object", "S3Exception 412 PreconditionFailed",
            "multipartErrors: parts out of order", "S3Exception 400 InvalidPartOrder");
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    private static LocalS3 local;
    private static MemoryS3 memory;

    @BeforeAll
    static void start() {
        local = LocalS3.start();
        memory = MemoryS3.start();
    }

    @AfterAll
    static void stop() {
        local.close();
        memory.close();
    }

    /** What one backend answered, request by request. */
    static final class Seen {
        final List<String> lines = new ArrayList<>();

        void add(String what, Supplier<?> request) {
            try {
                lines.add(what + " -> " + request.get());
            } catch (AwsServiceException e) {
                lines.add(what + " -> " + e.getClass().getSimpleName() + " " + e.statusCode() + " "
                        + (e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode()));
            }
        }
    }

    interface Scenario {
        void run(S3Client s3, String bucket, Seen seen);
    }

    static Stream<String> scenarios() {
        return Stream.of("putGetHead", "conditionalPuts", "conditionalDeletes", "missing", "ranges", "copies", "listings",
                "batchDeletes", "multipart", "multipartErrors", "uploadListings", "partListings");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void memoryS3AnswersAsLocalS3(String name) throws Exception {
        Scenario scenario = (Scenario) MemoryS3ConformanceTest.class.getDeclaredMethod(name).invoke(null);
        List<String> onLocal = run(local, scenario);
        List<String> onMemory = run(memory, scenario);
        assertThat(onMemory).as(name + ": the requests answered").hasSameSizeAs(onLocal);
        for (int i = 0; i < onLocal.size(); i++) {
            String request = onLocal.get(i).substring(0, onLocal.get(i).indexOf(" -> "));
            String aws = DIVERGENCES.get(name + ": " + request);
            if (aws != null) {
                assertThat(onMemory.get(i)).as(name + " on MemoryS3, as on AWS S3 (S3Mock answers " + onLocal.get(i) + ")")
                        .isEqualTo(request + " -> " + aws);
            } else {
                assertThat(onMemory.get(i)).as(name + " on MemoryS3 against LocalS3").isEqualTo(onLocal.get(i));
            }
        }
    }

    private static List<String> run(S3Fixture s3, Scenario scenario) {
        String bucket = "conform-" + BUCKETS.incrementAndGet();
        s3.createBucket(bucket);
        Seen seen = new Seen();
        scenario.run(s3.client(), bucket, seen);
        return seen.lines;
    }

    private static RequestBody text(String s) {
        return RequestBody.fromString(s, StandardCharsets.UTF_8);
    }

    private static String content(S3Client s3, String bucket, String key) {
        return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asUtf8String();
    }

    static Scenario putGetHead() {
        return (s3, bucket, seen) -> {
            seen.add("put", () -> s3.putObject(b -> b.bucket(bucket).key("a/b.txt"), text("hello")).eTag());
            seen.add("get", () -> {
                var r = s3.getObjectAsBytes(b -> b.bucket(bucket).key("a/b.txt"));
                GetObjectResponse g = r.response();
                return List.of(r.asUtf8String(), g.eTag(), g.contentLength(), g.lastModified().truncatedTo(ChronoUnit.SECONDS)
                        .equals(g.lastModified()), g.sdkHttpResponse().firstMatchingHeader("Date").isPresent());
            });
            seen.add("head", () -> {
                var h = s3.headObject(b -> b.bucket(bucket).key("a/b.txt"));
                return List.of(h.eTag(), h.contentLength());
            });
            seen.add("overwrite", () -> s3.putObject(b -> b.bucket(bucket).key("a/b.txt"), text("bye")).eTag());
            seen.add("read back", () -> content(s3, bucket, "a/b.txt"));
            seen.add("empty object", () -> s3.putObject(b -> b.bucket(bucket).key("empty"), RequestBody.empty()).eTag());
            seen.add("empty read", () -> s3.getObjectAsBytes(b -> b.bucket(bucket).key("empty")).asByteArray().length);
            seen.add("head bucket", () -> s3.headBucket(b -> b.bucket(bucket)).sdkHttpResponse().statusCode());
        };
    }

    static Scenario conditionalPuts() {
        return (s3, bucket, seen) -> {
            seen.add("create", () -> s3.putObject(b -> b.bucket(bucket).key("lease").ifNoneMatch("*"), text("one")).eTag());
            seen.add("create again", () -> s3.putObject(b -> b.bucket(bucket).key("lease").ifNoneMatch("*"), text("two")).eTag());
            String etag = s3.headObject(b -> b.bucket(bucket).key("lease")).eTag();
            seen.add("swap", () -> s3.putObject(b -> b.bucket(bucket).key("lease").ifMatch(etag), text("three")).eTag());
            seen.add("swap on a stale etag", () -> s3.putObject(b -> b.bucket(bucket).key("lease").ifMatch(etag), text("four")).eTag());
            seen.add("after", () -> content(s3, bucket, "lease"));
        };
    }

    static Scenario conditionalDeletes() {
        return (s3, bucket, seen) -> {
            String etag = s3.putObject(b -> b.bucket(bucket).key("lease"), text("one")).eTag();
            seen.add("delete on another etag", () -> s3.deleteObject(b -> b.bucket(bucket).key("lease").ifMatch("\"0123\""))
                    .sdkHttpResponse().statusCode());
            seen.add("still there", () -> content(s3, bucket, "lease"));
            seen.add("delete on its etag", () -> s3.deleteObject(b -> b.bucket(bucket).key("lease").ifMatch(etag))
                    .sdkHttpResponse().statusCode());
            seen.add("gone", () -> content(s3, bucket, "lease"));
            seen.add("delete of a missing key", () -> s3.deleteObject(b -> b.bucket(bucket).key("lease")).sdkHttpResponse().statusCode());
        };
    }

    static Scenario missing() {
        return (s3, bucket, seen) -> {
            seen.add("get", () -> content(s3, bucket, "nothing"));
            seen.add("head", () -> s3.headObject(b -> b.bucket(bucket).key("nothing")).eTag());
            seen.add("get in a missing bucket", () -> content(s3, bucket + "-none", "x"));
            seen.add("list a missing bucket", () -> s3.listObjectsV2(b -> b.bucket(bucket + "-none")).keyCount());
            seen.add("head a missing bucket", () -> s3.headBucket(b -> b.bucket(bucket + "-none")).sdkHttpResponse().statusCode());
            seen.add("copy a missing key", () -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("nothing")
                    .destinationBucket(bucket).destinationKey("copy")).copyObjectResult().eTag());
            seen.add("too long a key", () -> s3.putObject(b -> b.bucket(bucket).key("k".repeat(1025)), text("x")).eTag());
        };
    }

    static Scenario ranges() {
        return (s3, bucket, seen) -> {
            s3.putObject(b -> b.bucket(bucket).key("r"), text("0123456789"));
            for (String range : List.of("bytes=2-5", "bytes=3-", "bytes=-4", "bytes=8-20")) {
                seen.add(range, () -> {
                    var r = s3.getObjectAsBytes(b -> b.bucket(bucket).key("r").range(range));
                    return List.of(r.asUtf8String(), r.response().contentLength(), r.response().contentRange());
                });
            }
            seen.add("bytes=10-12", () -> s3.getObjectAsBytes(b -> b.bucket(bucket).key("r").range("bytes=10-12")).asUtf8String());
        };
    }

    static Scenario copies() {
        return (s3, bucket, seen) -> {
            String etag = s3.putObject(b -> b.bucket(bucket).key("src/x.parquet"), text("data")).eTag();
            seen.add("copy", () -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src/x.parquet").destinationBucket(bucket)
                    .destinationKey("dst/x.parquet")).copyObjectResult().eTag().equals(etag));
            seen.add("copy's content", () -> content(s3, bucket, "dst/x.parquet"));
            seen.add("copy's etag", () -> s3.headObject(b -> b.bucket(bucket).key("dst/x.parquet")).eTag());
        };
    }

    static Scenario listings() {
        return (s3, bucket, seen) -> {
            for (String k : List.of("t/a=1/f1", "t/a=1/f2", "t/a=2/f1", "t/_tmp/x", "t/top1", "t/top2", "u/other")) {
                s3.putObject(b -> b.bucket(bucket).key(k), text(k));
            }
            seen.add("all under t/", () -> keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix("t/"))));
            seen.add("folders of t/", () -> keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix("t/").delimiter("/"))));
            seen.add("pages of two", () -> {
                List<String> pages = new ArrayList<>();
                String token = null;
                do {
                    String t = token;
                    ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(bucket).prefix("t/").maxKeys(2).continuationToken(t));
                    pages.add(keys(page));
                    token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
                } while (token != null);
                return pages;
            });
            seen.add("pages of two with folders", () -> {
                List<String> pages = new ArrayList<>();
                String token = null;
                do {
                    String t = token;
                    ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(bucket).prefix("t/").delimiter("/").maxKeys(2)
                            .continuationToken(t));
                    pages.add(keys(page));
                    token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
                } while (token != null);
                return pages;
            });
            seen.add("start after", () -> keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix("t/").startAfter("t/a=2/f1"))));
            seen.add("paginator", () -> {
                List<String> all = new ArrayList<>();
                s3.listObjectsV2Paginator(b -> b.bucket(bucket).maxKeys(3)).contents().forEach(o -> all.add(o.key() + ":" + o.size()));
                return all;
            });
            seen.add("nothing", () -> keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix("v/"))));
        };
    }

    private static String keys(ListObjectsV2Response page) {
        List<String> out = new ArrayList<>();
        page.contents().forEach(o -> out.add(o.key()));
        page.commonPrefixes().forEach(p -> out.add(p.prefix()));
        return out + " count=" + page.keyCount() + " truncated=" + page.isTruncated();
    }

    static Scenario batchDeletes() {
        return (s3, bucket, seen) -> {
            for (String k : List.of("d/1", "d/2", "d/3")) {
                s3.putObject(b -> b.bucket(bucket).key(k), text(k));
            }
            seen.add("quiet, with a missing key", () -> describe(s3.deleteObjects(b -> b.bucket(bucket).delete(Delete.builder()
                    .objects(ids("d/1", "d/none")).quiet(true).build()))));
            seen.add("loud", () -> describe(s3.deleteObjects(b -> b.bucket(bucket).delete(Delete.builder()
                    .objects(ids("d/2", "d/none")).quiet(false).build()))));
            seen.add("left", () -> keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix("d/"))));
        };
    }

    private static List<ObjectIdentifier> ids(String... keys) {
        return Arrays.stream(keys).map(k -> ObjectIdentifier.builder().key(k).build()).toList();
    }

    private static String describe(DeleteObjectsResponse r) {
        List<String> deleted = new ArrayList<>();
        r.deleted().forEach(d -> deleted.add(d.key()));
        deleted.sort(null);
        return "deleted " + deleted + " errors " + r.errors().size();
    }

    private static final byte[] FIVE_MIB = new byte[5 * 1024 * 1024];

    static Scenario multipart() {
        return (s3, bucket, seen) -> {
            String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("m/big.parquet")).uploadId();
            String e1 = s3.uploadPart(b -> b.bucket(bucket).key("m/big.parquet").uploadId(id).partNumber(1), RequestBody.fromBytes(FIVE_MIB))
                    .eTag();
            String e2 = s3.uploadPart(b -> b.bucket(bucket).key("m/big.parquet").uploadId(id).partNumber(2), text("tail")).eTag();
            seen.add("part etags", () -> List.of(e1, e2));
            seen.add("open uploads", () -> uploads(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("m/"))));
            seen.add("invisible before completion", () -> keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix("m/"))));
            seen.add("complete", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("m/big.parquet").uploadId(id)
                    .multipartUpload(u -> u.parts(part(1, e1), part(2, e2)))).eTag());
            seen.add("object", () -> {
                var h = s3.headObject(b -> b.bucket(bucket).key("m/big.parquet"));
                return List.of(h.eTag(), h.contentLength());
            });
            seen.add("its tail", () -> s3.getObjectAsBytes(b -> b.bucket(bucket).key("m/big.parquet").range("bytes=-4")).asUtf8String());
            seen.add("complete again", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("m/big.parquet").uploadId(id)
                    .multipartUpload(u -> u.parts(part(1, e1), part(2, e2)))).eTag());
            seen.add("abort after completion", () -> s3.abortMultipartUpload(b -> b.bucket(bucket).key("m/big.parquet").uploadId(id))
                    .sdkHttpResponse().statusCode());
            seen.add("no open uploads", () -> uploads(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("m/"))));

            String copy = s3.createMultipartUpload(b -> b.bucket(bucket).key("m/copy.parquet")).uploadId();
            seen.add("part copies", () -> {
                String c1 = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("m/big.parquet").destinationBucket(bucket)
                        .destinationKey("m/copy.parquet").uploadId(copy).partNumber(1).copySourceRange("bytes=0-5242879"))
                        .copyPartResult().eTag();
                String c2 = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("m/big.parquet").destinationBucket(bucket)
                        .destinationKey("m/copy.parquet").uploadId(copy).partNumber(2).copySourceRange("bytes=5242880-5242883"))
                        .copyPartResult().eTag();
                String etag = s3.completeMultipartUpload(b -> b.bucket(bucket).key("m/copy.parquet").uploadId(copy)
                        .multipartUpload(u -> u.parts(part(1, c1), part(2, c2)))).eTag();
                return List.of(c1, c2, etag);
            });
            seen.add("create-only completion over an object", () -> {
                String again = s3.createMultipartUpload(b -> b.bucket(bucket).key("m/copy.parquet")).uploadId();
                String p = s3.uploadPart(b -> b.bucket(bucket).key("m/copy.parquet").uploadId(again).partNumber(1), text("x")).eTag();
                try {
                    return s3.completeMultipartUpload(b -> b.bucket(bucket).key("m/copy.parquet").uploadId(again).ifNoneMatch("*")
                            .multipartUpload(u -> u.parts(part(1, p)))).eTag();
                } finally {
                    s3.abortMultipartUpload(b -> b.bucket(bucket).key("m/copy.parquet").uploadId(again));
                }
            });
            seen.add("abort", () -> {
                String gone = s3.createMultipartUpload(b -> b.bucket(bucket).key("m/aborted.parquet")).uploadId();
                s3.abortMultipartUpload(b -> b.bucket(bucket).key("m/aborted.parquet").uploadId(gone));
                return uploads(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("m/"))) + " "
                        + keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix("m/aborted")));
            });
        };
    }

    static Scenario multipartErrors() {
        return (s3, bucket, seen) -> {
            String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("e/x")).uploadId();
            String e1 = s3.uploadPart(b -> b.bucket(bucket).key("e/x").uploadId(id).partNumber(1), RequestBody.fromBytes(FIVE_MIB)).eTag();
            String e2 = s3.uploadPart(b -> b.bucket(bucket).key("e/x").uploadId(id).partNumber(2), text("tail")).eTag();
            seen.add("a wrong part etag", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("e/x").uploadId(id)
                    .multipartUpload(u -> u.parts(part(1, e2), part(2, e2)))).eTag());
            seen.add("a missing part", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("e/x").uploadId(id)
                    .multipartUpload(u -> u.parts(part(1, e1), part(4, e2)))).eTag());
            seen.add("part to an unknown upload", () -> s3.uploadPart(b -> b.bucket(bucket).key("e/x").uploadId("nope").partNumber(1),
                    text("x")).eTag());
            seen.add("complete an unknown upload", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("e/x").uploadId("nope")
                    .multipartUpload(u -> u.parts(part(1, e1)))).eTag());
            seen.add("abort an unknown upload", () -> s3.abortMultipartUpload(b -> b.bucket(bucket).key("e/x").uploadId("nope"))
                    .sdkHttpResponse().statusCode());
            String e3 = s3.uploadPart(b -> b.bucket(bucket).key("e/x").uploadId(id).partNumber(3), text("end")).eTag();
            seen.add("a small part first", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("e/x").uploadId(id)
                    .multipartUpload(u -> u.parts(part(2, e2), part(3, e3)))).eTag());
            seen.add("parts out of order", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("e/x").uploadId(id)
                    .multipartUpload(u -> u.parts(part(1, e1), part(1, e1), part(2, e2)))).eTag());
            seen.add("upload still open", () -> uploads(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("e/"))));
            s3.abortMultipartUpload(b -> b.bucket(bucket).key("e/x").uploadId(id));
        };
    }

    static Scenario uploadListings() {
        return (s3, bucket, seen) -> {
            for (String k : List.of("p/b", "p/a", "p/c", "q/a")) {
                s3.createMultipartUpload(b -> b.bucket(bucket).key(k));
            }
            seen.add("under p/", () -> uploads(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("p/"))));
            seen.add("all", () -> uploads(s3.listMultipartUploads(b -> b.bucket(bucket))));
            seen.add("after p/a", () -> uploads(s3.listMultipartUploads(b -> b.bucket(bucket).keyMarker("p/a"))));
        };
    }

    static Scenario partListings() {
        return (s3, bucket, seen) -> {
            String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("u")).uploadId();
            seen.add("no part yet", () -> parts(s3.listParts(b -> b.bucket(bucket).key("u").uploadId(id))));
            for (int n : new int[] {3, 1, 2}) {
                s3.uploadPart(b -> b.bucket(bucket).key("u").uploadId(id).partNumber(n), text("part " + n));
            }
            seen.add("all", () -> parts(s3.listParts(b -> b.bucket(bucket).key("u").uploadId(id))));
            seen.add("pages of two", () -> parts(s3.listParts(b -> b.bucket(bucket).key("u").uploadId(id).maxParts(2))));
            seen.add("after 1", () -> parts(s3.listParts(b -> b.bucket(bucket).key("u").uploadId(id).partNumberMarker(1))));
            seen.add("unknown upload", () -> parts(s3.listParts(b -> b.bucket(bucket).key("u").uploadId("nope"))));
        };
    }

    private static String parts(ListPartsResponse r) {
        List<String> out = new ArrayList<>();
        r.parts().forEach(p -> out.add(p.partNumber() + " " + p.eTag() + " " + p.size()));
        return out + " truncated=" + r.isTruncated() + " next=" + (r.isTruncated() ? r.nextPartNumberMarker() : null);
    }

    private static CompletedPart part(int n, String etag) {
        return CompletedPart.builder().partNumber(n).eTag(etag).build();
    }

    private static String uploads(ListMultipartUploadsResponse r) {
        List<String> out = new ArrayList<>();
        r.uploads().forEach(u -> out.add(u.key()));
        return out + " truncated=" + r.isTruncated();
    }
}
