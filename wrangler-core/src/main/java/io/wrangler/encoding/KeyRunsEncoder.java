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
        Views views = Views.of(keys, to);
        int r = from;
        while (r < to) {
            String key = keys.isNull(r) ? "" : new String(keys.get(r), StandardCharsets.UTF_8);
            int end = r + 1;
            while (end < to && (views != null ? views.same(end, r) : same(keys, end, r))) {
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

    /**
     * The key column's buffers viewed through NIO for its first {@code rows} rows, so that consecutive rows are compared
     * without an ArrowBuf get (bounds and reference-count checks) per row and per word; null when they cannot be (past 2 GiB).
     */
    private record Views(java.nio.ByteBuffer valid, java.nio.IntBuffer offsets, java.nio.ByteBuffer data) {
        static Views of(VarCharVector keys, int rows) {
            if (rows == 0) {
                return null;
            }
            java.nio.IntBuffer offsets = keys.getOffsetBuffer().nioBuffer(0, 4 * (rows + 1)).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                    .asIntBuffer();
            long end = keys.getOffsetBuffer().getInt((long) rows * 4);
            if (end < 0 || end > Integer.MAX_VALUE) {
                return null;
            }
            java.nio.ByteBuffer valid = keys.getNullCount() == 0 ? null : keys.getValidityBuffer().nioBuffer(0, (rows + 7) / 8);
            return new Views(valid, offsets, keys.getDataBuffer().nioBuffer(0, (int) end).order(java.nio.ByteOrder.LITTLE_ENDIAN));
        }

        private boolean isNull(int row) {
            return valid != null && (valid.get(row >>> 3) >> (row & 7) & 1) == 0;
        }

        /** {@link KeyRunsEncoder#same}: both null, or the same bytes. */
        boolean same(int row, int first) {
            if (isNull(row) || isNull(first)) {
                return isNull(row) == isNull(first);
            }
            int a = offsets.get(first);
            int n = offsets.get(first + 1) - a;
            int b = offsets.get(row);
            if (offsets.get(row + 1) - b != n) {
                return false;
            }
            int i = 0;
            for (; i + 8 <= n; i += 8) {
                if (data.getLong(a + i) != data.getLong(b + i)) {
                    return false;
                }
            }
            for (; i < n; i++) {
                if (data.get(a + i) != data.get(b + i)) {
                    return false;
                }
            }
            return true;
        }
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
