package io.wrangler.storage;

import io.wrangler.InvalidWriteException;
import io.wrangler.WriteStep;
import java.util.regex.Pattern;

/**
 * An S3Location is a parsed table root: a bucket and a key prefix that is empty or ends with {@code /}.
 */
public record S3Location(String bucket, String prefix) {
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    /**
     * Parses {@code s3://bucket/prefix} or {@code s3a://bucket/prefix}, with or without a trailing slash.
     *
     * @throws InvalidWriteException for any other form, naming what is wrong
     */
    public static S3Location parse(String uri, WriteStep step) {
        return parse(uri, step, "write");
    }

    /**
     * As {@link #parse(String, io.wrangler.WriteStep)}, with the messages saying what could not be done:
     * {@code "Cannot " + verb + " " + uri + ": ..."} ("read", "compact").
     */
    public static S3Location parse(String uri, WriteStep step, String verb) {
        if (uri == null) {
            throw new InvalidWriteException(null, step, "Cannot write: the table URI is null. Pass s3://bucket/prefix/ to to(...).");
        }
        String rest;
        if (uri.startsWith("s3://")) {
            rest = uri.substring(5);
        } else if (uri.startsWith("s3a://")) {
            rest = uri.substring(6);
        } else {
            throw new InvalidWriteException(uri, step, "Cannot " + verb + " " + uri + ": the scheme is not s3:// or s3a://. "
                    + "Pass the table root as s3://bucket/prefix/.");
        }
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            throw new InvalidWriteException(uri, step, "Cannot " + verb + " " + uri + ": '" + bucket
                    + "' is not a valid bucket name (3 to 63 characters of a-z, 0-9, '.' and '-'). Check the URI.");
        }
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        if (prefix.startsWith("/") || prefix.contains("//")) {
            throw new InvalidWriteException(uri, step, "Cannot " + verb + " " + uri + ": the prefix has an empty path segment ('//'). "
                    + "Remove the extra slash.");
        }
        for (String segment : prefix.split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new InvalidWriteException(uri, step, "Cannot " + verb + " " + uri + ": the prefix has a '" + segment
                        + "' segment, which S3 keeps literally but other tools resolve. Use a plain prefix.");
            }
        }
        return new S3Location(bucket, prefix);
    }

    /** The root as {@code s3://bucket/prefix/} ({@code s3://bucket/} for a bucket root). */
    public String uri() {
        return "s3://" + bucket + "/" + prefix;
    }

    /** The {@code s3://} URI of a key of this bucket. */
    public String uriOf(String key) {
        return "s3://" + bucket + "/" + key;
    }

    /** True when the table is a whole bucket. */
    public boolean isBucketRoot() {
        return prefix.isEmpty();
    }

    /** The key of the staging area, {@code <prefix>_tmp/}. */
    public String tmpPrefix() {
        return prefix + "_tmp/";
    }
}
