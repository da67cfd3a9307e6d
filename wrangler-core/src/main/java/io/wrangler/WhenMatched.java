package io.wrangler;

/** What a merge does with a key of its input that the table already holds ({@link MergeBuilder#whenMatched}). */
public enum WhenMatched {
    /** The table's rows of the key are replaced by the input's row (with {@code orderBy}: when the input's is not older). */
    UPDATE,
    /** The table's rows of the key stay as they are; the input's row is dropped (an insert of new keys only). */
    KEEP_EXISTING
}
