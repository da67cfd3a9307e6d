/**
 * The service-provider interface for engines: what an engine that stages a table's files in many processes (Spark's
 * tasks) needs to run a write of wrangler's commit protocol, and nothing of the protocol's internals. SPI, not internal:
 * wrangler-spark compiles against this package, the API ({@code io.wrangler}), the catalog SPI ({@code
 * io.wrangler.catalog}) and wrangler-glue only, and this package changes only with a note in CHANGELOG.md.
 *
 * <p>The walk: the driver calls {@link io.wrangler.spi.DistributedWrite#begin} (validate, lease, recover, record the
 * write: STARTED); each task attempt calls {@link io.wrangler.spi.DistributedWrite#stage} with the write's id and its
 * rows, under a file name prefix unique to the attempt, and sends the {@link io.wrangler.spi.StagedFiles} it returns to
 * the driver; the driver hands {@link io.wrangler.spi.DistributedWrite#commit} the messages of exactly the attempts that
 * counted (manifest, the commit point; publish; catalog; cleanup), or calls {@link
 * io.wrangler.spi.DistributedWrite#abort}. An attempt that does not count removes its own files with {@link
 * io.wrangler.spi.DistributedWrite#discardAttempt}. See "Distributed writes" in the commit protocol's package-info
 * ({@code io/wrangler/commit/package-info.java}).
 *
 * <p>One class here, {@code Engine}, adapts these types to the internal engine; no other names an internal package
 * ({@code PackageBoundaryTest}).
 */
package io.wrangler.spi;
