package io.wrangler.storage;

import io.wrangler.catalog.SdkRetries;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartCopyRequest;
import software.amazon.awssdk.services.s3.model.UploadPartCopyResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * An S3Store is the set of S3 operations the write path needs, on one bucket, through the caller's client.
 *
 * <p>Each method is one S3 request or a paginated/batched series of them; none is atomic across keys. Every request
 * carries the write's {@link RequestOptions} (encryption, ACL, expected bucket owner, and its retries, which the SDK
 * carries out: {@link SdkRetries}). SDK exceptions that remain propagate unchanged: the caller knows the step and wraps
 * them.
 */
public final class S3Store {
    /** S3's limit for one CopyObject; larger objects are copied part by part. */
    public static final long MAX_SINGLE_COPY = 5L * 1024 * 1024 * 1024;
    /** S3's limit of keys in one DeleteObjects request. */
    public static final int MAX_DELETE_BATCH = 1000;

    private final S3Client client;
    private final String bucket;
    private final long singleCopyLimit;
    private final long copyPartSize;
    private final RequestOptions options;
    /** The longest one attempt of a conditional put or a versioned get may take before it is given up and retried, or null. */
    private final Duration attemptTimeout;

    public S3Store(S3Client client, String bucket, RequestOptions options) {
        this(client, bucket, MAX_SINGLE_COPY, 512L * 1024 * 1024, options, null);
    }

    private S3Store(S3Client client, String bucket, long singleCopyLimit, long copyPartSize, RequestOptions options,
                    Duration attemptTimeout) {
        this.client = client;
        this.bucket = bucket;
        this.singleCopyLimit = singleCopyLimit;
        this.copyPartSize = copyPartSize;
        this.options = options;
        this.attemptTimeout = attemptTimeout;
    }

    /** A store like this one that copies objects larger than {@code limit} part by part (tests lower it). */
    public S3Store withSingleCopyLimit(long limit, long partSize) {
        return new S3Store(client, bucket, limit, partSize, options, attemptTimeout);
    }

    /**
     * A store like this one whose {@link #putIf}, {@link #getVersioned} and {@link #deleteIf} give up each attempt after
     * {@code timeout} (the SDK's attempt timeout; a timed-out attempt is retried like any transient failure, on another
     * connection): the table lease's requests, so that one request stuck in the network cannot outlast a renewal interval.
     */
    public S3Store withAttemptTimeout(Duration timeout) {
        return new S3Store(client, bucket, singleCopyLimit, copyPartSize, options, timeout);
    }

    private <B extends AwsRequest.Builder> B timed(B b) {
        if (attemptTimeout != null) {
            AwsRequestOverrideConfiguration o = b.overrideConfiguration();
            b.overrideConfiguration((o == null ? AwsRequestOverrideConfiguration.builder() : o.toBuilder())
                    .apiCallAttemptTimeout(attemptTimeout).build());
        }
        return b;
    }

    public S3Client client() {
        return client;
    }

    public String bucket() {
        return bucket;
    }

    public RequestOptions options() {
        return options;
    }

    /** Fails with the SDK's NoSuchBucketException (or 403) when the bucket cannot be reached. */
    public void checkBucket() {
        client.headBucket(options.apply(HeadBucketRequest.builder().bucket(bucket)).build());
    }

    /** Puts a small object in one request. */
    public void put(String key, byte[] content) {
        putObject(PutObjectRequest.builder().key(key), RequestBody.fromBytes(content));
    }

    /** Puts an object in one request, its body sent as is (an upload stream's only part). */
    void put(String key, RequestBody body) {
        PutObjectRequest r = timed(options.applyData(PutObjectRequest.builder().bucket(bucket).key(key))).build();
        client.putObject(r, body);
    }

    /** Puts an object with the write's options added to {@code request} (conditions included). */
    private PutObjectResponse putObject(PutObjectRequest.Builder request, RequestBody body) {
        PutObjectRequest r = timed(options.apply(request.bucket(bucket))).build();
        return client.putObject(r, body);
    }

    /**
     * An object's content, its ETag and when it was last written (S3's clock, whole seconds), and S3's clock when it
     * answered ({@code date}, from the answer's Date header; null without one).
     */
    public record Versioned(byte[] content, String etag, Instant lastModified, Instant date) {
    }

