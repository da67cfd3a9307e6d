package io.wrangler.read;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * A Pipeline decodes files on {@code threads} workers, each taking the next file not yet taken, and hands their batches
 * to the caller in file order. Each file has a queue of at most {@link #AHEAD} decoded batches; a worker whose queue is
 * full waits, and at most {@code 2 * threads} files are taken and not yet handed over whole ({@link #inFlight}).
 * Files are taken in order, so the file the caller is on is always one a worker holds or has finished (or, when no
 * file at or after it is taken, every permit is free for the worker that takes it): the caller never waits on a
 * worker that waits on it.
 */
final class Pipeline {
    /** Opens the decoder of the file at an index into a worker's root (its own share of the read budget). */
    interface Decoders {
        FileDecoder open(int index, VectorSchemaRoot out) throws IOException;
    }

    /** Decoded batches a worker may hold ready for the caller, per file. */
    static final int AHEAD = 2;
    private static final Object END = new Object();
    private final ExecutorService workers;
    private final AtomicInteger nextFile = new AtomicInteger();
    private final ConcurrentHashMap<Integer, BlockingQueue<Object>> queues =
            new ConcurrentHashMap<>();
    private volatile boolean closed;
    private int reading;
    /**
     * Files a worker may hold, taken and not yet handed over whole: without this bound, workers that decode faster
     * than the caller takes batches would hold every file of a table of small files in memory.
     */
    private final Semaphore inFlight;

    private final String table;
    private final List<TableFiles.DataFile> files;
    private final Schema schema;
    private final BufferAllocator allocator;
    private final Decoders decoders;
    /** The bytes fetched of the files decoded whole. */
    private final AtomicLong bytesRead = new AtomicLong();

    /**
     * @param schema the read's schema, of every batch
     * @param allocator the allocator of the batches handed over
     */
    Pipeline(String table, List<TableFiles.DataFile> files, Schema schema, BufferAllocator allocator, int threads, Decoders decoders) {
        this.table = table;
        this.files = files;
        this.schema = schema;
        this.allocator = allocator;
        this.decoders = decoders;
        int n = Math.min(threads, files.size());
        inFlight = new Semaphore(2 * n);
        workers = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "wrangler-read");
            t.setDaemon(true);
            return t;
        });
        for (int i = 0; i < n; i++) {
            workers.execute(this::work);
        }
    }

    private BlockingQueue<Object> queue(int file) {
        return queues.computeIfAbsent(file, k -> new ArrayBlockingQueue<>(AHEAD + 1));
    }

    private void work() {
        // One root for every file this worker decodes: each batch's buffers are moved out of it ({@link #detach}).
        try (VectorSchemaRoot work = VectorSchemaRoot.create(schema, allocator)) {
            while (!closed && decodeNext(work)) {
                work.clear();
            }
        }
    }

    /** Takes the next file and decodes it into {@code work}, its batches queued; false when no file is left or on close. */
    private boolean decodeNext(VectorSchemaRoot work) {
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            return false; // closed
        }
        int i = nextFile.getAndIncrement();
        if (i >= files.size()) {
            inFlight.release();
            return false;
        }
        BlockingQueue<Object> q = queue(i);
        try {
            FileDecoder d = decoders.open(i, work);
            try {
                while (d.next()) {
                    VectorSchemaRoot batch = detach(work);
                    try {
                        q.put(batch);
                    } catch (InterruptedException e) {
                        batch.close();
                        throw e;
                    }
                }
                bytesRead.addAndGet(d.bytesRead());
            } finally {
                d.close();
            }
            q.put(END);
            return true;
        } catch (InterruptedException e) {
            return false; // closed
        } catch (Throwable e) {
            q.offer(e); // room for it: the batches before it are in the queue or taken, and END was not put
            return false;
        }
    }

    /** Moves the next batch in file order into {@code out}; false when every file is read. */
    boolean next(VectorSchemaRoot out) throws IOException {
        while (reading < files.size()) {
            BlockingQueue<Object> q = queue(reading);
            Object x;
            try {
                x = q.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading " + table);
            }
            if (x == END) {
                queues.remove(reading);
                reading++;
                inFlight.release();
                continue;
            }
            if (x instanceof IOException e) {
                throw ReadErrors.failed(table, files.get(reading), e);
            }
            if (x instanceof RuntimeException e) {
                throw ReadErrors.failed(table, files.get(reading), e);
            }
            if (x instanceof Error e) {
                throw e;
            }
            try (VectorSchemaRoot batch = (VectorSchemaRoot) x) {
                List<FieldVector> from = batch.getFieldVectors();
                List<FieldVector> to = out.getFieldVectors();
                for (int c = 0; c < from.size(); c++) {
                    from.get(c).makeTransferPair(to.get(c)).transfer();
                }
                out.setRowCount(batch.getRowCount());
            }
            return true;
        }
        return false;
    }

    /** Stops the workers and releases every batch not handed over. */
    void close() {
        closed = true;
        workers.shutdownNow();
        try {
            if (!workers.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("the read workers of " + table + " did not stop within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (BlockingQueue<Object> q : queues.values()) {
            for (Object x : q) {
                if (x instanceof VectorSchemaRoot r) {
                    r.close();
                }
            }
        }
        queues.clear();
    }

    /** The bytes fetched of the files decoded whole so far. */
    long bytesRead() {
        return bytesRead.get();
    }

    /** The batch in {@code work}, moved into vectors of its own; {@code work} is left empty for the next one. */
    private VectorSchemaRoot detach(VectorSchemaRoot work) {
        List<FieldVector> moved = new ArrayList<>();
        for (FieldVector v : work.getFieldVectors()) {
            TransferPair t = v.getTransferPair(allocator);
            t.transfer();
            moved.add((FieldVector) t.getTo());
        }
        return new VectorSchemaRoot(work.getSchema().getFields(), moved, work.getRowCount());
    }
}
