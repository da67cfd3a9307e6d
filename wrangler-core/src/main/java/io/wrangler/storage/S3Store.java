package io.wrangler.storage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartCopyResponse;

/**
 * An S3Store is the set of S3 operations the write path needs, on one bucket, through the caller's client.
 *
 * <p>Each method is one S3 request or a paginated/batched series of them; none is atomic across keys.
 * SDK exceptions propagate unchanged: the caller knows the step and wraps them.
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
    private final Consumer<PutObjectRequest.Builder> putOptions;

    public S3Store(S3Client client, String bucket) {
        this(client, bucket, MAX_SINGLE_COPY, 512L * 1024 * 1024, b -> { });
    }

    /** For tests: a lower single-copy limit exercises the multipart copy path with small objects. */
    S3Store(S3Client client, String bucket, long singleCopyLimit, long copyPartSize, Consumer<PutObjectRequest.Builder> putOptions) {
        this.client = client;
        this.bucket = bucket;
        this.singleCopyLimit = singleCopyLimit;
        this.copyPartSize = copyPartSize;
        this.putOptions = putOptions;
    }

    /** A store like this one that copies objects larger than {@code limit} part by part (tests only). */
    public S3Store withSingleCopyLimit(long limit, long partSize) {
        return new S3Store(client, bucket, limit, partSize, putOptions);
    }

    public S3Client client() {
        return client;
    }

    public String bucket() {
        return bucket;
    }

    /** Fails with the SDK's NoSuchBucketException (or 403) when the bucket cannot be reached. */
    public void checkBucket() {
        client.headBucket(b -> b.bucket(bucket));
    }

    /** Puts a small object in one request. */
    public void put(String key, byte[] content) {
        PutObjectRequest.Builder req = PutObjectRequest.builder().bucket(bucket).key(key);
        putOptions.accept(req);
        client.putObject(req.build(), RequestBody.fromBytes(content));
    }

    /** The content of an object, or empty if there is none. */
    public Optional<byte[]> get(String key) {
        try {
            return Optional.of(client.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /** The size of an object, or empty if there is none. */
    public Optional<Long> size(String key) {
        try {
            return Optional.of(client.headObject(b -> b.bucket(bucket).key(key)).contentLength());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Every object whose key starts with {@code prefix}, page by page (1,000 keys a page). */
    public List<S3Object> list(String prefix) {
        List<S3Object> out = new ArrayList<>();
        for (S3Object o : client.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build()).contents()) {
            out.add(o);
        }
        return out;
    }

    /** The "folders" directly below {@code prefix}: common prefixes for delimiter {@code /}, each ending with {@code /}. */
    public List<String> listFolders(String prefix) {
        List<String> out = new ArrayList<>();
        for (CommonPrefix p : client.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).delimiter("/").build()).commonPrefixes()) {
            out.add(p.prefix());
        }
        return out;
    }

    /**
     * Copies {@code source} to {@code target} in the same bucket: one CopyObject up to 5 GB, a multipart
     * upload of UploadPartCopy requests above. The target appears whole or not at all.
     */
    public void copy(String source, String target, long size) {
        if (size <= singleCopyLimit) {
            CopyObjectRequest.Builder req = CopyObjectRequest.builder()
                    .sourceBucket(bucket).sourceKey(source).destinationBucket(bucket).destinationKey(target);
            client.copyObject(req.build());
            return;
        }
        String uploadId = client.createMultipartUpload(CreateMultipartUploadRequest.builder().bucket(bucket).key(target).build()).uploadId();
        try {
            List<CompletedPart> parts = new ArrayList<>();
            int partNumber = 1;
            for (long start = 0; start < size; start += copyPartSize, partNumber++) {
                long end = Math.min(size, start + copyPartSize) - 1;
                final int n = partNumber;
                final String range = "bytes=" + start + "-" + end;
                UploadPartCopyResponse r = client.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey(source)
                        .destinationBucket(bucket).destinationKey(target).uploadId(uploadId).partNumber(n).copySourceRange(range));
                parts.add(CompletedPart.builder().partNumber(n).eTag(r.copyPartResult().eTag()).build());
            }
            client.completeMultipartUpload(b -> b.bucket(bucket).key(target).uploadId(uploadId)
                    .multipartUpload(u -> u.parts(parts)));
        } catch (RuntimeException e) {
            abortQuietly(target, uploadId, e);
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
        List<ObjectIdentifier> batch = new ArrayList<>(Math.min(keys.size(), MAX_DELETE_BATCH));
        for (String key : keys) {
            batch.add(ObjectIdentifier.builder().key(key).build());
            if (batch.size() == MAX_DELETE_BATCH) {
                errors.addAll(deleteBatch(batch));
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            errors.addAll(deleteBatch(batch));
        }
        return errors;
    }

    private List<S3Error> deleteBatch(List<ObjectIdentifier> batch) {
        DeleteObjectsResponse r = client.deleteObjects(b -> b.bucket(bucket).delete(Delete.builder().objects(batch).quiet(true).build()));
        return r.hasErrors() ? r.errors() : List.of();
    }

    /** Multipart uploads begun under {@code prefix} and never completed nor aborted. */
    public List<MultipartUpload> openUploads(String prefix) {
        List<MultipartUpload> out = new ArrayList<>();
        String keyMarker = null;
        String uploadIdMarker = null;
        while (true) {
            final String km = keyMarker;
            final String um = uploadIdMarker;
            ListMultipartUploadsResponse r = client.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix).keyMarker(km).uploadIdMarker(um));
            if (r.hasUploads()) {
                out.addAll(r.uploads());
            }
            if (!Boolean.TRUE.equals(r.isTruncated())) {
                return out;
            }
            keyMarker = r.nextKeyMarker();
            uploadIdMarker = r.nextUploadIdMarker();
        }
    }

    /** Aborts one multipart upload. */
    public void abort(String key, String uploadId) {
        client.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
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
        return new S3OutputStream(this, key, uploads, putOptions);
    }
}
