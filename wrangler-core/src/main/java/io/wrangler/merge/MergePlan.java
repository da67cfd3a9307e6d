package io.wrangler.merge;

import io.wrangler.PartitionFilter;
import io.wrangler.ReadException;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.KeyedFiles;
import io.wrangler.compact.Dedup;
import io.wrangler.encoding.CommitRuns;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.partition.PartitionValues;
import io.wrangler.read.ColumnValues;
import io.wrangler.read.Footers;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.read.TableSchema;
import io.wrangler.storage.Removed;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * A MergePlan is what a merge changes, settled from reads only (the dry run stops here): the table listed, the
 * partitions it matches in (those the input's rows go to, and the scope's), the files there that can hold an input key
 * by their footers and bloom filters ({@link KeyFilter}), then those files' key columns read to find the ones that do hold one, and for
 * each input key what happens (only files holding an updated key are rewritten): inserted (no row of the table has it), updated (the table's rows of it are dropped and
 * the input's row written), unchanged (the table's rows stay: {@code KEEP_EXISTING}, or a newer order value).
 */
final class MergePlan {
    /**
     * Files decoded at once by the merge's reads (the scan of keys, the rewrite, the check's read-back), each on a thread
     * of its own, batches still in file order: the machine's cores, at most 4, as a read of the table decodes.
     */
    static final int READ_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    /**
     * The matched rows the scan keeps for the rewrite (8 bytes each, 8 MiB in all): the rows of the table that hold an
     * input key, bounded by the input in any merge that rewrites little; past this bound a file's rows are looked up again.
     * Not final: a test lowers it to take the other path.
     */
    static volatile long matchesKept = 1 << 20;
    /**
     * Whether the scan looks a key of one column up where its values lie in the files' pages ({@link ColumnValues}), for
     * the files whose key column allows it, instead of in vectors decoded from them. Not final: a test turns it off to
     * take the vectors' path for every file and compare.
     */
    static volatile boolean keyPages = true;
    final MergeSpec spec;
    final InputRows input;
    final MergeColumns columns;
    /** Every file of the matched partitions when planned: the check under the lease finds exactly these. */
    final List<TableFiles.DataFile> scanned = new ArrayList<>();
    /** The files that hold an updated key, in listing order: read, written again without the updated keys' rows. */
    final List<TableFiles.DataFile> rewrite = new ArrayList<>();
    /** The footers of the scanned files, by key. */
    final Map<String, ParquetMetadata> footers = new HashMap<>();
    /** The key runs of each marked file rewritten; null when no file is rewritten (then the new files need no key column). */
    Map<String, List<KeyRuns.Run>> keyRuns;
    /** The footer records of each marked file rewritten, by key. */
    private final Map<String, Footers.Keyed> keyed = new HashMap<>();
    /** The keys (by their numbers in the input's {@link KeyIndex}) whose rows in the table are dropped (their input row written instead). */
    final BitSet updated = new BitSet();
    /** The files the footers could not rule out, in listing order. */
    private List<TableFiles.DataFile> candidates = List.of();
    /** The keys found in the table, and their newest order values: every scan's findings joined. */
    private final Scan seen = new Scan();
    long inserted;
    long unchanged;
    /** The partitions the input's rows go to. */
    private final Set<List<String>> inputPartitions = new HashSet<>();
    /** Each input row's partition, per batch, as a number into {@link #partitionFolders}. */
    private final List<int[]> rowPartitions = new ArrayList<>();
    /** The folders of the input's partitions, by number. */
    private final List<String> partitionFolders = new ArrayList<>();
    /** The values of the input's partitions, by number then partition column, as UTF-8 text (null: a null value). */
    private final List<byte[][]> partitionTexts = new ArrayList<>();
    /** The partitions the merge writes or rewrites, as folders below the table, in order. */
    final Set<String> touched = new LinkedHashSet<>();

    private MergePlan(MergeSpec spec, InputRows input, MergeColumns columns) {
        this.spec = spec;
        this.input = input;
        this.columns = columns;
    }

