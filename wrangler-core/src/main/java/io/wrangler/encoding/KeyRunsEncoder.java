package io.wrangler.encoding;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Encodes rows whose last column is {@link KeyRuns#COLUMN}: the other columns go to the file, the key ids become the
 * file's {@link KeyRuns} in its footer, and the commit stamps joined to them the file's {@link CommitRuns} (written only
 * when some row has one).
 */
final class KeyRunsEncoder implements FileEncoder {
    private final FileEncoder file;
    private final KeyRuns runs = new KeyRuns();
    /** The rows' commit stamps, in the shape of key runs ({@code ""}: committed with this file). */
    private final KeyRuns commits = new KeyRuns();
    private boolean stamped;

    private final Map<String, String> footer;

    KeyRunsEncoder(FileEncoder file, Map<String, String> footer) {
        this.footer = footer;
        this.file = file;
    }

    @Override
    public void write(List<FieldVector> columns, int from, int to) throws IOException {
        FieldVector last = columns.get(columns.size() - 1);
        if (!KeyRuns.COLUMN.equals(last.getName()) || !(last instanceof VarCharVector keys)) {
            throw new IllegalStateException("rows with key runs must end with the column " + KeyRuns.COLUMN + ", not " + last.getField());
        }
        int r = from;
        while (r < to) {
            String key = keys.isNull(r) ? "" : new String(keys.get(r), StandardCharsets.UTF_8);
            int end = r + 1;
            while (end < to && same(keys, end, r)) {
                end++;
            }
            String stamp = CommitRuns.stampOf(key);
            runs.add(CommitRuns.keyOf(key), end - r);
            commits.add(stamp, end - r);
            stamped |= !stamp.isEmpty();
            r = end;
        }
        file.write(columns.subList(0, columns.size() - 1), from, to);
    }

    /** Whether rows {@code row} and {@code first} hold the same key id: both null, or the same bytes (compared in place). */
    private static boolean same(VarCharVector keys, int row, int first) {
        if (keys.isNull(row) || keys.isNull(first)) {
            return keys.isNull(row) == keys.isNull(first);
        }
        ArrowBuf offsets = keys.getOffsetBuffer();
        int a = offsets.getInt((long) first * 4);
        int aEnd = offsets.getInt((long) first * 4 + 4);
        int b = offsets.getInt((long) row * 4);
        int bEnd = offsets.getInt((long) row * 4 + 4);
        ArrowBuf data = keys.getDataBuffer();
        return ByteFunctionHelpers.equal(data, a, aEnd, data, b, bEnd) == 1;
    }

    @Override
    public long rows() {
        return file.rows();
    }

    @Override
    public long size() {
        return file.size();
    }

    @Override
    public long heldBytes(long streamed) {
        return file.heldBytes(streamed);
    }

    @Override
    public void close(Map<String, String> metadata) throws IOException {
        Map<String, String> all = new HashMap<>(metadata);
        all.putAll(footer);
        all.put(KeyRuns.FOOTER_KEY, KeyRuns.format(runs.runs()));
        if (stamped) {
            all.put(CommitRuns.FOOTER_KEY, CommitRuns.format(commits.runs()));
        }
        file.close(all);
    }
}
