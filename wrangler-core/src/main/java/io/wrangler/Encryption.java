package io.wrangler;

import java.util.Objects;

/**
 * An encryption is how S3 encrypts the objects a write creates (data files, manifests, the lease): not at all by
 * wrangler's request ({@link #none()}, the bucket's default encryption still applies), with S3-managed keys ({@link
 * #sseS3()}), or with KMS keys ({@link #kms()}, {@link #kms(String)}). It is sent with every PUT, multipart upload and
 * copy; recovery repeats it from the write's manifest, which holds the key id (an id is not a secret).
 *
 * <pre>{@code
 * WriteOptions options = WriteOptions.builder()
 *     .encryption(Encryption.kms("arn:aws:kms:eu-west-1:123456789012:key/1234abcd-..."))
 *     .build();
 * }</pre>
 *
 * <p>Customer-provided keys (SSE-C) are not offered: every later reader and every copy would need the key, which
 * wrangler would have to keep. Immutable and thread-safe; equal when they send the same headers.
 */
public final class Encryption {
    private static final Encryption NONE = new Encryption(null, null);
    private static final Encryption SSE_S3 = new Encryption("AES256", null);
    private static final Encryption KMS_DEFAULT_KEY = new Encryption("aws:kms", null);

    private final String serverSideEncryption;
    private final String kmsKeyId;

    private Encryption(String serverSideEncryption, String kmsKeyId) {
        this.serverSideEncryption = serverSideEncryption;
        this.kmsKeyId = kmsKeyId;
    }

    /** No encryption header: objects get the bucket's default encryption, if it has one. The default. */
    public static Encryption none() {
        return NONE;
    }

    /** SSE-S3: S3-managed keys ({@code x-amz-server-side-encryption: AES256}). */
    public static Encryption sseS3() {
        return SSE_S3;
    }

    /** SSE-KMS under the bucket's default KMS key (or the account's {@code aws/s3} key when the bucket names none). */
    public static Encryption kms() {
        return KMS_DEFAULT_KEY;
    }

    /**
     * SSE-KMS under {@code keyId}: a key id, key ARN, alias name or alias ARN.
     *
     * @throws IllegalArgumentException for a blank key id (use {@link #kms()} for the default key)
     */
    public static Encryption kms(String keyId) {
        Objects.requireNonNull(keyId, "keyId");
        if (keyId.isBlank()) {
            throw new IllegalArgumentException("the KMS key id is blank: give a key id or ARN, or use Encryption.kms() for the "
                    + "bucket's default key");
        }
        return new Encryption("aws:kms", keyId);
    }

    /** The value of {@code x-amz-server-side-encryption}: {@code AES256}, {@code aws:kms}, or null for {@link #none()}. */
    public String serverSideEncryption() {
        return serverSideEncryption;
    }

    /** The KMS key of {@link #kms(String)}, or null (no KMS, or the bucket's default key). */
    public String kmsKeyId() {
        return kmsKeyId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Encryption e && Objects.equals(serverSideEncryption, e.serverSideEncryption) && Objects.equals(kmsKeyId, e.kmsKeyId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(serverSideEncryption, kmsKeyId);
    }

    @Override
    public String toString() {
        if (serverSideEncryption == null) {
            return "Encryption.none()";
        }
        if (kmsKeyId == null) {
            return "aws:kms".equals(serverSideEncryption) ? "Encryption.kms()" : "Encryption.sseS3()";
        }
        return "Encryption.kms(" + kmsKeyId + ")";
    }
}
