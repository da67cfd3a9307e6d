package io.wrangler.encoding;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Key runs: which rows of a data file belong to which idempotency key, for a file that holds rows of several keyed
 * runs (a compaction's, or a keyed rerun's rewrite of one). Stored in the file's Parquet footer, as the key-value
 * metadata {@value #FOOTER_KEY}: a JSON list of {@code [keyId, rows]} pairs in row order, {@code ""} for rows no key
 * wrote. Such a file is marked in its name ({@value #MARK} after its write id), so that a keyed rerun finds it without
 * reading every footer, and it is never taken for a key's own file by its name.
 *
 * <p>A write whose input ends with the column {@value #COLUMN} (a compaction's, a rewrite's: never a user's write) gets
 * that column's value per row here instead of a Parquet column: the encoder counts the runs and writes them at the end.
 */
public final class KeyRuns {
    /** The footer key-value metadata entry holding the runs. */
    public static final String FOOTER_KEY = "wrangler.keys";
    /**
     * The footer entry of a keyed rerun's rewrite of a file: when the rows it holds were committed (epoch milliseconds: the
     * file it rewrites' own entry, else that file's LastModified), so that dedup's "the later commit wins" orders them by
     * their commit, not by the rerun that moved them ({@code io.wrangler.compact.Dedup#COMMIT_ORDER}).
     */
    public static final String COMMITTED_KEY = "wrangler.committed";
    /** The marker after the write id in a marked file's name. */
    public static final String MARK = "_k";
    /** The name of the hidden input column that carries each row's key id ({@code ""} for none). */
    public static final String COLUMN = "__wrangler_key_of_row";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Rows of one key, consecutive in the file. */
    public record Run(String key, long rows) {
        public Run {
            Objects.requireNonNull(key, "key");
        }
    }

    private final List<Run> runs = new ArrayList<>();

    /** Adds {@code rows} rows of {@code key} after those added so far. */
    public void add(String key, long rows) {
        if (rows <= 0) {
            return;
        }
        if (!runs.isEmpty() && runs.get(runs.size() - 1).key().equals(key)) {
            Run last = runs.remove(runs.size() - 1);
            runs.add(new Run(key, last.rows() + rows));
        } else {
            runs.add(new Run(key, rows));
        }
    }

    /** The runs added, in row order. */
    public List<Run> runs() {
        return Collections.unmodifiableList(runs);
    }

    /** The rows per key, in order of first appearance. */
    public static Map<String, Long> totals(List<Run> runs) {
        Map<String, Long> out = new LinkedHashMap<>();
        runs.forEach(r -> out.merge(r.key(), r.rows(), Long::sum));
        return out;
    }

    /** The footer value of {@code runs}. */
    public static String format(List<Run> runs) {
        List<List<Object>> out = new ArrayList<>();
        runs.forEach(r -> out.add(List.of(r.key(), r.rows())));
        try {
            return JSON.writeValueAsString(out);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write key runs", e);
        }
    }

    /** The runs of a footer value; an IOException for a value that is not one. */
    public static List<Run> parse(String value) throws IOException {
        return parse(value, FOOTER_KEY);
    }

    /** The runs of the footer entry {@code entry}'s value (of this shape: {@link CommitRuns} too). */
    static List<Run> parse(String value, String entry) throws IOException {
        List<List<Object>> in;
        try {
            in = JSON.readValue(value, new TypeReference<List<List<Object>>>() { });
        } catch (IOException e) {
            throw new IOException("the footer entry " + entry + " is not a list of [key, rows] pairs: " + e.getMessage(), e);
        }
        List<Run> out = new ArrayList<>();
        for (List<Object> pair : in) {
            if (pair == null || pair.size() != 2 || !(pair.get(0) instanceof String key) || !(pair.get(1) instanceof Number rows)
                    || rows.longValue() < 0) {
                throw new IOException("the footer entry " + entry + " holds " + pair + ", not a [key, rows] pair");
            }
            out.add(new Run(key, rows.longValue()));
        }
        return out;
    }
}
