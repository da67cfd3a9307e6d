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
 * full waits, and at most {@code 2 * threads} files are taken and not yet handed over whole ({@link #take}); before the
 * read's schema is known (files decoded as they arrive, {@link #schema}), more while the batches decoded and not handed
 * over hold under {@code aheadBytes}.
 * Files are taken in order, so the file the caller is on is always one a worker holds or has finished (or, when no
 * file at or after it is taken, every permit is free for the worker that takes it): the caller never waits on a
 * worker that waits on it.
 */
final class Pipeline {
    /** Opens the decoder of the file at an index into a worker's root (its own share of the read budget). */
    interface Decoders {
        FileDecoder open(int index, VectorSchemaRoot out) throws IOException;

        /**
         * The schema of the batches the file at {@code index} is decoded into: the read's (the default), or, for a file
         * decoded before the read's schema is known, the file's own selected columns ({@link #next} maps them by name).
         * May wait for the file's footer.
         */
        default Schema schema(int index, Schema read) throws IOException {
            return read;
        }

        /** Called when the file at {@code index} was handed over whole. */
        default void done(int index) {
        }
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
    private final int files2;
    private long aheadBytes;
    /** Files taken and not yet handed over whole, and the bytes of the batches queued: guarded by {@code this}. */
    private int taken;
    private long heldBytes;

    private final String table;
    private final List<TableFiles.DataFile> files;
    private volatile Schema schema;
    private final BufferAllocator allocator;
    private final Decoders decoders;
    /** The bytes fetched of the files decoded whole. */
    private final AtomicLong bytesRead = new AtomicLong();
    /** The workers' threads, joined by {@link #close} (the pool's termination comes just before each thread ends). */
    private final List<Thread> workerThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * @param schema the read's schema, of every batch
     * @param allocator the allocator of the batches handed over
     */
    /**
     * @param schema the read's schema, of every batch handed over; null when not known yet ({@link #schema}, before the
     *     first {@link #next})
     */
    Pipeline(String table, List<TableFiles.DataFile> files, Schema schema, BufferAllocator allocator, int threads, Decoders decoders) {
        this.table = table;
        this.files = files;
        this.schema = schema;
        this.allocator = allocator;
        this.decoders = decoders;
        int n = Math.min(threads, files.size());
        files2 = 2 * n;
        workers = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "wrangler-read");
            t.setDaemon(true);
            workerThreads.add(t);
            return t;
        });
        for (int i = 0; i < n; i++) {
            workers.execute(this::work);
        }
    }

    private BlockingQueue<Object> queue(int file) {
        return queues.computeIfAbsent(file, k -> new ArrayBlockingQueue<>(AHEAD + 1));
    }

    /** The read's schema, once known, for a pipeline started before it was ({@link #next} maps each batch to it). */
    /**
     * While the read's schema is not known ({@link #schema}), the bytes of decoded batches the workers may hold ahead of
     * the caller beyond {@code 2 * threads} files. Returns this.
     */
    synchronized Pipeline aheadBytes(long bytes) {
        this.aheadBytes = bytes;
        notifyAll();
        return this;
    }

    synchronized void schema(Schema read) {
        this.schema = read;
    }

    /**
     * Waits until the worker may take another file: fewer than {@code 2 * threads} are taken and not handed over whole,
     * or, before the read's schema is known, the batches held are under {@code aheadBytes}.
     */
    private synchronized void take() throws InterruptedException {
        while (!(taken < files2 || schema == null && heldBytes < aheadBytes)) {
            wait();
        }
        taken++;
    }

    private synchronized void handedOver() {
        taken--;
        notifyAll();
    }

    private synchronized void held(long bytes) {
        heldBytes += bytes;
        notifyAll();
    }

    private static long bytes(VectorSchemaRoot batch) {
        long n = 0;
        for (FieldVector v : batch.getFieldVectors()) {
            for (org.apache.arrow.memory.ArrowBuf b : v.getBuffers(false)) {
                n += b.capacity();
            }
        }
        return n;
    }

    private void work() {
        // One root for every file this worker decodes (while the files' schemas are one): each batch's buffers are moved
        // out of it ({@link #detach}).
        VectorSchemaRoot[] work = new VectorSchemaRoot[1];
        try {
            while (!closed && decodeNext(work)) {
                work[0].clear();
            }
        } finally {
            if (work[0] != null) {
                work[0].close();
            }
        }
    }

    /** {@code work[0]} made (again) for {@code wanted} unless it has that schema already. */
    private void rootFor(VectorSchemaRoot[] work, Schema wanted) {
        if (work[0] != null && work[0].getSchema().equals(wanted)) {
            return;
        }
        if (work[0] != null) {
            work[0].close();
        }
        work[0] = VectorSchemaRoot.create(wanted, allocator);
    }

    /** Takes the next file and decodes it into {@code work}, its batches queued; false when no file is left or on close. */
    private boolean decodeNext(VectorSchemaRoot[] root) {
        try {
            take();
        } catch (InterruptedException e) {
            return false; // closed
        }
        int i = nextFile.getAndIncrement();
        if (i >= files.size()) {
            handedOver();
            return false;
        }
        BlockingQueue<Object> q = queue(i);
        try {
            rootFor(root, decoders.schema(i, schema));
            VectorSchemaRoot work = root[0];
            FileDecoder d = decoders.open(i, work);
            try {
                while (d.next()) {
                    VectorSchemaRoot batch = detach(work);
                    held(bytes(batch));
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

    /** The file the last batch handed over came from (a batch never spans files); null when every file is read. */
    TableFiles.DataFile current() {
        return reading < files.size() ? files.get(reading) : null;
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
                decoders.done(reading);
                queues.remove(reading);
                reading++;
                handedOver();
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
                held(-bytes(batch));
                handOver(batch, out);
            }
            return true;
        }
        return false;
    }

    /**
     * Moves {@code batch}'s vectors into {@code out}'s: by position when the batch has the read's schema, else by name
     * (matched case-insensitively, as the read's schema was made): a column the file lacks is nulls. The types match: the
     * read's schema was made from this file's footer, among the others, and holds its columns' types.
     */
    private static void handOver(VectorSchemaRoot batch, VectorSchemaRoot out) {
        List<FieldVector> from = batch.getFieldVectors();
        List<FieldVector> to = out.getFieldVectors();
        int n = batch.getRowCount();
        if (batch.getSchema().getFields().equals(out.getSchema().getFields())) {
            for (int c = 0; c < from.size(); c++) {
                from.get(c).makeTransferPair(to.get(c)).transfer();
            }
            out.setRowCount(n);
            return;
        }
        java.util.Map<String, FieldVector> byKey = new java.util.HashMap<>();
        for (FieldVector v : from) {
            byKey.put(TableSchema.key(v.getName()), v);
        }
        for (FieldVector v : to) {
            FieldVector f = byKey.get(TableSchema.key(v.getName()));
            if (f != null) {
                f.makeTransferPair(v).transfer();
            } else {
                v.clear();
                v.allocateNew();
            }
        }
        out.setRowCount(n);
    }

    /** Stops the workers, waits until their threads have ended, and releases every batch not handed over. */
    void close() {
        closed = true;
        workers.shutdownNow();
        // waited for even when the closing thread is interrupted (a merge's caller): a worker still decoding would put
        // batches on the allocator after the queues below were emptied and it was closed
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        boolean interrupted = false;
        try {
            while (!workers.isTerminated() || workerThreads.stream().anyMatch(Thread::isAlive)) {
                long left = until - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("the read workers of " + table + " did not stop within 60 s");
                }
                try {
                    if (!workers.awaitTermination(left, java.util.concurrent.TimeUnit.NANOSECONDS)) {
                        continue;
                    }
                    for (Thread t : workerThreads) {
                        t.join(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
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
