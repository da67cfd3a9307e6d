package io.wrangler.commit;

import io.wrangler.encoding.FileEncoder;
import io.wrangler.input.BatchSource;
import io.wrangler.partition.HivePaths;
import io.wrangler.partition.PartitionKey;
import io.wrangler.partition.Partitioner;
import io.wrangler.storage.S3OutputStream;
import io.wrangler.storage.S3Store;
import io.wrangler.storage.Uploads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A Stager encodes the input into Parquet files under {@code _tmp/<writeId>/}, each at the same relative path its
 * final key will have, and uploads them in the background.
 *
 * <p>Each batch is regrouped into one run of rows per partition; the runs are encoded in parallel, one task per
 * partition, on the encoding pool (a file is only ever touched by one task at a time). Files roll over at
 * {@code maxRowsPerFile}; beyond {@code maxOpenFiles} open files, the least recently written are finished between
 * batches. File names are {@code part-<partition>-<n>-<writeId>}: the same input gives the same names. On any
 * failure every open upload is aborted; the caller then deletes what was staged. Nothing outside
 * {@code _tmp/<writeId>/} is written.
 */
final class Stager {
    private final S3Store store;
    private final String tablePrefix;
    private final String stagingPrefix;
    private final String writeId;
    private final String fileSuffix;
    private final FileEncoder.Settings settings;
    private final WriteSpec.Tuning tuning;
    private final long maxRowsPerFile;
    private final Uploads uploads;
    private final StepHook hook;
    private final Partitioner partitioner;
    private final Partitioner.NewPartition validator;
    private final ExecutorService encoders;

    private final Map<Integer, Open> open = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> filesOfPartition = new ConcurrentHashMap<>();
    private final List<Pending> finished = new ArrayList<>();
    private final AtomicInteger staged = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong rowsEncoded = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong bytesUploaded = new java.util.concurrent.atomic.AtomicLong();
    private final long targetFileSize;
    private final io.wrangler.Progress progress;
    private int batchNumber;

    Stager(S3Store store, String tablePrefix, String stagingPrefix, String writeId, String fileSuffix,
           FileEncoder.Settings settings, WriteSpec spec, Uploads uploads, Partitioner partitioner,
           Partitioner.NewPartition validator, ExecutorService encoders) {
        this.store = store;
        this.tablePrefix = tablePrefix;
        this.stagingPrefix = stagingPrefix;
        this.writeId = writeId;
        this.fileSuffix = fileSuffix;
        this.settings = settings;
        this.tuning = spec.tuning();
        this.maxRowsPerFile = spec.maxRowsPerFile();
        this.targetFileSize = spec.targetFileSize();
        this.progress = spec.progress();
        this.uploads = uploads;
        this.hook = spec.hook();
        this.partitioner = partitioner;
        this.validator = validator;
        this.encoders = encoders;
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
    }

    private record Pending(int partition, int number, String folder, String relative, long rows, CompletableFuture<Long> size) {
    }

    /** The partitions seen, by id. */
    List<PartitionKey> partitions() {
        return partitioner.keys();
    }

    /** The file name of the n-th file of a partition. */
    static String fileName(int partition, int n, String writeId, String suffix) {
        return String.format("part-%05d-%03d-%s%s", partition, n, writeId, suffix);
    }