    /** Plans the merge of {@code input}; reads only. */
    static MergePlan of(MergeSpec spec, InputRows input, BufferAllocator allocator) {
        S3Store store = new S3Store(spec.s3(), spec.location().bucket(), spec.requests());
        java.util.concurrent.CompletableFuture<KeyFilter> early = KeyFilter.early(spec, input); // made while the table is listed
        try {
            Listed listed = list(spec, store);
            MergeColumns columns = MergeColumns.of(spec, input, listed.listing, listed.layout);
            MergePlan plan = new MergePlan(spec, input, columns);
            plan.plan(listed, early, allocator);
            return plan;
        } finally {
            KeyFilter.ended(early); // its thread reads the input: ended before the input may be closed
        }
    }

    private void plan(Listed listed, java.util.concurrent.CompletableFuture<KeyFilter> early, BufferAllocator allocator) {
        inputPartitions.addAll(inputPartitions());
        for (TableFiles.DataFile f : listed.listing.files()) {
            if (scans(f)) {
                scanned.add(f);
            }
        }
        try {
            readFooters();
            columns.tableSchema(schemaReader(allocator, listed.listing), spec, input);
            scanKeys(allocator, early);
            decide();
            chooseRewrites();
            readKeyRuns(); // of the files chosen: a rewrite of a keyed file keeps whose rows are whose
        } catch (IOException e) {
            throw MergeErrors.readFailed(spec, e);
        } catch (SdkException e) {
            throw MergeErrors.readFailed(spec, e);
        } catch (ReadException e) {
            // the scan's read of a file the plan listed (and read the footer of) found it gone: the table changed
            if (Removed.by(e)) {
                throw MergeErrors.removed(spec, e);
            }
            throw e;
        }
    }

    /** The table as listed, and its catalog's layout (null without a catalog). */
    record Listed(TableFiles.Listing listing, TableLayout layout) {
    }

    /** Lists the table (through the catalog when given); a table with no object yet is a listing of no files. */
    static Listed list(MergeSpec spec, S3Store store) {
        CatalogTable catalog = spec.catalog();
        try {
            TableLayout layout = catalog == null ? null : catalog.layout();
            if (layout == null) {
                if (store.firstEntries(spec.location().prefix(), 1).isEmpty()) {
                    return new Listed(new TableFiles.Listing(List.of(), List.of()), null);
                }
                return new Listed(new TableFiles(store, spec.location()).verb("merge into").list(PartitionFilter.all()), null);
            }
            TableFiles.Listing listing = new TableFiles(store, spec.location()).verb("merge into").list(layout, PartitionFilter.all(), b -> {
                if (!b.equals(spec.location().bucket())) {
                    throw MergeErrors.outside(spec, b);
                }
                return store;
            });
            return new Listed(listing, layout);
        } catch (SdkException e) {
            throw new ReadException(spec.table(), spec.cannot("list") + "listing the table failed: " + e.getMessage()
                    + ". Nothing was changed; check s3:ListBucket and rerun.", e);
        }
    }

    /** Whether the merge matches keys in the file {@code f}: it lies in a partition the input writes to, or in the scope. */
    boolean scans(TableFiles.DataFile f) {
        return inputPartitions.contains(f.values()) || spec.scope() != null && spec.scope().test(values(columns.partitionColumns, f));
    }

