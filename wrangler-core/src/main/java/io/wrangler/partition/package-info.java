/**
 * Partitioning: rendering partition values as Hive path segments, and regrouping a batch's rows into
 * one contiguous run per partition with columnar copies. Internal: not API; may change in any release.
 */
package io.wrangler.partition;
