package io.wrangler.bench;

import io.wrangler.S3Parquet;
import java.lang.management.ManagementFactory;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Repeats one encode-only write of the standard table to the null sink, for a profiler to watch (JFR:
 * {@code java -XX:StartFlightRecording=filename=enc.jfr ... io.wrangler.bench.EncodeLoop partitioned 5000000 10}).
 * Arguments: {@code partitioned|flat}, rows, repetitions. Prints each run's wall and CPU seconds.
 */
public final class EncodeLoop {
    private EncodeLoop() {
    }

    public static void main(String[] args) throws Exception {
        boolean partitioned = !"flat".equals(args.length > 0 ? args[0] : "partitioned");
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 5_000_000;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot table = StandardTable.rows(allocator, 0, rows)) {
            NullS3 sink = new NullS3();
            // CPU time as well as wall time: on a shared machine the CPU seconds of the process vary less than the wall
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            for (int i = 0; i < reps; i++) {
                long start = System.nanoTime();
                long cpu = os.getProcessCpuTime();
                if (partitioned) {
                    S3Parquet.write(table).partitionBy("dt", "country").lease(false).s3(sink).to("s3://sink/p/");
                } else {
                    S3Parquet.write(table).lease(false).s3(sink).to("s3://sink/f/");
                }
                System.out.printf("%.2f s, %.2f s of CPU, %,d bytes%n", (System.nanoTime() - start) / 1e9,
                        (os.getProcessCpuTime() - cpu) / 1e9, sink.bytes.getAndSet(0));
            }
        }
    }
}
