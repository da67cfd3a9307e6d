package io.wrangler.staging;

import io.wrangler.Progress;
import io.wrangler.encoding.FileEncoder;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.input.BatchSource;
import io.wrangler.partition.Buckets;
import io.wrangler.partition.PartitionKey;
import io.wrangler.partition.Partitioner;
import io.wrangler.storage.S3OutputStream;
import io.wrangler.storage.S3Store;
import io.wrangler.storage.Uploads;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A Stager encodes the input into Parquet files under {@code _tmp/<writeId>/}, each at the same relative path its
 * final key will have, and uploads them in the background.
 *
 * <p>Each batch is regrouped into one run of rows per partition; the runs are encoded in parallel, one task per
 * partition, on the encoding pool (a file is only ever touched by one task at a time). Files roll over at
 * {@code maxRowsPerFile} and {@code targetFileSize}. In the last batch of an input known in advance, each file is
 * finished as soon as its run is encoded. Between batches of a stream, beyond {@code maxOpenFiles} open files or
 * {@code openBytes} held in memory (open row groups and parts being filled), files are finished early (least recently written, then largest).
 *
 * <p>A stream that interleaves more partitions than can stay open (a batch would open more than {@code maxOpenFiles},
 * or brings rows of a partition finished early) switches to spilling: the files open then are finished, every later
 * row goes to a {@link PartitionSpill} on local disk, and at the end each partition is encoded from it into whole files,
 * one partition per encoding thread. Memory then stays bounded by the batch, the encoders and the upload buffers,
 * whatever the input's size; each partition gets at most one file more than its size asks for.
 *
 * <p>With bucketing ({@link Buckets}), each row goes to its partition's file of its bucket: the unit that gets files
 * (its own open file, run, spill and file numbers) is then a group, one partition and one bucket, and the file name
 * gets awswrangler's bucket suffix. Without, a group is a partition.
 *
 * <p>File names are {@code part-<partition>-<n>-<writeId>[_bucket-<b>]}: the same input gives the same names. On any failure every
 * open upload is aborted; the caller then deletes what was staged. Nothing outside {@code _tmp/<writeId>/} is written,
 * except with {@code CommitMethod.DEFERRED_UPLOADS}: then each file is a multipart upload at its final key, all parts
 * sent but not completed (invisible until the publish step completes it).
 */
public final class Stager {
    private final S3Store store;
    private final String tablePrefix;
    private final String stagingPrefix;
    private final String writeId;
    private final String fileSuffix;
    private final String filenamePrefix;
    private final FileEncoder.Settings settings;
    private final int maxOpenFiles;
    private final long openBytes;
    private final long maxRowsPerFile;
    private final Uploads uploads;
    private final IntConsumer fileStaged;
    private final Partitioner partitioner;
    /** Null without bucketing: then a group is a partition. */
    private final Buckets buckets;
    private final Partitioner.NewPartition validator;
    private final ExecutorService encoders;
    /** The folder below the table root of each partition: its Hive folder, or where the catalog registers it. */
    private final Function<PartitionKey, String> folderOf;

    private final Map<Integer, Open> open = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> filesOfPartition = new ConcurrentHashMap<>();
    private final List<Pending> finished = new ArrayList<>();
    private final AtomicInteger staged = new AtomicInteger();
    private final AtomicLong rowsEncoded = new AtomicLong();
    private final AtomicLong bytesUploaded = new AtomicLong();
    private final long targetFileSize;
    private final Progress progress;
    private final Path spillDirectory;
    private final boolean deferred;
    /** Partitions whose file was finished early to keep within maxOpenFiles or openBytes. */
    private final Set<Integer> cutEarly = ConcurrentHashMap.newKeySet();
    private volatile PartitionSpill spill;
    private int batchNumber;

    /**
     * @param uploads the write's upload pool and its bound on part buffers
     * @param buckets the bucketing of the rows, or null for none
     * @param validator refuses a partition as it is first met (a streamed input's; a replayable one was checked before)
     * @param encoders the pool that encodes partitions' runs in parallel
     * @param folderOf the folder below the table root of a partition
     */
    public Stager(StagingContext context, Uploads uploads, Partitioner partitioner, Buckets buckets, Partitioner.NewPartition validator,
                  ExecutorService encoders, Function<PartitionKey, String> folderOf) {
        this.store = context.store();
        this.tablePrefix = context.tablePrefix();
        this.stagingPrefix = context.stagingPrefix();
        this.writeId = context.writeId();
        this.fileSuffix = context.fileSuffix();
        this.filenamePrefix = context.filenamePrefix();
        this.settings = context.encoding().withHelpers(encoders);
        this.maxOpenFiles = context.maxOpenFiles();
        this.openBytes = context.openBytes();
        this.maxRowsPerFile = context.maxRowsPerFile();
        this.targetFileSize = context.targetFileSize();
        this.progress = context.progress();
        this.spillDirectory = context.spillDirectory();
        this.deferred = context.deferred();
        this.uploads = uploads;
        this.fileStaged = context.fileStaged();
        this.partitioner = partitioner;
        this.buckets = buckets;
        this.validator = validator;
        this.encoders = encoders;
        this.folderOf = folderOf;
    }

