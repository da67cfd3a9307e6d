/**
 * The service-provider interface a catalog (AWS Glue, ...) implements so that a write registers the
 * table and its partitions. SPI, not internal: wrangler-glue and the testkit implement it, users pass a
 * {@link io.wrangler.catalog.CatalogTable} to the builders, and it changes only with a note in CHANGELOG.md. It names the
 * API ({@code io.wrangler}) and no internal package ({@code PackageBoundaryTest}).
 *
 * <p>A catalog takes part in a write in two steps, like an Iceberg operation: {@link
 * io.wrangler.catalog.CatalogTable#prepare prepare} runs before any S3 object is written or deleted,
 * reads the catalog and refuses a write that the catalog could not take (a different location,
 * a changed column type, partition keys that differ); {@link io.wrangler.catalog.CatalogCommit#commit
 * commit} runs after the data is published and makes the catalog match it. Core never depends on a
 * catalog's SDK.
 *
 * <p>{@link io.wrangler.catalog.SdkRetries} is the one owner of retries, for S3's requests and a catalog's alike: a
 * catalog on the AWS SDK sets it on its requests (and drives a fenced change with it) so that it retries as the engine
 * does, with its service's own transient failures added.
 */
package io.wrangler.catalog;
