package io.wrangler;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A CommitMark is a point in a table's history: the commits of its commit log up to a number. Every write
 * ({@link WriteResult#mark()}), compaction ({@link CompactionResult#mark()}) and read ({@link ReadBuilder#lastMark()})
 * returns one; a job stores its text ({@link #toString()}, e.g. {@code wm1.3f9c2a7b1d4e5f60.42}) as its checkpoint and
 * reads what was committed since with {@link ReadBuilder#committedAfter(CommitMark)}.
 *
 * <p>A mark is the table log's id (chosen by the log's first entry; {@code none} for a table whose log has no entry yet)
 * and the number of the last commit it covers. Numbers are given by the log in commit order, never by a clock, so a mark
 * does not depend on any machine's time or on S3's LastModified. See docs/reading.md, "Incremental reads".
 */
public final class CommitMark {
    private static final Pattern TEXT = Pattern.compile("wm1\\.([0-9a-f]{16}|none)\\.(\\d{1,18})");
    private final String log;
    private final long sequence;

    private CommitMark(String log, long sequence) {
        this.log = log;
        this.sequence = sequence;
    }

    /**
     * The mark of commit {@code sequence} of the log {@code log} (16 hex digits, or {@code none} with 0).
     *
     * @throws IllegalArgumentException for another log id or a negative number
     */
    public static CommitMark of(String log, long sequence) {
        return parse("wm1." + log + "." + sequence);
    }

    /**
     * The mark a {@link #toString()} wrote.
     *
     * @throws IllegalArgumentException the text is not a mark; the message says what one looks like
     */
    public static CommitMark parse(String text) {
        Objects.requireNonNull(text, "mark");
        Matcher m = TEXT.matcher(text.strip());
        if (!m.matches() || m.group(1).equals("none") && !m.group(2).equals("0")) {
            throw new IllegalArgumentException("'" + text + "' is not a commit mark: a mark reads wm1.<16 hex digits or none>.<number> "
                    + "(e.g. wm1.3f9c2a7b1d4e5f60.42). Store the text of the mark a write or read returned, unchanged.");
        }
        return new CommitMark(m.group(1), Long.parseLong(m.group(2)));
    }

    /** The id of the table's commit log, or {@code none} for a table whose log had no entry. */
    public String log() {
        return log;
    }

    /** The number of the last commit this mark covers (0: none). */
    public long sequence() {
        return sequence;
    }

    /** The mark's text, to store as a checkpoint: {@link #parse} reads it back. */
    @Override
    public String toString() {
        return "wm1." + log + "." + sequence;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommitMark c && c.log.equals(log) && c.sequence == sequence;
    }

    @Override
    public int hashCode() {
        return log.hashCode() * 31 + Long.hashCode(sequence);
    }
}
