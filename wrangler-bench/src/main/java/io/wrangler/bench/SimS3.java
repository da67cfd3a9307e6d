package io.wrangler.bench;

import io.wrangler.testkit.NetworkProfile.RequestType;
import io.wrangler.testkit.NetworkProfile;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A SimS3 is an S3 that costs the writer's machine no CPU, behind a simulated network: an in-memory S3Client (one
 * bucket's worth of semantics the write path uses: conditional PUT and DELETE, listings with prefix, delimiter and
 * pages, copies, multipart uploads) whose every request holds one of {@code connections} connections (the client's HTTP
 * pool: the SDK's default Apache client has 50) for the profile's first-byte delay plus its bodies at the profile's
 * bandwidth. A copy, server-side on S3, is charged its first byte and its size at the same bandwidth. Data files
 * ({@code .parquet}) are kept as sizes only; small objects (manifest, lease) with their bytes.
 *
 * <p>This is what LocalS3 behind a {@link NetworkProfile} cannot show on a machine of two cores: there S3Mock shares the
 * cores with the writer and its own CPU dominates. Here the only costs are the writer's and the simulated waits.
 */
final class SimS3 implements S3Client {
    private record Obj(long size, byte[] content, String etag, Instant modified) {
    }

    private record Upload(String key, Instant initiated, Map<Integer, long[]> parts) {
    }

    private final NetworkProfile profile;
    private final Semaphore connections;
    private final RequestTimeline timeline;
    private final NavigableMap<String, Obj> objects = new TreeMap<>();
    private final Map<String, Upload> uploads = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    /** Keep the bytes of data files too (for reads); by default they are dropped, and read back as zeros. */
    private volatile boolean keepData;

    SimS3(NetworkProfile profile, int connections, RequestTimeline timeline) {
        this.profile = profile;
        this.connections = new Semaphore(connections);
        this.timeline = timeline;
    }

    private <T> T request(String op, String key, RequestType type, long sent, Supplier<T> work, ToLongFunction<T> received) {
        connections.acquireUninterruptibly();
        RequestTimeline.Request r = new RequestTimeline.Request(op, key, Thread.currentThread().getName(), System.nanoTime());
        try {
            pause(profile.firstByte(type).toNanos() + bodyNanos(sent));
            T out = work.get();
            long back = received.applyAsLong(out);
            pause(bodyNanos(back));
            r.sent = sent;
            r.received = back;
            return out;
        } finally {
            r.end = System.nanoTime();
            connections.release();
            if (timeline != null) {
                timeline.add(r);
            }
        }
    }

    private long bodyNanos(long bytes) {
        return profile.bytesPerSecond() <= 0 ? 0 : (long) (bytes * 1e9 / profile.bytesPerSecond());
    }

    private static void pause(long nanos) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private String etag() {
        return "\"" + Long.toHexString(ids.incrementAndGet()) + "\"";
    }

    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS);
    }

    private static S3Exception error(int status, String code) {
        return (S3Exception) S3Exception.builder().statusCode(status).message(code)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code).build()).build();
    }

    private static NoSuchKeyException noSuchKey(String key) {
        return (NoSuchKeyException) NoSuchKeyException.builder().statusCode(404).message("NoSuchKey " + key)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("NoSuchKey").build()).build();
    }

    private static byte[] read(RequestBody body) {
        try (InputStream in = body.contentStreamProvider().newStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long length(RequestBody body) {
        return body.optionalContentLength().orElse(0L);
    }

    @Override
    public PutObjectResponse putObject(PutObjectRequest r, RequestBody body) {
        byte[] bytes = read(body);
        boolean data = r.key().endsWith(".parquet") && !keepData;
        return request("PutObject", r.key(), RequestType.PUT, bytes.length, () -> {
            synchronized (objects) {
                Obj now = objects.get(r.key());
                if ("*".equals(r.ifNoneMatch()) && now != null) {
                    throw error(412, "PreconditionFailed");
                }
                if (r.ifMatch() != null) {
                    if (now == null) {
                        throw noSuchKey(r.key());
                    }
                    if (!now.etag.equals(r.ifMatch())) {
                        throw error(412, "PreconditionFailed");
                    }
                }
                String etag = etag();
                objects.put(r.key(), new Obj(bytes.length, data ? null : bytes, etag, now()));
                return PutObjectResponse.builder().eTag(etag).build();
            }
        }, x -> 0);
    }

    /** Keeps the bytes of data files (PUTs of single objects), so that a table written here can be read back. */
    SimS3 keepingData() {
        keepData = true;
        return this;
    }

    /** A GET of the whole object or of its {@code bytes=a-b} range, as a stream. */
    @Override
    public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest r) {
        return request("GetObject", r.key(), RequestType.GET, 0, () -> {
            Obj o = existing(r.key());
            byte[] content = contentOf(o);
            int from = 0;
            int to = content.length;
            if (r.range() != null && r.range().startsWith("bytes=")) {
                String[] ab = r.range().substring(6).split("-");
                from = Integer.parseInt(ab[0]);
                to = ab.length > 1 && !ab[1].isEmpty() ? Math.min(content.length, Integer.parseInt(ab[1]) + 1) : content.length;
            }
            byte[] slice = Arrays.copyOfRange(content, from, to);
            GetObjectResponse response = GetObjectResponse.builder().eTag(o.etag).lastModified(o.modified).contentLength((long) slice.length)
                    .build();
            return new ResponseInputStream<>(response,
                    AbortableInputStream.create(new ByteArrayInputStream(slice)));
        }, x -> x.response().contentLength());
    }

    /** A GET handed to {@code transformer}, as the SDK hands it the body (the read path reads its ranged GETs so). */
    @Override
    public <T> T getObject(GetObjectRequest r, ResponseTransformer<GetObjectResponse, T> transformer) {
        ResponseInputStream<GetObjectResponse> in = getObject(r);
        try {
            return transformer.transform(in.response(), AbortableInputStream.create(in));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw SdkClientException.create("SimS3: the response transformer failed: " + e, e);
        }
    }

    @Override
    public ResponseBytes<GetObjectResponse> getObjectAsBytes(GetObjectRequest r) {
        return request("GetObject", r.key(), RequestType.GET, 0, () -> {
            Obj o = existing(r.key());
            GetObjectResponse.Builder b = GetObjectResponse.builder().eTag(o.etag).lastModified(o.modified).contentLength(o.size);
            b.sdkHttpResponse(SdkHttpResponse.builder().statusCode(200)
                    .putHeader("Date", DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.now().atZone(ZoneOffset.UTC))).build());
            return ResponseBytes.fromByteArray(b.build(), contentOf(o));
        }, x -> x.asByteArrayUnsafe().length);
    }

    /** The object at {@code key}, or NoSuchKey. */
    private Obj existing(String key) {
        Obj o;
        synchronized (objects) {
            o = objects.get(key);
        }
        if (o == null) {
            throw noSuchKey(key);
        }
        return o;
    }

    /** Its bytes; zeros of its size for a data file whose bytes were dropped. */
    private static byte[] contentOf(Obj o) {
        return o.content == null ? new byte[(int) o.size] : o.content;
    }

    @Override
    public HeadObjectResponse headObject(HeadObjectRequest r) {
        return request("HeadObject", r.key(), RequestType.HEAD, 0, () -> {
            Obj o;
            synchronized (objects) {
                o = objects.get(r.key());
            }
            if (o == null) {
                throw noSuchKey(r.key());
            }
            return HeadObjectResponse.builder().contentLength(o.size).eTag(o.etag).lastModified(o.modified).build();
        }, x -> 0);
    }

    @Override
    public HeadBucketResponse headBucket(HeadBucketRequest r) {
        return request("HeadBucket", null, RequestType.HEAD, 0, () -> HeadBucketResponse.builder().build(), x -> 0);
    }

    @Override
    public DeleteObjectResponse deleteObject(DeleteObjectRequest r) {
        return request("DeleteObject", r.key(), RequestType.DELETE, 0, () -> {
            synchronized (objects) {
                Obj now = objects.get(r.key());
                if (r.ifMatch() != null) {
                    if (now == null) {
                        throw noSuchKey(r.key());
                    }
                    if (!now.etag.equals(r.ifMatch())) {
                        throw error(412, "PreconditionFailed");
                    }
                }
                objects.remove(r.key());
                return DeleteObjectResponse.builder().build();
            }
        }, x -> 0);
    }

    @Override
    public DeleteObjectsResponse deleteObjects(DeleteObjectsRequest r) {
        List<ObjectIdentifier> keys = r.delete().objects();
        return request("DeleteObjects", null, RequestType.DELETE, 80L * keys.size(), () -> {
            synchronized (objects) {
                keys.forEach(k -> objects.remove(k.key()));
            }
            return DeleteObjectsResponse.builder().build();
        }, x -> 0);
    }

    @Override
    public CopyObjectResponse copyObject(CopyObjectRequest r) {
        long size;
        synchronized (objects) {
            Obj src = objects.get(r.sourceKey());
            size = src == null ? 0 : src.size;
        }
        // server-side on S3: the bytes do not cross the connection, but the copy takes about as long as sending them
        return request("CopyObject", r.destinationKey(), RequestType.COPY, 0, () -> {
            pause(bodyNanos(size));
            synchronized (objects) {
                Obj src = objects.get(r.sourceKey());
                if (src == null) {
                    throw noSuchKey(r.sourceKey());
                }
                objects.put(r.destinationKey(), new Obj(src.size, src.content, etag(), now()));
            }
            return CopyObjectResponse.builder().build();
        }, x -> 0);
    }

    @Override
    public ListObjectsV2Response listObjectsV2(ListObjectsV2Request r) {
        return request("ListObjectsV2", r.prefix() + (r.delimiter() == null ? "" : " (delimiter)"), RequestType.LIST, 0, () -> list(r), x -> 250L * (x.keyCount() == null ? 0 : x.keyCount()));
    }

    private ListObjectsV2Response list(ListObjectsV2Request r) {
        String prefix = r.prefix() == null ? "" : r.prefix();
        int max = r.maxKeys() == null ? 1000 : r.maxKeys();
        String delimiter = r.delimiter();
        List<S3Object> contents = new ArrayList<>();
        List<CommonPrefix> prefixes = new ArrayList<>();
        String next = null;
        synchronized (objects) {
            String from = r.continuationToken() != null ? r.continuationToken() : prefix;
            boolean inclusive = true;
            if (r.continuationToken() == null && r.startAfter() != null && r.startAfter().compareTo(from) >= 0) {
                from = r.startAfter();
                inclusive = false;
            }
            NavigableMap<String, Obj> tail = objects.tailMap(from, inclusive);
            String key = tail.isEmpty() ? null : tail.firstKey();
            while (key != null && key.startsWith(prefix)) {
                if (contents.size() + prefixes.size() == max) {
                    next = key;
                    break;
                }
                int d = delimiter == null ? -1 : key.indexOf(delimiter, prefix.length());
                if (d >= 0) {
                    String cp = key.substring(0, d + delimiter.length());
                    prefixes.add(CommonPrefix.builder().prefix(cp).build());
                    key = objects.higherKey(cp + Character.MAX_VALUE);
                } else {
                    Obj o = objects.get(key);
                    contents.add(S3Object.builder().key(key).size(o.size).eTag(o.etag).lastModified(o.modified).build());
                    key = objects.higherKey(key);
                }
            }
        }
        return ListObjectsV2Response.builder().contents(contents).commonPrefixes(prefixes).keyCount(contents.size() + prefixes.size())
                .isTruncated(next != null).nextContinuationToken(next).build();
    }

    @Override
    public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest r) {
        return request("CreateMultipartUpload", r.key(), RequestType.CREATE_MULTIPART, 0, () -> {
            String id = "u" + ids.incrementAndGet();
            uploads.put(id, new Upload(r.key(), Instant.now(), new ConcurrentHashMap<>()));
            return CreateMultipartUploadResponse.builder().uploadId(id).key(r.key()).build();
        }, x -> 0);
    }

    @Override
    public UploadPartResponse uploadPart(UploadPartRequest r, RequestBody body) {
        long size = length(body);
        if (size == 0) {
            size = read(body).length;
        }
        long sent = size;
        return request("UploadPart", r.key(), RequestType.UPLOAD_PART, sent, () -> {
            Upload u = uploads.get(r.uploadId());
            if (u == null) {
                throw error(404, "NoSuchUpload");
            }
            String etag = etag();
            u.parts.put(r.partNumber(), new long[] {sent, ids.get()});
            return UploadPartResponse.builder().eTag(etag).build();
        }, x -> 0);
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest r) {
        List<CompletedPart> parts = r.multipartUpload().parts();
        return request("CompleteMultipartUpload", r.key(), RequestType.COMPLETE_MULTIPART, 100L * parts.size(), () -> {
            Upload u = uploads.remove(r.uploadId());
            if (u == null) {
                throw error(404, "NoSuchUpload");
            }
            long size = 0;
            for (CompletedPart p : parts) {
                long[] part = u.parts.get(p.partNumber());
                if (part == null) {
                    throw error(400, "InvalidPart");
                }
                size += part[0];
            }
            String etag = etag();
            synchronized (objects) {
                objects.put(r.key(), new Obj(size, r.key().endsWith(".parquet") ? null : new byte[(int) size], etag, now()));
            }
            return CompleteMultipartUploadResponse.builder().eTag(etag).key(r.key()).build();
        }, x -> 0);
    }

    @Override
    public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest r) {
        return request("AbortMultipartUpload", r.key(), RequestType.DELETE, 0, () -> {
            if (uploads.remove(r.uploadId()) == null) {
                throw error(404, "NoSuchUpload");
            }
            return AbortMultipartUploadResponse.builder().build();
        }, x -> 0);
    }

    @Override
    public ListMultipartUploadsResponse listMultipartUploads(ListMultipartUploadsRequest r) {
        return request("ListMultipartUploads", r.prefix(), RequestType.LIST, 0, () -> {
            String prefix = r.prefix() == null ? "" : r.prefix();
            List<MultipartUpload> out = new ArrayList<>();
            uploads.forEach((id, u) -> {
                if (u.key().startsWith(prefix)) {
                    out.add(MultipartUpload.builder().key(u.key()).uploadId(id).initiated(u.initiated()).build());
                }
            });
            out.sort(Comparator.comparing(MultipartUpload::key));
            return ListMultipartUploadsResponse.builder().uploads(out).isTruncated(false).build();
        }, x -> 200L * x.uploads().size());
    }

    /** Objects held, for a check after a run. */
    int objectCount() {
        synchronized (objects) {
            return objects.size();
        }
    }

    /** Keys under a prefix. */
    List<String> keys(String prefix) {
        synchronized (objects) {
            List<String> out = new ArrayList<>();
            for (String k : objects.tailMap(prefix, true).keySet()) {
                if (!k.startsWith(prefix)) {
                    break;
                }
                out.add(k);
            }
            return out;
        }
    }

    @Override
    public String serviceName() {
        return "s3";
    }

    @Override
    public void close() {
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
