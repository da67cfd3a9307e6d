package io.wrangler;

/**
 * How a write's files reach their final keys. Both keep every guarantee of the commit protocol (see the README's
 * "The commit protocol and its guarantees"): files appear whole or not at all, nothing is deleted before every new file is in place, a crash
 * anywhere is finished or undone by the next write or {@link S3Parquet#recover}.
 */
public enum CommitMethod {
    /**
     * The default: each file is uploaded under {@code <table>/_tmp/<writeId>/} and copied to its final key at publish
     * (a server-side copy on S3). Costs one copy per file; any S3-compatible store that copies objects works.
     */
    STAGE_AND_COPY,
    /**
     * Each file is uploaded as a multipart upload straight to its final key, all parts sent but the upload left open
     * (nothing is visible there); publish completes the uploads, so no byte is copied. One CreateMultipartUpload (sent as the
     * file opens, while it encodes), its parts and one CompleteMultipartUpload per file, instead of a PUT and a copy. The manifest records each upload's id
     * and part ETags, so recovery completes them (overwrites) or aborts them (appends, and writes without a manifest).
     *
     * <p>Mind a bucket lifecycle rule {@code AbortIncompleteMultipartUpload}: if it aborts an upload before publish
     * completes it, the write is rolled back (the table keeps its old files) and fails; keep the rule's days longer
     * than any write and than the time before a crashed write is recovered. Not combinable with
     * {@code idempotencyKey}, whose reruns reuse file names.
     */
    DEFERRED_UPLOADS
}
