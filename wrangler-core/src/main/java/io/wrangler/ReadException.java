package io.wrangler;

/**
 * A ReadException reports a read ({@code S3Parquet.read}) or the reading part of a compaction that could not go on: S3
 * or the catalog failed, a file is not Parquet wrangler can read, or the table is not laid out as its partition columns
 * say. A read changes nothing, so it is always safe to retry. One caused by S3 (its cause an SDK exception: a 500, a 403,
 * a timeout, on a listing, a file or a write's manifest) may pass when retried as it is; its subclass
 * {@link InvalidReadException} (the request names what the table does not have) fails the same way until the request
 * changes. {@link #step()} is null.
 */
public class ReadException extends WranglerException {
    private static final long serialVersionUID = 1L;

    public ReadException(String table, String message, Throwable cause) {
        super(table, null, message, cause);
    }
}
