package io.wrangler.encoding;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Commit runs: when the rows of a data file were committed, for a file written from rows of other files (a delete of
 * rows', a merge's, a keyed rerun's rewrite, a compaction of such files). Dedup's tie rule, "the later commit wins"
 * ({@code io.wrangler.compact.Dedup}), orders rows by their commit; a file written by a rewrite is a new object, newer than
 * files committed after the rows it moved, so its own LastModified would make those rows win ties they must lose. Its
 * footer records instead, as the key-value metadata {@value #FOOTER_KEY}, a JSON list of {@code [stamp, rows]} pairs in
 * row order (the shape of {@link KeyRuns}): a stamp is {@code "<instant> <file name>"}, the commit time (LastModified, or
 * the time the file's own footer recorded) and the name of the file that committed those rows, which orders them as that
 * file was ordered; {@code ""} for rows committed with the file itself (a merge's inserted and updated rows). A file with
 * commit runs is always a marked file ({@link KeyRuns#MARK}), as it records its rows' keys too. Never a column: Glue,
 * Athena, DuckDB and Spark see the same schema and rows.
 *
 * <p>Through a write the stamp travels with the row's key id in the hidden column {@link KeyRuns#COLUMN}, as
 * {@code key + '\0' + stamp} ({@link #join}); the encoder splits them into the two footer entries.
 */
public final class CommitRuns {
    /** The footer key-value metadata entry holding the runs. */
    public static final String FOOTER_KEY = "wrangler.commits";
    private static final char SEPARATOR = '\0';

    private CommitRuns() {
    }

    /** The stamp of rows committed at {@code at} (null: unknown, oldest) with the file {@code key} (its name is kept). */
    public static String stamp(Instant at, String key) {
        return (at == null ? Instant.EPOCH : at) + " " + key.substring(key.lastIndexOf('/') + 1);
    }

    /** The commit time of {@code stamp}; an IOException for a stamp that is none. */
    public static Instant at(String stamp) throws IOException {
        int space = stamp.indexOf(' ');
        try {
            return Instant.parse(space < 0 ? stamp : stamp.substring(0, space));
        } catch (DateTimeParseException e) {
            throw new IOException("the footer entry " + FOOTER_KEY + " holds the stamp '" + stamp + "', not '<instant> <file name>'", e);
        }
    }

    /** The name of the file that committed the rows of {@code stamp}. */
    public static String name(String stamp) {
        return stamp.substring(stamp.indexOf(' ') + 1);
    }

    /** The hidden column's value of a row of the key id {@code key} committed as {@code stamp} ({@code ""}: with its file). */
    public static String join(String key, String stamp) {
        return stamp.isEmpty() ? key : key + SEPARATOR + stamp;
    }

    /** The key id of a hidden column's value. */
    public static String keyOf(String joined) {
        int s = joined.indexOf(SEPARATOR);
        return s < 0 ? joined : joined.substring(0, s);
    }

    /** The stamp of a hidden column's value ({@code ""}: committed with its file). */
    public static String stampOf(String joined) {
        int s = joined.indexOf(SEPARATOR);
        return s < 0 ? "" : joined.substring(s + 1);
    }

    /** The footer value of {@code runs}. */
    public static String format(List<KeyRuns.Run> runs) {
        return KeyRuns.format(runs);
    }

    /** The runs of a footer value; an IOException for a value that is not one. */
    public static List<KeyRuns.Run> parse(String value) throws IOException {
        List<KeyRuns.Run> runs = KeyRuns.parse(value, FOOTER_KEY);
        for (KeyRuns.Run r : runs) {
            if (!r.key().isEmpty()) {
                at(r.key());
            }
        }
        return runs;
    }

    /**
     * Each row's stamp, row after row, of a file whose own rows are committed as {@code own} and whose footer records
     * {@code runs} (null: none): a run's stamp, or {@code own} for its {@code ""} runs. A rewrite gives every row it moves
     * its stamp so: rows keep the commit they had, whichever file holds them next.
     */
    public static final class Rows {
        private final String own;
        private final List<KeyRuns.Run> runs;
        private int run = -1;
        private long left;

        public Rows(String own, List<KeyRuns.Run> runs) {
            this.own = own;
            this.runs = runs;
        }

        /** The stamp of the next row; an IOException when the runs count fewer rows. */
        public String next() throws IOException {
            if (runs == null) {
                return own;
            }
            while (left == 0) {
                if (++run >= runs.size()) {
                    throw new IOException("the file holds more rows than its commit runs count");
                }
                left = runs.get(run).rows();
            }
            left--;
            String s = runs.get(run).key();
            return s.isEmpty() ? own : s;
        }
    }
}
