/**
 * Partitioning: rendering partition values as Hive path segments, and regrouping a batch's rows into
 * one contiguous run per partition with columnar copies. Not public API.
 */
package io.wrangler.partition;
