/**
 * The API: {@link io.wrangler.S3Parquet} (write, read, compact, recover), its builders, {@link io.wrangler.WriteOptions}
 * (the one catalogue of write options), results, enums and the exceptions under {@link io.wrangler.WranglerException}.
 *
 * <p>Packages of wrangler-core: this one is the API; {@code io.wrangler.catalog} (what a catalog implements) and {@code
 * io.wrangler.spi} (what an engine such as Spark uses to run a distributed write) are SPIs; every other package
 * ({@code commit, encoding, input, partition, read, staging, storage}) is internal: not API, may change in any release.
 * No class of this package names an internal package but {@code S3Parquet}, the one bridge: the builders collect their
 * options into immutable values of this package and hand them to it, and it converts them and runs the engine
 * ({@code PackageBoundaryTest} fails the build otherwise, and on any package cycle through the API other than through it).
 */
package io.wrangler;
