package io.wrangler.filter;

/**
 * What statistics tell of a filter over a set of rows (a file, a row group, a page): no row can pass ({@link #NONE}:
 * skip them unread), every row passes ({@link #ALL}: keep them without evaluating the filter, count them from the
 * footer), or some may ({@link #SOME}: decode them and evaluate the filter row by row).
 */
public enum Verdict {
    NONE, SOME, ALL
}
