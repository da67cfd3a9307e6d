package io.wrangler;

import java.util.List;

/**
 * A ReplacedSinceMarkException reports an incremental read ({@link ReadBuilder#committedAfter(CommitMark)}) whose answer
 * would be a wrong delta: since the mark, a write replaced rows that existed at the mark (an overwrite, an overwrite of
 * partitions, a keyed rerun of a key written before the mark, a compaction with {@code dedupBy}, a compaction that mixed
 * rows from before the mark with rows after it, or a later operation that changes rows). The rows committed since cannot
 * be told apart from rows the job already has, so no row is returned. Nothing was changed.
 *
 * <p>{@link #partitions()} names every partition where that happened (its folder below the table root, e.g.
 * {@code dt=2024-01-15/country=RU/}; {@code ""} for an unpartitioned table), so that a job whose sink can replace
 * partitions rereads exactly those. The simple recovery: read the table (or the filter's partitions) whole with
 * {@link ReadBuilder#withMark()}, replace what the job derived from it, and keep that read's mark. A compaction
 * without {@code dedupBy} of rows all from before the mark only rearranged them: it is not reported, and its rows are not
 * returned again.
 */
public final class ReplacedSinceMarkException extends ReadException {
    private static final long serialVersionUID = 1L;
    private final String mark;
    private final List<String> partitions;

    public ReplacedSinceMarkException(String table, CommitMark mark, List<String> partitions, String message) {
        super(table, message, null);
        this.mark = mark.toString();
        this.partitions = List.copyOf(partitions);
    }

    /** The mark the read was asked to read after. */
    public CommitMark mark() {
        return CommitMark.parse(mark);
    }

    /** The partitions whose rows were replaced since the mark, as folders below the table root, sorted. */
    public List<String> partitions() {
        return partitions;
    }
}