    /** The partition values (unescaped text, null for the default partition) of every input row, once each. */
    private Set<List<String>> inputPartitions() {
        Map<List<String>, Integer> numbers = new LinkedHashMap<>();
        // the rows' partition values told apart in their bytes first: each distinct one rendered as text once, not every row
        KeyIndex distinct = input.batches.isEmpty() || columns.partitionColumns.isEmpty() ? null : new KeyIndex(
                columns.inputPartitionVectors(input.batches.get(0)).stream().map(v -> v.getField().getType()).toList(),
                b -> columns.inputPartitionVectors(input.batches.get(b)));
        int[] numberOf = new int[0];
        for (int b = 0; b < input.batches.size(); b++) {
            List<FieldVector> p = columns.inputPartitionVectors(input.batches.get(b));
            int[] of = new int[input.batches.get(b).getRowCount()];
            for (int i = 0; i < of.length; i++) {
                int id = distinct == null ? -1 : distinct.add(p, b, i); // -1: a null value, rendered every time
                if (id >= numberOf.length) {
                    int was = numberOf.length;
                    numberOf = java.util.Arrays.copyOf(numberOf, Math.max(16, id * 2));
                    java.util.Arrays.fill(numberOf, was, numberOf.length, -1);
                }
                if (id >= 0 && numberOf[id] >= 0) {
                    of[i] = numberOf[id];
                    continue;
                }
                of[i] = numbers.computeIfAbsent(partitionOf(p, i), k -> numbers.size());
                if (id >= 0) {
                    numberOf[id] = of[i];
                }
            }
            rowPartitions.add(of);
        }
        numbers.keySet().forEach(k -> {
            partitionFolders.add(columns.folderOf(k));
            byte[][] text = new byte[k.size()][];
            for (int c = 0; c < k.size(); c++) {
                text[c] = k.get(c) == null ? null : k.get(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            }
            partitionTexts.add(text);
        });
        return numbers.keySet();
    }

    static List<String> partitionOf(List<FieldVector> p, int i) {
        List<String> values = new ArrayList<>(p.size());
        for (FieldVector v : p) {
            values.add(PartitionValues.render(v, i));
        }
        return values;
    }

    private static Map<String, String> values(List<String> columns, TableFiles.DataFile f) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int c = 0; c < columns.size(); c++) {
            out.put(columns.get(c), f.values().get(c));
        }
        return out;
    }

    /** Reads the footer of every scanned file once, {@code concurrency} at a time (one GET each). */
    private void readFooters() throws IOException {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
                Math.max(1, Math.min(spec.options().concurrency(), scanned.size())));
        try {
            List<java.util.concurrent.Future<ParquetMetadata>> read = new ArrayList<>();
            for (TableFiles.DataFile f : scanned) {
                read.add(pool.submit(() -> Footers.footer(spec.s3(), spec.requests(), f.bucket(), f.key(), f.size(), f.eTag())));
            }
            for (int i = 0; i < scanned.size(); i++) {
                footers.put(scanned.get(i).key(), joined(read.get(i)));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static <T> T joined(java.util.concurrent.Future<T> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading the footers");
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException(e.getCause());
        }
    }

    /** A reader whose schema is the table's: the scanned files' (from their footers), else one file's, else none (null). */
    private TableReader schemaReader(BufferAllocator allocator, TableFiles.Listing listing) {
        List<TableFiles.DataFile> files = scanned.isEmpty() ? listing.files().stream().limit(1).toList() : scanned;
        if (files.isEmpty()) {
            return null;
        }
        TableReader r = reader(allocator, files, null);
        return scanned.isEmpty() ? r : r.knownSchemas(schemas(files));
    }

    List<MessageType> schemas(List<TableFiles.DataFile> files) {
        return files.stream().map(f -> footers.get(f.key()).getFileMetaData().getSchema()).toList();
    }

    TableReader reader(BufferAllocator allocator, List<TableFiles.DataFile> files, List<String> selected) {
        TableReader r = new TableReader(allocator, null, new TableReader.Source(spec.s3(), spec.requests(), spec.table(),
                new TableFiles.Listing(columns.partitionColumns, files), columns.partitionTypes), selected, 65_536).threads(READ_THREADS);
        if (columns.catalogColumns != null) {
            r.catalogColumns(columns.catalogColumns);
        }
        return r;
    }

    /**
     * Reads the key columns (and the order column) of the scanned files that can hold an input key by their footers, and
     * notes which files hold one, and each found key's newest order value. The files are split among up to
     * {@link #READ_THREADS} threads, each reading its share and looking its rows' keys up on its own (a {@link KeyIndex.Probe}
     * each); their findings are joined after.
     */
    private void scanKeys(BufferAllocator allocator, java.util.concurrent.CompletableFuture<KeyFilter> early) throws IOException {
        KeyFilter filter = KeyFilter.of(spec, input, columns, columns.tableFields(), early);
        List<TableFiles.DataFile> candidates = new ArrayList<>();
        for (TableFiles.DataFile f : scanned) {
            if (filter.mayHold(f, footers.get(f.key()))) {
                candidates.add(f);
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        List<String> selected = new ArrayList<>();
        input.keys.forEach(k -> selected.add(columns.tableName(k)));
        String order = input.order == null ? null : columns.tableNameOrNull(input.order);
        if (order != null) {
            selected.add(order);
        }
        int threads = Math.min(READ_THREADS, candidates.size());
        List<List<TableFiles.DataFile>> shares = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            shares.add(new ArrayList<>());
        }
        for (int i = 0; i < candidates.size(); i++) {
            shares.get(i % threads).add(candidates.get(i));
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "wrangler-merge-scan");
            t.setDaemon(true);
            return t;
        });
        try {
            List<java.util.concurrent.Future<Scan>> scans = new ArrayList<>();
            for (List<TableFiles.DataFile> share : shares) {
                scans.add(pool.submit(() -> scan(allocator, share, selected, order, matchesKept / threads)));
            }
            for (java.util.concurrent.Future<Scan> f : scans) {
                seen.join(joined(f));
            }
        } finally {
            stopped(pool);
        }
        this.candidates = candidates;
    }

    /**
     * Stops the scan's threads and waits until they have ended: when one failed (or the caller was interrupted), the others
     * must not still read, on the merge's allocator, after the failure went up and the allocator was closed. A thread in a
     * GET that an interrupt does not end (a socket read) is waited for until the GET ends (its timeout).
     */
    private static void stopped(java.util.concurrent.ExecutorService pool) {
        pool.shutdownNow();
        boolean interrupted = false;
        while (true) {
            try {
                if (pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true; // the caller's interrupt: kept for it, after the threads ended
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** What (one thread of) the scan found: the input keys each of its files holds, the keys found, their newest order values. */
    private final class Scan {
        /** The input keys each file holds, by its key. */
        final Map<String, BitSet> holding = new HashMap<>();
        /** The keys found in the table. */
        final BitSet found = new BitSet();
        /** The greatest order value of each found key's rows in the table (with an order column), by key number. */
        Comparable<Object>[] newest;
        /**
         * The rows of each file that hold an input key, as {@code row << 32 | key} in row order (row counted from 0 in the
         * file), so that the rewrite drops them without looking every row's key up again; a file whose rows would pass
         * this thread's share of {@link #matchesKept} has none here (the rewrite looks its keys up).
         */
        final Map<String, long[]> matches = new HashMap<>();
        /** The files whose matched rows were not all kept (over the bound). */
        final Set<String> unkept = new HashSet<>();
        /** Matched rows kept, and how many may be. */
        long kept;
        long keepable = Long.MAX_VALUE;
        private String file;
        private long[] rows;
        private int count;

        /** Notes that row {@code row} of {@code f} (counted from 0) holds the key {@code key}. */
        void matched(String f, long row, int key) {
            if (!f.equals(file)) {
                flush();
                file = f;
                rows = new long[16];
                count = 0;
            }
            if (rows == null) {
                return; // over the bound: this file's rows are looked up again
            }
            if (row > Integer.MAX_VALUE || kept >= keepable) {
                unkept.add(f);
                rows = null;
                return;
            }
            if (count == rows.length) {
                rows = java.util.Arrays.copyOf(rows, count * 2);
            }
            rows[count++] = row << 32 | key;
            kept++;
        }

        /** Ends the matched rows of the current file. */
        void flush() {
            if (file != null && rows != null && !unkept.contains(file)) {
                matches.put(file, java.util.Arrays.copyOf(rows, count)); // a file is read by one thread, whole
            }
            file = null;
            rows = null;
        }

        /** Notes a row of the key {@code key} in the table, of the order value {@code order} (with an order column). */
        @SuppressWarnings("unchecked")
        void note(int key, Comparable<Object> order) {
            boolean first = !found.get(key);
            found.set(key);
            if (input.order != null) {
                if (newest == null) {
                    newest = new Comparable[input.index.size()];
                }
                if (first || Dedup.compare(order, newest[key]) > 0) {
                    newest[key] = order;
                }
            }
        }

        /** Joins another thread's findings into these. */
        void join(Scan other) {
            holding.putAll(other.holding);
            matches.putAll(other.matches);
            unkept.addAll(other.unkept);
            for (int key = other.found.nextSetBit(0); key >= 0; key = other.found.nextSetBit(key + 1)) {
                note(key, other.newest == null ? null : other.newest[key]);
            }
        }
    }

    /**
     * Reads the key columns (and the order column) of {@code files} (one after another, on this thread) and looks their
     * rows' keys up: where a file's key column allows it ({@link #byPages}), its values where they lie in its pages, else
     * decoded into vectors.
     */
    private Scan scan(BufferAllocator allocator, List<TableFiles.DataFile> files, List<String> selected, String order, long keepable)
            throws IOException {
        Scan found = new Scan();
        found.keepable = keepable;
        List<TableFiles.DataFile> paged = new ArrayList<>();
        List<TableFiles.DataFile> decoded = new ArrayList<>();
        for (TableFiles.DataFile f : files) {
            (byPages(f, selected, order) ? paged : decoded).add(f);
        }
        if (!paged.isEmpty()) {
            scanPages(paged, selected.get(0), found);
        }
        if (!decoded.isEmpty()) {
            scanVectors(allocator, decoded, selected, order, found);
        }
        found.flush();
        return found;
    }

    /**
     * Whether the key column of {@code f} is looked up where its values lie in its pages: one key column, compared by its
     * bytes, no order column, and the file's column of the input key's very type in pages {@link ColumnValues} reads.
     */
    private boolean byPages(TableFiles.DataFile f, List<String> selected, String order) {
        return keyPages && order == null && selected.size() == 1 && input.index.byPages()
                && ColumnValues.scannable(footers.get(f.key()), selected.get(0), input.index.type());
    }

    /** Looks the keys of {@code files} up where their values lie in the key column's pages ({@link KeyIndex#pages}). */
    private void scanPages(List<TableFiles.DataFile> files, String column, Scan found) {
        KeyIndex.Probe probe = input.index.probe();
        new ColumnValues(spec.s3(), spec.requests(), spec.table()).scan(files, files.stream().map(f -> footers.get(f.key())).toList(),
                column, input.index.type(), i -> {
                    String file = files.get(i).key();
                    BitSet[] holds = {null};
                    return input.index.pages(probe, (row, key) -> {
                        if (holds[0] == null) {
                            holds[0] = found.holding.computeIfAbsent(file, f -> new BitSet());
                        }
                        holds[0].set(key);
                        found.matched(file, row, key);
                        found.note(key, null);
                    });
                });
    }

    /** Reads the selected columns of {@code files} into vectors and looks their rows' keys up, into {@code found}. */
    private void scanVectors(BufferAllocator allocator, List<TableFiles.DataFile> files, List<String> selected, String order, Scan found)
            throws IOException {
        KeyIndex.Probe probe = input.index.probe();
        String last = null;
        int[] keys = new int[0]; // each row's key number, or -1
        long at = 0; // the rows of the current file before this batch
        // the footers the plan read moments before: not fetched and parsed again for the decoding
        try (TableReader r = reader(allocator, files, selected).threads(1).knownFooters(files.stream().map(f -> footers.get(f.key())).toList())) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                List<FieldVector> k = selected.subList(0, input.keys.size()).stream().map(b::getVector).toList();
                FieldVector o = order == null ? null : b.getVector(order);
                String file = r.currentFile().key();
                if (!file.equals(last)) {
                    last = file;
                    at = 0;
                }
                BitSet holds = null;
                if (keys.length < b.getRowCount()) {
                    keys = new int[b.getRowCount()];
                }
                input.index.bind(k, probe).findAll(b.getRowCount(), keys);
                for (int i = 0; i < b.getRowCount(); i++) {
                    int key = keys[i];
                    if (key >= 0) {
                        if (holds == null) {
                            holds = found.holding.computeIfAbsent(file, f -> new BitSet());
                        }
                        holds.set(key);
                        found.matched(file, at + i, key);
                        found.note(key, o == null ? null : Dedup.order(o, i));
                    }
                }
                at += b.getRowCount();
            }
        }
    }

    /**
     * The rows of the file {@code f} that hold an input key, as {@code row << 32 | key} in row order, as the scan found
     * them; null when the scan did not keep them (over {@link #matchesKept}): the rewrite then looks every row's key up.
     */
    long[] matches(TableFiles.DataFile f) {
        return seen.matches.get(f.key());
    }

    /** The rows of the file {@code f} by its footer (as planned). */
    long rows(TableFiles.DataFile f) {
        return footers.get(f.key()).getBlocks().stream().mapToLong(b -> b.getRowCount()).sum();
    }

    /**
     * The key runs of the marked files rewritten: a rewrite keeps whose rows are whose (see KeyedRewrite); and, whenever
     * a file is rewritten, the key column, which carries each kept row's commit stamp too ({@link CommitRuns}): the rows
     * a merge keeps keep their commit order, they do not become as new as its own.
     */
    private void readKeyRuns() throws IOException {
        Map<String, List<KeyRuns.Run>> runs = new HashMap<>();
        for (TableFiles.DataFile f : rewrite) {
            if (KeyedFiles.marked(f.key())) {
                ParquetMetadata m = footers.get(f.key());
                long rows = m.getBlocks().stream().mapToLong(b -> b.getRowCount()).sum();
                Footers.Keyed k = Footers.keyed(m.getFileMetaData(), rows, f.bucket(), f.key());
                runs.put(f.key(), k.runs());
                keyed.put(f.key(), k);
            }
        }
        keyRuns = rewrite.isEmpty() ? null : runs;
    }

    /** The commit stamps of the rows of the rewritten file {@code f}, row after row. */
    CommitRuns.Rows stamps(TableFiles.DataFile f) {
        Footers.Keyed k = keyed.get(f.key());
        String own = CommitRuns.stamp(k != null && k.committed() != null ? k.committed() : f.modified(), f.key());
        return k != null ? k.stamps(own) : new CommitRuns.Rows(own, null);
    }

    /** The files that hold an updated key: rewritten. A file holding only kept keys is left as it is. */
    private void chooseRewrites() {
        for (TableFiles.DataFile f : candidates) {
            BitSet keys = seen.holding.get(f.key());
            if (keys != null && keys.intersects(updated)) {
                rewrite.add(f);
                touched.add(f.folder());
            }
        }
    }

    /** Decides each input key's fate; see the class comment. */
    private void decide() {
        for (int key = 0; key < input.index.size(); key++) {
            long winner = input.winner[key];
            if (!seen.found.get(key)) {
                inserted++;
                touch(winner);
            } else if (spec.keepExisting() || input.order != null && Dedup.compare(inputOrder(winner), seen.newest[key]) < 0) {
                unchanged++;
            } else {
                updated.set(key);
                touch(winner);
            }
        }
    }

    private Comparable<Object> inputOrder(long ref) {
        return Dedup.order(input.batches.get((int) (ref >>> 32)).getVector(input.order), (int) ref);
    }

    /**
     * The value of the partition column {@code column} (its place among the table's) of the input row {@code row} of batch
     * {@code batch}, as the text of its folder in UTF-8, rendered once per distinct partition when planned; null for a null.
     */
    byte[] inputPartitionText(int batch, int row, int column) {
        return partitionTexts.get(rowPartitions.get(batch)[row])[column];
    }

    private void touch(long ref) {
        touched.add(partitionFolders.get(rowPartitions.get((int) (ref >>> 32))[(int) ref]));
    }

    /** Whether the input row {@code ref}, of the key numbered {@code key}, is written: its key's winner, inserted or updated. */
    boolean written(int key, long ref) {
        return key >= 0 && input.winner[key] == ref && (updated.get(key) || !seen.found.get(key));
    }

    /** Whether there is anything to change. */
    boolean empty() {
        return inserted == 0 && updated.isEmpty();
    }

    /** The column of the rows' idempotency keys, which the encoder records in the footers ({@link KeyRuns}). */
    static Field keyColumn() {
        return new Field(KeyRuns.COLUMN, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    }

    /** The output schema: the table's columns, the input's new ones, then the rows' key ids when a file is rewritten. */
    Schema output() {
        List<Field> fields = new ArrayList<>(columns.output.getFields());
        if (keyRuns != null) {
            fields.add(keyColumn());
        }
        return new Schema(fields);
    }
}
