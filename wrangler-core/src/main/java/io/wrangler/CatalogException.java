package io.wrangler;

/**
 * A CatalogException reports that the catalog (Glue, ...) refused the table or a partition, or could not be reached
 * after retries, and that the write did not take effect: it was refused before any data was written, or (an append)
 * its published files were undone. Rerunning is safe once the cause is fixed.
 *
 * <p>When the catalog fails after an overwrite's commit point, the write is committed and the failure is reported as
 * a {@link WriteIncompleteException} whose cause is the CatalogException.
 */
public final class CatalogException extends WriteNotAppliedException {
    private static final long serialVersionUID = 1L;

    public CatalogException(String table, WriteStep step, String message, Throwable cause) {
        super(table, step, message, cause);
    }
}
