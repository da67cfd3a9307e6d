package io.wrangler.merge;

import io.wrangler.commit.KeyedFiles;
import io.wrangler.compact.Digest;
import io.wrangler.encoding.CommitRuns;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.input.ReadOnce;
import io.wrangler.partition.PartitionValues;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.read.TableSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of the merge's new files, read under the lease (the write's stage step reads them): first each rewritten
 * file, one after another and batch by batch, without the rows of the updated keys (with their idempotency keys, when the
 * files hold keyed runs, so that the new files keep whose rows are whose, and with their commit stamps, so that they keep
 * their commit order: {@link CommitRuns}); then the input's inserted and updated rows (no key, no stamp: the merge's own). Every row passed is added to a digest, which the check compares with the staged files read
 * back before the commit point.
 *
 * <p>The batches are made on a thread of their own, one ahead of the write, which meanwhile encodes the one before (the
 * files themselves decoded on the read's threads, {@link MergePlan#READ_THREADS}); the write takes them in order, each
 * moved into its current batch without a copy. Memory: besides the input, the files decoded ahead by the read and three
 * batches (the one the write encodes, the one ready, the one being made).
 */
final class MergeInput extends ReadOnce {
    /** What the thread that makes the batches hands over after its last batch. */
    private static final Object END = new Object();
    private final MergePlan plan;
    private final BufferAllocator allocator;
    /** The digest of the data columns of every row passed (complete once {@link #next()} returned false). */
    final Digest passed = new Digest();
    /** Rows passed: kept from the rewritten files, and from the input (complete once {@link #next()} returned false). */
    long kept;
    long written;
    /** The batches made and not yet taken (at most one), then {@link #END} or what the thread failed with. */
    private final BlockingQueue<Object> ready = new ArrayBlockingQueue<>(1);
    private Thread maker;
    private boolean done;
    /** Set when the source is closed: the thread that makes the batches stops at the next batch. */
    private volatile boolean closing;
    // the thread that makes the batches alone uses the fields below
    private TableReader reader;
    private VectorSchemaRoot out;
    private final KeyIndex.Probe probe;
    private TableFiles.DataFile file;
    /** The place of {@link #file} in the plan's rewritten files (-1 before the first). */
    private int fileIndex = -1;
    private List<KeyRuns.Run> runs;
    private CommitRuns.Rows stamps;
    private int run;
    private long left;
    /** Rows of {@link #file} before the current batch. */
    private long fileRow;
    /** The rows of {@link #file} the scan found holding an input key ({@link MergePlan#matches}), or null; the next to take. */
    private long[] matched;
    private int next;
    /** The key id of every row of {@link #file} when it is unmarked ("": none). */
    private String fileKey;
    /** The key id and stamp of the last row whose joined value is {@link #joined}. */
    private String lastKey;
    private String lastStamp;
    private byte[] joined;

    MergeInput(MergePlan plan, BufferAllocator allocator) {
        super(plan.output(), allocator);
        this.plan = plan;
        this.allocator = allocator;
        this.probe = plan.input.index.probe();
    }

    @Override
    public boolean next() throws IOException {
        if (done) {
            return false;
        }
        if (maker == null) {
            maker = new Thread(this::make, "wrangler-merge-rows");
            maker.setDaemon(true);
            maker.start();
        }
        Object x;
        try {
            x = ready.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the merge's rows were read");
        }
        if (x == END) {
            done = true;
            return false;
        }
        if (x instanceof Throwable t) {
            done = true;
            throw rethrown(t);
        }
        try (VectorSchemaRoot made = (VectorSchemaRoot) x) {
            VectorSchemaRoot to = fresh();
            for (int c = 0; c < made.getFieldVectors().size(); c++) {
                made.getVector(c).makeTransferPair(to.getVector(c)).transfer();
            }
            to.setRowCount(made.getRowCount());
        }
        return true;
    }

    private static IOException rethrown(Throwable t) {
        if (t instanceof IOException e) {
            return e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IOException(t);
    }

    /** The thread that makes the batches: each one handed over as soon as made, then END (or what failed). */
    private void make() {
        try {
            if (!plan.rewrite.isEmpty()) {
                reader = plan.reader(allocator, plan.rewrite, null).knownSchemas(plan.schemas(plan.rewrite));
                while (!closing && reader.loadNextBatch()) {
                    out = made();
                    if (fromFile(reader.getVectorSchemaRoot(), reader.currentFile()) > 0) {
                        handOver();
                    }
                }
                if (!closing) {
                    fileEnded();
                    emptyUntil(plan.rewrite.size());
                }
            }
            for (int b = 0; b < plan.input.batches.size() && !closing; b++) {
                out = made();
                if (fromInput(plan.input.batches.get(b), b) > 0) {
                    handOver();
                }
            }
            closeOut();
            ready.put(END);
        } catch (InterruptedException e) {
            closeOut(); // closed: nobody takes more
        } catch (Throwable t) {
            closeOut();
            try {
                ready.put(t);
            } catch (InterruptedException e) {
                // closed meanwhile
            }
        }
    }

    /** A new empty batch of the schema, the last one closed when it was not handed over. */
    private VectorSchemaRoot made() {
        closeOut();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        root.allocateNew();
        return root;
    }

    private void closeOut() {
        if (out != null) {
            out.close();
            out = null;
        }
    }

    private void handOver() throws InterruptedException {
        digested();
        VectorSchemaRoot b = out;
        out = null;
        try {
            ready.put(b);
        } catch (InterruptedException e) {
            b.close();
            throw e;
        }
    }

    private void digested() {
        List<FieldVector> data = new ArrayList<>();
        for (FieldVector v : out.getFieldVectors()) {
            if (!v.getName().equals(KeyRuns.COLUMN) && plan.columns.inputPartition(v.getName()) == null) {
                data.add(v);
            }
        }
        VectorSchemaRoot view = new VectorSchemaRoot(data);
        view.setRowCount(out.getRowCount());
        passed.addAll(view);
    }

    /** Copies the rows of a rewritten file's batch that are not of an updated key; returns how many. */
    private int fromFile(VectorSchemaRoot in, TableFiles.DataFile from) throws IOException {
        if (from != file && !from.equals(file)) {
            fileEnded();
            int at = fileIndex + 1;
            while (at < plan.rewrite.size() && !plan.rewrite.get(at).equals(from)) {
                at++;
            }
            emptyUntil(at);
            fileIndex = at;
            startFile(from);
        }
        List<FieldVector> keys = plan.input.keys.stream().map(k -> vector(in, plan.columns.tableName(k))).toList();
        List<FieldVector> sources = new ArrayList<>();
        for (Field f : schema().getFields()) {
            FieldVector v = f.getName().equals(KeyRuns.COLUMN) ? null : vector(in, f.getName());
            if (v != null && !TableSchema.covers(f, v.getField())) {
                throw new IOException("the column '" + f.getName() + "' of " + from.key() + " is " + v.getField() + ", not " + f
                        + " as when the merge was planned");
            }
            sources.add(v);
        }
        int n = in.getRowCount();
        boolean[] keep = new boolean[n];
        byte[][] keyIds = plan.keyRuns == null ? null : keyIds(from, n);
        if (matched != null) {
            dropMatched(keys, keep);
        } else {
            keepNotUpdated(plan.input.index.bind(keys, probe), keep);
        }
        fileRow += n;
        Kept runs = new Kept(keep);
        int k = copyKept(sources, runs, keyIds == null ? null : runs.gather(keyIds), null);
        out.setRowCount(k);
        kept += k;
        return k;
    }

    /** The idempotency keys of the next {@code n} rows of {@code from} ({@link #keyOf}). */
    private byte[][] keyIds(TableFiles.DataFile from, int n) throws IOException {
        byte[][] keyIds = new byte[n][];
        for (int i = 0; i < n; i++) {
            keyIds[i] = keyOf(from);
        }
        return keyIds;
    }

    /** Marks in {@code keep} the rows whose key, looked up, is not an updated one. */
    private void keepNotUpdated(KeyIndex.Bound bound, boolean[] keep) {
        for (int i = 0; i < keep.length; i++) {
            int key = bound.find(i);
            keep[i] = key < 0 || !plan.updated.get(key);
        }
    }

    /**
     * Marks in {@code keep} the rows of this batch that the scan did not find holding an updated key (every row but
     * those), without looking each row's key up: each row the scan found is checked to hold the same key still (the file
     * is the one scanned: the same object key and length, and {@link #fileEnded} checks its row count).
     */
    private void dropMatched(List<FieldVector> keys, boolean[] keep) {
        java.util.Arrays.fill(keep, true);
        KeyIndex.Bound bound = plan.input.index.bind(keys, probe);
        long end = fileRow + keep.length;
        for (; next < matched.length && matched[next] >>> 32 < end; next++) {
            int row = (int) ((matched[next] >>> 32) - fileRow);
            int key = (int) matched[next];
            if (bound.find(row) != key) {
                throw MergeErrors.replaced(plan.spec, plan.spec.location().uriOf(file.key()), "row " + (fileRow + row)
                        + " holds another key");
            }
            keep[row] = !plan.updated.get(key);
        }
    }

    /** Starts the rewrite of the file {@code from}: its rows counted from 0, its matched rows, its key runs and stamps. */
    private void startFile(TableFiles.DataFile from) {
        file = from;
        fileRow = 0;
        matched = plan.matches(from);
        next = 0;
        if (plan.keyRuns != null) {
            runs = plan.keyRuns.get(from.key());
            stamps = plan.stamps(from);
            run = -1;
            left = 0;
            String key = runs == null ? KeyedFiles.keyOf(from.key()) : null;
            fileKey = key == null ? "" : key;
            lastKey = null;
        }
    }

    /** Checks that the file rewritten last held as many rows as planned, when its matched rows were taken from the scan. */
    private void fileEnded() {
        if (file != null && matched != null && (fileRow != plan.rows(file) || next != matched.length)) {
            throw MergeErrors.replaced(plan.spec, plan.spec.location().uriOf(file.key()), fileRow + " rows, " + plan.rows(file)
                    + " planned");
        }
    }

    /**
     * Refuses the rewritten files after {@link #file} and before the one at {@code end} (in the plan's order, which the read
     * keeps): they gave no batch, so they hold no row now, where each was planned holding a matched key. The read gives an
     * empty file no batch, so {@link #fileEnded} never sees it: without this its rows would be gone from the table.
     */
    private void emptyUntil(int end) {
        if (fileIndex + 1 < end) {
            TableFiles.DataFile f = plan.rewrite.get(fileIndex + 1);
            throw MergeErrors.replaced(plan.spec, plan.spec.location().uriOf(f.key()), "0 rows, " + plan.rows(f) + " planned");
        }
    }

    /** Copies the input rows of one batch that are written (inserted or updated); returns how many. */
    private int fromInput(VectorSchemaRoot in, int batch) {
        List<FieldVector> keys = plan.input.keys.stream().map(in::getVector).toList();
        List<FieldVector> sources = new ArrayList<>();
        List<Field> fields = schema().getFields();
        int[] textColumns = null;
        for (int c = 0; c < fields.size(); c++) {
            Field f = fields.get(c);
            String p = plan.columns.inputPartition(f.getName());
            FieldVector v = f.getName().equals(KeyRuns.COLUMN) ? null : vector(in, p != null ? p : f.getName());
            sources.add(v);
            if (p != null && v != null && !(v instanceof VarCharVector) && f.getType().equals(ArrowType.Utf8.INSTANCE)) {
                // a typed partition value as its folder's text: the plan rendered each distinct one once
                textColumns = textColumns == null ? new int[fields.size()] : textColumns;
                textColumns[c] = partitionColumn(f.getName()) + 1;
            }
        }
        int n = in.getRowCount();
        boolean[] keep = new boolean[n];
        keepWritten(plan.input.index.bind(keys, probe), batch, keep);
        Kept runs = new Kept(keep);
        byte[][] keyIds = plan.keyRuns == null ? null : noKeyIds(runs.rows);
        byte[][][] texts = null;
        if (textColumns != null) {
            texts = new byte[fields.size()][][];
            for (int c = 0; c < fields.size(); c++) {
                texts[c] = textColumns[c] == 0 ? null : partitionTexts(batch, textColumns[c] - 1, runs);
            }
        }
        int k = copyKept(sources, runs, keyIds, texts);
        out.setRowCount(k);
        written += k;
        return k;
    }

    /** The place of the partition column {@code name} among the table's partition columns. */
    private int partitionColumn(String name) {
        List<String> p = plan.columns.partitionColumns;
        for (int i = 0; i < p.size(); i++) {
            if (p.get(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new IllegalStateException("no partition column " + name);
    }

    /** The key ids of {@code n} rows of the input: none (the merge's own rows), each an empty value. */
    private static byte[][] noKeyIds(int n) {
        byte[][] keyIds = new byte[n][];
        byte[] none = new byte[0];
        for (int i = 0; i < n; i++) {
            keyIds[i] = none; // a loop of its own, not Arrays.fill, whose profile every other caller in the JVM shares
        }
        return keyIds;
    }

    /** Marks in {@code keep} the input rows of the batch {@code batch} that are written ({@link MergePlan#written}). */
    private void keepWritten(KeyIndex.Bound bound, int batch, boolean[] keep) {
        for (int i = 0; i < keep.length; i++) {
            keep[i] = plan.written(bound.find(i), (long) batch << 32 | i);
        }
    }

    /** The text of the partition column {@code column} of each kept row of the input's batch {@code batch}, in order. */
    private byte[][] partitionTexts(int batch, int column, Kept kept) {
        byte[][] values = new byte[kept.rows][];
        for (int r = 0, at = 0; r < kept.runs; r++) {
            for (int j = 0; j < kept.lengths[r]; j++, at++) {
                values[at] = plan.inputPartitionText(batch, kept.starts[r] + j, column);
            }
        }
        return values;
    }

    /**
     * The rows a batch keeps, as runs of consecutive rows. Its loops, and the copies' loops below, are each a method of
     * their own, so that each is compiled with its own profile (a merge passes the rows of the rewritten files and then the
     * input's, whose columns differ), not one shared by every column and caller.
     */
    private static final class Kept {
        int[] starts = new int[16];
        int[] lengths = new int[16];
        int runs;
        /** Rows kept. */
        int rows;

        Kept(boolean[] keep) {
            for (int s = 0; s < keep.length; ) {
                if (!keep[s]) {
                    s++;
                    continue;
                }
                int e = s;
                while (e < keep.length && keep[e]) {
                    e++;
                }
                if (runs == starts.length) {
                    starts = java.util.Arrays.copyOf(starts, runs * 2);
                    lengths = java.util.Arrays.copyOf(lengths, runs * 2);
                }
                starts[runs] = s;
                lengths[runs++] = e - s;
                rows += e - s;
                s = e;
            }
        }

        /** The values of {@code all} (one per row of the batch) at the rows kept, in order. */
        byte[][] gather(byte[][] all) {
            byte[][] values = new byte[rows][];
            for (int r = 0, at = 0; r < runs; at += lengths[r], r++) {
                System.arraycopy(all, starts[r], values, at, lengths[r]);
            }
            return values;
        }
    }

    /**
     * Copies the rows {@code kept} holds, column by column, each column's runs of consecutive rows at once
     * ({@link Runs#copyRuns}); the key column takes {@code keyIds}, a column of {@code texts} (where not null) its values
     * (each one value per row kept, in order); returns how many.
     */
    private int copyKept(List<FieldVector> sources, Kept kept, byte[][] keyIds, byte[][][] texts) {
        for (int c = 0; c < sources.size(); c++) {
            FieldVector from = sources.get(c);
            FieldVector to = out.getVector(c);
            if (to.getName().equals(KeyRuns.COLUMN)) {
                setTexts((VarCharVector) to, keyIds);
            } else if (texts != null && texts[c] != null) {
                setTexts((VarCharVector) to, texts[c]);
            } else if (from == null || !Runs.copyRuns(from, kept.starts, kept.lengths, kept.runs, to)) {
                copyCells(from, kept, to);
            }
        }
        return kept.rows;
    }

    /** Copies the rows {@code kept} holds of {@code from} cell by cell (null: nulls), for the types {@link Runs} does not copy. */
    private static void copyCells(FieldVector from, Kept kept, FieldVector to) {
        for (int r = 0, at = 0; r < kept.runs; r++) {
            for (int j = 0; j < kept.lengths[r]; j++, at++) {
                copyCell(from, kept.starts[r] + j, to, at);
            }
        }
    }

    /** Sets the rows of the empty vector {@code text} to {@code values} (null: a null): at once, else row by row. */
    private static void setTexts(VarCharVector text, byte[][] values) {
        if (Runs.texts(text, values)) {
            return;
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                text.setNull(i);
            } else {
                text.setSafe(i, values[i]);
            }
        }
    }

    private static void copyCell(FieldVector from, int i, FieldVector to, int k) {
        if (from == null) {
            to.setNull(k);
        } else if (to instanceof VarCharVector text && to.getField().getType().equals(ArrowType.Utf8.INSTANCE)
                && !(from instanceof VarCharVector)) {
            String v = PartitionValues.render(from, i); // an input's typed partition value as its folder's text
            if (v == null) {
                text.setNull(k);
            } else {
                text.setSafe(k, v.getBytes(StandardCharsets.UTF_8));
            }
        } else {
            to.copyFromSafe(i, k, from);
        }
    }

    /**
     * The idempotency key of the next row of {@code from}: its unmarked keyed write's, its marked footer's runs', or none;
     * joined with the row's commit stamp ({@link CommitRuns#join}), as UTF-8. Consecutive rows of one key and stamp share
     * one array: the file's name is matched once per file, the two joined once per run, not once per row.
     */
    private byte[] keyOf(TableFiles.DataFile from) throws IOException {
        String stamp = stamps.next();
        String key = fileKey;
        if (runs != null) {
            while (left == 0) {
                if (++run >= runs.size()) {
                    throw new IOException(from.key() + " holds more rows than its key runs count");
                }
                left = runs.get(run).rows();
            }
            left--;
            key = runs.get(run).key();
        }
        if (key != lastKey || stamp != lastStamp) {
            lastKey = key;
            lastStamp = stamp;
            joined = CommitRuns.join(key, stamp).getBytes(StandardCharsets.UTF_8);
        }
        return joined;
    }

    private static FieldVector vector(VectorSchemaRoot root, String name) {
        FieldVector v = root.getVector(name);
        if (v != null) {
            return v;
        }
        for (FieldVector x : root.getFieldVectors()) {
            if (x.getName().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return x;
            }
        }
        return null;
    }

    private void drain() {
        for (Object x = ready.poll(); x != null; x = ready.poll()) {
            if (x instanceof VectorSchemaRoot b) {
                b.close();
            }
        }
    }

    /** Stops the thread that makes the batches (waiting for it), closes what it made and not handed over, then the read. */
    @Override
    protected void closeMore() {
        if (maker != null) {
            closing = true;
            maker.interrupt();
            boolean interrupted = false;
            while (maker.isAlive()) {
                drain(); // room for what it hands over last, so that it never waits on a full queue
                try {
                    maker.join(50);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            drain();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            maker = null;
        }
        if (reader != null) {
            try {
                reader.close();
            } catch (IOException e) {
                // the write's outcome is what the caller needs
            }
            reader = null;
        }
    }
}
