package io.wrangler;

/**
 * A CatalogException reports that the catalog (Glue, ...) refused to create or update the table or its
 * partitions, or could not be reached after retries.
 *
 * <p>When it is raised after the data was published, the S3 data is complete and the write's manifest is
 * kept, so a rerun or {@code S3Parquet.recover(uri, s3, catalog)} registers what is missing.
 */
public final class CatalogException extends WranglerException {
    private static final long serialVersionUID = 1L;

    public CatalogException(String table, String step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
