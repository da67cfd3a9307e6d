package io.wrangler;

/**
 * A DropTableResult is what {@code S3Parquet.dropTable(uri)} removed (or, from {@code plan()}, would remove).
 *
 * @param table the table root, {@code s3://bucket/prefix/}
 * @param catalog the catalog's table ({@code glue:db.name}), or null when none was given
 * @param catalogTable whether the catalog had the table (and it was, or would be, deleted from it)
 * @param objects how many objects under the table's prefix were (or would be) deleted, {@code _tmp/} included (the
 *     table's lease, which the drop itself holds and releases last, not counted); 0 when the data is kept
 * @param uploads how many open multipart uploads under the prefix were (or would be) aborted
 * @param applied false for a plan: nothing was changed
 */
public record DropTableResult(String table, String catalog, boolean catalogTable, long objects, long uploads, boolean applied) {
}
