/**
 * The AWS Glue Data Catalog as a {@link io.wrangler.catalog.CatalogTable}: tables and partitions registered
 * exactly as Athena, Spark and Trino expect them (the definition awswrangler registers for a Parquet dataset),
 * validated before any S3 object is written, evolved when columns are added.
 *
 * <pre>{@code
 * S3Parquet.write(table)
 *     .partitionBy("dt", "country")
 *     .mode(WriteMode.OVERWRITE_PARTITIONS)
 *     .catalog(GlueCatalog.of(glue).table("analytics", "orders"))
 *     .to("s3://bucket/marts/orders/");
 * }</pre>
 */
package io.wrangler.glue;
