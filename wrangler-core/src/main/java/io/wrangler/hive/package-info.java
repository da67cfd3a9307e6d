/**
 * The Hive grammar of names and types that every layer speaks: Hive type strings ({@link io.wrangler.hive.HiveTypes},
 * what {@code dtype} and a catalog's column types are written in) and Hive partition paths ({@link
 * io.wrangler.hive.HivePaths}, how partition values become folder names). A leaf: it names no other package of wrangler,
 * so the API ({@code WriteOptions.Builder.dtype} checks a type here), the catalog SPI and its implementations (wrangler-glue)
 * and the engine may all use it without going through the bridge. Not public API: its classes may change between releases.
 */
package io.wrangler.hive;