    private static final class Open {
        final int partition;
        final int number;
        final String folder;
        final String relative;
        final S3OutputStream out;
        final FileEncoder encoder;
        volatile int lastBatch;

        Open(int partition, int number, String folder, String relative, S3OutputStream out, FileEncoder encoder) {
            this.partition = partition;
            this.number = number;
            this.folder = folder;
            this.relative = relative;
            this.out = out;
            this.encoder = encoder;
        }

        /**
         * The bytes this file holds in memory: its open row group (the encoder's pages, arrays and dictionaries, not
         * only the encoded estimate that decides its row groups) and the part being filled. Parts handed to an upload
         * are bounded by maxPendingParts, not here.
         */
        long held() {
            // Only a write changes it, and every write sets lastBatch first: computed again only for files written since,
            // so that a stream of small batches over many open files does not sum every file's pages after each batch.
            if (heldAt != lastBatch) {
                heldBytes = encoder.heldBytes(out.position()) + out.unsent();
                heldAt = lastBatch;
            }
            return heldBytes;
        }

        private int heldAt = -1;
        private long heldBytes;
    }

    private record Pending(int partition, int number, String folder, String relative, long rows, CompletableFuture<Long> size,
                           S3OutputStream out) {
    }

    /** The partitions seen, by id. */
    public List<PartitionKey> partitions() {
        return partitioner.keys();
    }

    /**
     * The file name of the n-th file of a partition (of a bucket, for {@code bucket >= 0}): awswrangler puts {@code
     * _bucket-<5 digits>} after its name and before the codec, and so do we (see {@code WriteIds.ofFile}).
     */
    public static String fileName(int partition, int n, String writeId, int bucket, String suffix) {
        return String.format("part-%05d-%03d-%s%s%s", partition, n, writeId, bucket < 0 ? "" : String.format("_bucket-%05d", bucket), suffix);
    }

    private int partitionOf(int group) {
        return buckets == null ? group : buckets.partitionOf(group);
    }

    private int bucketOf(int group) {
        return buckets == null ? -1 : buckets.bucketOf(group);
    }

    /**
     * Encodes and uploads every batch of the source; returns the staged files, in partition then file order, once all
     * uploads have completed.
     *
     * @param assigned the partition ids of each batch's rows when a validation pass computed them already, else null
     */
    public List<StagedFile> stage(BatchSource source, BufferAllocator allocator, List<String> folderNames, List<int[]> assigned)
            throws IOException {
        Iterator<int[]> ids = assigned == null ? null : assigned.iterator();
        int batches = assigned == null ? -1 : assigned.size();
        long rowsRead = 0;
        try {
            while (source.next()) {
                VectorSchemaRoot batch = source.current();
                int[] rowIds = ids != null ? ids.next() : partitioner.assign(batch, validator);
                if (ids == null && buckets != null) {
                    rowIds = buckets.assign(batch, rowIds, rowsRead);
                }
                rowsRead += batch.getRowCount();
                batchNumber++;
                boolean last = batchNumber == batches;
                try (Partitioner.Grouped g = partitioner.group(batch, rowIds, allocator, encoders)) {
                    if (spill == null && !last && mustSpill(g.runs())) {
                        startSpilling(g.columns());
                    }
                    List<Callable<Void>> tasks = new ArrayList<>();
                    for (Partitioner.Run run : g.runs()) {
                        tasks.add(() -> {
                            if (spill != null) {
                                spill.append(run.partition(), g.columns(), run.from(), run.to());
                            } else {
                                writeRows(run.partition(), g.columns(), run.from(), run.to(), folderNames, last);
                            }
                            return null;
                        });
                    }
                    runAll(tasks);
                }
                if (spill == null) {
                    evictLeastRecentlyWritten();
                }
            }
            finishAll();
            if (spill != null) {
                encodeSpilled(allocator, folderNames);
            }
            return finishedFiles();
        } catch (RuntimeException | IOException e) {
            abortAll();
            throw e;
        } finally {
            if (spill != null) {
                spill.close();
            }
        }
    }

    /** The finished files, in partition then file order, once all uploads have completed. */
    private List<StagedFile> finishedFiles() {
        finished.sort(Comparator.comparingInt((Pending p) -> partitionOf(p.partition())).thenComparingInt(p -> bucketOf(p.partition()))
                .thenComparingInt(Pending::number));
        List<StagedFile> files = new ArrayList<>();
        for (Pending p : finished) {
            long size = p.size.join();
            files.add(deferred
                    ? new StagedFile(p.folder, null, tablePrefix + p.relative, size, p.rows, p.out.uploadId(), p.out.etags())
                    : new StagedFile(p.folder, stagingPrefix + p.relative, tablePrefix + p.relative, size, p.rows, null, null));
        }
        return files;
    }

