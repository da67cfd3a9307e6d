package io.wrangler.testkit;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.RequestOverrideConfiguration;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.retries.api.AcquireInitialTokenRequest;
import software.amazon.awssdk.retries.api.RecordSuccessRequest;
import software.amazon.awssdk.retries.api.RefreshRetryTokenRequest;
import software.amazon.awssdk.retries.api.RefreshRetryTokenResponse;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.retries.api.RetryToken;
import software.amazon.awssdk.retries.api.TokenAcquisitionFailedException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.AccessDeniedException;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.CopyObjectResult;
import software.amazon.awssdk.services.s3.model.CopyPartResult;
import software.amazon.awssdk.services.s3.model.CreateBucketRequest;
import software.amazon.awssdk.services.s3.model.CreateBucketResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.InvalidRequestException;
import software.amazon.awssdk.services.s3.model.ListBucketsRequest;
import software.amazon.awssdk.services.s3.model.ListBucketsResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ListPartsRequest;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.S3Request;
import software.amazon.awssdk.services.s3.model.UploadPartCopyRequest;
import software.amazon.awssdk.services.s3.model.UploadPartCopyResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A MemoryS3 is an S3 in this JVM: an {@link S3Client} whose buckets live in memory, for the protocol tier of tests.
 * The library's own code runs against it unchanged (it is the SDK's client interface), without HTTP, S3Mock or a proxy,
 * so a test costs what the protocol costs.
 *
 * <p>Semantics (those of AWS S3 that the write, read, recovery and compaction rely on; {@code MemoryS3ConformanceTest}
 * runs the same operations here and on {@link LocalS3} and compares): strong read-after-write; every request atomic
 * against the others; ETags as S3 makes them (MD5 of the body, of the parts' MD5s with {@code -<n>} for a multipart
 * upload, the source's for a copy); Last-Modified in whole seconds and a Date on every answer (S3's clock, which
 * {@link #advanceClock} moves); {@code If-None-Match: *} and {@code If-Match} on PutObject and CompleteMultipartUpload
 * (412 PreconditionFailed; 404 NoSuchKey for If-Match on a missing key) and {@code If-Match} on DeleteObject; copies and
 * part copies with ranges, copies with {@code x-amz-copy-source-if-match} / {@code -if-none-match} and with
 * {@code If-None-Match} / {@code If-Match} on the target; multipart uploads (parts but the last of at least {@link #minPartSize}, EntityTooSmall
 * otherwise; InvalidPart, InvalidPartOrder, NoSuchUpload); DeleteObjects of at most 1,000 keys, missing keys counted
 * deleted, quiet answers holding only the per-key errors; ListObjectsV2 with prefix, delimiter, start-after and pages of at
 * most 1,000 entries; ListMultipartUploads in key order with markers; ListParts; keys of at most 1,024 bytes (KeyTooLongError);
 * storage classes and object tags on PutObject and CreateMultipartUpload, and on CopyObject as S3 has them (the request's
 * storage class, STANDARD without one; the source's tags and metadata unless its directive is REPLACE), shown by
 * HeadObject (no storage class header for STANDARD), ListObjectsV2 and GetObjectTagging.
 *
 * <p>Knobs, in {@link FaultyS3}'s vocabulary (operations by their S3 names: PutObject, GetObject, CopyObject,
 * CompleteMultipartUpload, DeleteObjects, ...): {@link #failNth}, {@link #failNext} and {@link #failWhereKeyContains}
 * inject an {@link S3Fault}; {@link #ignoreConditionalWrites} makes it a server that does not enforce preconditions;
 * {@link #holdWhereKeyContains} and {@link #holdAnswerWhereKeyContains} stall requests (before or after they are
 * applied) until the test releases them; {@link #denyDeleteWhereKeyContains} makes DeleteObjects report per-key errors;
 * {@link #requests} records what was asked, every attempt. {@link #serve()} serves it over HTTP. The SDK's retry
 * layer is modelled: a request that sets its own retry strategy (a plugin of its override configuration, as wrangler
 * sets one on every request) is attempted as that strategy says, each attempt served, recorded and faulted on its own,
 * with the strategy's backoff in between; a request without one is attempted once (a client whose retries are off).
 */
public final class MemoryS3 implements S3Fixture {
    /** S3's smallest part of a multipart upload other than the last. */
    public static final long MIN_PART_SIZE = 5L * 1024 * 1024;
    private static final int MAX_KEY_BYTES = 1024;
    private static final int MAX_PAGE = 1000;
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private final Object lock = new Object();
    private final Map<String, Store> buckets = new HashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Client client = new Client();
    private final FaultRules faults = new FaultRules();
    private final List<Hold> holds = new CopyOnWriteArrayList<>();
    private final Set<String> deniedDeletes = ConcurrentHashMap.newKeySet();
    private final List<Request> log = Collections.synchronizedList(new ArrayList<>());
    /** Whether the GetObject being served answers only half its body (S3Fault.BODY_CUT_SHORT). */
    private final ThreadLocal<Boolean> cutShort = new ThreadLocal<>();
    private volatile boolean ignoreConditionalWrites;
    private volatile Duration timeoutDelay = Duration.ZERO;
    private volatile Duration clockOffset = Duration.ZERO;
    private volatile long minPartSize = MIN_PART_SIZE;
    private volatile ChronoUnit lastModifiedPrecision = ChronoUnit.SECONDS;

    /** One request as the client received it: its S3 operation, bucket, key (the first key for a batch) and itself. */
    public record Request(String operation, String bucket, String key, S3Request request) {
    }

    private record Obj(byte[] content, String etag, Instant modified, String contentType, Map<String, String> metadata,
                       String storageClass, Map<String, String> tags) {
    }

    private record Part(byte[] content, String etag, Instant modified) {
    }

    private record Upload(String id, long seq, String key, Instant initiated, String contentType, Map<String, String> metadata,
                          Map<Integer, Part> parts, String storageClass, Map<String, String> tags) {
    }

    /** The tags of an x-amz-tagging header (URL query form), in order; none for null. */
    private static Map<String, String> tags(String tagging) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        if (tagging == null || tagging.isEmpty()) {
            return out;
        }
        for (String pair : tagging.split("&")) {
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            out.put(java.net.URLDecoder.decode(k, java.nio.charset.StandardCharsets.UTF_8),
                    java.net.URLDecoder.decode(v, java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    /** A storage class as S3 records it: STANDARD when the request names none. */
    private static String storageClass(String requested) {
        return requested == null ? "STANDARD" : requested;
    }

    private static final class Store {
        final Instant created;
        final NavigableMap<String, Obj> objects = new TreeMap<>();
        final Map<String, Upload> uploads = new HashMap<>();

        Store(Instant created) {
            this.created = created;
        }

        /** A store holding what this one holds now; later changes to either do not show in the other. */
        Store copy() {
            Store c = new Store(created);
            c.objects.putAll(objects); // Obj is immutable, its content never written in place
            // an upload's parts map is its own: a part uploaded later must not reach the copy
            uploads.forEach((id, u) -> c.uploads.put(id, new Upload(u.id, u.seq, u.key, u.initiated, u.contentType, u.metadata,
                    new TreeMap<>(u.parts), u.storageClass, u.tags)));
            return c;
        }
    }

    /**
     * Requests held by {@link #holdWhereKeyContains} or {@link #holdAnswerWhereKeyContains}: every matching request
     * waits until {@link #release}, after which they all pass.
     */
    public static final class Hold {
        private final String operation;
        private final String keyPart;
        private final boolean applied;
        private final int most;
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final AtomicInteger held = new AtomicInteger();

        private Hold(String operation, String keyPart, boolean applied, int most) {
            this.operation = operation;
            this.keyPart = keyPart;
            this.applied = applied;
            this.most = most;
        }

        /** Waits until a request is held; false if none came within {@code timeout}. */
        public boolean awaitHeld(Duration timeout) throws InterruptedException {
            return reached.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        /** How many requests were held so far. */
        public int held() {
            return held.get();
        }

        /** Lets every held request go on, and every later one pass. */
        public void release() {
            released.countDown();
        }

        private boolean matches(String op, List<String> keys) {
            return released.getCount() > 0 && operation.equals(op) && keys.stream().anyMatch(k -> k != null && k.contains(keyPart));
        }

        /** Counts one matching request: false when it is beyond the most this hold holds (it passes). */
        private boolean claim() {
            if (held.incrementAndGet() <= most) {
                return true;
            }
            held.decrementAndGet();
            return false;
        }

        private void hold(String op) {
            reached.countDown();
            try {
                if (!released.await(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("MemoryS3: a " + op + " held where the key contains '" + keyPart
                            + "' was never released (call Hold.release())");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw SdkClientException.builder().message("MemoryS3: interrupted while held").cause(e).build();
            }
        }
    }

    private MemoryS3() {
    }

    /** A new, empty S3 in this JVM. */
    public static MemoryS3 start() {
        return new MemoryS3();
    }

    @Override
    public S3Client client() {
        return client;
    }

    /**
     * Serves this S3 over HTTP on 127.0.0.1 (S3's REST API, for clients in other processes) until the returned endpoint
     * is closed; every request is served by {@link #client()}, so this S3's knobs and request log hold for it too.
     */
    public S3Endpoint serve() {
        return S3Endpoint.serve(this);
    }

    // ---- knobs ----

    /** Fails the {@code nth} (1 for the next) request of {@code operation} counted from now with {@code fault}. */
    public void failNth(String operation, int nth, S3Fault fault) {
        faults.failNth(operation, nth, fault);
    }

    /** Fails the next {@code times} requests of {@code operation} with {@code fault}. */
    public void failNext(String operation, int times, S3Fault fault) {
        faults.failNext(operation, times, fault);
    }

    /**
     * Fails every request of {@code operation} whose key (a copy's target, any key of a batch delete, a listing's prefix)
     * holds {@code keyPart} with {@code fault}, until {@link #clearKeyFaults}.
     */
    public void failWhereKeyContains(String operation, String keyPart, S3Fault fault) {
        faults.failWhereKeyContains(operation, keyPart, fault);
    }

    /** Ends every {@link #failWhereKeyContains} rule. */
    public void clearKeyFaults() {
        faults.clearKeyFaults();
    }

    /** Ignores If-None-Match and If-Match: a server that does not enforce conditional writes. */
    public void ignoreConditionalWrites(boolean ignore) {
        this.ignoreConditionalWrites = ignore;
    }

    /** How long a {@link S3Fault#TIMEOUT} holds a request before the caller sees its timeout (default none). */
    public void timeoutDelay(Duration delay) {
        this.timeoutDelay = delay;
    }

    /**
     * Holds every request of {@code operation} whose key holds {@code keyPart} before it is applied, until the returned
     * hold is released: a request in flight, stalled on its way.
     */
    public Hold holdWhereKeyContains(String operation, String keyPart) {
        Hold h = new Hold(operation, keyPart, false, Integer.MAX_VALUE);
        holds.add(h);
        return h;
    }

    /**
     * Holds only the next request of {@code operation} whose key holds {@code keyPart}, before it is applied, until the
     * returned hold is released; later ones pass: one request stuck in the network while the client goes on.
     */
    public Hold holdOnceWhereKeyContains(String operation, String keyPart) {
        Hold h = new Hold(operation, keyPart, false, 1);
        holds.add(h);
        return h;
    }

    /**
     * Applies every request of {@code operation} whose key holds {@code keyPart} and holds its answer until the returned
     * hold is released: a request S3 applied whose answer is late.
     */
    public Hold holdAnswerWhereKeyContains(String operation, String keyPart) {
        Hold h = new Hold(operation, keyPart, true, Integer.MAX_VALUE);
        holds.add(h);
        return h;
    }

    /** DeleteObjects leaves every key holding {@code keyPart} in place and reports it as a per-key AccessDenied. */
    public void denyDeleteWhereKeyContains(String keyPart) {
        deniedDeletes.add(keyPart);
    }

    /** Moves S3's clock (Last-Modified of later writes, the Date of every answer) by {@code by}. */
    public void advanceClock(Duration by) {
        clockOffset = clockOffset.plus(by);
    }

    /** The smallest part but the last that CompleteMultipartUpload accepts ({@link #MIN_PART_SIZE} unless set). */
    public void minPartSize(long bytes) {
        this.minPartSize = bytes;
    }

    /**
     * Truncates the Last-Modified of later writes to {@code unit}: {@link ChronoUnit#SECONDS} unless set (as AWS S3),
     * {@link ChronoUnit#MILLIS} as S3Mock (LocalS3) keeps it, for tests written against LocalS3 that tell apart writes
     * made within one second by their Last-Modified.
     */
    public void lastModifiedPrecision(ChronoUnit unit) {
        this.lastModifiedPrecision = unit;
    }

    /**
     * A new MemoryS3 holding what this one holds now: its buckets, their objects as they are (content, ETag,
     * Last-Modified, content type, metadata, storage class, tags) and their open multipart uploads. Not this one's knobs
     * (faults, holds, clock, part size, precision) nor its request log. Later changes to either do not show in the other:
     * a lake set up once by real writes, and a copy of it for each case of a test.
     */
    public MemoryS3 copy() {
        MemoryS3 out = new MemoryS3();
        synchronized (lock) {
            buckets.forEach((name, store) -> out.buckets.put(name, store.copy()));
            out.ids.set(ids.get());
        }
        return out;
    }

    /** Every request seen so far. */
    public List<Request> requests() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    /** Forgets the requests seen so far. */
    public void clearRequests() {
        log.clear();
    }

    // ---- S3Fixture ----

    @Override
    public void createBucket(String bucket) {
        synchronized (lock) {
            buckets.computeIfAbsent(bucket, b -> new Store(now()));
        }
    }

    @Override
    public Map<String, Long> list(String bucket, String prefix) {
        Map<String, Long> out = new TreeMap<>();
        synchronized (lock) {
            store(bucket).objects.tailMap(prefix, true).forEach((k, o) -> {
                if (k.startsWith(prefix)) {
                    out.put(k, (long) o.content.length);
                }
            });
        }
        return out;
    }

    @Override
    public Map<String, byte[]> snapshot(String bucket, String prefix) {
        Map<String, byte[]> out = new TreeMap<>();
        synchronized (lock) {
            store(bucket).objects.tailMap(prefix, true).forEach((k, o) -> {
                if (k.startsWith(prefix)) {
                    out.put(k, o.content.clone());
                }
            });
        }
        return out;
    }

    @Override
    public byte[] get(String bucket, String key) {
        synchronized (lock) {
            Obj o = store(bucket).objects.get(key);
            if (o == null) {
                throw error(404, "NoSuchKey", "The specified key does not exist.");
            }
            return o.content.clone();
        }
    }

    @Override
    public void put(String bucket, String key, byte[] content) {
        client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(content));
    }

    /**
     * A bucket's objects and open multipart uploads as they were when {@link #checkpoint} was called, for {@link #restore}:
     * a table built once and put back before each of many cases that change it.
     */
    public static final class Checkpoint {
        private final String bucket;
        private final Store store;

        private Checkpoint(String bucket, Store store) {
            this.bucket = bucket;
            this.store = store;
        }
    }

    /** Remembers {@code bucket}'s objects and open uploads as they are now (their contents are shared, never changed). */
    public Checkpoint checkpoint(String bucket) {
        synchronized (lock) {
            return new Checkpoint(bucket, store(bucket).copy());
        }
    }

    /**
     * Puts the checkpoint's bucket back as it was then: objects and uploads made since are gone, those deleted or replaced
     * since are back with their ETags, Last-Modified and parts as they were. S3's clock is not moved back, the request
     * log and the knobs are kept.
     */
    public void restore(Checkpoint checkpoint) {
        synchronized (lock) {
            store(checkpoint.bucket); // the bucket still exists
            buckets.put(checkpoint.bucket, checkpoint.store.copy());
        }
    }

    @Override
    public List<String> openMultipartUploads(String bucket, String prefix) {
        List<String> out = new ArrayList<>();
        for (MultipartUpload u : client.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)).uploads()) {
            out.add(u.key());
        }
        return out;
    }

    @Override
    public void close() {
        holds.forEach(Hold::release);
    }

    // ---- the server ----

    private Instant now() {
        return Instant.now().plus(clockOffset);
    }

    private Instant modifiedNow() {
        return now().truncatedTo(lastModifiedPrecision);
    }

    private <B extends SdkResponse.Builder> B answered(B b, int status) {
        b.sdkHttpResponse(SdkHttpResponse.builder().statusCode(status).putHeader("Date", HTTP_DATE.format(now()))
                .putHeader("x-amz-request-id", "memory-" + ids.incrementAndGet()).build());
        return b;
    }

    private Store store(String bucket) {
        Store s = buckets.get(bucket);
        if (s == null) {
            throw error(404, "NoSuchBucket", "The specified bucket does not exist");
        }
        return s;
    }

    private static void checkKey(String key) {
        if (key == null || key.isEmpty()) {
            throw error(400, "InvalidArgument", "The key must not be empty");
        }
        if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw error(400, "KeyTooLongError", "Your key is too long");
        }
    }

    /** An error as the SDK makes it of S3's answer: the modelled subclass for the codes that have one. */
    static AwsServiceException error(int status, String code, String message) {
        AwsServiceException.Builder b = switch (code) {
            case "NoSuchKey" -> NoSuchKeyException.builder();
            case "NoSuchBucket" -> NoSuchBucketException.builder();
            case "NoSuchUpload" -> NoSuchUploadException.builder();
            case "AccessDenied" -> AccessDeniedException.builder();
            case "InvalidRequest" -> InvalidRequestException.builder();
            default -> S3Exception.builder();
        };
        String requestId = "memory-" + System.nanoTime();
        return b.statusCode(status).requestId(requestId).message(message)
                .awsErrorDetails(AwsErrorDetails.builder().serviceName("S3").errorCode(code).errorMessage(message)
                        .sdkHttpResponse(SdkHttpResponse.builder().statusCode(status).build()).build())
                .build();
    }

    private static String md5(byte[]... chunks) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            for (byte[] c : chunks) {
                md.update(c);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String unquote(String etag) {
        return etag == null ? null : etag.replace("\"", "");
    }

    private static byte[] read(RequestBody body) {
        try (InputStream in = body.contentStreamProvider().newStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Serves one request as the SDK's retry layer would: each attempt as {@link #attempt} says, again after a failure
     * that the request's own retry strategy (a plugin of its override configuration) retries; once without one.
     * One attempt records the request, applies the knobs (a fault instead of it, a hold before or after it), runs
     * {@code work} (which takes the lock itself) and answers.
     */
    private <T> T serve(String op, String bucket, List<String> keys, S3Request request, Supplier<T> work) {
        RetryStrategy retries = retryStrategy(request);
        if (retries == null) {
            return attempt(op, bucket, keys, request, work);
        }
        RetryToken token = retries.acquireInitialToken(AcquireInitialTokenRequest.create("MemoryS3")).token();
        while (true) {
            try {
                T out = attempt(op, bucket, keys, request, work);
                retries.recordSuccess(RecordSuccessRequest.create(token));
                return out;
            } catch (SdkException e) {
                RefreshRetryTokenResponse next;
                try {
                    next = retries.refreshRetryToken(RefreshRetryTokenRequest.builder().token(token).failure(e).build());
                } catch (TokenAcquisitionFailedException notRetried) {
                    throw e;
                }
                token = next.token();
                try {
                    Thread.sleep(next.delay().toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw SdkClientException.builder().message("MemoryS3: interrupted between attempts").cause(ie).build();
                }
            }
        }
    }

    /**
     * The retry strategy a request sets for itself through a plugin of its override configuration (as the SDK's client
     * would apply it to its own configuration), or null for none.
     */
    private static RetryStrategy retryStrategy(S3Request request) {
        List<SdkPlugin> plugins = request.overrideConfiguration().map(RequestOverrideConfiguration::plugins).orElse(List.of());
        if (plugins.isEmpty()) {
            return null;
        }
        S3ServiceClientConfiguration.Builder config = S3ServiceClientConfiguration.builder()
                .overrideConfiguration(ClientOverrideConfiguration.builder().build());
        plugins.forEach(p -> p.configureClient(config));
        return config.overrideConfiguration().retryStrategy().orElse(null);
    }

    /** One attempt of a request: see {@link #serve}. */
    private <T> T attempt(String op, String bucket, List<String> keys, S3Request request, Supplier<T> work) {
        log.add(new Request(op, bucket, keys.isEmpty() ? null : keys.get(0), request));
        S3Fault fault = faults.next(op, part -> keys.stream().anyMatch(k -> k != null && k.contains(part)));
        for (Hold h : holds) {
            if (!h.applied && h.matches(op, keys) && h.claim()) {
                h.hold(op);
            }
        }
        if (fault != null && fault != S3Fault.APPLIED_RESPONSE_LOST && fault != S3Fault.BODY_CUT_SHORT) {
            throw inject(op, fault);
        }
        if (fault == S3Fault.BODY_CUT_SHORT && !op.equals("GetObject")) {
            throw new IllegalStateException("MemoryS3 models BODY_CUT_SHORT only for GetObject, not for " + op);
        }
        T out;
        cutShort.set(fault == S3Fault.BODY_CUT_SHORT);
        try {
            out = work.get();
        } finally {
            cutShort.remove();
        }
        for (Hold h : holds) {
            if (h.applied && h.matches(op, keys) && h.claim()) {
                h.hold(op);
            }
        }
        if (fault == S3Fault.APPLIED_RESPONSE_LOST) {
            throw SdkClientException.builder().message("Unable to execute HTTP request: Connection reset (MemoryS3: applied, answer lost)")
                    .cause(new SocketException("Connection reset")).build();
        }
        return out;
    }

    private RuntimeException inject(String op, S3Fault fault) {
        return switch (fault) {
            case INTERNAL_ERROR -> error(500, "InternalError", "We encountered an internal error. Please try again.");
            // as the SDK makes it of a 200 answer whose body is an Error; it reads one only for these operations
            case INTERNAL_ERROR_IN_200 -> {
                if (!Set.of("CopyObject", "UploadPartCopy", "CompleteMultipartUpload").contains(op)) {
                    throw new IllegalStateException("MemoryS3 models INTERNAL_ERROR_IN_200 only for CopyObject, UploadPartCopy and "
                            + "CompleteMultipartUpload, the operations whose 200 answers the SDK reads for an error, not for " + op);
                }
                yield error(200, "InternalError", "We encountered an internal error. Please try again.");
            }
            case SLOW_DOWN -> error(503, "SlowDown", "Please reduce your request rate.");
            case ACCESS_DENIED -> error(403, "AccessDenied", "Access Denied");
            case CONNECTION_RESET -> SdkClientException.builder().message("Unable to execute HTTP request: Connection reset (MemoryS3)")
                    .cause(new SocketException("Connection reset")).build();
            case TIMEOUT -> {
                try {
                    Thread.sleep(timeoutDelay.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                yield ApiCallAttemptTimeoutException.builder().message("HTTP request execution did not complete before the specified "
                        + "timeout configuration (MemoryS3)").build();
            }
            default -> new IllegalStateException(fault.name());
        };
    }

    private static List<String> keys(String... keys) {
        return Arrays.asList(keys);
    }

    /** The S3Client: each method one request, served atomically under the store's lock. */
    private final class Client implements S3Client {
        @Override
        public String serviceName() {
            return "s3";
        }

        @Override
        public void close() {
        }

        @Override
        public CreateBucketResponse createBucket(CreateBucketRequest r) {
            return serve("CreateBucket", r.bucket(), keys(), r, () -> {
                MemoryS3.this.createBucket(r.bucket());
                return answered(CreateBucketResponse.builder().location("/" + r.bucket()), 200).build();
            });
        }

        @Override
        public ListBucketsResponse listBuckets(ListBucketsRequest r) {
            return serve("ListBuckets", null, keys(), r, () -> {
                List<Bucket> out = new ArrayList<>();
                synchronized (lock) {
                    new TreeMap<>(buckets).forEach((name, s) -> out.add(Bucket.builder().name(name).creationDate(s.created).build()));
                }
                return answered(ListBucketsResponse.builder().buckets(out), 200).build();
            });
        }

        @Override
        public HeadBucketResponse headBucket(HeadBucketRequest r) {
            return serve("HeadBucket", r.bucket(), keys(), r, () -> {
                synchronized (lock) {
                    if (!buckets.containsKey(r.bucket())) {
                        // a HEAD has no body: the SDK knows the code by the status alone
                        throw error(404, "NoSuchBucket", null);
                    }
                }
                return answered(HeadBucketResponse.builder(), 200).build();
            });
        }

        @Override
        public PutObjectResponse putObject(PutObjectRequest r, RequestBody body) {
            byte[] bytes = read(body);
            return serve("PutObject", r.bucket(), keys(r.key()), r, () -> {
                checkKey(r.key());
                synchronized (lock) {
                    Store s = store(r.bucket());
                    precondition(s.objects.get(r.key()), r.ifNoneMatch(), r.ifMatch());
                    Obj o = new Obj(bytes, "\"" + md5(bytes) + "\"", modifiedNow(), r.contentType(), r.metadata(),
                            storageClass(r.storageClassAsString()), tags(r.tagging()));
                    s.objects.put(r.key(), o);
                    return answered(PutObjectResponse.builder().eTag(o.etag).serverSideEncryption(r.serverSideEncryption())
                            .ssekmsKeyId(r.ssekmsKeyId()).size((long) bytes.length), 200).build();
                }
            });
        }

        /** 412 when the key exists under If-None-Match: *, or has another ETag under If-Match; 404 for If-Match on none. */
        private void precondition(Obj now, String ifNoneMatch, String ifMatch) {
            if (ignoreConditionalWrites) {
                return;
            }
            if (ifNoneMatch != null && now != null) {
                throw error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
            }
            if (ifMatch != null) {
                if (now == null) {
                    throw error(404, "NoSuchKey", "The specified key does not exist.");
                }
                if (!unquote(ifMatch).equals(unquote(now.etag))) {
                    throw error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
                }
            }
        }

        @Override
        public <T> T getObject(GetObjectRequest r, ResponseTransformer<GetObjectResponse, T> transformer) {
            // The body is handed to the transformer within the attempt, as the SDK does: a transformer that throws a
            // RetryableException (a body cut short) has the request sent again.
            return serve("GetObject", r.bucket(), keys(r.key()), r, () -> {
                Object[] got;
                synchronized (lock) {
                    Obj o = store(r.bucket()).objects.get(r.key());
                    if (o == null) {
                        throw error(404, "NoSuchKey", "The specified key does not exist.");
                    }
                    if (r.ifMatch() != null && !unquote(r.ifMatch()).equals(unquote(o.etag))) {
                        throw error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
                    }
                    long[] range = range(r.range(), o.content.length);
                    byte[] bytes = range == null ? o.content : Arrays.copyOfRange(o.content, (int) range[0], (int) range[1] + 1);
                    GetObjectResponse.Builder b = GetObjectResponse.builder().eTag(o.etag).lastModified(o.modified)
                            .contentLength((long) bytes.length).contentType(o.contentType == null ? "binary/octet-stream" : o.contentType)
                            .metadata(o.metadata).acceptRanges("bytes");
                    if (range != null) {
                        b.contentRange("bytes " + range[0] + "-" + range[1] + "/" + o.content.length);
                    }
                    got = new Object[] {answered(b, range == null ? 200 : 206).build(), bytes};
                }
                GetObjectResponse response = (GetObjectResponse) got[0];
                byte[] slice = (byte[]) got[1];
                InputStream body = new ByteArrayInputStream(slice);
                if (Boolean.TRUE.equals(cutShort.get())) {
                    body = new SequenceInputStream(new ByteArrayInputStream(slice, 0, slice.length / 2), new InputStream() {
                        @Override
                        public int read() throws IOException {
                            throw new SocketException("Connection reset (MemoryS3: body cut short)");
                        }
                    });
                }
                try {
                    return transformer.transform(response, AbortableInputStream.create(body));
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw SdkClientException.builder().message("MemoryS3: the response transformer failed: " + e.getMessage()).cause(e).build();
                }
            });
        }

        @Override
        public ResponseBytes<GetObjectResponse> getObjectAsBytes(GetObjectRequest r) {
            return getObject(r, ResponseTransformer.toBytes());
        }

        @Override
        public HeadObjectResponse headObject(HeadObjectRequest r) {
            return serve("HeadObject", r.bucket(), keys(r.key()), r, () -> {
                synchronized (lock) {
                    Obj o = store(r.bucket()).objects.get(r.key());
                    if (o == null) {
                        // a HEAD has no body: the SDK knows the code by the status alone
                        throw error(404, "NoSuchKey", null);
                    }
                    return answered(HeadObjectResponse.builder().eTag(o.etag).lastModified(o.modified).contentLength((long) o.content.length)
                            .contentType(o.contentType == null ? "binary/octet-stream" : o.contentType).metadata(o.metadata)
                            // as S3: no x-amz-storage-class header for STANDARD
                            .storageClass("STANDARD".equals(o.storageClass) ? null : o.storageClass)
                            .tagCount(o.tags.isEmpty() ? null : o.tags.size())
                            .acceptRanges("bytes"), 200).build();
                }
            });
        }

        @Override
        public software.amazon.awssdk.services.s3.model.GetObjectTaggingResponse getObjectTagging(
                software.amazon.awssdk.services.s3.model.GetObjectTaggingRequest r) {
            return serve("GetObjectTagging", r.bucket(), keys(r.key()), r, () -> {
                synchronized (lock) {
                    Obj o = store(r.bucket()).objects.get(r.key());
                    if (o == null) {
                        throw error(404, "NoSuchKey", "The specified key does not exist.");
                    }
                    List<software.amazon.awssdk.services.s3.model.Tag> set = new ArrayList<>();
                    o.tags.forEach((k, v) -> set.add(software.amazon.awssdk.services.s3.model.Tag.builder().key(k).value(v).build()));
                    return answered(software.amazon.awssdk.services.s3.model.GetObjectTaggingResponse.builder().tagSet(set), 200).build();
                }
            });
        }

        @Override
        public DeleteObjectResponse deleteObject(DeleteObjectRequest r) {
            return serve("DeleteObject", r.bucket(), keys(r.key()), r, () -> {
                synchronized (lock) {
                    Store s = store(r.bucket());
                    Obj now = s.objects.get(r.key());
                    if (r.ifMatch() != null && !ignoreConditionalWrites) {
                        precondition(now, null, r.ifMatch());
                    }
                    s.objects.remove(r.key());
                    return answered(DeleteObjectResponse.builder(), 204).build();
                }
            });
        }

        @Override
        public DeleteObjectsResponse deleteObjects(DeleteObjectsRequest r) {
            List<ObjectIdentifier> ids = r.delete().objects();
            List<String> keys = new ArrayList<>();
            ids.forEach(i -> keys.add(i.key()));
            return serve("DeleteObjects", r.bucket(), keys, r, () -> {
                if (ids.isEmpty() || ids.size() > MAX_PAGE) {
                    throw error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema");
                }
                boolean quiet = Boolean.TRUE.equals(r.delete().quiet());
                List<DeletedObject> deleted = new ArrayList<>();
                List<S3Error> errors = new ArrayList<>();
                synchronized (lock) {
                    Store s = store(r.bucket());
                    for (ObjectIdentifier i : ids) {
                        if (deniedDeletes.stream().anyMatch(i.key()::contains)) {
                            errors.add(S3Error.builder().key(i.key()).code("AccessDenied").message("Access Denied").build());
                            continue;
                        }
                        s.objects.remove(i.key());
                        if (!quiet) {
                            deleted.add(DeletedObject.builder().key(i.key()).build());
                        }
                    }
                }
                return answered(DeleteObjectsResponse.builder().deleted(deleted).errors(errors), 200).build();
            });
        }

        @Override
        public CopyObjectResponse copyObject(CopyObjectRequest r) {
            return serve("CopyObject", r.destinationBucket(), keys(r.destinationKey(), r.sourceKey()), r, () -> {
                checkKey(r.destinationKey());
                synchronized (lock) {
                    Obj src = store(r.sourceBucket()).objects.get(r.sourceKey());
                    if (src == null) {
                        throw error(404, "NoSuchKey", "The specified key does not exist.");
                    }
                    Store target = store(r.destinationBucket());
                    if (!ignoreConditionalWrites && (r.copySourceIfMatch() != null && !unquote(r.copySourceIfMatch()).equals(unquote(src.etag))
                            || r.copySourceIfNoneMatch() != null && unquote(r.copySourceIfNoneMatch()).equals(unquote(src.etag)))) {
                        throw error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
                    }
                    precondition(target.objects.get(r.destinationKey()), r.ifNoneMatch(), r.ifMatch());
                    // as S3: the request's storage class (STANDARD without one, never the source's); the source's tags and
                    // metadata unless the request's directive is REPLACE
                    boolean replaceTags = r.taggingDirective() == software.amazon.awssdk.services.s3.model.TaggingDirective.REPLACE;
                    boolean replaceMetadata = r.metadataDirective() == software.amazon.awssdk.services.s3.model.MetadataDirective.REPLACE;
                    Obj copy = new Obj(src.content, src.etag, modifiedNow(), replaceMetadata ? r.contentType() : src.contentType,
                            replaceMetadata ? r.metadata() : src.metadata, storageClass(r.storageClassAsString()),
                            replaceTags ? tags(r.tagging()) : src.tags);
                    target.objects.put(r.destinationKey(), copy);
                    return answered(CopyObjectResponse.builder().copyObjectResult(CopyObjectResult.builder().eTag(copy.etag)
                            .lastModified(copy.modified).build()).serverSideEncryption(r.serverSideEncryption()), 200).build();
                }
            });
        }

        @Override
        public ListObjectsV2Response listObjectsV2(ListObjectsV2Request r) {
            String prefix = r.prefix() == null ? "" : r.prefix();
            return serve("ListObjectsV2", r.bucket(), keys(prefix), r, () -> {
                int max = r.maxKeys() == null ? MAX_PAGE : Math.max(0, Math.min(MAX_PAGE, r.maxKeys()));
                String delimiter = r.delimiter() == null || r.delimiter().isEmpty() ? null : r.delimiter();
                List<S3Object> contents = new ArrayList<>();
                List<CommonPrefix> prefixes = new ArrayList<>();
                String next = null;
                synchronized (lock) {
                    NavigableMap<String, Obj> objects = store(r.bucket()).objects;
                    String key;
                    if (r.continuationToken() != null) {
                        key = token(r.continuationToken());
                        key = objects.ceilingKey(key);
                    } else {
                        String after = r.startAfter();
                        key = after != null && after.compareTo(prefix) >= 0 ? objects.higherKey(after) : objects.ceilingKey(prefix);
                    }
                    while (key != null && key.startsWith(prefix)) {
                        if (contents.size() + prefixes.size() >= max) {
                            next = key;
                            break;
                        }
                        int d = delimiter == null ? -1 : key.indexOf(delimiter, prefix.length());
                        if (d >= 0) {
                            String common = key.substring(0, d + delimiter.length());
                            prefixes.add(CommonPrefix.builder().prefix(common).build());
                            String after = objects.higherKey(common + Character.MAX_VALUE);
                            while (after != null && after.startsWith(common)) {
                                after = objects.higherKey(after);
                            }
                            key = after;
                        } else {
                            Obj o = objects.get(key);
                            contents.add(S3Object.builder().key(key).size((long) o.content.length).eTag(o.etag).lastModified(o.modified)
                                    .storageClass(o.storageClass).build());
                            key = objects.higherKey(key);
                        }
                    }
                }
                ListObjectsV2Response.Builder b = ListObjectsV2Response.builder().name(r.bucket()).prefix(prefix).delimiter(r.delimiter())
                        .maxKeys(r.maxKeys() == null ? MAX_PAGE : r.maxKeys()).contents(contents).commonPrefixes(prefixes)
                        .keyCount(contents.size() + prefixes.size()).isTruncated(next != null)
                        .continuationToken(r.continuationToken()).startAfter(r.startAfter());
                if (next != null) {
                    b.nextContinuationToken(Base64.getUrlEncoder().encodeToString(next.getBytes(StandardCharsets.UTF_8)));
                }
                return answered(b, 200).build();
            });
        }

        private String token(String token) {
            try {
                return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw error(400, "InvalidArgument", "The continuation token provided is incorrect");
            }
        }

        @Override
        public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest r) {
            return serve("CreateMultipartUpload", r.bucket(), keys(r.key()), r, () -> {
                checkKey(r.key());
                synchronized (lock) {
                    Store s = store(r.bucket());
                    long seq = ids.incrementAndGet();
                    String id = "memory-upload-" + seq + "-" + Long.toHexString(System.nanoTime());
                    s.uploads.put(id, new Upload(id, seq, r.key(), now(), r.contentType(), r.metadata(), new TreeMap<>(),
                            storageClass(r.storageClassAsString()), tags(r.tagging())));
                    return answered(CreateMultipartUploadResponse.builder().bucket(r.bucket()).key(r.key()).uploadId(id)
                            .serverSideEncryption(r.serverSideEncryption()).ssekmsKeyId(r.ssekmsKeyId()), 200).build();
                }
            });
        }

        private Upload upload(Store s, String key, String uploadId) {
            Upload u = s.uploads.get(uploadId);
            if (u == null || !u.key.equals(key)) {
                throw error(404, "NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload "
                        + "may have been aborted or completed.");
            }
            return u;
        }

        @Override
        public UploadPartResponse uploadPart(UploadPartRequest r, RequestBody body) {
            byte[] bytes = read(body);
            return serve("UploadPart", r.bucket(), keys(r.key()), r, () -> {
                partNumber(r.partNumber());
                synchronized (lock) {
                    Upload u = upload(store(r.bucket()), r.key(), r.uploadId());
                    Part p = new Part(bytes, "\"" + md5(bytes) + "\"", modifiedNow());
                    u.parts.put(r.partNumber(), p);
                    return answered(UploadPartResponse.builder().eTag(p.etag), 200).build();
                }
            });
        }

        private void partNumber(Integer n) {
            if (n == null || n < 1 || n > 10_000) {
                throw error(400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive");
            }
        }

        @Override
        public UploadPartCopyResponse uploadPartCopy(UploadPartCopyRequest r) {
            return serve("UploadPartCopy", r.destinationBucket(), keys(r.destinationKey(), r.sourceKey()), r, () -> {
                partNumber(r.partNumber());
                synchronized (lock) {
                    Obj src = store(r.sourceBucket()).objects.get(r.sourceKey());
                    Upload u = upload(store(r.destinationBucket()), r.destinationKey(), r.uploadId());
                    if (src == null) {
                        throw error(404, "NoSuchKey", "The specified key does not exist.");
                    }
                    long[] range = range(r.copySourceRange(), src.content.length);
                    byte[] bytes = range == null ? src.content : Arrays.copyOfRange(src.content, (int) range[0], (int) range[1] + 1);
                    Part p = new Part(bytes, "\"" + md5(bytes) + "\"", modifiedNow());
                    u.parts.put(r.partNumber(), p);
                    return answered(UploadPartCopyResponse.builder().copyPartResult(CopyPartResult.builder().eTag(p.etag)
                            .lastModified(p.modified).build()), 200).build();
                }
            });
        }

        @Override
        public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest r) {
            return serve("CompleteMultipartUpload", r.bucket(), keys(r.key()), r, () -> {
                List<CompletedPart> parts = r.multipartUpload() == null || !r.multipartUpload().hasParts() ? List.of()
                        : r.multipartUpload().parts();
                synchronized (lock) {
                    Store s = store(r.bucket());
                    Upload u = upload(s, r.key(), r.uploadId());
                    if (parts.isEmpty()) {
                        throw error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our "
                                + "published schema");
                    }
                    int last = 0;
                    for (CompletedPart c : parts) {
                        if (c.partNumber() == null || c.partNumber() <= last) {
                            throw error(400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by "
                                    + "part number.");
                        }
                        last = c.partNumber();
                    }
                    List<byte[]> bodies = new ArrayList<>();
                    List<byte[]> digests = new ArrayList<>();
                    for (CompletedPart c : parts) {
                        Part p = u.parts.get(c.partNumber());
                        if (p == null || c.eTag() == null || !unquote(c.eTag()).equals(unquote(p.etag))) {
                            throw error(400, "InvalidPart", "One or more of the specified parts could not be found.  The part may not "
                                    + "have been uploaded, or the specified entity tag may not match the part's entity tag.");
                        }
                        bodies.add(p.content);
                        digests.add(HexFormat.of().parseHex(unquote(p.etag)));
                    }
                    for (int i = 0; i < bodies.size() - 1; i++) {
                        if (bodies.get(i).length < minPartSize) {
                            throw error(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.");
                        }
                    }
                    precondition(s.objects.get(r.key()), r.ifNoneMatch(), r.ifMatch());
                    int size = bodies.stream().mapToInt(b -> b.length).sum();
                    byte[] content = new byte[size];
                    int at = 0;
                    for (byte[] b : bodies) {
                        System.arraycopy(b, 0, content, at, b.length);
                        at += b.length;
                    }
                    Obj o = new Obj(content, "\"" + md5(digests.toArray(new byte[0][])) + "-" + parts.size() + "\"", modifiedNow(),
                            u.contentType, u.metadata, u.storageClass, u.tags);
                    s.uploads.remove(u.id);
                    s.objects.put(r.key(), o);
                    return answered(CompleteMultipartUploadResponse.builder().bucket(r.bucket()).key(r.key()).eTag(o.etag)
                            .location("/" + r.bucket() + "/" + r.key()), 200).build();
                }
            });
        }

        @Override
        public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest r) {
            return serve("AbortMultipartUpload", r.bucket(), keys(r.key()), r, () -> {
                synchronized (lock) {
                    Store s = store(r.bucket());
                    Upload u = upload(s, r.key(), r.uploadId());
                    s.uploads.remove(u.id);
                    return answered(AbortMultipartUploadResponse.builder(), 204).build();
                }
            });
        }

        @Override
        public ListMultipartUploadsResponse listMultipartUploads(ListMultipartUploadsRequest r) {
            String prefix = r.prefix() == null ? "" : r.prefix();
            return serve("ListMultipartUploads", r.bucket(), keys(prefix), r, () -> {
                int max = r.maxUploads() == null ? MAX_PAGE : Math.max(0, Math.min(MAX_PAGE, r.maxUploads()));
                List<Upload> all = new ArrayList<>();
                synchronized (lock) {
                    for (Upload u : store(r.bucket()).uploads.values()) {
                        if (u.key.startsWith(prefix)) {
                            all.add(u);
                        }
                    }
                }
                all.sort((x, y) -> x.key.equals(y.key) ? Long.compare(x.seq, y.seq) : x.key.compareTo(y.key));
                String keyMarker = r.keyMarker();
                String idMarker = r.uploadIdMarker();
                if (keyMarker != null) {
                    long markerSeq = -1;
                    if (idMarker != null) {
                        for (Upload u : all) {
                            if (u.id.equals(idMarker)) {
                                markerSeq = u.seq;
                            }
                        }
                    }
                    long seqAfter = markerSeq;
                    all.removeIf(u -> u.key.compareTo(keyMarker) < 0 || u.key.equals(keyMarker) && (idMarker == null || u.seq <= seqAfter));
                }
                List<MultipartUpload> out = new ArrayList<>();
                for (Upload u : all.subList(0, Math.min(max, all.size()))) {
                    out.add(MultipartUpload.builder().key(u.key).uploadId(u.id).initiated(u.initiated).storageClass("STANDARD").build());
                }
                boolean truncated = all.size() > max;
                ListMultipartUploadsResponse.Builder b = ListMultipartUploadsResponse.builder().bucket(r.bucket()).prefix(r.prefix())
                        .keyMarker(keyMarker).uploadIdMarker(idMarker).maxUploads(max).uploads(out).isTruncated(truncated);
                if (truncated && !out.isEmpty()) {
                    MultipartUpload lastShown = out.get(out.size() - 1);
                    b.nextKeyMarker(lastShown.key()).nextUploadIdMarker(lastShown.uploadId());
                }
                return answered(b, 200).build();
            });
        }

        @Override
        public ListPartsResponse listParts(ListPartsRequest r) {
            return serve("ListParts", r.bucket(), keys(r.key()), r, () -> {
                int max = r.maxParts() == null ? MAX_PAGE : Math.max(0, Math.min(MAX_PAGE, r.maxParts()));
                int after = r.partNumberMarker() == null ? 0 : r.partNumberMarker();
                List<software.amazon.awssdk.services.s3.model.Part> out = new ArrayList<>();
                boolean truncated = false;
                synchronized (lock) {
                    Upload u = upload(store(r.bucket()), r.key(), r.uploadId());
                    for (Map.Entry<Integer, Part> e : u.parts.entrySet()) {
                        if (e.getKey() <= after) {
                            continue;
                        }
                        if (out.size() == max) {
                            truncated = true;
                            break;
                        }
                        Part p = e.getValue();
                        out.add(software.amazon.awssdk.services.s3.model.Part.builder().partNumber(e.getKey()).eTag(p.etag)
                                .size((long) p.content.length).lastModified(p.modified).build());
                    }
                }
                ListPartsResponse.Builder b = ListPartsResponse.builder().bucket(r.bucket()).key(r.key()).uploadId(r.uploadId())
                        .partNumberMarker(after).maxParts(max).parts(out).isTruncated(truncated).storageClass("STANDARD");
                if (truncated) {
                    b.nextPartNumberMarker(out.get(out.size() - 1).partNumber());
                }
                return answered(b, 200).build();
            });
        }
    }

    /**
     * The inclusive byte range {@code bytes=a-b}, {@code bytes=a-} or {@code bytes=-n} of an object of {@code size}
     * bytes, cut to its end; null for none; InvalidRange (416) past the end.
     */
    static long[] range(String header, long size) {
        if (header == null || !header.startsWith("bytes=")) {
            return null;
        }
        String[] ab = header.substring(6).split("-", -1);
        long from;
        long to;
        if (ab[0].isEmpty()) {
            long n = Long.parseLong(ab[1]);
            from = Math.max(0, size - n);
            to = size - 1;
        } else {
            from = Long.parseLong(ab[0]);
            to = ab.length < 2 || ab[1].isEmpty() ? size - 1 : Math.min(size - 1, Long.parseLong(ab[1]));
        }
        if (from >= size || from > to) {
            throw error(416, "InvalidRange", "The requested range is not satisfiable");
        }
        return new long[] {from, to};
    }
}
