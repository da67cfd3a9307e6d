package io.wrangler.bench;

import io.wrangler.CompactionResult;
import io.wrangler.S3Parquet;
import io.wrangler.read.FullBatches;
import io.wrangler.testkit.NetworkProfile;
import java.lang.management.ManagementFactory;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Repeats one read of the standard table (partitioned by dt and country, every column decoded) from an in-memory S3,
 * for a profiler to watch (JFR: {@code java -XX:StartFlightRecording=filename=read.jfr ... io.wrangler.bench.ReadLoop
 * 1000000 30 0}). Arguments: rows, repetitions, decoding threads (0: the reader's default), and {@code compact} to
 * compact instead a fresh table of 200 partitions x 20 small files (the rows of ReadBench's compaction) each repetition.
 * Prints each run's wall and CPU seconds.
 */
public final class ReadLoop {
    private ReadLoop() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        S3Client sim = new SimS3(NetworkProfile.none(), 64, null).keepingData();
        if (args.length > 3 && args[3].equals("compact")) {
            compact(sim, rows, reps);
            return;
        }
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot table = StandardTable.rows(allocator, 0, rows)) {
            S3Parquet.write(table).partitionBy("dt", "country").s3(sim).to("s3://sim/std/");
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int i = 0; i < reps; i++) {
            long start = System.nanoTime();
            long cpu = os.getProcessCpuTime();
            long read = 0;
            try (ArrowReader r = S3Parquet.read("s3://sim/std/").s3(sim).open()) {
                if (threads > 0) {
                    ((FullBatches) r).threads(threads);
                }
                while (r.loadNextBatch()) {
                    read += r.getVectorSchemaRoot().getRowCount();
                }
            }
            if (read != rows) {
                throw new IllegalStateException("read " + read + " rows of " + rows);
            }
            System.out.printf("%.3f s, %.3f s of CPU%n", (System.nanoTime() - start) / 1e9, (os.getProcessCpuTime() - cpu) / 1e9);
        }
    }

    private static void compact(S3Client sim, int rows, int reps) {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (RootAllocator allocator = new RootAllocator()) {
            List<String> tables = new ArrayList<>();
            for (int i = 0; i < reps; i++) {
                tables.add(ReadBench.smallFiles(allocator, sim, "s3://sim/small" + i + "/", rows));
            }
            System.out.println("# tables written at " + LocalTime.now() + "; compacting");
            for (String table : tables) {
                long start = System.nanoTime();
                long cpu = os.getProcessCpuTime();
                CompactionResult r = S3Parquet.compact(table).s3(sim).run();
                System.out.printf("%.3f s, %.3f s of CPU, %d files to %d%n", (System.nanoTime() - start) / 1e9,
                        (os.getProcessCpuTime() - cpu) / 1e9, r.filesBefore(), r.filesAfter());
            }
        }
    }
}
