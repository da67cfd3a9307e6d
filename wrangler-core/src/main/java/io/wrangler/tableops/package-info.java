/**
 * The table operations that change the catalog (and, for a drop with its data, delete the table) but write no data
 * file: register an existing dataset ({@link io.wrangler.tableops.Register}), repair a catalog's partitions from the
 * folders ({@link io.wrangler.tableops.Repair}), drop a table ({@link io.wrangler.tableops.DropTable}). Internal: not
 * public API; {@code S3Parquet} hands the builders' options here as an {@link io.wrangler.tableops.OpSpec}.
 *
 * <p>Each first plans with reads only (the validate step: every refusal of bad input is raised here, before any change),
 * then, unless it is a {@code plan()}, runs the commit engine's short path ({@link io.wrangler.commit.CatalogOnly}: lease,
 * recover, change, release; no manifest, as docs/architecture.md "Operations" describes) and plans again under the lease,
 * so that it changes the catalog as the table is once no writer holds it. Every decision comes from complete listings
 * ({@link io.wrangler.tableops.TableFolders}: every page of the table's objects, {@code _tmp/} and hidden objects left
 * out; the catalog's every partition). Every change is idempotent, so a crash at any point is finished by a rerun.
 */
package io.wrangler.tableops;
