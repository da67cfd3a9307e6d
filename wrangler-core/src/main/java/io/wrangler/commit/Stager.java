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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A Stager encodes the input into Parquet files under {@code _tmp/<writeId>/}, each at the same relative
 * path its final key will have, and uploads them in the background.
 *
 * <p>Files roll over at {@code maxRowsPerFile}; at most {@code maxOpenFiles} files are open, the least
 * recently written is finished beyond that. On any failure every open upload is aborted; the caller then
 * deletes what was staged. Nothing outside {@code _tmp/<writeId>/} is written.
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

    private final LinkedHashMap<Integer, Open> open = new LinkedHashMap<>(16, 0.75f, true);
    private final List<Pending> finished = new ArrayList<>();
    private int fileSeq;

    Stager(S3Store store, String tablePrefix, String stagingPrefix, String writeId, String fileSuffix,
           FileEncoder.Settings settings, WriteSpec spec, Uploads uploads, Partitioner partitioner,
           Partitioner.NewPartition validator) {
        this.store = store;
        this.tablePrefix = tablePrefix;
        this.stagingPrefix = stagingPrefix;
        this.writeId = writeId;
        this.fileSuffix = fileSuffix;
        this.settings = settings;
        this.tuning = spec.tuning();
        this.maxRowsPerFile = spec.maxRowsPerFile();
        this.uploads = uploads;
        this.hook = spec.hook();
        this.partitioner = partitioner;
        this.validator = validator;
    }

    private record Open(PartitionKey key, String folder, String relative, S3OutputStream out, FileEncoder encoder) {
    }

    private record Pending(String folder, String relative, long rows, CompletableFuture<Long> size) {
    }

    /** The partitions seen, by id. */
    List<PartitionKey> partitions() {
        return partitioner.keys();
    }

    /** Encodes and uploads every batch of the source; returns the staged files once all uploads have completed. */
    List<Manifest.File> stage(BatchSource source, BufferAllocator allocator, List<String> partitionColumns) throws IOException {
        try {
            while (source.next()) {
                VectorSchemaRoot batch = source.current();
                int[] ids = partitioner.assign(batch, validator);
                try (Partitioner.Grouped g = partitioner.group(batch, ids, allocator)) {
                    for (Partitioner.Run run : g.runs()) {
                        int from = run.from();
                        while (from < run.to()) {
                            Open f = fileFor(run.partition(), partitionColumns);
                            long room = maxRowsPerFile - f.encoder.rows();
                            int n = (int) Math.min(run.to() - from, room);
                            f.encoder.write(g.columns(), from, from + n);
                            from += n;
                            if (f.encoder.rows() >= maxRowsPerFile) {
                                finish(run.partition());
                            }
                        }
                    }
                }
            }
            for (Integer id : new ArrayList<>(open.keySet())) {
                finish(id);
            }
            List<Manifest.File> files = new ArrayList<>();
            for (Pending p : finished) {
                long size = p.size.join();
                files.add(new Manifest.File(p.folder, stagingPrefix + p.relative, tablePrefix + p.relative, size, p.rows));
            }
            return files;
        } catch (RuntimeException | IOException e) {
            abortAll(e);
            throw e;
        }
    }

    private Open fileFor(int partition, List<String> partitionColumns) throws IOException {
        Open f = open.get(partition);
        if (f != null) {
            return f;
        }
        if (open.size() >= tuning.maxOpenFiles()) {
            Iterator<Integer> eldest = open.keySet().iterator();
            finish(eldest.next());
        }
        PartitionKey key = partitioner.keys().get(partition);
        String folder = HivePaths.folder(partitionColumns, key.values());
        String relative = folder + fileName(fileSeq++);
        S3OutputStream out = store.create(stagingPrefix + relative, uploads);
        FileEncoder encoder;
        try {
            encoder = FileEncoder.open(settings, out);
        } catch (IOException | RuntimeException e) {
            out.abort();
            throw e;
        }
        f = new Open(key, folder, relative, out, encoder);
        open.put(partition, f);
        return f;
    }

    /** The file name of the n-th file of this write. */
    String fileName(int n) {
        return String.format("part-%05d-%s%s", n, writeId, fileSuffix);
    }

    private void finish(int partition) throws IOException {
        Open f = open.remove(partition);
        f.encoder.close();
        finished.add(new Pending(f.folder, f.relative, f.encoder.rows(), f.out.completion()));
        hook.reached(Step.STAGED_FILE, finished.size());
    }

    private void abortAll(Throwable failure) {
        for (Open f : open.values()) {
            f.out.abort();
        }
        open.clear();
        for (Pending p : finished) {
            try {
                p.size.join();
            } catch (RuntimeException e) {
                // the upload failed or was aborted: nothing of it is left to clean but what the caller deletes
            }
        }
    }

    /** Waits for every upload begun, successful or not, so that cleanup does not race with a late PUT. */
    void awaitUploads() {
        abortAll(null);
    }
}
