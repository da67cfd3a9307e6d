package io.wrangler.storage;

import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Removed tells a file that another write removed from a failure to read it: a GET or HEAD of an object listed moments
 * before answered 404 ({@code NoSuchKey}; not {@code NoSuchBucket}). Every reader of a listed file (a read, a compaction's
 * plan and input, a dry run, a keyed rerun's rewrite) asks it, so that this one race has one meaning everywhere: the
 * table changed under the operation, nothing it would change was changed, and a rerun sees the table as it is now.
 */
public final class Removed {
    private Removed() {
    }

    /**
     * Whether {@code t} or one of its causes says the listed file is not the object listed any more: S3's answer that its
     * key is not there, or a {@link Replaced} (another object put under its key: its If-Match GET answered 412). Both
     * have the one meaning above; {@link Replaced#in} tells them apart for a message.
     */
    public static boolean by(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NoSuchKeyException || c instanceof Replaced) {
                return true;
            }
            if (c instanceof S3Exception s && s.statusCode() == 404 && !(c instanceof NoSuchBucketException)
                    && !(s.awsErrorDetails() != null && "NoSuchBucket".equals(s.awsErrorDetails().errorCode()))) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }
}