    /**
     * Stages one file of no rows that carries the write's columns, in the table root: what a write of no rows leaves in a
     * new unpartitioned, unbucketed table, so that every reader finds the table and its schema (as Spark and DuckDB's
     * {@code COPY} write a file of no rows for an empty result). Only after {@link #stage} staged nothing.
     */
    public List<StagedFile> stageEmptyFile(List<String> folderNames) throws IOException {
        if (buckets != null || !finished.isEmpty() || !open.isEmpty()) {
            throw new IllegalStateException("a file of no rows is staged only for an unbucketed write that staged nothing");
        }
        try {
            partitioner.assign(new VectorSchemaRoot(List.of()), validator); // the table root, the one partition of an unpartitioned table
            fileFor(0, folderNames);
            finish(0);
            return finishedFiles();
        } catch (RuntimeException | IOException e) {
            abortAll();
            throw e;
        }
    }

    private void finishAll() throws IOException {
        List<Callable<Void>> closing = new ArrayList<>();
        for (Integer id : new ArrayList<>(open.keySet())) {
            closing.add(() -> {
                finish(id);
                return null;
            });
        }
        runAll(closing);
    }

    /**
     * Whether the input interleaves more partitions than can stay open: this batch alone has more partitions than
     * maxOpenFiles, or it has rows of a partition whose file was already finished early to stay within bounds. Either
     * way, writing on would cut partitions into many small files; spilling keeps one file per partition (per target
     * size). An input that moves from partition to partition never comes back to one finished early, and is not spilled.
     */
    private boolean mustSpill(List<Partitioner.Run> runs) {
        if (runs.size() > maxOpenFiles) {
            return true;
        }
        for (Partitioner.Run run : runs) {
            if (cutEarly.contains(run.partition())) {
                return true;
            }
        }
        return false;
    }

    /** From now on every row goes to the spill; the files open now are finished as they are (at most one more file each). */
    private void startSpilling(List<FieldVector> columns) throws IOException {
        finishAll();
        List<Field> fields = new ArrayList<>();
        for (FieldVector v : columns) {
            fields.add(v.getField());
        }
        spill = new PartitionSpill(spillDirectory, writeId, fields);
    }

