package io.wrangler.bench;

import io.wrangler.S3Parquet;
import io.wrangler.WriteResult;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import io.wrangler.testkit.GeneratedReader;
import org.apache.arrow.memory.RootAllocator;

/**
 * The streaming benchmark: the standard table's formulas with {@code dt} over 50 days (1,000 partitions), generated
 * batch by batch behind an {@link ArrowReader} and written through {@code S3Parquet.write(ArrowReader)} to the null
 * sink, to show that memory stays bounded whatever the table's size. Arguments: rows (default 50,000,000), days
 * (default 50). Run with {@code BENCH_HEAP=512m ./bench.sh --stream}.
 */
public final class StreamBench {
    private StreamBench() {
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 50_000_000L;
        int days = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            pool.resetPeakUsage();
        }
        NullS3 sink = new NullS3();
        long start = System.nanoTime();
        WriteResult r;
        // Batches of the standard table, made on demand: the whole table never exists in memory.
        try (RootAllocator allocator = new RootAllocator();
             GeneratedReader reader = new GeneratedReader(allocator, StandardTable.schema(), rows, 65_536,
                     (root, first, count) -> StandardTable.fill(root, first, count, days))) {
            r = S3Parquet.write(reader).partitionBy("dt", "country").lease(false).s3(sink).to("s3://sink/stream/");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long heap = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heap += pool.getPeakUsage().getUsed();
            }
        }
        String rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM")).findFirst().orElse("VmHWM ?");
        System.out.printf("# stream: %,d rows into %d partitions through write(ArrowReader), max heap %d MiB%n", r.rows(), r.partitions().size(),
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf("%.1f s, %d files, %,d bytes, peak heap %d MiB, peak RSS %s%n", seconds, r.paths().size(), sink.bytes.get(), heap >> 20,
                rss.replaceAll("\\s+", " ").substring(6).trim());
    }
}
