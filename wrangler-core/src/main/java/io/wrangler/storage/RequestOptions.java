package io.wrangler.storage;

import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
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
 * request, and the write's retries of transient failures.
 *
 * @param sse {@code AES256}, {@code aws:kms} or null
 * @param kmsKeyId the KMS key id or ARN for {@code aws:kms}, or null for the bucket's default key
 * @param acl a canned ACL such as {@code bucket-owner-full-control}, or null
 * @param expectedBucketOwner the account id the bucket must belong to, or null
 * @param attempts calls at most per request, counting the first (1: no retries of wrangler's own)
 * @param base the first backoff
 * @param cap the longest backoff
 */
public record RequestOptions(String sse, String kmsKeyId, String acl, String expectedBucketOwner, int attempts, Duration base, Duration cap) {
    private static final Set<String> TRANSIENT_CODES = Set.of("SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout",
            "RequestTimeTooSkewed", "503 SlowDown");

    public static RequestOptions defaults() {
        return of(Encryption.none(), null, null, RetryPolicy.defaults());
    }

    /** The request options of a write's options ({@code WriteOptions}): the one place they are turned into headers and retries. */
    public static RequestOptions of(Encryption encryption, String acl, String expectedBucketOwner, RetryPolicy retry) {
        return new RequestOptions(encryption.serverSideEncryption(), encryption.kmsKeyId(), acl, expectedBucketOwner, retry.attempts(),
                retry.base(), retry.cap());
    }

    /**
     * True for failures that a later attempt may not meet: 5xx, SlowDown, throttling, broken or timed-out connections.
     * A client-side failure without an I/O cause (missing credentials, a bad configuration) is permanent.
     */
    public static boolean isTransient(RuntimeException e) {
        if (e instanceof S3Exception s) {
            String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
            return s.statusCode() >= 500 || s.statusCode() == 429 || (code != null && TRANSIENT_CODES.contains(code));
        }
        if (e instanceof ApiCallAttemptTimeoutException) {
            return true;
        }
        if (e instanceof SdkClientException) {
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                if (c instanceof IOException) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Runs one request, again after transient failures, with capped exponential backoff and full jitter. */
    public <T> T run(Supplier<T> call) {
        return retry(attempts, base, cap, RequestOptions::isTransient, call);
    }

    /**
     * Runs {@code call}, again after failures that {@code isTransient} accepts, as {@code policy} says: at most its
     * attempts, sleeping a random time up to {@code base * 2^(attempt-1)} capped at {@code cap} in between (full jitter).
     * Shared by the catalogs' own retries, so that S3 and a catalog retry alike under one {@link io.wrangler.RetryPolicy}.
     */
    public static <T> T retry(RetryPolicy policy, Predicate<RuntimeException> isTransient, Supplier<T> call) {
        return retry(policy.attempts(), policy.base(), policy.cap(), isTransient, call);
    }

    private static <T> T retry(int attempts, Duration base, Duration cap, Predicate<RuntimeException> isTransient,
                               Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                if (attempt >= attempts || !isTransient.test(e)) {
                    throw e;
                }
                long ceiling = Math.min(cap.toMillis(), base.toMillis() << Math.min(20, attempt - 1));
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(ceiling + 1));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(ie);
                    throw e;
                }
            }
        }
    }

    PutObjectRequest.Builder apply(PutObjectRequest.Builder b) {
        return b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner);
    }

    CreateMultipartUploadRequest.Builder apply(CreateMultipartUploadRequest.Builder b) {
        return b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner);
    }

    CopyObjectRequest.Builder apply(CopyObjectRequest.Builder b) {
        return b.serverSideEncryption(sse).ssekmsKeyId(kmsKeyId).acl(acl).expectedBucketOwner(expectedBucketOwner)
                .expectedSourceBucketOwner(expectedBucketOwner);
    }

    UploadPartRequest.Builder apply(UploadPartRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    UploadPartCopyRequest.Builder apply(UploadPartCopyRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner).expectedSourceBucketOwner(expectedBucketOwner);
    }

    CompleteMultipartUploadRequest.Builder apply(CompleteMultipartUploadRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    AbortMultipartUploadRequest.Builder apply(AbortMultipartUploadRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    DeleteObjectRequest.Builder apply(DeleteObjectRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    DeleteObjectsRequest.Builder apply(DeleteObjectsRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    ListObjectsV2Request.Builder apply(ListObjectsV2Request.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    ListMultipartUploadsRequest.Builder apply(ListMultipartUploadsRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    HeadBucketRequest.Builder apply(HeadBucketRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    HeadObjectRequest.Builder apply(HeadObjectRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }

    public GetObjectRequest.Builder apply(GetObjectRequest.Builder b) {
        return b.expectedBucketOwner(expectedBucketOwner);
    }
}
