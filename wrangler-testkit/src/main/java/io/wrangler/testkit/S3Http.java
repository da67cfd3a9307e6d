package io.wrangler.testkit;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.w3c.dom.Element;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectTaggingResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListBucketsResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.Tag;
import software.amazon.awssdk.services.s3.model.UploadPartCopyResponse;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * S3Http serves S3's REST API (path-style, and virtual-host style for hosts {@code <bucket>.localhost}) from a
 * {@link MemoryS3}: each HTTP request becomes the SDK request it stands for, is served by the MemoryS3's own client
 * (so its semantics, conditional writes, faults, holds and request log are the one truth), and the SDK response or
 * S3 error becomes S3's HTTP answer. A fault that is not an S3 answer (a connection reset, a lost answer, a timeout)
 * closes the connection without an answer; a body cut short is sent with its full Content-Length and then cut.
 */
final class S3Http implements HttpHandler {
    private final S3Client s3;
    /** The checksum a single PutObject came with, "bucket/key" to {etag, algorithm, checksum}: GetObject answers it. */
    private final Map<String, String[]> checksums = new ConcurrentHashMap<>();

    S3Http(MemoryS3 memory) {
        this.s3 = memory.client();
    }

    /** An answer: status, headers, body (null for none). */
    private static final class Answer {
        final int status;
        final Map<String, String> headers = new LinkedHashMap<>();
        byte[] body;
        /** The bytes of {@link #body} to send before the connection is cut (a body cut short), or -1. */
        int cutAt = -1;
        /** The Content-Length of an answer without body (HEAD), or -1. */
        long declaredLength = -1;

        Answer(int status) {
            this.status = status;
        }

        Answer header(String name, Object value) {
            if (value != null) {
                headers.put(name, value.toString());
            }
            return this;
        }

        Answer xml(byte[] xml) {
            headers.put("Content-Type", "application/xml");
            body = xml;
            return this;
        }
    }

    /** One request: method, bucket, key (null for a bucket or the service), query, headers, the body read. */
    private static final class Req {
        final String method;
        final String bucket;
        final String key;
        final Map<String, String> query = new HashMap<>();
        final Headers headers;
        final byte[] raw;

        Req(HttpExchange x) throws IOException {
            method = x.getRequestMethod().toUpperCase(Locale.ROOT);
            headers = x.getRequestHeaders();
            String path = x.getRequestURI().getRawPath();
            path = path == null || path.isEmpty() ? "/" : path;
            String host = headers.getFirst("Host");
            String hostName = host == null ? "" : host.replaceFirst(":\\d+$", "");
            String rest = path.substring(1);
            if (hostName.endsWith(".localhost")) {
                bucket = hostName.substring(0, hostName.length() - ".localhost".length());
                key = rest.isEmpty() ? null : decodePath(rest);
            } else {
                int slash = rest.indexOf('/');
                String b = slash < 0 ? rest : rest.substring(0, slash);
                bucket = b.isEmpty() ? null : decodePath(b);
                key = slash < 0 || slash == rest.length() - 1 ? null : decodePath(rest.substring(slash + 1));
            }
            String q = x.getRequestURI().getRawQuery();
            if (q != null) {
                for (String pair : q.split("&")) {
                    if (!pair.isEmpty()) {
                        int eq = pair.indexOf('=');
                        query.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                                eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                    }
                }
            }
            raw = x.getRequestBody().readAllBytes();
        }

        String header(String name) {
            return headers.getFirst(name);
        }

        Integer intQuery(String name) {
            String v = query.get(name);
            if (v == null) {
                return null;
            }
            try {
                return Integer.valueOf(v);
            } catch (NumberFormatException e) {
                throw MemoryS3.error(400, "InvalidArgument", "Provided " + name + " not an integer or within integer range");
            }
        }

        /** The x-amz-meta-* headers, names in lower case without the prefix. */
        Map<String, String> metadata() {
            Map<String, String> out = new LinkedHashMap<>();
            headers.forEach((name, values) -> {
                String n = name.toLowerCase(Locale.ROOT);
                if (n.startsWith("x-amz-meta-")) {
                    out.put(n.substring("x-amz-meta-".length()), String.join(",", values));
                }
            });
            return out;
        }

