/**
 * The AWS Glue Data Catalog as a {@link io.wrangler.catalog.CatalogTable}. A stub until the Glue issue
 * lands: the catalog SPI it will implement is in {@code io.wrangler.catalog} of wrangler-core.
 */
package io.wrangler.glue;