    /**
     * An HTTP Date header as an instant, or null when it is not RFC 1123 (a proxy or an S3-compatible server may send
     * another form): only the lease reads it, and falls back to the local clock without one. A manifest read must not
     * fail on a header it does not need.
     */
    static Instant httpDate(String header) {
        try {
            return ZonedDateTime.parse(header, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** The content and ETag of an object, or empty if there is none. */
    public Optional<Versioned> getVersioned(String key) {
        try {
            var r = client.getObjectAsBytes(timed(options.apply(GetObjectRequest.builder().bucket(bucket).key(key))).build());
            Instant date = r.response().sdkHttpResponse().firstMatchingHeader("Date").map(S3Store::httpDate).orElse(null);
            return Optional.of(new Versioned(r.asByteArray(), r.response().eTag(), r.response().lastModified(), date));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /**
     * Puts a small object only if {@code ifMatch} is its current ETag, or, with {@code ifMatch} null, only if the key
     * does not exist: a compare-and-swap. S3 answers 412 (or 409 for a concurrent conflicting request) otherwise.
     *
     * @return the new ETag
     */
    public String putIf(String key, byte[] content, String ifMatch) {
        PutObjectRequest.Builder put = PutObjectRequest.builder().key(key);
        if (ifMatch == null) {
            put.ifNoneMatch("*");
        } else {
            put.ifMatch(ifMatch);
        }
        return putObject(put, RequestBody.fromBytes(content)).eTag();
    }

    /** Deletes an object only if {@code ifMatch} is its current ETag (412 otherwise); a missing key answers 404 or 204. */
    public void deleteIf(String key, String ifMatch) {
        DeleteObjectRequest r = timed(options.apply(DeleteObjectRequest.builder().bucket(bucket).key(key).ifMatch(ifMatch))).build();
        client.deleteObject(r);
    }

    /** The content of an object, or empty if there is none. */
    public Optional<byte[]> get(String key) {
        try {
            return Optional.of(client.getObjectAsBytes(options.apply(GetObjectRequest.builder().bucket(bucket).key(key)).build())
                    .asByteArray());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /** The size of an object, or empty if there is none. */
    public Optional<Long> size(String key) {
        try {
            return Optional.of(client.headObject(options.apply(HeadObjectRequest.builder().bucket(bucket).key(key)).build())
                    .contentLength());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private List<ListObjectsV2Response> pages(String prefix, String delimiter) {
        List<ListObjectsV2Response> out = new ArrayList<>();
        String token = null;
        do {
            ListObjectsV2Request r = options.apply(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).delimiter(delimiter)
                    .continuationToken(token)).build();
            ListObjectsV2Response page = client.listObjectsV2(r);
            out.add(page);
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return out;
    }

    /** One page of the listing of {@code prefix} ({@code delimiter} null for none), from {@code token} (null: the first). */
    public ListObjectsV2Response listPage(String prefix, String delimiter, String token) {
        return client.listObjectsV2(options.apply(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).delimiter(delimiter)
                .continuationToken(token)).build());
    }

    /** The first page (1,000 keys) of the objects under {@code prefix} whose keys sort after {@code startAfter}, no delimiter. */
    public ListObjectsV2Response listPageAfter(String prefix, String startAfter) {
        return client.listObjectsV2(options.apply(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).startAfter(startAfter)).build());
    }

    /** Every object whose key starts with {@code prefix}, page by page (1,000 keys a page). */
    public List<S3Object> list(String prefix) {
        List<S3Object> out = new ArrayList<>();
        for (ListObjectsV2Response page : pages(prefix, null)) {
            out.addAll(page.contents());
        }
        return out;
    }

    /** The first key of a table's hidden range: {@code _tmp/}, {@code _wrangler/} and other names starting with {@code _}. */
    static final String HIDDEN_FROM = "_";
    /** Every key starting with {@code _} and an ASCII letter, digit or sign sorts before it; lower-case letters sort after it. */
    static final String HIDDEN_TO = "_~";

    /**
     * Every object under {@code prefix} (a table's root) outside its hidden range: the keys from {@code prefix + "_"} to
     * {@code prefix + "_~"}, which hold {@code _tmp/} (the staged files of writes in flight) and {@code _wrangler/}'s
     * commit log (one object a commit, so it grows with the table's history), are not paged through: when a page ends
     * inside that range, the listing goes on after it (StartAfter), then page by page again. Keys of the range on the
     * pages that reach it are returned too, so a caller still leaves hidden names out itself; every key outside the range
     * is returned, whatever sorts before {@code _} (folders named with a capital letter or a digit) or after it.
     * A table whose hidden range fits on the page that reaches it costs no request more than {@link #list}.
     */
    public List<S3Object> listSkippingHidden(String prefix) {
        String from = prefix + HIDDEN_FROM;
        String to = prefix + HIDDEN_TO;
        List<S3Object> out = new ArrayList<>();
        String token = null;
        boolean skipped = false;
        while (true) {
            ListObjectsV2Request.Builder b = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix);
            if (token != null) {
                b.continuationToken(token);
            } else if (skipped) {
                b.startAfter(to);
            }
            ListObjectsV2Response page = client.listObjectsV2(options.apply(b).build());
            for (S3Object o : page.contents()) {
                // After the jump only keys past the range: a server that ignored StartAfter would list the first pages
                // again, and a key listed twice would be a file read twice.
                if (!skipped || o.key().compareTo(to) > 0) {
                    out.add(o);
                }
            }
            if (!Boolean.TRUE.equals(page.isTruncated())) {
                return out;
            }
            List<S3Object> keys = page.contents();
            String last = keys.isEmpty() ? null : keys.get(keys.size() - 1).key();
            // Keys are compared as S3 orders them (UTF-8 bytes); both bounds are ASCII, where UTF-16 order agrees.
            if (!skipped && last != null && last.compareTo(from) >= 0 && last.compareTo(to) < 0) {
                skipped = true;
                token = null;
            } else {
                token = page.nextContinuationToken();
                if (token == null) {
                    // A server that says there is more but not where: asking again would list the same page for ever.
                    throw SdkClientException.create("Listing s3://" + bucket + "/" + prefix + " failed: a page said more keys "
                            + "follow but gave no continuation token, so the rest of the listing cannot be fetched.");
                }
            }
        }
    }

    /**
     * At most {@code max} entries directly below {@code prefix} in key order, folders (ending with {@code /}) and
     * objects together: one request, to learn how a table's folders are named without listing them all.
     */
    public List<String> firstEntries(String prefix, int max) {
        ListObjectsV2Request r = options.apply(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).delimiter("/").maxKeys(max)).build();
        ListObjectsV2Response page = client.listObjectsV2(r);
        List<String> out = new ArrayList<>();
        page.commonPrefixes().forEach(p -> out.add(p.prefix()));
        page.contents().forEach(o -> out.add(o.key()));
        Collections.sort(out);
        return out;
    }

    /** Every entry directly below {@code prefix}, folders (ending with {@code /}) and objects, every page. */
    public List<String> listEntries(String prefix) {
        List<String> out = new ArrayList<>();
        for (ListObjectsV2Response page : pages(prefix, "/")) {
            page.commonPrefixes().forEach(p -> out.add(p.prefix()));
            page.contents().forEach(o -> out.add(o.key()));
        }
        return out;
    }

    /** The "folders" directly below {@code prefix}: common prefixes for delimiter {@code /}, each ending with {@code /}. */
    public List<String> listFolders(String prefix) {
        List<String> out = new ArrayList<>();
        for (ListObjectsV2Response page : pages(prefix, "/")) {
            for (CommonPrefix p : page.commonPrefixes()) {
                out.add(p.prefix());
            }
        }
        return out;
    }

    /**
     * The folders directly below {@code prefix} as {@link #listFolders} lists them, and also the folder of every key the
     * answer holds deeper than {@code prefix}: a server that ignores the delimiter answers every key below and no common
     * prefix, and a look that must not miss a folder (the writes in flight a reader leaves out) would then see none.
     * Against a server that honours the delimiter it is {@link #listFolders}, request for request. Each folder once.
     */
    public List<String> listFoldersOfAnyKey(String prefix) {
        Set<String> out = new LinkedHashSet<>();
        for (ListObjectsV2Response page : pages(prefix, "/")) {
            for (CommonPrefix p : page.commonPrefixes()) {
                out.add(p.prefix());
            }
            for (S3Object o : page.contents()) {
                int slash = o.key().indexOf('/', prefix.length());
                if (slash >= 0) {
                    out.add(o.key().substring(0, slash + 1));
                }
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * Copies {@code source} to {@code target} in the same bucket: one CopyObject up to 5 GB, a multipart
     * upload of UploadPartCopy requests above, with {@code beforeComplete} run right before each attempt of its completion
     * (a retry too). The target appears whole or not at all.
     *
     * @return the target's ETag as S3 answered the CopyObject or the completion, or null when not known (a completion
     *     applied with its answer lost, found by its object's size)
     */
    public String copy(String source, String target, long size, Runnable beforeComplete) {
        if (size <= singleCopyLimit) {
            CopyObjectRequest r = options.apply(CopyObjectRequest.builder()
                    .sourceBucket(bucket).sourceKey(source).destinationBucket(bucket).destinationKey(target)).build();
            CopyObjectResponse response = client.copyObject(r);
            return response.copyObjectResult() == null ? null : response.copyObjectResult().eTag();
        }
        String uploadId = createUpload(target, true);
        try {
            List<CompletedPart> parts = new ArrayList<>();
            int partNumber = 1;
            for (long start = 0; start < size; start += copyPartSize, partNumber++) {
                long end = Math.min(size, start + copyPartSize) - 1;
                UploadPartCopyRequest r = options.apply(UploadPartCopyRequest.builder().sourceBucket(bucket).sourceKey(source)
                        .destinationBucket(bucket).destinationKey(target).uploadId(uploadId).partNumber(partNumber)
                        .copySourceRange("bytes=" + start + "-" + end)).build();
                UploadPartCopyResponse response = client.uploadPartCopy(r);
                parts.add(CompletedPart.builder().partNumber(partNumber).eTag(response.copyPartResult().eTag()).build());
            }
            return complete(target, uploadId, parts, size, beforeComplete);
        } catch (RuntimeException e) {
            abortQuietly(target, uploadId, e);
            throw e;
        }
    }

    /** Begins a multipart upload of a data object at {@code key}, its final key or a staging one: its upload id. */
    String createUpload(String key, boolean finalKey) {
        CreateMultipartUploadRequest r = options.applyData(CreateMultipartUploadRequest.builder().bucket(bucket).key(key), finalKey).build();
        return client.createMultipartUpload(r).uploadId();
    }

    /** Sends part {@code partNumber} of an upload: its ETag. */
    String uploadPart(String key, String uploadId, int partNumber, long length, RequestBody body) {
        UploadPartRequest r = options.apply(UploadPartRequest.builder().bucket(bucket).key(key).uploadId(uploadId)
                .partNumber(partNumber).contentLength(length)).build();
        return client.uploadPart(r, body).eTag();
    }

    /**
     * Completes a multipart upload. When an attempt was applied but its answer lost, the retry finds the upload gone
     * (NoSuchUpload): the object then exists at its key with the expected size, and that counts as success.
     *
     * @return the object's ETag as S3 answered the completion, or null when its answer was lost
     */
    String complete(String key, String uploadId, List<CompletedPart> parts, long expectedSize) {
        return complete(key, uploadId, parts, expectedSize, () -> { });
    }

    /**
     * Completes a multipart upload, running {@code beforeEach} right before every attempt, retries included: with a fence
     * there, a writer that lost the table's lease while an attempt failed or waited out its backoff stops before the next.
     * The SDK has no hook that may stop an attempt from being sent, so this request is sent with its retries off and
     * retried by {@link SdkRetries#fenced} with the same strategy; what the fence throws is passed on as it is.
     */
    private String complete(String key, String uploadId, List<CompletedPart> parts, long expectedSize, Runnable beforeEach) {
        CompleteMultipartUploadRequest r = options.apply(CompleteMultipartUploadRequest.builder().bucket(bucket).key(key).uploadId(uploadId)
                .multipartUpload(u -> u.parts(parts))).overrideConfiguration(SdkRetries.once()).build();
        try {
            return SdkRetries.fenced(options.retries(), beforeEach, () -> client.completeMultipartUpload(r)).eTag();
        } catch (S3Exception e) {
            // An attempt applied with its answer lost, and the retry finds the upload gone: read the object back.
            if (noSuchUpload(e) && size(key).orElse(-1L) == expectedSize) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Deletes {@code keys} in DeleteObjects batches of at most 1,000. Missing keys count as deleted.
     *
     * @return the per-key errors S3 reported in the response bodies (HTTP 200 with errors), empty if none
     */
    public List<S3Error> delete(Collection<String> keys) {
        List<S3Error> errors = new ArrayList<>();
        delete(List.copyOf(keys), MAX_DELETE_BATCH, () -> { }, errors::addAll);
        return errors;
    }

    /**
     * Deletes {@code keys} in order, in DeleteObjects batches of at most {@code batchSize} (cut to S3's 1,000): the one
     * place wrangler batches deletes. {@code beforeEach} runs right before each batch's request (a fence: it throws to stop
     * before anything more is deleted), and {@code afterEach} gets each batch's per-key errors (HTTP 200 with errors;
     * empty if none) and may throw to stop. Missing keys count as deleted.
     */
    public void delete(List<String> keys, int batchSize, Runnable beforeEach, Consumer<List<S3Error>> afterEach) {
        int size = Math.min(batchSize, MAX_DELETE_BATCH);
        for (int from = 0; from < keys.size(); from += size) {
            List<ObjectIdentifier> batch = new ArrayList<>();
            for (String key : keys.subList(from, Math.min(keys.size(), from + size))) {
                batch.add(ObjectIdentifier.builder().key(key).build());
            }
            beforeEach.run();
            afterEach.accept(deleteBatch(batch));
        }
    }

    private List<S3Error> deleteBatch(List<ObjectIdentifier> batch) {
        DeleteObjectsRequest r = options.apply(DeleteObjectsRequest.builder().bucket(bucket)
                .delete(Delete.builder().objects(batch).quiet(true).build())).build();
        DeleteObjectsResponse response = client.deleteObjects(r);
        return response.hasErrors() ? response.errors() : List.of();
    }

    /** Multipart uploads begun under {@code prefix} and never completed nor aborted. */
    public List<MultipartUpload> openUploads(String prefix) {
        List<MultipartUpload> out = new ArrayList<>();
        String keyMarker = null;
        String uploadIdMarker = null;
        while (true) {
            ListMultipartUploadsRequest r = options.apply(ListMultipartUploadsRequest.builder().bucket(bucket).prefix(prefix)
                    .keyMarker(keyMarker).uploadIdMarker(uploadIdMarker)).build();
            ListMultipartUploadsResponse page = client.listMultipartUploads(r);
            if (page.hasUploads()) {
                out.addAll(page.uploads());
            }
            if (!Boolean.TRUE.equals(page.isTruncated())) {
                return out;
            }
            keyMarker = page.nextKeyMarker();
            uploadIdMarker = page.nextUploadIdMarker();
        }
    }

    /** Aborts one multipart upload. */
    public void abort(String key, String uploadId) {
        AbortMultipartUploadRequest r = options.apply(AbortMultipartUploadRequest.builder().bucket(bucket).key(key).uploadId(uploadId)).build();
        client.abortMultipartUpload(r);
    }

    void abortQuietly(String key, String uploadId, Throwable failure) {
        try {
            abort(key, uploadId);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** Opens a stream that uploads an object part by part as it is written; see {@link S3OutputStream}. */
    public S3OutputStream create(String key, Uploads uploads) {
        return new S3OutputStream(this, key, uploads, false);
    }

    /** Opens a stream whose multipart upload is left open for the commit to complete; see {@link S3OutputStream}. */
    public S3OutputStream createDeferred(String key, Uploads uploads) {
        return new S3OutputStream(this, key, uploads, true);
    }

    /**
     * Completes a deferred upload (part numbers 1..n in order of {@code etags}). Idempotent: an upload already completed
     * (by an earlier attempt whose answer was lost, or an earlier run of the commit) is found as its object.
     *
     * @return the object's ETag as S3 answered the completion, {@link Optional#empty()} when the upload is gone and its
     *     object is not there either: it was aborted (by a lifecycle rule or by hand), and the file cannot be published;
     *     an empty string when the upload was completed before (its ETag then not known here)
     */
    public Optional<String> completeDeferred(String key, String uploadId, List<String> etags, long expectedSize) {
        List<CompletedPart> parts = new ArrayList<>();
        for (int i = 0; i < etags.size(); i++) {
            parts.add(CompletedPart.builder().partNumber(i + 1).eTag(etags.get(i)).build());
        }
        try {
            String eTag = complete(key, uploadId, parts, expectedSize);
            return Optional.of(eTag == null ? "" : eTag);
        } catch (S3Exception e) {
            if (noSuchUpload(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static boolean noSuchUpload(S3Exception e) {
        return e.statusCode() == 404 || (e.awsErrorDetails() != null && "NoSuchUpload".equals(e.awsErrorDetails().errorCode()));
    }
}
