package io.wrangler.compact;

import io.wrangler.staging.StagedFile;
import io.wrangler.InvalidWriteException;
import io.wrangler.ReadException;
import io.wrangler.VerificationException;
import io.wrangler.WriteStep;
import io.wrangler.layout.Manifest;
import io.wrangler.encoding.CommitRuns;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.read.FileFooters;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.read.TableSchema;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The compaction's input: the chosen units (partitions, or buckets of partitions) one after another, every file through
 * one reader whose schema is made from the footers already read (with dedup, each unit is read once more before, to
 * find each key's last row), with a digest of every row passed on. A producer thread reads, deduplicates and digests
 * the batches while the write's thread encodes the ones before; {@link #verify} checks the staged files against the
 * digest before the commit point.
 */
final class CompactInput extends ArrowReader {
    private final S3Client client;
    private final RequestOptions options;
    private final String table;
    private final List<String> partitionColumns;
    private final List<List<TableFiles.DataFile>> partitions;
    private final Map<String, Field> partitionTypes;
    private final Map<String, Field> catalogColumns;
    private final BufferAllocator allocator;
    /** The bucket number of each unit's files, -1 for none. */
    private final List<Integer> bucketOfUnit;
    /** The bucket of the batch last handed to the write (read on the write's thread). */
    private int batchBucket = -1;
    /** The rows' keys, when the partitions hold keyed rows; else null. */
    private final KeyedInput keyed;
    /** The chosen files' footers, read once before the compaction began. */
    private final FileFooters footers;
    /** The unit of each chosen file, by its key. */
    private final Map<String, Integer> unitOf = new HashMap<>();
    /** The keys of {@code dedupBy}, or null. */
    private final List<String> dedupKeys;
    /** The order column of {@code dedupBy}, or null. */
    private final String dedupOrder;
    private final int batchRows;
    private final UnaryOperator<Schema> outputSchema;
    private Schema schema;
    /** The columns of the files read: {@link #schema} without the key column. */
    private Schema read;
    private int partition = -1;
    private TableReader current;
    private BitSet keep;
    private long ordinal;
    /** The exact test of a delete of rows, or null; {@link #matched} is its answer for the batch being passed. */
    private final RowMatch match;
    private final BitSet matched = new BitSet();
    /** True for a drop of partitions: nothing is read, nothing passed. */
    private final boolean everyRow;
    /** What the operation is called in messages. */
    private final String verb;
    /** For a delete of rows, the rows its plan found matched in the files chosen; else -1. */
    private final long plannedMatches;
    long rowsRead;
    long dropped;
    final Digest passed = new Digest();

    CompactInput(BufferAllocator allocator, CompactionSpec spec, CompactionPlan plan) {
        super(allocator);
        this.footers = plan.footers;
        this.partitions = plan.units;
        for (int u = 0; u < partitions.size(); u++) {
            for (TableFiles.DataFile f : partitions.get(u)) {
                unitOf.put(f.key(), u);
            }
        }
        this.bucketOfUnit = plan.bucketOfUnit;
        this.keyed = plan.keyRuns == null ? null : new KeyedInput(plan.keyRuns, plan.footers);
        if (keyed != null) {
            passed.skipped = KeyRuns.COLUMN;
        }
        this.allocator = allocator;
        this.client = spec.s3();
        this.options = spec.requests();
        this.table = spec.table();
        this.partitionColumns = plan.partitionColumns;
        this.partitionTypes = plan.partitionTypes;
        this.catalogColumns = plan.catalogColumns;
        this.dedupKeys = spec.dedup() == null ? null : spec.dedup().keys();
        this.dedupOrder = spec.dedup() == null ? null : spec.dedup().order();
        this.batchRows = spec.seams().batchRows();
        this.outputSchema = spec.seams().outputSchema();
        this.match = spec.removal() == null ? null : spec.removal().rows();
        this.everyRow = spec.removal() != null && spec.removal().everyRow();
        this.verb = spec.verb();
        this.plannedMatches = plan.matched == null ? -1 : plan.matched.values().stream().mapToLong(c -> c[1]).sum();
    }

    private TableReader reader(List<TableFiles.DataFile> files) {
        return new TableReader(allocator, null, new TableReader.Source(client, options, table,
                new TableFiles.Listing(partitionColumns, files), partitionTypes), null, batchRows);
    }

    /** A reader of chosen files, its schema made from their footers read before (no footer fetched for it). */
    private TableReader chosen(List<TableFiles.DataFile> files) {
        return reader(files).knownSchemas(footers.schemas(files));
    }

    /**
     * The schema of the new files: the union by name of every chosen file's columns (or the catalog's columns, then
     * the files' others), as a read has it, so that no column of any file is dropped; one for all partitions.
     */
    @Override
    protected Schema readSchema() {
        if (schema == null) {
            List<TableFiles.DataFile> all = new ArrayList<>();
            partitions.forEach(all::addAll);
            // the reader of every chosen file in unit order, whose batches the producer takes (closeQuietly closes it)
            current = chosen(all);
            if (catalogColumns != null) {
                current.catalogColumns(catalogColumns);
            }
            read = outputSchema.apply(current.schema());
            schema = keyed == null ? read : keyed.schema(table, verb, read);
            if (dedupKeys != null) {
                checkDedup(table, schema, dedupKeys, dedupOrder);
            }
        }
        return schema;
    }

    /**
     * Refuses a {@code dedupBy} of columns {@code schema} lacks, or ordered by a column whose values have no order: an
     * {@link InvalidWriteException} before anything is written, whether or not the compaction has anything to rewrite.
     */
    static void checkDedup(String table, Schema schema, List<String> keys, String order) {
        for (String c : append(keys, order)) {
            if (schema.getFields().stream().noneMatch(f -> f.getName().equalsIgnoreCase(c))) {
                throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot compact " + table + " (step: validate): "
                        + "dedupBy names the column '" + c + "', which the table does not have; its columns are "
                        + schema.getFields().stream().map(Field::getName).toList() + ". Name columns of the table in dedupBy; "
                        + "nothing was changed.");
            }
        }
        String unordered = Dedup.unordered(schema.findField(order));
        if (unordered != null) {
            throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot compact " + table + " (step: validate): "
                    + "dedupBy orders by the column '" + order + "' of the type " + unordered + ", whose values have no "
                    + "order. Order by a number, string, binary, boolean, decimal, date, time or timestamp column; nothing "
                    + "was changed.");
        }
    }

    /**
     * The next batch, read, deduplicated and added to the digest on a reader thread of its own while this thread
     * (the write's) encodes the one before: at most {@link #AHEAD} batches wait between the two.
     */
    @Override
    public boolean loadNextBatch() throws IOException {
        prepareLoadNextBatch();
        VectorSchemaRoot out = getVectorSchemaRoot();
        if (producer == null) {
            startProducer();
        }
        Object next;
        try {
            next = ready.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the partitions to compact");
        }
        if (next instanceof Produced p) {
            room.release();
            batchBucket = p.bucket();
            try (VectorSchemaRoot b = p.batch()) {
                for (int c = 0; c < b.getFieldVectors().size(); c++) {
                    b.getVector(c).makeTransferPair(out.getVector(c)).transfer();
                }
                out.setRowCount(b.getRowCount());
            }
            return true;
        }
        ready.add(next); // the end or the failure stays for any later call
        out.setRowCount(0);
        if (next instanceof IOException e) {
            throw e;
        }
        if (next instanceof RuntimeException e) {
            throw e;
        }
        if (next instanceof Error e) {
            throw e;
        }
        return false;
    }

    /** The bucket of the batch the write read last: every row of a batch is of one unit, so of one bucket. */
    int batchBucket() {
        return batchBucket;
    }

    /** A batch read ahead, and the bucket of the files it was read from (-1: none). */
    private record Produced(VectorSchemaRoot batch, int bucket) {
    }

    private static final int AHEAD = 2;
    /** Batches read ahead, then the end (or the reader's failure); unbounded, so that the last entry always goes in. */
    private final BlockingQueue<Object> ready = new LinkedBlockingQueue<>();
    /** Batches the reader may read ahead: taken before it reads one, given back when this thread takes one. */
    private final Semaphore room = new Semaphore(AHEAD);
    private static final Object END = new Object();
    private volatile boolean stopped;
    private Thread producer;

    private void startProducer() {
        Schema s = readSchema();
        producer = new Thread(() -> {
            Object last = END;
            try {
                while (true) {
                    room.acquire();
                    if (stopped) {
                        return;
                    }
                    VectorSchemaRoot b = VectorSchemaRoot.create(s, allocator);
                    boolean more;
                    try {
                        more = produce(b);
                    } catch (Throwable t) {
                        b.close();
                        throw t;
                    }
                    if (!more) {
                        b.close();
                        break;
                    }
                    ready.add(new Produced(b, bucketOfUnit.get(partition)));
                }
            } catch (InterruptedException e) {
                return; // stopped by closeQuietly
            } catch (Throwable t) {
                last = t;
            } finally {
                if (current != null) {
                    try {
                        current.close();
                    } catch (IOException | RuntimeException e) {
                        // the read's outcome is what the write needs
                    }
                    current = null;
                }
            }
            ready.add(last);
        }, "wrangler-compact-reader");
        producer.setDaemon(true);
        producer.start();
    }

    /**
     * Reads the next batch into {@code out} (the reader thread's own root): false at the end of the last unit. The
     * batches come in the read's schema (the union of the files' columns, a file's missing columns as nulls) and are
     * added to the digest so before they are put into the new files' schema: the check compares the new files with
     * every column of every file read, not with the schema they were written with.
     */
    private boolean produce(VectorSchemaRoot out) throws IOException {
        if (everyRow || !current.loadNextBatch()) {
            out.setRowCount(0);
            return false;
        }
        VectorSchemaRoot in = current.getVectorSchemaRoot();
        int n = in.getRowCount();
        TableFiles.DataFile file = current.currentFile(); // one reading thread: a batch is of one file, and it is known
        int unit = unitOf.get(file.key());
        if (unit != partition) {
            partition = unit; // the units are read one after another, in order
            keep = dedupKeys == null ? null : winners(partitions.get(partition));
            ordinal = 0;
        }
        rowsRead += n;
        List<FieldVector> from = new ArrayList<>();
        for (Field f : read.getFields()) {
            FieldVector v = vector(in, f.getName());
            if (v != null && !TableSchema.covers(f, v.getField())) {
                throw new IOException("the column '" + f.getName() + "' of " + file.key() + " is " + v.getField() + ", not " + f
                        + " as when the compaction began");
            }
            from.add(v);
        }
        String[] keys = keyed == null ? null : keyed.keysOf(file, n);
        if (match != null) {
            match.match(in, matched);
            passKept(in, out, from, keys, i -> !matched.get(i));
        } else if (keep == null) {
            passed.addAll(in);
            for (int c = 0; c < from.size(); c++) {
                if (from.get(c) != null) {
                    from.get(c).makeTransferPair(out.getVector(c)).transfer();
                } else {
                    out.getVector(c).allocateNew(); // a column the files do not have: nulls
                }
            }
            if (keys != null) {
                for (int i = 0; i < n; i++) {
                    keyed.pass(out, i, keys[i]);
                }
            }
            out.setRowCount(n);
        } else {
            long first = ordinal;
            passKept(in, out, from, keys, i -> keep.get((int) (first + i)));
            ordinal += n;
        }
        return true;
    }

    /**
     * Passes on the rows of {@code in} that dedup keeps ({@link #keep}) or a delete of rows does not match, with their
     * keys when the table is keyed.
     */
    private void passKept(VectorSchemaRoot in, VectorSchemaRoot out, List<FieldVector> from, String[] keys, IntPredicate kept) {
        int n = in.getRowCount();
        passed.add(in, kept::test);
        out.allocateNew();
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (kept.test(i)) {
                for (int c = 0; c < from.size(); c++) {
                    if (from.get(c) != null) {
                        out.getVector(c).copyFromSafe(i, k, from.get(c));
                    }
                }
                if (keys != null) {
                    keyed.pass(out, k, keys[i]);
                }
                k++;
            }
        }
        dropped += n - k;
        out.setRowCount(k);
    }

    /** The vector of {@code root} that holds the column {@code name}, matched case-insensitively; null if none. */
    private static FieldVector vector(VectorSchemaRoot root, String name) {
        FieldVector v = root.getVector(name);
        if (v != null) {
            return v;
        }
        for (FieldVector x : root.getFieldVectors()) {
            if (x.getName().equalsIgnoreCase(name)) {
                return x;
            }
        }
        return null;
    }

    /**
     * The ordinals of the rows to keep: for each key ({@link Dedup}'s equality), the row with the greatest order value,
     * and among those the one committed last: by each row's commit ({@link Dedup#byCommit}: its file's, or the one its
     * file's footer records for it, {@link CommitRuns}), then the later row of a file. The files are read in the order the
     * second pass reads them, through one reader that says each batch's file.
     */
    private BitSet winners(List<TableFiles.DataFile> files) throws IOException {
        Map<String, Integer> rankOf = Dedup.byCommit(stampsOf(files));
        Map<List<Object>, long[]> best = new HashMap<>(); // {ordinal, commit rank of its row}
        Map<List<Object>, Comparable<Object>> bestOrder = new HashMap<>();
        long at = 0;
        TableFiles.DataFile file = null;
        CommitRuns.Rows stamps = null;
        try (TableReader r = chosen(files)) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                if (!r.currentFile().equals(file)) {
                    file = r.currentFile();
                    stamps = KeyedInput.stamps(file, footers);
                }
                List<FieldVector> keys = dedupKeys.stream().map(c -> vector(b, c)).toList();
                FieldVector order = vector(b, dedupOrder);
                for (int i = 0; i < b.getRowCount(); i++, at++) {
                    long rank = rankOf.get(stamps.next());
                    List<Object> key = new ArrayList<>(keys.size());
                    for (FieldVector k : keys) {
                        key.add(k == null ? null : Dedup.key(k, i)); // no file of the unit has the column: null
                    }
                    Comparable<Object> o = order == null ? null : Dedup.order(order, i);
                    long[] was = best.get(key);
                    int c = was == null ? 1 : Dedup.compare(o, bestOrder.get(key));
                    // equal order values: the later commit wins; of one commit, the later row, read later
                    if (c > 0 || c == 0 && rank >= was[1]) {
                        best.put(key, new long[] {at, rank});
                        bestOrder.put(key, o);
                    }
                }
            }
        }
        if (at > Integer.MAX_VALUE) {
            throw new IOException("a partition of more than 2^31 rows cannot be deduplicated");
        }
        BitSet keep = new BitSet((int) at);
        best.values().forEach(v -> keep.set((int) v[0]));
        return keep;
    }

    /** Every commit stamp of the rows of {@code files}. */
    private List<String> stampsOf(List<TableFiles.DataFile> files) {
        List<String> out = new ArrayList<>();
        for (TableFiles.DataFile f : files) {
            out.add(CommitRuns.stamp(f.modified(), f.key()));
            FileFooters.Footer footer = footers.get(f.key());
            if (footer != null && footer.keyed() != null && footer.keyed().commits() != null) {
                footer.keyed().commits().forEach(run -> {
                    if (!run.key().isEmpty()) {
                        out.add(run.key());
                    }
                });
            }
        }
        return out;
    }

    /** Checks the staged files: read back, they must hold exactly the rows passed on. */
    void verify(List<StagedFile> staged, Map<String, List<String>> valuesByFolder, S3Location location) {
        long rows = staged.stream().mapToLong(StagedFile::rows).sum();
        long expected = rowsRead - dropped;
        if (rows != expected) {
            throw refused("its new files hold " + rows + " rows where " + expected + " were read"
                    + (dropped > 0 ? " and kept (" + dropped + (match != null ? " matched rows deleted)" : " duplicates dropped)") : ""));
        }
        if (plannedMatches >= 0 && dropped != plannedMatches) {
            throw refused("it matched " + dropped + " rows in the files it chose where its plan found " + plannedMatches);
        }
        List<TableFiles.DataFile> files = new ArrayList<>();
        for (StagedFile f : staged) {
            List<String> values = valuesByFolder.get(f.folder());
            if (values == null || f.stagedKey() == null) {
                throw refused("it staged " + f.finalKey() + ", outside the partitions it read");
            }
            files.add(new TableFiles.DataFile(location.bucket(), f.stagedKey(), f.bytes(), f.folder(), values));
        }
        Digest back = new Digest();
        try (TableReader r = reader(files)) {
            while (r.loadNextBatch()) {
                back.addAll(r.getVectorSchemaRoot());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ReadException e) {
            if (causedBy(e, SdkException.class)) {
                throw e; // S3 failed: nothing is known about the files
            }
            // A staged file that does not decode (a failed page checksum, another size than staged) differs from the rows read.
            throw refused("read back, its new files could not be read (" + e.getCause() + ")", e);
        }
        String type = passed.typeDifference(back);
        if (type != null) {
            throw new VerificationException(table, "Cannot " + verb + " " + table + " (step: commit): read back, " + type + ", a type "
                    + "this " + (verb.equals("compact") ? "compaction" : "rewrite") + " cannot keep for the table's files. Nothing was changed: the new files were removed before the "
                    + "commit point; the table is as before. Leave these partitions uncompacted (filter), or rewrite them with a "
                    + "write that sets the type (dtype).", null);
        }
        String diff = passed.difference(back);
        if (diff != null) {
            throw refused("read back, its new files differ from the rows read: " + diff);
        }
        if (keyed != null) {
            String keys;
            try {
                keys = keyed.difference(staged, client, options, location.bucket());
            } catch (IOException e) {
                throw refused("its new files' key runs could not be read (" + e.getMessage() + ")", e);
            }
            if (keys != null) {
                throw refused("its new files' key runs differ from the rows read: " + keys);
            }
        }
    }

    private VerificationException refused(String what) {
        return refused(what, null);
    }

    private VerificationException refused(String what, Throwable cause) {
        return new VerificationException(table, "Cannot " + verb + " " + table + " (step: commit): " + what + ". Nothing was changed: "
                + "the new files were removed before the commit point. Report this with the message; the table is as before.", cause);
    }

    void closeQuietly() {
        try {
            if (producer != null) {
                stopped = true;
                producer.interrupt();
                room.release(AHEAD);
                producer.join();
                for (Object o; (o = ready.poll()) != null; ) {
                    if (o instanceof Produced p) {
                        p.batch().close();
                    }
                }
            }
            if (current != null) {
                current.close(); // no batch was asked for: the reader the schema was read from
                current = null;
            }
            close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException ignored) {
            // the write's outcome is what the caller needs
        }
    }

    @Override
    public long bytesRead() {
        return 0;
    }

    @Override
    protected void closeReadSource() {
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> append(List<String> list, String last) {
        List<String> out = new ArrayList<>(list);
        out.add(last);
        return out;
    }
}
