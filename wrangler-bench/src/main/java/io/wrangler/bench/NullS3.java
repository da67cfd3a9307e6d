package io.wrangler.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
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
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A NullS3 is the "local sink" of the encode-only benchmark: an S3Client that reads every uploaded byte and keeps
 * none, and answers listings as an empty bucket. It measures wrangler's own work (partitioning, encoding, the
 * pipeline) without any network or storage cost.
 */
final class NullS3 implements S3Client {
    final AtomicLong bytes = new AtomicLong();
    final AtomicLong objects = new AtomicLong();

    private long drain(RequestBody body) {
        try (InputStream in = body.contentStreamProvider().newStream()) {
            return in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public PutObjectResponse putObject(PutObjectRequest r, RequestBody body) {
        bytes.addAndGet(drain(body));
        objects.incrementAndGet();
        return PutObjectResponse.builder().eTag("\"null\"").build();
    }

    @Override
    public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest r) {
        return CreateMultipartUploadResponse.builder().uploadId("null").build();
    }

    @Override
    public UploadPartResponse uploadPart(UploadPartRequest r, RequestBody body) {
        bytes.addAndGet(drain(body));
        return UploadPartResponse.builder().eTag("\"part\"").build();
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest r) {
        objects.incrementAndGet();
        return CompleteMultipartUploadResponse.builder().build();
    }

    @Override
    public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest r) {
        return AbortMultipartUploadResponse.builder().build();
    }

    @Override
    public CopyObjectResponse copyObject(CopyObjectRequest r) {
        return CopyObjectResponse.builder().build();
    }

    /** The conditional deletes of commit protocol 2 (the write's record at its end). */
    @Override
    public DeleteObjectResponse deleteObject(DeleteObjectRequest r) {
        return DeleteObjectResponse.builder().build();
    }

    @Override
    public DeleteObjectsResponse deleteObjects(DeleteObjectsRequest r) {
        return DeleteObjectsResponse.builder().build();
    }

    @Override
    public HeadBucketResponse headBucket(HeadBucketRequest r) {
        return HeadBucketResponse.builder().build();
    }

    @Override
    public HeadObjectResponse headObject(HeadObjectRequest r) {
        throw NoSuchKeyException.builder().message("null sink").statusCode(404).build();
    }

    @Override
    public <T> T getObject(GetObjectRequest r, ResponseTransformer<GetObjectResponse, T> t) {
        throw NoSuchKeyException.builder().message("null sink").statusCode(404).build();
    }

    @Override
    public ResponseBytes<GetObjectResponse> getObjectAsBytes(GetObjectRequest r) {
        throw NoSuchKeyException.builder().message("null sink").statusCode(404).build();
    }

    @Override
    public ListObjectsV2Response listObjectsV2(ListObjectsV2Request r) {
        return ListObjectsV2Response.builder().isTruncated(false).build();
    }

    @Override
    public ListMultipartUploadsResponse listMultipartUploads(ListMultipartUploadsRequest r) {
        return ListMultipartUploadsResponse.builder().isTruncated(false).build();
    }

    @Override
    public String serviceName() {
        return "s3";
    }

    @Override
    public void close() {
    }
}
