package io.wrangler;

/**
 * A WranglerException is the root of every error this library raises on purpose.
 *
 * <p>Each subclass is a different thing for the caller to do:
 * <ul>
 *   <li>{@link InvalidWriteException}: the request is wrong; nothing was written or deleted. Fix the input.</li>
 *   <li>{@link StorageException}: S3 failed and retries did not help; the table is as before, or recoverable
 *       by a rerun (see the message).</li>
 *   <li>{@link CatalogException}: the catalog refused the table or a partition.</li>
 *   <li>{@link CommitConflictException}: another writer got in the way; rerunning is safe.</li>
 *   <li>{@link CommitStateUnknownException}: we cannot tell whether the write took effect; inspect the
 *       table (or run {@code S3Parquet.recover}) before rerunning.</li>
 * </ul>
 * Messages read {@code Cannot <verb> <table>: <what was found>. <what to do>} and name the step.
 */
public abstract class WranglerException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final String step;

    protected WranglerException(String table, String step, String message, Throwable cause) {
        super(message, cause);
        this.table = table;
        this.step = step;
    }

    /** The table URI the failed operation was about ({@code s3://bucket/prefix/}), or null if it could not be parsed. */
    public String table() {
        return table;
    }

    /** The step of the write that failed: validate, recover, stage, manifest, publish, catalog or cleanup. */
    public String step() {
        return step;
    }
}
