package io.wrangler.compact;

import io.wrangler.staging.StagedFile;
import io.wrangler.InvalidWriteException;
import io.wrangler.WriteStep;
import io.wrangler.commit.KeyedFiles;
import io.wrangler.layout.Manifest;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.read.FileFooters;
import io.wrangler.read.Footers;
import io.wrangler.read.TableFiles;
import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The idempotency keys of the rows a compaction reads, so that its new files record them ({@link KeyRuns}) and a later
 * rerun of any of those keys replaces exactly its own rows: every row of an unmarked keyed file is its key's, a marked
 * file's rows are those its footer's runs say, any other file's rows are no key's ({@code ""}). The keys travel with the
 * rows as the write's last input column {@link KeyRuns#COLUMN}, which the encoder turns into footer runs; rows that
 * deduplication drops are never passed, so never counted.
 */
final class KeyedInput {
    /** The runs of every marked file read, by key. */
    private final Map<String, List<KeyRuns.Run>> runs;
    /** Rows passed to the write per key id. */
    private final Map<String, Long> passed = new LinkedHashMap<>();
    private TableFiles.DataFile file;
    private String fixed;
    private int run;
    private long left;

    KeyedInput(Map<String, List<KeyRuns.Run>> runs) {
        this.runs = runs;
    }

    /**
     * The runs of the marked files among {@code chosen}, from their footers read once ({@code footers}), or null when no
     * chosen file holds rows of a key: the compaction then writes plain files, as before keys existed.
     */
    static Map<String, List<KeyRuns.Run>> runsOf(List<List<TableFiles.DataFile>> chosen, FileFooters footers) {
        boolean keyed = false;
        Map<String, List<KeyRuns.Run>> out = new HashMap<>();
        for (List<TableFiles.DataFile> files : chosen) {
            for (TableFiles.DataFile f : files) {
                Footers.Keyed runs = footers.get(f.key()).keyed();
                if (runs != null) {
                    keyed = true;
                    out.put(f.key(), runs.runs());
                } else if (!keyed && KeyedFiles.keyOf(f.key()) != null) {
                    keyed = true;
                }
            }
        }
        return keyed ? out : null;
    }

    /**
     * Puts each unit of {@code chosen} in commit order ({@link Dedup#COMMIT_ORDER}) with a keyed rerun's rewrites
     * ({@code _k} files whose footer records {@link KeyRuns#COMMITTED_KEY}) placed by when their rows were committed, not
     * by their own LastModified (the rerun that moved them): a row a rerun moved keeps losing ties to rows committed after
     * it. From the footers read once ({@code footers}).
     */
    static void commitOrder(List<List<TableFiles.DataFile>> chosen, FileFooters footers) {
        for (List<TableFiles.DataFile> unit : chosen) {
            for (int i = 0; i < unit.size(); i++) {
                TableFiles.DataFile f = unit.get(i);
                Footers.Keyed keyed = footers.get(f.key()).keyed();
                if (keyed != null && keyed.committed() != null) {
                    unit.set(i, new TableFiles.DataFile(f.bucket(), f.key(), f.size(), f.folder(), f.values(), keyed.committed()));
                }
            }
            Dedup.sortByCommit(unit);
        }
    }

    /** The input's schema: the files' columns, then the key column. */
    Schema schema(String table, String verb, Schema read) {
        if (read.getFields().stream().anyMatch(f -> f.getName().equals(KeyRuns.COLUMN))) {
            throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot " + verb + " " + table + " (step: validate): the table has a "
                    + "column named " + KeyRuns.COLUMN + ", the name wrangler reserves for the keys of keyed runs. Rename the column; "
                    + "nothing was changed.");
        }
        List<Field> fields = new ArrayList<>(read.getFields());
        fields.add(new Field(KeyRuns.COLUMN, FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
        return new Schema(fields);
    }

    /** The key ids of the next {@code n} rows, all read from {@code from} (a batch never spans files). */
    String[] keysOf(TableFiles.DataFile from, int n) throws IOException {
        if (from == null) {
            throw new IOException("the reader did not say which file a batch came from");
        }
        if (!from.equals(file)) {
            file = from;
            run = -1;
            left = 0;
            String key = KeyedFiles.keyOf(from.key());
            fixed = runs.containsKey(from.key()) ? null : key == null ? "" : key;
        }
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            if (fixed != null) {
                out[i] = fixed;
                continue;
            }
            List<KeyRuns.Run> of = runs.get(from.key());
            while (left == 0) {
                if (++run >= of.size()) {
                    throw new IOException("s3://" + from.bucket() + "/" + from.key() + " holds more rows than its key runs count");
                }
                left = of.get(run).rows();
            }
            left--;
            out[i] = of.get(run).key();
        }
        return out;
    }

    /** Sets row {@code row} of {@code out}'s key column, a row passed to the write. */
    void pass(VectorSchemaRoot out, int row, String key) {
        VarCharVector keys = (VarCharVector) out.getVector(KeyRuns.COLUMN);
        keys.setSafe(row, key.getBytes(StandardCharsets.UTF_8));
        passed.merge(key, 1L, Long::sum);
    }

    /** How the staged files' key runs differ from the rows passed (per key), or null when they agree. */
    String difference(List<StagedFile> staged, S3Client s3, RequestOptions options, String bucket) throws IOException {
        Map<String, Long> written = new HashMap<>();
        for (StagedFile f : staged) {
            if (!KeyedFiles.marked(f.finalKey())) {
                return f.finalKey() + " is not marked as recording its rows' keys";
            }
            KeyRuns.totals(Footers.keyRuns(s3, options, bucket, f.stagedKey(), f.bytes())).forEach((k, v) -> written.merge(k, v, Long::sum));
        }
        written.values().removeIf(v -> v == 0);
        return written.equals(passed) ? null : "rows per key read " + passed + ", written " + written;
    }
}
