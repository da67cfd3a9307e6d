package io.wrangler.storage;

import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import io.wrangler.catalog.SdkRetries;
import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.retries.api.RetryStrategy;
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
 */
public record RequestOptions(String sse, String kmsKeyId, String acl, String expectedBucketOwner, int attempts, Duration base, Duration cap) {
    private static final Set<String> TRANSIENT_CODES = Set.of("SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout",
            "RequestTimeTooSkewed", "503 SlowDown");
    private static final Predicate<Throwable> S3_TRANSIENT = RequestOptions::isTransient;

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

    CreateMultipartUploadRequest.Builder apply(CreateMultipartUploadRequest.Builder b) {
        return retried(b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner));
    }

    CopyObjectRequest.Builder apply(CopyObjectRequest.Builder b) {
        return retried(b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner)
                .expectedSourceBucketOwner(expectedBucketOwner));
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
