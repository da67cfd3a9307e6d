package io.wrangler.storage;

import java.io.IOException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A Replaced is the failure of a GET of a listed data file sent with {@code If-Match: <the ETag its listing gave>} that S3
 * answered 412 PreconditionFailed: another object was put under the file's key since it was listed (an outside writer's
 * PUT, or a swap that may be swapped back later, which a comparison of listed ETags at the commit would not see). Every
 * GET of a listed file carries that condition ({@link #condition}), so no read, merge, delete of rows or compaction takes
 * bytes of one object as another's, nor rows of an object other than the one its commit deletes. It is never retried:
 * every phase turns it into its operation's outcome (a {@code CommitConflictException} with nothing changed, or a
 * {@code ReadException}: read again), as it does a 404 ({@link Removed}).
 */
public final class Replaced extends IOException {
    private static final long serialVersionUID = 1L;

    private final String uri;

    /** The GET of {@code uri}, listed with {@code eTag}, answered {@code cause} (412). */
    public Replaced(String uri, String eTag, S3Exception cause) {
        super(uri + " changed since it was listed (a GET with If-Match: " + eTag + " answered 412 PreconditionFailed: another object was "
                + "put under its key)", cause);
        this.uri = uri;
    }

    /** What happened, for an operation's message: the file's URI and that another object was put under its key. */
    public String changedSinceListed() {
        return uri + " changed since it was listed (another object was put under its name; its GET on the listed ETag answered "
                + "412 PreconditionFailed)";
    }

    /** The file's URI, {@code s3://bucket/key}. */
    public String uri() {
        return uri;
    }

    /**
     * The If-Match condition of a GET of an object listed with {@code eTag}: the ETag itself, or null (no condition) when it
     * is unknown or blank, as {@code TableFiles.DataFile.sameObject} treats it.
     */
    public static String condition(String eTag) {
        return eTag == null || eTag.isBlank() ? null : eTag;
    }

    /** Whether {@code e} is S3's answer that a GET's If-Match did not hold. */
    public static boolean preconditionFailed(S3Exception e) {
        return e.statusCode() == 412;
    }

    /** The Replaced that is {@code t} or one of its causes, or null. */
    public static Replaced in(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof Replaced r) {
                return r;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }

    /** Whether {@code t} or one of its causes is a {@link Replaced}. */
    public static boolean by(Throwable t) {
        return in(t) != null;
    }
}
