/**
 * Row filters evaluated and pushed down: a public {@link io.wrangler.RowFilter} bound to a table's columns
 * ({@link io.wrangler.filter.BoundFilter}), judged against statistics ({@link io.wrangler.filter.Verdict}), and applied
 * exactly to decoded rows. Internal: not API; may change in any release. Below {@code io.wrangler.read} (which uses it)
 * and names no other internal package, so reading, compaction, merges, deletes and engines may all use it.
 *
 * <p>Entry points, for every operation that selects rows by a {@code RowFilter}:
 * <ul>
 *   <li>{@code BoundFilter.bind(String table, RowFilter filter, List<Field> tableColumns)}: checks the filter against
 *       the table's columns (data and partition columns, Arrow-typed as the read types them) before any I/O of data;
 *       throws {@link io.wrangler.InvalidReadException} naming the table, the column and the fix.
 *       {@code BoundFilter.columns()} are the columns it reads (the table's spelling): decode them too.</li>
 *   <li>{@code Verdict BoundFilter.verdict(Function<String, ColumnStats> stats)}: what statistics say of a set of rows
 *       (NONE: skip unread; ALL: every row passes, no need to evaluate or decode; SOME: decode and test).
 *       {@code FooterStats.of(BlockMetaData, MessageType fileSchema, Map<String, Field> columns,
 *       Function<ColumnChunkMetaData, BloomFilter> blooms)} gives a row group's stats from a file footer (blooms may be
 *       null); a partition column's stats are its one value ({@code ColumnStats} with min = max, or all null).</li>
 *   <li>{@code boolean[] matches(VectorSchemaRoot)}, {@code int[] select(VectorSchemaRoot)},
 *       {@code boolean test(VectorSchemaRoot, int row)}: which rows of a decoded batch pass (the batch holds a vector of
 *       each of {@code columns()}, by name). A row passes when the filter is TRUE: a delete of the rows a filter
 *       selects removes exactly those, and keeps the rows where it is false or unknown (nulls), as SQL's
 *       {@code DELETE ... WHERE} does. {@code Rows.keep(VectorSchemaRoot, int[] rows)} compacts a batch to those rows.</li>
 * </ul>
 *
 * <p>Soundness: statistics only ever drop rows that cannot pass (bounds are treated as bounds: truncated binary
 * bounds, NaN left out of float bounds, files without statistics, another unit or an INT96 all mean "unknown"); the
 * filter is then applied exactly to the decoded rows, so a read's rows never depend on what statistics a file holds.
 */
package io.wrangler.filter;
