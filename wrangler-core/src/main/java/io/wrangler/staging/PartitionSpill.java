package io.wrangler.staging;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * A PartitionSpill keeps the rows of a streamed input on local disk, grouped by partition, so that each partition can
 * be encoded into whole files at the end, one partition per encoding thread, however the input interleaved them.
 *
 * <p>One temporary file holds every spilled run as an Arrow IPC record batch (uncompressed: it lives in the page cache
 * for as long as the write runs), appended in arrival order; an index in memory lists each partition's runs, 16 bytes a
 * run. Appends may come from several threads; reads of different partitions may run in parallel. The file is deleted on
 * {@link #close()} and, should the JVM stop first, at its exit; a killed process leaves it in the temporary directory,
 * where it is not part of the table.
 */
final class PartitionSpill implements AutoCloseable {
    private final Path path;
    private final FileChannel channel;
    private final Schema schema;
    private final TreeMap<Integer, Runs> runs = new TreeMap<>();
    private long end;
    private long rows;

    /** The offsets, lengths and row counts of one partition's runs, in arrival order. */
    private static final class Runs {
        long[] offsets = new long[8];
        int[] lengths = new int[8];
        int count;
        long rows;

        void add(long offset, int length, int n) {
            if (count == offsets.length) {
                offsets = Arrays.copyOf(offsets, count * 2);
                lengths = Arrays.copyOf(lengths, count * 2);
            }
            offsets[count] = offset;
            lengths[count] = length;
            count++;
            rows += n;
        }
    }

    PartitionSpill(Path directory, String writeId, List<Field> fields) throws IOException {
        Files.createDirectories(directory);
        this.path = Files.createTempFile(directory, "wrangler-spill-" + writeId + "-", ".arrows");
        path.toFile().deleteOnExit();
        this.channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.schema = new Schema(fields);
    }

    /** Appends rows {@code [from, to)} of the columns (in the order of the fields) to a partition. Thread-safe. */
    void append(int partition, List<FieldVector> columns, int from, int to) throws IOException {
        byte[] bytes = serialize(columns, from, to);
        synchronized (this) {
            long at = end;
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer, at + buffer.position());
            }
            end += bytes.length;
            rows += to - from;
            runs.computeIfAbsent(partition, p -> new Runs()).add(at, bytes.length, to - from);
        }
    }

    private byte[] serialize(List<FieldVector> columns, int from, int to) throws IOException {
        List<FieldVector> sliced = new ArrayList<>(columns.size());
        try {
            for (FieldVector v : columns) {
                // The slice stays with the column's own allocator: the input's, when a batch was passed through ungrouped.
                TransferPair pair = v.getTransferPair(v.getAllocator());
                pair.splitAndTransfer(from, to - from);
                sliced.add((FieldVector) pair.getTo());
            }
            List<Field> fields = new ArrayList<>(sliced.size());
            for (FieldVector v : sliced) {
                fields.add(v.getField());
            }
            VectorSchemaRoot root = new VectorSchemaRoot(fields, sliced, to - from);
            ByteArrayOutputStream out = new ByteArrayOutputStream(64 + (to - from) * 8 * columns.size());
            try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
                MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), batch);
            }
            return out.toByteArray();
        } finally {
            sliced.forEach(FieldVector::close);
        }
    }

    /** The partitions that have spilled rows, in id order. */
    synchronized List<Integer> partitions() {
        return new ArrayList<>(runs.keySet());
    }

    /** Rows spilled in all. */
    synchronized long rows() {
        return rows;
    }

    /** Bytes on local disk. */
    synchronized long bytes() {
        return end;
    }

    /** Told of each run of a partition, in arrival order; the columns are valid only during the call. */
    interface RunConsumer {
        void accept(List<FieldVector> columns, int rows) throws IOException;
    }

    /** Reads one partition's runs back in the order they were appended. Partitions may be read in parallel. */
    void read(int partition, BufferAllocator allocator, RunConsumer consumer) throws IOException {
        long[] offsets;
        int[] lengths;
        int count;
        synchronized (this) {
            Runs r = runs.get(partition);
            if (r == null) {
                return;
            }
            offsets = r.offsets;
            lengths = r.lengths;
            count = r.count;
        }
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            VectorLoader loader = new VectorLoader(root);
            for (int i = 0; i < count; i++) {
                ByteBuffer buffer = ByteBuffer.allocate(lengths[i]);
                while (buffer.hasRemaining()) {
                    if (channel.read(buffer, offsets[i] + buffer.position()) < 0) {
                        throw new IOException("the spill file " + path + " ended early: it was changed or truncated while the write ran");
                    }
                }
                ReadChannel in = new ReadChannel(Channels.newChannel(new ByteArrayInputStream(buffer.array())));
                try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(in, allocator)) {
                    loader.load(batch);
                }
                consumer.accept(root.getFieldVectors(), root.getRowCount());
            }
        }
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            Files.deleteIfExists(path);
        }
    }
}
