package io.wrangler;

/**
 * A ReadException reports a read ({@code S3Parquet.read}) or the reading part of a compaction that could not go on: S3
 * or the catalog failed, a file is not Parquet wrangler can read, or the table is not laid out as its partition columns
 * say. A read changes nothing, so it is always safe to retry once the cause is fixed. {@link #step()} is null.
 */
public final class ReadException extends WranglerException {
    private static final long serialVersionUID = 1L;

    public ReadException(String table, String message, Throwable cause) {
        super(table, null, message, cause);
    }
}
