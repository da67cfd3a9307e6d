package io.wrangler.storage;

import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import io.wrangler.catalog.SdkRetries;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.utils.http.SdkHttpUtils;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.TaggingDirective;
import software.amazon.awssdk.services.s3.model.UploadPartCopyRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * RequestOptions are what every S3 request of a write carries: server-side encryption (SSE-S3 or SSE-KMS with a key
 * id) and a canned ACL on every object created (PUT, multipart upload, copy), the expected bucket owner on every
 * request, and the write's retries of transient failures (the SDK's retry strategy, set on each request: {@link SdkRetries}).
 *
 * @param sse {@code AES256}, {@code aws:kms} or null
 * @param kmsKeyId the KMS key id or ARN for {@code aws:kms}, or null for the bucket's default key
 * @param acl a canned ACL such as {@code bucket-owner-full-control}, or null
 * @param expectedBucketOwner the account id the bucket must belong to, or null
 * @param attempts calls at most per request, counting the first (1: no retries)
 * @param base the first backoff
 * @param cap the longest backoff
 * @param storageClass the storage class of the data objects at their final keys, or null for the bucket's default
 * @param tags the object tags of every data object, staged ones too (a bucket policy may require them on every PUT)
 */
public record RequestOptions(String sse, String kmsKeyId, String acl, String expectedBucketOwner, int attempts, Duration base, Duration cap,
                             String storageClass, Map<String, String> tags) {
    private static final Set<String> TRANSIENT_CODES = Set.of("SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout",
            "RequestTimeTooSkewed", "503 SlowDown");
    private static final Predicate<Throwable> S3_TRANSIENT = RequestOptions::isTransient;

    public RequestOptions {
        tags = tags == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(tags));
    }

    /** Request options without a storage class or tags. */
    public RequestOptions(String sse, String kmsKeyId, String acl, String expectedBucketOwner, int attempts, Duration base, Duration cap) {
        this(sse, kmsKeyId, acl, expectedBucketOwner, attempts, base, cap, null, Map.of());
    }

    /** These options with the data objects' storage class (null: the bucket's default) and tags. */
    public RequestOptions withDataObjects(String storageClass, Map<String, String> tags) {
        return new RequestOptions(sse, kmsKeyId, acl, expectedBucketOwner, attempts, base, cap, storageClass, tags);
    }

    /** The tags as the x-amz-tagging header carries them (URL query form), or null without tags. */
    String tagging() {
        if (tags.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        tags.forEach((k, v) -> b.append(b.length() == 0 ? "" : "&").append(SdkHttpUtils.urlEncode(k)).append('=')
                .append(SdkHttpUtils.urlEncode(v)));
        return b.toString();
    }

    public static RequestOptions defaults() {
        return of(Encryption.none(), null, null, RetryPolicy.defaults());
    }

    /** The request options of a write's options ({@code WriteOptions}): the one place they are turned into headers and retries. */
    public static RequestOptions of(Encryption encryption, String acl, String expectedBucketOwner, RetryPolicy retry) {
        return new RequestOptions(encryption.serverSideEncryption(), encryption.kmsKeyId(), acl, expectedBucketOwner, retry.attempts(),
                retry.base(), retry.cap());
    }

    /**
     * S3's transient failures beyond the SDK's own conditions (see {@link SdkRetries}): any 5xx and 429, SlowDown,
     * InternalError, ServiceUnavailable, RequestTimeout, RequestTimeTooSkewed, an attempt that timed out, a broken
     * connection (an I/O cause). A client-side failure without an I/O cause (missing credentials, a bad configuration) is
     * permanent. Part of the one strategy the SDK retries with, not a classifier of its own.
     */
    public static boolean isTransient(Throwable e) {
        if (e instanceof S3Exception s) {
            String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
            return s.statusCode() >= 500 || s.statusCode() == 429 || (code != null && TRANSIENT_CODES.contains(code));
        }
        return SdkRetries.connectionFailure(e);
    }

    /** The SDK retry strategy of these options: the write's (or read's) {@link RetryPolicy}, S3's transient failures. */
    public RetryStrategy retries() {
        return SdkRetries.strategy(attempts, base, cap, S3_TRANSIENT);
    }

    /** {@code b} with these options' retries (the SDK's, per request: {@link SdkRetries}). */
    private <B extends AwsRequest.Builder> B retried(B b) {
        b.overrideConfiguration(SdkRetries.override(b.overrideConfiguration(), retries()));
        return b;
    }

    PutObjectRequest.Builder apply(PutObjectRequest.Builder b) {
        return retried(b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner));
    }

    /** A data object's PUT (only ever to a staging key: a data file at its final key is a copy or a multipart upload). */
    PutObjectRequest.Builder applyData(PutObjectRequest.Builder b) {
        return apply(b).tagging(tagging());
    }

    CreateMultipartUploadRequest.Builder apply(CreateMultipartUploadRequest.Builder b) {
        return retried(b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner));
    }

    /**
     * A data object's multipart upload: tagged; in the storage class when it is created at its final key (a staged copy
     * stays STANDARD: it lives seconds, and the infrequent-access classes bill 30 days at least).
     */
    CreateMultipartUploadRequest.Builder applyData(CreateMultipartUploadRequest.Builder b, boolean finalKey) {
        return apply(b).tagging(tagging()).storageClass(finalKey ? storageClass : null);
    }

    /**
     * A copy of a data object to its final key: in the storage class (a copy does not keep the source's, it takes the
     * request's or STANDARD), with the tags given again (TaggingDirective REPLACE, so that the object has exactly these
     * whatever the staged one holds); its user metadata is copied (MetadataDirective COPY, the default).
     */
    CopyObjectRequest.Builder apply(CopyObjectRequest.Builder b) {
        b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner)
                .expectedSourceBucketOwner(expectedBucketOwner).storageClass(storageClass);
        if (!tags.isEmpty()) {
            b.taggingDirective(TaggingDirective.REPLACE).tagging(tagging());
        }
        return retried(b);
    }

    UploadPartRequest.Builder apply(UploadPartRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    UploadPartCopyRequest.Builder apply(UploadPartCopyRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner).expectedSourceBucketOwner(expectedBucketOwner));
    }

    CompleteMultipartUploadRequest.Builder apply(CompleteMultipartUploadRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    AbortMultipartUploadRequest.Builder apply(AbortMultipartUploadRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    DeleteObjectRequest.Builder apply(DeleteObjectRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    DeleteObjectsRequest.Builder apply(DeleteObjectsRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    ListObjectsV2Request.Builder apply(ListObjectsV2Request.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    ListMultipartUploadsRequest.Builder apply(ListMultipartUploadsRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    HeadBucketRequest.Builder apply(HeadBucketRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    HeadObjectRequest.Builder apply(HeadObjectRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }

    public GetObjectRequest.Builder apply(GetObjectRequest.Builder b) {
        return retried(b.expectedBucketOwner(expectedBucketOwner));
    }
}
