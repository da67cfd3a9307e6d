package io.wrangler.bench;

import io.wrangler.CommitMethod;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.testkit.LocalS3;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The benchmark of wrangler against DuckDB on the standard table (shared/reference/peers.md), in one JVM, runs
 * alternating and repeated, medians reported. Arguments: rows (default 5,000,000), repetitions (default 3).
 * Run with {@code ./bench.sh}; BENCHMARKS.md keeps the figures.
 */
public final class Bench {
    private Bench() {
    }

    interface Run {
        void run() throws Exception;
    }

    private static final String FLOOR = "LocalS3 floor: PUT + CopyObject of the same 200 files, no wrangler";
    private static final String DEFERRED = "wrangler partitioned, end to end to LocalS3, deferred uploads";

    public static void main(String[] args) throws Exception {
        // --encode: the four encode runs only (DuckDB's two COPYs and wrangler's two encode-only writes), no LocalS3 run
        boolean encodeOnly = args.length > 0 && args[0].equals("--encode");
        if (encodeOnly) {
            args = Arrays.copyOfRange(args, 1, args.length);
        }
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        System.out.printf("# wrangler bench: %,d rows, %d repetitions, %d cores, max heap %d MiB, %s%n", rows, reps,
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"));
        Path work = Files.createTempDirectory("wrangler-bench-");
        try (RootAllocator allocator = new RootAllocator();
             VectorSchemaRoot table = StandardTable.rows(allocator, 0, Math.toIntExact(rows));
             LocalS3 local = LocalS3.start();
             Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            try (Statement st = duck.createStatement()) {
                st.execute("SET threads = " + Runtime.getRuntime().availableProcessors());
                st.execute("SET TimeZone = 'UTC'");
                st.execute("CREATE TABLE t AS " + StandardTable.duckdbSql(rows));
            }
            checkSameRows(duck, table);
            RequestCounter counter = new RequestCounter();
            S3Client counted = local.newClient(b -> b.overrideConfiguration(o -> o.addExecutionInterceptor(counter)));
            local.createBucket("bench");
            NullS3 sink = new NullS3();

            Map<String, Run> runs = new LinkedHashMap<>();
            int[] n = {0};
            runs.put("duckdb partitioned", () -> copy(duck, "COPY t TO '" + work.resolve("duck-p" + n[0]++)
                    + "' (FORMAT PARQUET, PARTITION_BY (dt, country), COMPRESSION SNAPPY)"));
            runs.put("duckdb flat", () -> copy(duck, "COPY t TO '" + work.resolve("duck-f" + n[0]++ + ".parquet") + "' (FORMAT PARQUET, COMPRESSION SNAPPY)"));
            runs.put("wrangler partitioned, encode only", () -> S3Parquet.write(table).partitionBy("dt", "country").lease(false).s3(sink).to("s3://sink/p/"));
            runs.put("wrangler flat, encode only", () -> S3Parquet.write(table).lease(false).s3(sink).to("s3://sink/f/"));
            ExecutorService floorPool = Executors.newFixedThreadPool(8);
            if (!encodeOnly) {
                runs.put("wrangler partitioned, end to end to LocalS3", () -> S3Parquet.write(table).partitionBy("dt", "country")
                        .mode(WriteMode.OVERWRITE_PARTITIONS).s3(counted).to("s3://bench/e2e" + n[0]++ + "/"));
                runs.put(DEFERRED, () -> S3Parquet.write(table).partitionBy("dt", "country").commitMethod(CommitMethod.DEFERRED_UPLOADS)
                        .mode(WriteMode.OVERWRITE_PARTITIONS).s3(counted).to("s3://bench/e2e" + n[0]++ + "/"));

                // The floor of the end-to-end runs: LocalS3's own cost for the same requests with no wrangler work at all, one
                // PUT to a staging key and one CopyObject per file of the partitioned write, on as many threads as wrangler uses.
                WriteResult sample = S3Parquet.write(table).partitionBy("dt", "country").s3(counted).to("s3://bench/sample/");
                List<byte[]> files = new ArrayList<>();
                for (String path : sample.paths()) {
                    files.add(local.get("bench", path.substring("s3://bench/".length())));
                }
                runs.put(FLOOR, () -> {
                    String prefix = "floor" + n[0]++ + "/";
                    List<Future<?>> done = new ArrayList<>();
                    for (int f = 0; f < files.size(); f++) {
                        byte[] bytes = files.get(f);
                        String key = prefix + "p" + f + ".parquet";
                        done.add(floorPool.submit(() -> {
                            counted.putObject(b -> b.bucket("bench").key(prefix + "_tmp/" + key), RequestBody.fromBytes(bytes));
                            counted.copyObject(b -> b.sourceBucket("bench").sourceKey(prefix + "_tmp/" + key).destinationBucket("bench").destinationKey(key));
                        }));
                    }
                    for (Future<?> d : done) {
                        d.get();
                    }
                });
            }

            Map<String, List<Double>> seconds = new LinkedHashMap<>();
            Map<String, Long> peakHeap = new LinkedHashMap<>();
            runs.keySet().forEach(k -> seconds.put(k, new ArrayList<>()));
            for (Run warmUp : runs.values()) {
                warmUp.run(); // one untimed run of each, DuckDB's included, so that every timed run is JIT-compiled
            }
            for (int rep = 0; rep < reps; rep++) {
                List<String> order = new ArrayList<>(runs.keySet());
                if (rep % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String name : order) {
                    settle();
                    resetPeaks();
                    long start = System.nanoTime();
                    runs.get(name).run();
                    seconds.get(name).add((System.nanoTime() - start) / 1e9);
                    peakHeap.merge(name, heapPeak(), Math::max);
                }
            }
            Map<String, Double> median = new LinkedHashMap<>();
            seconds.forEach((k, v) -> median.put(k, median(v)));
            System.out.println();
            System.out.println("| run | median s | runs s | peak heap MiB |");
            System.out.println("| --- | --- | --- | --- |");
            median.forEach((k, v) -> System.out.printf("| %s | %.2f | %s | %d |%n", k, v, format(seconds.get(k)), peakHeap.get(k) >> 20));
            System.out.println();
            System.out.printf("partitioned encode / DuckDB partitioned: %.2fx%n", median.get("wrangler partitioned, encode only") / median.get("duckdb partitioned"));
            System.out.printf("flat encode / DuckDB flat: %.2fx%n", median.get("wrangler flat, encode only") / median.get("duckdb flat"));
            if (!encodeOnly) {
                System.out.printf("end to end / partitioned encode only: %.2fx%n",
                        median.get("wrangler partitioned, end to end to LocalS3") / median.get("wrangler partitioned, encode only"));
                System.out.printf("end to end with deferred uploads / partitioned encode only: %.2fx%n",
                        median.get(DEFERRED) / median.get("wrangler partitioned, encode only"));
                System.out.printf("end to end / (LocalS3 floor + partitioned encode only): %.2fx%n",
                        median.get("wrangler partitioned, end to end to LocalS3") / (median.get(FLOOR) + median.get("wrangler partitioned, encode only")));
            }

            // Output sizes of one write each, so that the times compare like with like.
            copy(duck, "COPY t TO '" + work.resolve("size-p") + "' (FORMAT PARQUET, PARTITION_BY (dt, country), COMPRESSION SNAPPY)");
            copy(duck, "COPY t TO '" + work.resolve("size-f.parquet") + "' (FORMAT PARQUET, COMPRESSION SNAPPY)");
            sink.bytes.set(0);
            S3Parquet.write(table).partitionBy("dt", "country").lease(false).s3(sink).to("s3://sink/size-p/");
            long wranglerPartitioned = sink.bytes.getAndSet(0);
            S3Parquet.write(table).lease(false).s3(sink).to("s3://sink/size-f/");
            long wranglerFlat = sink.bytes.getAndSet(0);
            System.out.println();
            System.out.printf("output bytes: duckdb partitioned %,d, wrangler partitioned %,d (incl. the manifest); duckdb flat %,d, "
                    + "wrangler flat %,d%n", sizeOf(work.resolve("size-p")), wranglerPartitioned, sizeOf(work.resolve("size-f.parquet")), wranglerFlat);

            if (encodeOnly) {
                floorPool.shutdown();
                counted.close();
                return;
            }
            counter.reset();
            WriteResult first = S3Parquet.write(table).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(counted).to("s3://bench/req/");
            System.out.println();
            System.out.println("S3 requests of one partitioned write into an empty table (" + first.paths().size() + " files): " + counter.snapshot());
            counter.reset();
            WriteResult second = S3Parquet.write(table).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(counted).to("s3://bench/req/");
            System.out.println("S3 requests of the same write again, replacing " + second.deletedFiles().size() + " files: " + counter.snapshot());
            counter.reset();
            WriteResult deferred = S3Parquet.write(table).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS)
                    .commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(counted).to("s3://bench/req-deferred/");
            System.out.println("S3 requests of one write with deferred uploads into an empty table (" + deferred.paths().size() + " files): "
                    + counter.snapshot());
            floorPool.shutdown();
            counted.close();
        } finally {
            try (var walk = Files.walk(work)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static void copy(Connection duck, String sql) throws SQLException {
        try (Statement st = duck.createStatement()) {
            st.execute(sql);
        }
    }

    /** DuckDB's rows and ours must be the same rows, or the comparison means nothing. */
    private static void checkSameRows(Connection duck, VectorSchemaRoot table) throws SQLException {
        String q = "SELECT count(*), sum(amount_cents)::BIGINT, count(DISTINCT user_id), max(user_id), sum(price)::DOUBLE, "
                + "max(epoch_us(ts)), min(country) || max(country), max(dt)::VARCHAR FROM t";
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(q)) {
            rs.next();
            long count = table.getRowCount();
            long sum = 0;
            BigIntVector amount = (BigIntVector) table.getVector("amount_cents");
            for (int i = 0; i < count; i++) {
                sum += amount.get(i);
            }
            if (rs.getLong(1) != count || rs.getLong(2) != sum) {
                throw new IllegalStateException("DuckDB built other rows than Java: count " + rs.getLong(1) + " vs " + count + ", sum "
                        + rs.getLong(2) + " vs " + sum);
            }
            String user0 = new String(((VarCharVector) table.getVector("user_id")).get(1));
            try (ResultSet one = duck.createStatement().executeQuery("SELECT user_id, epoch_us(ts), country FROM t LIMIT 1 OFFSET 1")) {
                one.next();
                long ts = ((TimeStampMicroTZVector) table.getVector("ts")).get(1);
                String country = new String(((VarCharVector) table.getVector("country")).get(1));
                if (!one.getString(1).equals(user0) || one.getLong(2) != ts || !one.getString(3).equals(country)) {
                    throw new IllegalStateException("DuckDB's row 1 differs from Java's: " + one.getString(1) + " " + one.getLong(2) + " "
                            + one.getString(3) + " vs " + user0 + " " + ts + " " + country);
                }
            }
        }
    }

    /**
     * Lets the previous run's side effects end before the next is timed: dirty pages of the files DuckDB and LocalS3
     * wrote are flushed to disk ({@code sync}), then a full GC, then a short pause. Without it, the kernel's writeback
     * of one run's gigabyte and the collection of its garbage land in the next run's time.
     */
    static void settle() throws Exception {
        try {
            new ProcessBuilder("sync").inheritIO().start().waitFor();
        } catch (IOException e) {
            // no sync command: the pause below has to do
        }
        System.gc();
        Thread.sleep(500);
    }

    static long sizeOf(Path path) throws IOException {
        try (var walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Resets the heap pools' peaks (SparkBench uses it too). */
    static void resetPeaks() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** The sum of the heap pools' peaks since {@link #resetPeaks}. */
    static long heapPeak() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        int m = s.size() / 2;
        return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
    }

    static String format(List<Double> v) {
        StringBuilder sb = new StringBuilder();
        for (double d : v) {
            sb.append(sb.length() == 0 ? "" : " ").append(String.format("%.2f", d));
        }
        return sb.toString();
    }


    /** The system's load averages (/proc/loadavg), to print with each figure: the machine may be shared. */
    /** The CPU time of this process so far, every thread (DuckDB's native ones too), in nanoseconds. */
    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
