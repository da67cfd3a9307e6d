package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wrangler.Compression;
import io.wrangler.WriteMode;
import io.wrangler.WriteStep;
import io.wrangler.layout.Manifest;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.testkit.LocalS3;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Review of f124476: the commit point's CAS is applied by S3, its answer lost, and before the writer reads the manifest
 * back a recovery that took the table over (the writer's lease expired during its retries) rolls the COMMITTED write
 * forward: to PUBLISHED, or to its end (manifest deleted). The write is applied; the writer must not report it as not
 * applied ("Nothing of the table was changed ... Rerun") nor take the path that removes its staging as "before its commit point".
 */
class CommitReadBackTest {
    private static final LocalS3 S3 = LocalS3.start();

    @AfterAll
    static void stop() {
        S3.close();
    }

    enum After { PUBLISHED, ENDED }

    /** @param retriesLost true: every attempt's answer is lost (SdkException path); false: the SDK's retry reaches S3 (412 path) */
    private Throwable commitWhileRecoveryRollsForward(After after, boolean retriesLost, WriteMode mode, String keyId) {
        String bucket = "readback-" + Long.toHexString(System.nanoTime());
        S3.createBucket(bucket);
        S3Client real = S3.client();
        AtomicInteger armed = new AtomicInteger();
        S3Client client = (S3Client) Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                (p, m, args) -> {
                    if (m.getName().equals("putObject") && armed.get() > 0 && args[0] instanceof PutObjectRequest put
                            && put.key().endsWith("_manifest.json") && put.ifMatch() != null) {
                        if (armed.getAndIncrement() == 1) {
                            m.invoke(real, args); // applied: the write is COMMITTED
                            // the takeover recovery rolls it forward
                            String key = put.key();
                            if (after == After.PUBLISHED) {
                                byte[] committed = real.getObjectAsBytes(b -> b.bucket(put.bucket()).key(key)).asByteArray();
                                Manifest c = Manifest.fromJson(committed);
                                real.putObject(b -> b.bucket(put.bucket()).key(key),
                                        RequestBody.fromBytes(c.in(Manifest.State.PUBLISHED).toJson()));
                            } else {
                                real.deleteObject(DeleteObjectRequest.builder().bucket(put.bucket()).key(key).build());
                            }
                            if (!retriesLost) {
                                // the SDK's own retry of the lost attempt reaches S3 and fails its If-Match: 412
                                throw software.amazon.awssdk.services.s3.model.S3Exception.builder().statusCode(412)
                                        .message("PreconditionFailed").build();
                            }
                            throw SdkClientException.create("answer lost");
                        }
                        if (retriesLost) {
                            throw SdkClientException.create("answer lost again");
                        }
                    }
                    try {
                        return m.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        String uri = "s3://" + bucket + "/t/";
        S3Location location = S3Location.parse(uri, WriteStep.VALIDATE);
        S3Store store = new S3Store(client, bucket, new RequestOptions(null, null, null, null, 3, java.time.Duration.ofMillis(1), java.time.Duration.ofMillis(5)));
        String writeId = "20261203T120000Z-0123456789abcdef";
        Manifest started = Manifest.started(writeId, uri, mode, keyId, Compression.SNAPPY, null);
        WriteLog log = WriteLog.start(store, location, () -> { }, started);
        armed.set(1);
        return catchThrowable(() -> log.commit(started));
    }

    private static void assertNotReportedAsNotApplied(Throwable t) {
        // SdkException -> Transaction.abandon + StorageException ("Nothing of the table was changed"); Superseded -> removeOwn +
        // CommitConflictException ("stopped before its commit point"). Both say not applied; the write was applied.
        assertThat(t).isInstanceOf(WriteLog.Unknown.class);
    }

    @Test
    void overwriteRolledForwardToPublishedWhileEveryAnswerIsLost() {
        assertNotReportedAsNotApplied(commitWhileRecoveryRollsForward(After.PUBLISHED, true, WriteMode.OVERWRITE, null));
    }

    @Test
    void overwriteRolledForwardAndEndedWhileEveryAnswerIsLost() {
        assertNotReportedAsNotApplied(commitWhileRecoveryRollsForward(After.ENDED, true, WriteMode.OVERWRITE, null));
    }

    @Test
    void overwriteRolledForwardToPublishedThenRetryGets412() {
        assertNotReportedAsNotApplied(commitWhileRecoveryRollsForward(After.PUBLISHED, false, WriteMode.OVERWRITE, null));
    }
}
