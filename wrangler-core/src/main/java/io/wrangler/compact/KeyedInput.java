package io.wrangler.compact;

import io.wrangler.staging.StagedFile;
import io.wrangler.InvalidWriteException;
import io.wrangler.WriteStep;
import io.wrangler.commit.KeyedFiles;
import io.wrangler.layout.Manifest;
import io.wrangler.encoding.CommitRuns;
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
 * deduplication drops are never passed, so never counted. With each key goes the row's commit stamp ({@link CommitRuns}):
 * the stamp its file's footer records for it, else its file's own commit (its LastModified, or the time a rerun's rewrite
 * recorded), so that the new files' rows keep the commit order they had (dedup's tie rule).
 */
final class KeyedInput {
    /** The runs of every marked file read, by key. */
    private final Map<String, List<KeyRuns.Run>> runs;
    /** The footers of the files read: their commit runs. */
    private final FileFooters footers;
    private CommitRuns.Rows stamps;
    /** Rows passed to the write per key id. */
    private final Map<String, Long> passed = new LinkedHashMap<>();
    private TableFiles.DataFile file;
    private String fixed;
    private int run;
    private long left;

    KeyedInput(Map<String, List<KeyRuns.Run>> runs, FileFooters footers) {
        this.runs = runs;
        this.footers = footers;
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
                    unit.set(i, new TableFiles.DataFile(f.bucket(), f.key(), f.size(), f.folder(), f.values(), keyed.committed(), f.eTag()));
                }
            }
            Dedup.sortByCommit(unit);
        }
    }

    /**
     * The commit stamps of the rows of {@code f}, row after row: those its footer records ({@code footers}), else its own
     * (its LastModified, which {@link #commitOrder} replaced by a rerun's rewrite's recorded time).
     */
    static CommitRuns.Rows stamps(TableFiles.DataFile f, FileFooters footers) {
        String own = CommitRuns.stamp(f.modified(), f.key());
        FileFooters.Footer footer = footers.get(f.key());
        return footer != null && footer.keyed() != null ? footer.keyed().stamps(own) : new CommitRuns.Rows(own, null);
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

    /**
     * The key ids of the next {@code n} rows, all read from {@code from} (a batch never spans files), each joined with the
     * row's commit stamp ({@link CommitRuns#join}).
     */
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
            stamps = stamps(from, footers);
        }
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            String stamp = stamps.next();
            if (fixed != null) {
                out[i] = CommitRuns.join(fixed, stamp);
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
            out[i] = CommitRuns.join(of.get(run).key(), stamp);
        }
        return out;
    }

    /** Sets row {@code row} of {@code out}'s key column ({@link #keysOf}'s value), a row passed to the write. */
    void pass(VectorSchemaRoot out, int row, String key) {
        VarCharVector keys = (VarCharVector) out.getVector(KeyRuns.COLUMN);
        keys.setSafe(row, key.getBytes(StandardCharsets.UTF_8));
        passed.merge(CommitRuns.keyOf(key), 1L, Long::sum);
    }

    /** How the staged files' key runs differ from the rows passed (per key), or null when they agree. */
    String difference(List<StagedFile> staged, S3Client s3, RequestOptions options, String bucket) throws IOException {
        Map<String, Long> written = new HashMap<>();
        for (StagedFile f : staged) {
            if (!KeyedFiles.marked(f.finalKey())) {
                return f.finalKey() + " is not marked as recording its rows' keys";
            }
            KeyRuns.totals(Footers.keyRuns(s3, options, bucket, f.stagedKey(), f.bytes(), null)).forEach((k, v) -> written.merge(k, v, Long::sum));
        }
        written.values().removeIf(v -> v == 0);
        return written.equals(passed) ? null : "rows per key read " + passed + ", written " + written;
    }
}