        /** The source of a copy: {@code x-amz-copy-source} as {bucket, key}. */
        String[] copySource() {
            String source = header("x-amz-copy-source");
            int version = source.indexOf("?versionId=");
            if (version >= 0) {
                source = source.substring(0, version);
            }
            source = decodePath(source.startsWith("/") ? source.substring(1) : source);
            int slash = source.indexOf('/');
            if (slash <= 0 || slash == source.length() - 1) {
                throw MemoryS3.error(400, "InvalidArgument", "Copy Source must mention the source bucket and key: sourcebucket/sourcekey");
            }
            return new String[] {source.substring(0, slash), source.substring(slash + 1)};
        }
    }

    /** Percent-decodes a path (a '+' is a '+' there), UTF-8. */
    static String decodePath(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi >= 0 && lo >= 0) {
                    out.write(hi * 16 + lo);
                    i += 2;
                    continue;
                }
            }
            byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
            if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
                b = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                i++;
            }
            out.write(b, 0, b.length);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void handle(HttpExchange x) throws IOException {
        Answer a;
        String requestId = "memory-http-" + System.nanoTime();
        try {
            Req r = new Req(x);
            try {
                a = route(r);
            } catch (AwsServiceException e) {
                a = error(e, r);
            } catch (UnsupportedOperationException e) {
                a = error(MemoryS3.error(501, "NotImplemented", "MemoryS3 over HTTP does not serve " + r.method + " "
                        + x.getRequestURI() + ": it serves the requests of the S3Endpoint javadoc"), r);
            } catch (SdkClientException e) {
                // a fault that is no answer (connection reset, answer lost, timeout): the JDK server closes the connection
                throw new IllegalStateException("MemoryS3 fault: " + e.getMessage(), e);
            }
        } catch (IOException | RuntimeException e) {
            x.close();
            throw e;
        }
        a.headers.putIfAbsent("x-amz-request-id", requestId);
        send(x, a);
    }

    private static void send(HttpExchange x, Answer a) throws IOException {
        Headers h = x.getResponseHeaders();
        a.headers.forEach(h::set);
        boolean head = x.getRequestMethod().equalsIgnoreCase("HEAD");
        if (head || a.body == null) {
            if (head && a.declaredLength >= 0) {
                h.set("Content-Length", Long.toString(a.declaredLength));
            }
            x.sendResponseHeaders(a.status, -1);
            x.close();
            return;
        }
        x.sendResponseHeaders(a.status, a.body.length == 0 ? -1 : a.body.length);
        if (a.body.length == 0) {
            x.close();
            return;
        }
        OutputStream out = x.getResponseBody();
        if (a.cutAt >= 0) {
            out.write(a.body, 0, a.cutAt);
            out.flush();
            // the answer promised more: ending the exchange here resets the connection under the client
            throw new IOException("MemoryS3: body cut short after " + a.cutAt + " of " + a.body.length + " bytes");
        }
        out.write(a.body);
        out.close();
        x.close();
    }

    /** S3's error answer: its status, and for all but HEAD an Error body. */
    private static Answer error(AwsServiceException e, Req r) {
        Answer a = new Answer(e.statusCode());
        String code = e.awsErrorDetails() == null ? "InternalError" : e.awsErrorDetails().errorCode();
        String message = e.awsErrorDetails() == null || e.awsErrorDetails().errorMessage() == null ? code
                : e.awsErrorDetails().errorMessage();
        String requestId = e.requestId() == null ? "memory-http-" + System.nanoTime() : e.requestId();
        a.header("x-amz-request-id", requestId);
        if (!r.method.equals("HEAD")) {
            S3Xml xml = S3Xml.of("Error").text("Code", code).text("Message", message);
            if (r.key != null) {
                xml.text("Key", r.key);
            } else if (r.bucket != null && code.equals("NoSuchBucket")) {
                xml.text("BucketName", r.bucket);
            }
            a.xml(xml.text("RequestId", requestId).bytes());
        }
        return a;
    }

    private Answer route(Req r) {
        if (r.bucket == null) {
            if (r.method.equals("GET")) {
                return listBuckets();
            }
            throw new UnsupportedOperationException();
        }
        if (r.key == null) {
            return switch (r.method) {
                case "PUT" -> createBucket(r);
                case "HEAD" -> headBucket(r);
                case "POST" -> {
                    if (r.query.containsKey("delete")) {
                        yield deleteObjects(r);
                    }
                    throw new UnsupportedOperationException();
                }
                case "GET" -> {
                    if (r.query.containsKey("uploads")) {
                        yield listUploads(r);
                    } else if (r.query.containsKey("location")) {
                        yield location(r);
                    } else if ("2".equals(r.query.get("list-type"))) {
                        yield listObjects(r);
                    }
                    throw new UnsupportedOperationException();
                }
                default -> throw new UnsupportedOperationException();
            };
        }
        if (r.key.getBytes(StandardCharsets.UTF_8).length > 1024) {
            throw MemoryS3.error(400, "KeyTooLongError", "Your key is too long");
        }
        return switch (r.method) {
            case "GET" -> r.query.containsKey("uploadId") ? listParts(r) : r.query.containsKey("tagging") ? tagging(r) : getObject(r);
            case "HEAD" -> headObject(r);
            case "PUT" -> {
                if (r.query.containsKey("tagging") || r.query.containsKey("acl") || r.query.containsKey("retention")) {
                    throw new UnsupportedOperationException();
                }
                if (r.header("x-amz-copy-source") != null) {
                    yield r.query.containsKey("uploadId") ? uploadPartCopy(r) : copyObject(r);
                }
                yield r.query.containsKey("uploadId") ? uploadPart(r) : putObject(r);
            }
            case "POST" -> r.query.containsKey("uploads") ? createUpload(r) : r.query.containsKey("uploadId") ? complete(r)
                    : unsupported();
            case "DELETE" -> r.query.containsKey("uploadId") ? abort(r) : deleteObject(r);
            default -> unsupported();
        };
    }

    private static Answer unsupported() {
        throw new UnsupportedOperationException();
    }

    /** An answer of {@code response}'s status with its Date and request id. */
    private static Answer answer(SdkResponse response) {
        Answer a = new Answer(response.sdkHttpResponse().statusCode());
        response.sdkHttpResponse().firstMatchingHeader("Date").ifPresent(d -> a.header("Date", d));
        response.sdkHttpResponse().firstMatchingHeader("x-amz-request-id").ifPresent(d -> a.header("x-amz-request-id", d));
        return a;
    }

    private Answer listBuckets() {
        ListBucketsResponse res = s3.listBuckets();
        S3Xml xml = S3Xml.of("ListAllMyBucketsResult").open("Owner").text("ID", "wrangler").text("DisplayName", "wrangler")
                .close("Owner").open("Buckets");
        for (Bucket b : res.buckets()) {
            xml.open("Bucket").text("Name", b.name()).text("CreationDate", b.creationDate()).close("Bucket");
        }
        return answer(res).xml(xml.close("Buckets").bytes());
    }

    private Answer createBucket(Req r) {
        return answer(s3.createBucket(b -> b.bucket(r.bucket))).header("Location", "/" + r.bucket);
    }

    private Answer headBucket(Req r) {
        return answer(s3.headBucket(b -> b.bucket(r.bucket))).header("x-amz-bucket-region", "us-east-1");
    }

    private Answer location(Req r) {
        s3.headBucket(b -> b.bucket(r.bucket));
        Answer a = new Answer(200);
        a.headers.put("Content-Type", "application/xml");
        a.body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<LocationConstraint xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"/>")
                .getBytes(StandardCharsets.UTF_8);
        return a;
    }

    private Answer putObject(Req r) {
        S3Body body = S3Body.of(r.headers, r.raw);
        PutObjectResponse res = s3.putObject(b -> b.bucket(r.bucket).key(r.key).ifNoneMatch(r.header("If-None-Match"))
                .ifMatch(r.header("If-Match")).contentType(r.header("Content-Type")).metadata(r.metadata())
                .storageClass(r.header("x-amz-storage-class")).tagging(r.header("x-amz-tagging"))
                .serverSideEncryption(r.header("x-amz-server-side-encryption"))
                .ssekmsKeyId(r.header("x-amz-server-side-encryption-aws-kms-key-id")), RequestBody.fromBytes(body.content));
        String where = r.bucket + "/" + r.key;
        if (body.algorithm != null) {
            checksums.put(where, new String[] {res.eTag(), body.algorithm, body.checksum});
        } else {
            checksums.remove(where);
        }
        return checksum(answer(res).header("ETag", res.eTag()).header("x-amz-server-side-encryption", res.serverSideEncryptionAsString())
                .header("x-amz-server-side-encryption-aws-kms-key-id", res.ssekmsKeyId()), body);
    }

    private static Answer checksum(Answer a, S3Body body) {
        if (body.algorithm != null) {
            a.header("x-amz-checksum-" + body.algorithm, body.checksum).header("x-amz-checksum-type", "FULL_OBJECT");
        }
        return a;
    }

    /** The body a GetObject transformer took, and whether it was cut short. */
    private record Got(GetObjectResponse response, byte[] bytes, boolean cut) {
    }

    private Answer getObject(Req r) {
        Got got = s3.getObject(b -> b.bucket(r.bucket).key(r.key).range(r.header("Range")).ifMatch(r.header("If-Match")),
                (ResponseTransformer<GetObjectResponse, Got>) (response, in) -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    try {
                        in.transferTo(out);
                        return new Got(response, out.toByteArray(), false);
                    } catch (IOException e) {
                        return new Got(response, out.toByteArray(), true);
                    }
                });
        GetObjectResponse res = got.response();
        Answer a = objectHeaders(answer(res), res.eTag(), res.lastModified(), res.contentType(), res.metadata())
                .header("Content-Range", res.contentRange()).header("x-amz-tagging-count", res.tagCount());
        if (got.cut()) {
            byte[] full = new byte[res.contentLength().intValue()];
            System.arraycopy(got.bytes(), 0, full, 0, got.bytes().length);
            a.body = full;
            a.cutAt = got.bytes().length;
        } else {
            a.body = got.bytes();
        }
        String[] sum = checksums.get(r.bucket + "/" + r.key);
        if (sum != null && sum[0].equals(res.eTag()) && res.contentRange() == null && "ENABLED".equalsIgnoreCase(r.header("x-amz-checksum-mode"))) {
            a.header("x-amz-checksum-" + sum[1], sum[2]).header("x-amz-checksum-type", "FULL_OBJECT");
        }
        return a;
    }

    private static Answer objectHeaders(Answer a, String etag, Instant modified, String contentType, Map<String, String> metadata) {
        a.header("ETag", etag).header("Last-Modified", modified == null ? null : S3Xml.HTTP.format(modified))
                .header("Content-Type", contentType).header("Accept-Ranges", "bytes");
        metadata.forEach((k, v) -> a.header("x-amz-meta-" + k, v));
        return a;
    }

    private Answer headObject(Req r) {
        HeadObjectResponse res = s3.headObject(b -> b.bucket(r.bucket).key(r.key).ifMatch(r.header("If-Match")));
        Answer a = objectHeaders(answer(res), res.eTag(), res.lastModified(), res.contentType(), res.metadata())
                .header("x-amz-storage-class", res.storageClassAsString()).header("x-amz-tagging-count", res.tagCount());
        a.declaredLength = res.contentLength();
        return a;
    }

    private Answer tagging(Req r) {
        GetObjectTaggingResponse res = s3.getObjectTagging(b -> b.bucket(r.bucket).key(r.key));
        S3Xml xml = S3Xml.of("Tagging").open("TagSet");
        for (Tag t : res.tagSet()) {
            xml.open("Tag").text("Key", t.key()).text("Value", t.value()).close("Tag");
        }
        return answer(res).xml(xml.close("TagSet").bytes());
    }

    private Answer deleteObject(Req r) {
        return answer(s3.deleteObject(b -> b.bucket(r.bucket).key(r.key).ifMatch(r.header("If-Match"))));
    }

    private Answer deleteObjects(Req r) {
        S3Body body = S3Body.of(r.headers, r.raw);
        if (body.algorithm == null && r.header("Content-MD5") == null) {
            throw MemoryS3.error(400, "InvalidRequest", "Missing required header for this request: Content-MD5");
        }
        Element delete = S3Xml.parse(body.content);
        if (!delete.getTagName().equals("Delete")) {
            throw S3Xml.malformed();
        }
        List<ObjectIdentifier> ids = new ArrayList<>();
        for (Element o : S3Xml.children(delete, "Object")) {
            String key = S3Xml.childText(o, "Key");
            if (key == null) {
                throw S3Xml.malformed();
            }
            ids.add(ObjectIdentifier.builder().key(key).build());
        }
        boolean quiet = "true".equalsIgnoreCase(S3Xml.childText(delete, "Quiet"));
        DeleteObjectsResponse res = s3.deleteObjects(b -> b.bucket(r.bucket).delete(d -> d.objects(ids).quiet(quiet)));
        S3Xml xml = S3Xml.of("DeleteResult");
        for (DeletedObject d : res.deleted()) {
            xml.open("Deleted").text("Key", d.key()).close("Deleted");
        }
        for (S3Error e : res.errors()) {
            xml.open("Error").text("Key", e.key()).text("Code", e.code()).text("Message", e.message()).close("Error");
        }
        return answer(res).xml(xml.bytes());
    }

    private Answer copyObject(Req r) {
        String[] source = r.copySource();
        CopyObjectResponse res = s3.copyObject(b -> b.sourceBucket(source[0]).sourceKey(source[1]).destinationBucket(r.bucket)
                .destinationKey(r.key).metadataDirective(r.header("x-amz-metadata-directive"))
                .taggingDirective(r.header("x-amz-tagging-directive")).tagging(r.header("x-amz-tagging"))
                .storageClass(r.header("x-amz-storage-class")).contentType(r.header("Content-Type")).metadata(r.metadata())
                .copySourceIfMatch(r.header("x-amz-copy-source-if-match")).copySourceIfNoneMatch(r.header("x-amz-copy-source-if-none-match"))
                .ifMatch(r.header("If-Match")).ifNoneMatch(r.header("If-None-Match"))
                .serverSideEncryption(r.header("x-amz-server-side-encryption")));
        checksums.remove(r.bucket + "/" + r.key);
        return answer(res).header("x-amz-server-side-encryption", res.serverSideEncryptionAsString())
                .xml(S3Xml.of("CopyObjectResult").text("LastModified", res.copyObjectResult().lastModified())
                        .text("ETag", res.copyObjectResult().eTag()).bytes());
    }

    private Answer createUpload(Req r) {
        CreateMultipartUploadResponse res = s3.createMultipartUpload(b -> b.bucket(r.bucket).key(r.key)
                .contentType(r.header("Content-Type")).metadata(r.metadata()).storageClass(r.header("x-amz-storage-class"))
                .tagging(r.header("x-amz-tagging")).serverSideEncryption(r.header("x-amz-server-side-encryption"))
                .ssekmsKeyId(r.header("x-amz-server-side-encryption-aws-kms-key-id")));
        return answer(res).header("x-amz-server-side-encryption", res.serverSideEncryptionAsString())
                .header("x-amz-checksum-algorithm", r.header("x-amz-checksum-algorithm"))
                .xml(S3Xml.of("InitiateMultipartUploadResult").text("Bucket", r.bucket).text("Key", r.key)
                        .text("UploadId", res.uploadId()).bytes());
    }

    private Answer uploadPart(Req r) {
        S3Body body = S3Body.of(r.headers, r.raw);
        UploadPartResponse res = s3.uploadPart(b -> b.bucket(r.bucket).key(r.key).uploadId(r.query.get("uploadId"))
                .partNumber(r.intQuery("partNumber")), RequestBody.fromBytes(body.content));
        Answer a = answer(res).header("ETag", res.eTag());
        if (body.algorithm != null) {
            a.header("x-amz-checksum-" + body.algorithm, body.checksum);
        }
        return a;
    }

    private Answer uploadPartCopy(Req r) {
        String[] source = r.copySource();
        UploadPartCopyResponse res = s3.uploadPartCopy(b -> b.sourceBucket(source[0]).sourceKey(source[1]).destinationBucket(r.bucket)
                .destinationKey(r.key).uploadId(r.query.get("uploadId")).partNumber(r.intQuery("partNumber"))
                .copySourceRange(r.header("x-amz-copy-source-range")));
        return answer(res).xml(S3Xml.of("CopyPartResult").text("LastModified", res.copyPartResult().lastModified())
                .text("ETag", res.copyPartResult().eTag()).bytes());
    }

    private Answer complete(Req r) {
        Element root = S3Xml.parse(S3Body.of(r.headers, r.raw).content);
        if (!root.getTagName().equals("CompleteMultipartUpload")) {
            throw S3Xml.malformed();
        }
        List<CompletedPart> parts = new ArrayList<>();
        for (Element p : S3Xml.children(root, "Part")) {
            String n = S3Xml.childText(p, "PartNumber");
            try {
                parts.add(CompletedPart.builder().partNumber(n == null ? null : Integer.valueOf(n.trim()))
                        .eTag(S3Xml.childText(p, "ETag")).build());
            } catch (NumberFormatException e) {
                throw S3Xml.malformed();
            }
        }
        CompleteMultipartUploadResponse res = s3.completeMultipartUpload(b -> b.bucket(r.bucket).key(r.key)
                .uploadId(r.query.get("uploadId")).ifNoneMatch(r.header("If-None-Match")).ifMatch(r.header("If-Match"))
                .multipartUpload(m -> m.parts(parts)));
        checksums.remove(r.bucket + "/" + r.key);
        return answer(res).xml(S3Xml.of("CompleteMultipartUploadResult").text("Location", "/" + r.bucket + "/" + r.key)
                .text("Bucket", r.bucket).text("Key", r.key).text("ETag", res.eTag()).bytes());
    }

    private Answer abort(Req r) {
        return answer(s3.abortMultipartUpload(b -> b.bucket(r.bucket).key(r.key).uploadId(r.query.get("uploadId"))));
    }

    private Answer listObjects(Req r) {
        ListObjectsV2Response res = s3.listObjectsV2(b -> b.bucket(r.bucket).prefix(r.query.get("prefix"))
                .delimiter(r.query.get("delimiter")).maxKeys(r.intQuery("max-keys")).continuationToken(r.query.get("continuation-token"))
                .startAfter(r.query.get("start-after")));
        String encoding = r.query.get("encoding-type");
        S3Xml xml = S3Xml.of("ListBucketResult", encoding).text("Name", r.bucket).key("Prefix", res.prefix() == null ? "" : res.prefix())
                .key("Delimiter", res.delimiter()).text("MaxKeys", res.maxKeys()).text("KeyCount", res.keyCount())
                .text("IsTruncated", res.isTruncated()).text("ContinuationToken", res.continuationToken())
                .text("NextContinuationToken", res.nextContinuationToken()).key("StartAfter", res.startAfter())
                .text("EncodingType", encoding);
        for (S3Object o : res.contents()) {
            xml.open("Contents").key("Key", o.key()).text("LastModified", o.lastModified()).text("ETag", o.eTag())
                    .text("Size", o.size()).text("StorageClass", o.storageClassAsString()).close("Contents");
        }
        for (CommonPrefix p : res.commonPrefixes()) {
            xml.open("CommonPrefixes").key("Prefix", p.prefix()).close("CommonPrefixes");
        }
        return answer(res).xml(xml.bytes());
    }

    private Answer listUploads(Req r) {
        ListMultipartUploadsResponse res = s3.listMultipartUploads(b -> b.bucket(r.bucket).prefix(r.query.get("prefix"))
                .keyMarker(r.query.get("key-marker")).uploadIdMarker(r.query.get("upload-id-marker"))
                .maxUploads(r.intQuery("max-uploads")));
        String encoding = r.query.get("encoding-type");
        S3Xml xml = S3Xml.of("ListMultipartUploadsResult", encoding).text("Bucket", r.bucket).key("KeyMarker", res.keyMarker())
                .text("UploadIdMarker", res.uploadIdMarker()).key("NextKeyMarker", res.nextKeyMarker())
                .text("NextUploadIdMarker", res.nextUploadIdMarker()).key("Prefix", res.prefix()).text("MaxUploads", res.maxUploads())
                .text("IsTruncated", res.isTruncated()).text("EncodingType", encoding);
        for (MultipartUpload u : res.uploads()) {
            xml.open("Upload").key("Key", u.key()).text("UploadId", u.uploadId()).text("StorageClass", u.storageClassAsString())
                    .text("Initiated", u.initiated()).close("Upload");
        }
        return answer(res).xml(xml.bytes());
    }

    private Answer listParts(Req r) {
        ListPartsResponse res = s3.listParts(b -> b.bucket(r.bucket).key(r.key).uploadId(r.query.get("uploadId"))
                .maxParts(r.intQuery("max-parts")).partNumberMarker(r.intQuery("part-number-marker")));
        S3Xml xml = S3Xml.of("ListPartsResult").text("Bucket", r.bucket).text("Key", r.key).text("UploadId", res.uploadId())
                .text("PartNumberMarker", res.partNumberMarker()).text("NextPartNumberMarker", res.nextPartNumberMarker())
                .text("MaxParts", res.maxParts()).text("IsTruncated", res.isTruncated())
                .text("StorageClass", res.storageClassAsString());
        for (Part p : res.parts()) {
            xml.open("Part").text("PartNumber", p.partNumber()).text("LastModified", p.lastModified()).text("ETag", p.eTag())
                    .text("Size", p.size()).close("Part");
        }
        return answer(res).xml(xml.bytes());
    }
}
