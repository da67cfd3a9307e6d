package io.wrangler.commit;

import io.wrangler.encoding.FileEncoder;
import io.wrangler.encoding.CommitRuns;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.input.ReadOnce;
import io.wrangler.partition.Partitioner;
import io.wrangler.read.Footers;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.staging.StagedFile;
import io.wrangler.staging.Stager;
import io.wrangler.staging.StagingContext;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.storage.Uploads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The part of a keyed rerun that reaches into marked files (a compaction's: {@link KeyRuns}): each marked file in the
 * rerun's partitions whose footer records rows of the rerun's key is replaced by the rerun, and written again without
 * those rows (the other keys' runs kept, so that they stay rerunnable) as a marked file of the rerun, staged under its
 * {@code _tmp/<writeId>/} before its commit point. The rerun's manifest then lists the rewrites among its files and the
 * marked files among the files it replaces, so that readers, publishing and recovery treat them exactly as the rerun's
 * own new and old files: a reader sees the table before or after, a crash is rolled forward from the commit point.
 */
final class KeyedRewrite {
    /** The rewrites staged and the marked files they replace. */
    record Result(List<StagedFile> files, List<String> replaced) {
    }

    private KeyedRewrite() {
    }

    /**
     * Reads the footer of every file of {@code marked} (one GET each) and stages the rewrite of those holding rows of
     * {@code keyId}; a file holding only that key's rows is replaced with no rewrite. Reads and writes under the write's
     * staging folder only.
     */
    static Result run(WritePlan plan, TableContext context, List<Publisher.Marked> marked) throws IOException {
        WriteSpec spec = plan.spec();
        S3Location location = plan.location();
        String keyId = plan.keyId();
        List<StagedFile> files = new ArrayList<>();
        List<String> replaced = new ArrayList<>();
        int n = 0;
        for (Publisher.Marked m : marked) {
            Footers.Keyed footer = Footers.keyed(spec.s3(), spec.options(), location.bucket(), m.key(), m.size(), m.eTag());
            List<KeyRuns.Run> runs = footer.runs();
            Map<String, Long> totals = KeyRuns.totals(runs);
            Long mine = totals.get(keyId);
            if (mine == null) {
                continue;
            }
            replaced.add(m.key());
            long rows = runs.stream().mapToLong(KeyRuns.Run::rows).sum();
            if (rows == mine) {
                continue; // every row is the key's: the file goes, nothing is kept
            }
            List<StagedFile> staged = rewrite(plan, context, m, footer, n++);
            long kept = staged.stream().mapToLong(StagedFile::rows).sum();
            if (kept != rows - mine) {
                throw new IOException("rewriting " + location.uriOf(m.key()) + " without the rows of " + keyId + " kept " + kept
                        + " rows, not " + (rows - mine));
            }
            files.addAll(staged);
        }
        return new Result(files, replaced);
    }

    /** Stages the rows of {@code m} that are not {@code keyId}'s, with their keys, as one marked file (or more, by size). */
    private static List<StagedFile> rewrite(WritePlan plan, TableContext tableContext, Publisher.Marked m, Footers.Keyed footer, int n)
            throws IOException {
        WriteSpec spec = plan.spec();
        S3Location location = plan.location();
        S3Store store = tableContext.store();
        String writeId = plan.writeId();
        String keyId = plan.keyId();
        List<KeyRuns.Run> runs = footer.runs();
        boolean int96 = footer.int96();
        // its rows keep the commit time they had: the rewritten file's own record of it, else its LastModified
        Instant committed = footer.committed() != null ? footer.committed() : m.modified();
        ExecutorService encoders = Pools.pool(1);
        try (BufferAllocator allocator = new RootAllocator();
             TableReader reader = new TableReader(allocator, null, new TableReader.Source(spec.s3(), spec.options(), location.uri(),
                     new TableFiles.Listing(List.of(), List.of(new TableFiles.DataFile(location.bucket(), m.key(), m.size(), m.folder(),
                     List.of(), m.modified(), m.eTag()))), Map.of()), null, 65_536)) {
            List<Field> data = reader.schema().getFields();
            List<Field> all = new ArrayList<>(data);
            all.add(new Field(KeyRuns.COLUMN, FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
            // The file's own columns and timestamp encoding, nanoseconds kept: a rewrite changes which rows a file holds,
            // never their values or types.
            FileEncoder.Settings settings = new FileEncoder.Settings(data, spec.compression(), true, int96,
                    spec.rowGroupBytes(), spec.pageBytes()).withLayout(LayoutColumns.within(spec.write(), data)).withKeyRuns()
                    .withFooter(committed == null ? Map.of() : Map.of(KeyRuns.COMMITTED_KEY, String.valueOf(committed.toEpochMilli())));
            WriteSpec.Tuning tuning = spec.tuning();
            StagingContext context = new StagingContext(store, location.prefix(), location.tmpPrefix() + writeId + "/", writeId,
                    spec.filenamePrefix() + "r" + n + "-", bucketOf(m.key()) + spec.compression().fileInfix() + ".parquet", false, settings,
                    Long.MAX_VALUE, spec.targetFileSize(), tuning.maxOpenFiles(), tuning.openBytes(), spec.spillDirectory(),
                    new io.wrangler.Progress() { }, count -> { });
            Uploads uploads = new Uploads(tableContext.pool(), tuning.maxPendingParts(), tuning.partSize());
            Partitioner one = new Partitioner(List.of(), all.stream().map(Field::getName).toList());
            Stager stager = new Stager(context, uploads, one, null, key -> { }, encoders, key -> m.folder());
            // each row keeps its commit stamp (CommitRuns): the one the file records for it, else the file's own commit
            CommitRuns.Rows stamps = footer.stamps(CommitRuns.stamp(committed, m.key()));
            try (Without source = new Without(reader, new Schema(all), runs, stamps, keyId, allocator)) {
                List<StagedFile> staged = stager.stage(source, allocator, List.of(), null);
                return staged;
            }
        } finally {
            Pools.shutdown(encoders);
        }
    }

    private static final Pattern BUCKET = Pattern.compile("(_bucket-\\d{5,})(?:\\.[a-z0-9_]+)?\\.parquet$");

    /**
     * The bucket suffix of a file's name ({@code _bucket-00003}), or "": a rewrite keeps its file's bucket (its rows still
     * hash to it), so that a bucketed table stays bucketed.
     */
    static String bucketOf(String key) {
        Matcher b = BUCKET.matcher(key);
        return b.find() ? b.group(1) : "";
    }

    /** The rows of one file that are not {@code keyId}'s, each with its key and commit stamp in the last column. */
    private static final class Without extends ReadOnce {
        private final TableReader reader;
        private final List<KeyRuns.Run> runs;
        private final CommitRuns.Rows stamps;
        private final String keyId;
        private int run = -1;
        private long left;

        Without(TableReader reader, Schema schema, List<KeyRuns.Run> runs, CommitRuns.Rows stamps, String keyId, BufferAllocator allocator) {
            super(schema, allocator);
            this.reader = reader;
            this.runs = runs;
            this.stamps = stamps;
            this.keyId = keyId;
        }

        private String nextKey() throws IOException {
            while (left == 0) {
                if (++run >= runs.size()) {
                    throw new IOException("the file holds more rows than its key runs count");
                }
                left = runs.get(run).rows();
            }
            left--;
            return runs.get(run).key();
        }

        @Override
        public boolean next() throws IOException {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot in = reader.getVectorSchemaRoot();
                VectorSchemaRoot out = fresh();
                int columns = in.getFieldVectors().size();
                VarCharVector keys = (VarCharVector) out.getVector(columns);
                int k = 0;
                for (int i = 0; i < in.getRowCount(); i++) {
                    String key = nextKey();
                    String stamp = stamps.next();
                    if (key.equals(keyId)) {
                        continue;
                    }
                    for (int c = 0; c < columns; c++) {
                        out.getVector(c).copyFromSafe(i, k, in.getVector(c));
                    }
                    keys.setSafe(k, CommitRuns.join(key, stamp).getBytes(StandardCharsets.UTF_8));
                    k++;
                }
                out.setRowCount(k);
                if (k > 0) {
                    return true;
                }
            }
            return false;
        }
    }
}