    /** Encodes each spilled partition into whole files, one partition per encoding thread at a time. */
    private void encodeSpilled(BufferAllocator allocator, List<String> folderNames) throws IOException {
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int partition : spill.partitions()) {
            tasks.add(() -> {
                spill.read(partition, allocator, (columns, rows) -> writeRows(partition, columns, 0, rows, folderNames, false));
                if (open.containsKey(partition)) {
                    finish(partition);
                }
                return null;
            });
        }
        runAll(tasks);
    }

    private void runAll(List<Callable<Void>> tasks) throws IOException {
        if (tasks.size() == 1) {
            try {
                tasks.get(0).call();
                return;
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        List<Future<Void>> futures;
        try {
            futures = encoders.invokeAll(tasks);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while encoding");
        }
        Throwable failure = null;
        for (Future<Void> f : futures) {
            try {
                f.get();
            } catch (ExecutionException e) {
                Throwable t = e.getCause();
                if (t instanceof Error err) {
                    throw err;
                }
                if (failure == null) {
                    failure = t;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while encoding");
            }
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }

    /**
     * Encodes rows {@code [from, to)} of one partition, rolling over to new files at maxRowsPerFile and targetFileSize
     * (checked every slice of rows). Runs on an encoding thread, the only one touching this partition's file.
     *
     * @param last no more rows of this partition follow: its file is finished at once, so its upload overlaps the
     *     encoding of other partitions and its buffers are freed
     */
    private void writeRows(int partition, List<FieldVector> columns, int from, int to, List<String> folderNames, boolean last)
            throws IOException {
        while (from < to) {
            Open f = fileFor(partition, folderNames);
            f.lastBatch = batchNumber;
            long room = maxRowsPerFile - f.encoder.rows();
            int n = (int) Math.min(Math.min(to - from, room), rowsTowardTarget(f.encoder));
            f.encoder.write(columns, from, from + n);
            from += n;
            progress.rowsEncoded(rowsEncoded.addAndGet(n));
            if (f.encoder.rows() >= maxRowsPerFile || f.encoder.size() >= targetFileSize) {
                finish(partition);
            }
        }
        if (last && open.containsKey(partition)) {
            finish(partition);
        }
    }

    /**
     * How many rows to hand the encoder before checking targetFileSize again: 16,384 at first, then 90% of the rows
     * that should fill the rest of the file at the bytes per row seen so far. Large slices keep long runs on the
     * encoder's parallel row groups; the file still ends within about a slice of the target.
     */
    private int rowsTowardTarget(FileEncoder encoder) {
        if (targetFileSize == Long.MAX_VALUE) {
            return Integer.MAX_VALUE;
        }
        long rows = encoder.rows();
        long size = encoder.size();
        if (rows == 0 || size <= 0) {
            return 16_384;
        }
        double perRow = (double) size / rows;
        long toward = (long) ((targetFileSize - size) / perRow * 0.9);
        return (int) Math.max(16_384, Math.min(Integer.MAX_VALUE, toward));
    }

    private Open fileFor(int partition, List<String> folderNames) throws IOException {
        Open f = open.get(partition);
        if (f != null) {
            return f;
        }
        PartitionKey key = partitioner.keys().get(partitionOf(partition));
        String folder = folderOf.apply(key);
        int number = filesOfPartition.merge(partition, 1, Integer::sum) - 1;
        // A file whose rows carry their keys records them in its footer and says so in its name (KeyRuns.MARK).
        String named = settings.keyRuns() ? writeId + KeyRuns.MARK : writeId;
        String relative = folder + filenamePrefix + fileName(partitionOf(partition), number, named, bucketOf(partition), fileSuffix);
        S3OutputStream out = deferred ? store.createDeferred(tablePrefix + relative, uploads) : store.create(stagingPrefix + relative, uploads);
        FileEncoder encoder;
        try {
            encoder = FileEncoder.open(settings, out);
        } catch (IOException | RuntimeException e) {
            out.abort();
            throw e;
        }
        f = new Open(partition, number, folder, relative, out, encoder);
        open.put(partition, f);
        return f;
    }

    /**
     * Keeps the open files within bounds between batches: at most maxOpenFiles (the least recently written are finished),
     * and at most openBytes held in memory together (the largest are finished until half of it is left, or one file).
     */
    private void evictLeastRecentlyWritten() throws IOException {
        List<Open> finishing = new ArrayList<>();
        int excess = open.size() - maxOpenFiles;
        if (excess > 0) {
            List<Open> byAge = new ArrayList<>(open.values());
            byAge.sort(Comparator.comparingInt(o -> o.lastBatch));
            finishing.addAll(byAge.subList(0, excess));
        }
        long held = 0;
        for (Open o : open.values()) {
            if (!finishing.contains(o)) {
                held += o.held();
            }
        }
        if (held > openBytes) {
            List<Open> bySize = new ArrayList<>(open.values());
            bySize.removeAll(finishing);
            bySize.sort(Comparator.comparingLong(Open::held).reversed());
            for (Open o : bySize) {
                // the last open file is never finished early: one file's row group and part are bounded by their own
                // sizes, and a new file would grow the same way (a 64 MiB heap's budget is about one file's)
                if (held <= openBytes / 2 || finishing.size() >= open.size() - 1) {
                    break;
                }
                held -= o.held();
                finishing.add(o);
            }
        }
        List<Callable<Void>> closing = new ArrayList<>();
        for (Open o : finishing) {
            cutEarly.add(o.partition);
            closing.add(() -> {
                finish(o.partition);
                return null;
            });
        }
        runAll(closing);
    }

    private void finish(int partition) throws IOException {
        Open f = open.remove(partition);
        f.encoder.close();
        // Staging waits for this future, so progress has heard of every byte before the manifest is written.
        CompletableFuture<Long> uploaded = f.out.completion().thenApply(size -> {
            progress.bytesUploaded(bytesUploaded.addAndGet(size));
            return size;
        });
        synchronized (finished) {
            finished.add(new Pending(f.partition, f.number, f.folder, f.relative, f.encoder.rows(), uploaded, f.out));
        }
        int count = staged.incrementAndGet();
        progress.filesStaged(count);
        fileStaged.accept(count);
    }

    private void abortAll() {
        for (Open f : open.values()) {
            f.out.abort();
        }
        open.clear();
        awaitUploads();
        if (deferred) {
            // Deferred uploads live at final keys, outside the staging folder that the caller removes.
            List<Pending> all;
            synchronized (finished) {
                all = new ArrayList<>(finished);
            }
            for (Pending p : all) {
                p.out.abort();
            }
        }
    }

    /** Waits for every upload begun, successful or not, so that cleanup does not race with a late PUT. */
    private void awaitUploads() {
        List<Pending> all;
        synchronized (finished) {
            all = new ArrayList<>(finished);
        }
        for (Pending p : all) {
            try {
                p.size.join();
            } catch (RuntimeException e) {
                // the upload failed or was aborted: nothing of it is left to clean but what the caller deletes
            }
        }
    }

}
