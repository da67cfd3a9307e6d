package io.wrangler.glue;

import java.util.Objects;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * A GlueCatalog is the AWS Glue Data Catalog reached through one {@link GlueClient}; {@link #table} names a table in it.
 *
 * <pre>{@code
 * GlueTable orders = GlueCatalog.of(GlueClient.create()).table("analytics", "orders");
 * }</pre>
 */
public final class GlueCatalog {
    private final GlueClient glue;

    private GlueCatalog(GlueClient glue) {
        this.glue = glue;
    }

    /** The catalog reached through {@code glue} (region, credentials and the client's own retries are the client's). */
    public static GlueCatalog of(GlueClient glue) {
        return new GlueCatalog(Objects.requireNonNull(glue, "glue"));
    }

    /**
     * The table {@code database.table}, with default options. The table name is sanitized for Athena (lower case,
     * {@code [a-z0-9_]}) unless {@code sanitizeNames(false)}; the database name is lower-cased, as Glue stores it.
     */
    public GlueTable table(String database, String table) {
        return new GlueTable(glue, database, table, GlueTable.Options.defaults());
    }
}
