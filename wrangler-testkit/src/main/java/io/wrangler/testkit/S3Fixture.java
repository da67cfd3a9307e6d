package io.wrangler.testkit;

import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3Fixture is an S3 a test writes to and inspects: {@link LocalS3} (S3Mock over HTTP, for the tests of HTTP
 * semantics) or {@link MemoryS3} (in this JVM, for the protocol tier). A test written against this interface runs on
 * either, with the same assertions.
 */
public interface S3Fixture extends AutoCloseable {
    /** A client of this S3. Shared; do not close it. */
    S3Client client();

    /** Creates a bucket (no error if it exists already). */
    void createBucket(String bucket);

    /** Every object under {@code prefix} in {@code bucket}, key to size, in key order. */
    Map<String, Long> list(String bucket, String prefix);

    /** Every object under {@code prefix}, key to content, in key order. */
    Map<String, byte[]> snapshot(String bucket, String prefix);

    /** The content of one object. */
    byte[] get(String bucket, String key);

    /** Puts one object. */
    void put(String bucket, String key, byte[] content);

    /** The keys of the multipart uploads begun and neither completed nor aborted under {@code prefix}. */
    List<String> openMultipartUploads(String bucket, String prefix);

    @Override
    void close();
}