    /**
     * Encodes and uploads every batch of the source; returns the staged files, in partition then file order, once all
     * uploads have completed.
     *
     * @param assigned the partition ids of each batch's rows when a validation pass computed them already, else null
     */
    List<Manifest.File> stage(BatchSource source, BufferAllocator allocator, List<String> folderNames, Iterator<int[]> assigned)
            throws IOException {
        try {
            while (source.next()) {
                VectorSchemaRoot batch = source.current();
                int[] ids = assigned != null ? assigned.next() : partitioner.assign(batch, validator);
                batchNumber++;
                try (Partitioner.Grouped g = partitioner.group(batch, ids, allocator)) {
                    List<Callable<Void>> tasks = new ArrayList<>();
                    for (Partitioner.Run run : g.runs()) {
                        tasks.add(() -> {
                            writeRun(run, g.columns(), folderNames);
                            return null;
                        });
                    }
                    runAll(tasks);
                }
                evictLeastRecentlyWritten();
            }
            List<Callable<Void>> closing = new ArrayList<>();
            for (Integer id : new ArrayList<>(open.keySet())) {
                closing.add(() -> {
                    finish(id);
                    return null;
                });
            }
            runAll(closing);
            finished.sort(Comparator.comparingInt(Pending::partition).thenComparingInt(Pending::number));
            List<Manifest.File> files = new ArrayList<>();
            for (Pending p : finished) {
                long size = p.size.join();
                files.add(new Manifest.File(p.folder, stagingPrefix + p.relative, tablePrefix + p.relative, size, p.rows));
            }
            return files;
        } catch (RuntimeException | IOException e) {
            abortAll();
            throw e;
        }
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
            throw new java.io.InterruptedIOException("interrupted while encoding");
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
                throw new java.io.InterruptedIOException("interrupted while encoding");
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
     * Encodes one partition's run of rows, rolling over to new files at maxRowsPerFile and targetFileSize (checked every
     * slice of rows). Runs on an encoding thread.
     */
    private void writeRun(Partitioner.Run run, List<FieldVector> columns, List<String> folderNames) throws IOException {
        int slice = targetFileSize == Long.MAX_VALUE ? Integer.MAX_VALUE : 16_384;
        int from = run.from();
        while (from < run.to()) {
            Open f = fileFor(run.partition(), folderNames);
            f.lastBatch = batchNumber;
            long room = maxRowsPerFile - f.encoder.rows();
            int n = (int) Math.min(Math.min(run.to() - from, room), slice);
            f.encoder.write(columns, from, from + n);
            from += n;
            progress.rowsEncoded(rowsEncoded.addAndGet(n));
            if (f.encoder.rows() >= maxRowsPerFile || f.encoder.size() >= targetFileSize) {
                finish(run.partition());
            }
        }
    }

    private Open fileFor(int partition, List<String> folderNames) throws IOException {
        Open f = open.get(partition);
        if (f != null) {
            return f;
        }
        PartitionKey key = partitioner.keys().get(partition);
        String folder = HivePaths.folder(folderNames, key.values());
        int number = filesOfPartition.merge(partition, 1, Integer::sum) - 1;
        String relative = folder + fileName(partition, number, writeId, fileSuffix);
        S3OutputStream out = store.create(stagingPrefix + relative, uploads);
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
     * and at most openBytes held in memory together (the largest are finished until half of it is left).
     */
    private void evictLeastRecentlyWritten() throws IOException {
        List<Open> finishing = new ArrayList<>();
        int excess = open.size() - tuning.maxOpenFiles();
        if (excess > 0) {
            List<Open> byAge = new ArrayList<>(open.values());
            byAge.sort(Comparator.comparingInt(o -> o.lastBatch));
            finishing.addAll(byAge.subList(0, excess));
        }
        long held = 0;
        for (Open o : open.values()) {
            if (!finishing.contains(o)) {
                held += o.encoder.size();
            }
        }
        if (held > tuning.openBytes()) {
            List<Open> bySize = new ArrayList<>(open.values());
            bySize.removeAll(finishing);
            bySize.sort(Comparator.comparingLong((Open o) -> o.encoder.size()).reversed());
            for (Open o : bySize) {
                if (held <= tuning.openBytes() / 2) {
                    break;
                }
                held -= o.encoder.size();
                finishing.add(o);
            }
        }
        List<Callable<Void>> closing = new ArrayList<>();
        for (Open o : finishing) {
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
            finished.add(new Pending(f.partition, f.number, f.folder, f.relative, f.encoder.rows(), uploaded));
        }
        int count = staged.incrementAndGet();
        progress.filesStaged(count);
        hook.reached(Step.STAGED_FILE, count);
    }

    private void abortAll() {
        for (Open f : open.values()) {
            f.out.abort();
        }
        open.clear();
        awaitUploads();
    }

    /** Waits for every upload begun, successful or not, so that cleanup does not race with a late PUT. */
    void awaitUploads() {
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
