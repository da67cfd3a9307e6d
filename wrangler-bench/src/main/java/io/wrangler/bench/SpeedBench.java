package io.wrangler.bench;

import io.wrangler.S3Parquet;
import io.wrangler.testkit.LocalS3;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
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
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Reading at the speed of the bytes (BENCHMARKS.md, "Read speed"): wrangler's read of the standard table from an S3
 * server against the floor of what any reader must do, measured in the same run. Arguments: rows (default 2,000,000),
 * repetitions (default 5), parts (default {@code warm,cold,lookup}).
 *
 * <p>The standard table is written by wrangler, partitioned by (dt, country) (200 files of about 10,000 rows), to
 * LocalS3 (S3Mock, in this JVM), and its data files are copied to local disk.
 *
 * <ul>
 *   <li>warm: in this JVM, alternating, after untimed warm-up rounds: wrangler's read of every column (default options);
 *       the GET floor (the server's own GET of every data file with the SDK, 8 threads, the bytes read and dropped);
 *       DuckDB's aggregate of every column of the local copy. The figure is wrangler / (GET floor + DuckDB), per round
 *       (the median and the spread of the rounds' ratios); the requests of one read of each are counted.</li>
 *   <li>cold: fresh JVMs with this JVM's class path, timed from start to exit, alternating: wrangler reading the table
 *       from the server; the SDK GETting every data file (8 threads); DuckDB running the aggregate on the local copy;
 *       a bare JVM (a main that returns). The figure is wrangler / (SDK GETs + DuckDB - bare JVM).</li>
 *   <li>lookup: one {@code user_id} in the table written with a bloom filter on it and sorted by it: bytes fetched
 *       (counted per GET by an SDK interceptor) against the table's bytes, time against DuckDB's same filter on the
 *       local copy plus the GET floor of the requests the lookup sent (replayed, 8 threads). Needs row filters and
 *       the layout options: skipped with a message where this build has neither.</li>
 * </ul>
 */
public final class SpeedBench {
    private SpeedBench() {
    }

    static final int FLOOR_THREADS = 8;
    private static final int WARM_ROUNDS = 15;

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], args.length > 2 ? args[2] : null, args.length > 3 ? args[3] : null);
            return;
        }
        if (args.length > 0 && args[0].equals("serve")) {
            serve(args.length > 1 ? Long.parseLong(args[1]) : 2_000_000L, Path.of(args.length > 2 ? args[2] : "/tmp/wrangler-speed-copy"));
            return;
        }
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        List<String> parts = Arrays.asList((args.length > 2 ? args[2] : "warm,cold,lookup").split(","));
        System.out.printf("# wrangler read speed bench: %,d rows, %d repetitions, parts %s, %d cores, max heap %d MiB, %s%n", rows, reps,
                parts, Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"));
        System.out.println("# load before: " + Bench.load());
        Path work = Files.createTempDirectory("wrangler-speed-bench-");
        RequestCounter counter = new RequestCounter();
        try (RootAllocator allocator = new RootAllocator(); LocalS3 local = LocalS3.start();
             S3Client s3 = local.newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(counter)))) {
            local.createBucket("bench");
            try (VectorSchemaRoot table = StandardTable.rows(allocator, 0, Math.toIntExact(rows))) {
                write(() -> S3Parquet.write(table).partitionBy("dt", "country").lease(false).s3(s3).to("s3://bench/std/"));
            }
            Path copies = work.resolve("std");
            List<String> keys = download(s3, "bench", "std/", copies);
            long bytes = Bench.sizeOf(copies);
            System.out.printf("# standard table: %d data files, %,d bytes (%,d bytes a file on average)%n", keys.size(), bytes, bytes / keys.size());
            if (parts.contains("warm")) {
                warm(s3, counter, keys, copies, rows, reps);
            }
            if (parts.contains("loop")) {
                loop(s3, rows, reps);
            }
            if (parts.contains("cold")) {
                cold(local.endpoint(), copies, rows, reps);
            }
            if (parts.contains("lookup")) {
                Lookup.run(allocator, s3, local, counter, work, rows, reps);
            }
            System.out.println("# load after: " + Bench.load());
        } finally {
            try (Stream<Path> walk = Files.walk(work)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Writes the standard table to a LocalS3 and its local copy to {@code copies}, prints the endpoint and the cold
     * children's commands, and serves until killed: for timing or profiling one child by hand (a whole-process timer,
     * {@code -Xlog:class+load}, JFR).
     */
    private static void serve(long rows, Path copies) throws Exception {
        try (RootAllocator allocator = new RootAllocator(); LocalS3 local = LocalS3.start(); S3Client s3 = local.newClient()) {
            local.createBucket("bench");
            try (VectorSchemaRoot table = StandardTable.rows(allocator, 0, Math.toIntExact(rows))) {
                S3Parquet.write(table).partitionBy("dt", "country").lease(false).s3(s3).to("s3://bench/std/");
            }
            download(s3, "bench", "std/", copies);
            String java = Path.of(System.getProperty("java.home"), "bin", "java") + " -cp " + System.getProperty("java.class.path") + " "
                    + SpeedBench.class.getName() + " child ";
            for (String kind : List.of("wrangler", "get", "duck", "bare")) {
                System.out.println("CHILD " + kind + ": " + java + kind + " " + local.endpoint() + " " + copies);
            }
            System.out.println("SERVING " + local.endpoint());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /**
     * Runs a write of the bench's table, again when it fails as a whole (nothing changed): on a machine loaded by other
     * builds S3Mock may answer past the SDK's timeouts. Three attempts.
     */
    static void write(Runnable write) {
        for (int attempt = 1; ; attempt++) {
            try {
                write.run();
                return;
            } catch (io.wrangler.WranglerException e) {
                if (attempt == 3) {
                    throw e;
                }
                System.out.println("# the table's write failed (attempt " + attempt + "), again: " + e.getMessage());
            }
        }
    }

    // ---- warm ----

    private static void warm(S3Client s3, RequestCounter counter, List<String> keys, Path copies, long rows, int reps) throws Exception {
        try (Connection duck = duck()) {
            String sql = allColumns(copies);
            Map<String, Bench.Run> runs = new LinkedHashMap<>();
            runs.put("wrangler read all columns", () -> check("wrangler", read(s3, "s3://bench/std/"), rows));
            runs.put("GET floor (8 threads)", () -> getAll(s3, "bench", keys));
            runs.put("duckdb all columns (local copy)", () -> check("duckdb", duckLong(duck, sql), rows));
            for (int w = 0; w < WARM_ROUNDS; w++) {
                for (Bench.Run r : runs.values()) {
                    r.run();
                }
            }
            for (String name : runs.keySet()) {
                counter.reset();
                runs.get(name).run();
                System.out.printf("# requests of one run, %s: %s%n", name, counter.snapshot());
            }
            Map<String, List<Double>> cpu = new LinkedHashMap<>();
            Map<String, List<Double>> seconds = alternate(runs, reps, cpu);
            List<Double> ratios = ratios(seconds, reps);
            List<Double> cpuRatios = ratios(cpu, reps);
            System.out.println();
            System.out.println("| warm run | median s | runs s | median CPU s (process) | runs CPU s |");
            System.out.println("| --- | --- | --- | --- | --- |");
            seconds.forEach((k, v) -> System.out.printf("| %s | %.3f | %s | %.3f | %s |%n", k, Bench.median(v), Bench.format(v),
                    Bench.median(cpu.get(k)), Bench.format(cpu.get(k))));
            System.out.printf("warm: wrangler / (GET floor + DuckDB): median %.2fx, rounds %s (min %.2fx, max %.2fx)%n", Bench.median(ratios),
                    Bench.format(ratios), Collections.min(ratios), Collections.max(ratios));
            System.out.printf("warm CPU: wrangler / (GET floor + DuckDB), the process's CPU seconds: median %.2fx, rounds %s%n%n",
                    Bench.median(cpuRatios), Bench.format(cpuRatios));
        }
    }

    /** Per round, the first run's figure over the sum of the other two's (wrangler / (floor + DuckDB)). */
    private static List<Double> ratios(Map<String, List<Double>> figures, int reps) {
        List<List<Double>> v = new ArrayList<>(figures.values());
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
            out.add(v.get(0).get(i) / (v.get(1).get(i) + v.get(2).get(i)));
        }
        return out;
    }

    /**
     * A profiler's loop (part {@code loop}): wrangler's warm read of the table alone, {@code 4 * reps} times, each
     * run's wall and process CPU seconds printed; under JFR ({@code BENCH_JAVA_OPTS}) its samples are the read's.
     */
    private static void loop(S3Client s3, long rows, int reps) throws Exception {
        for (int i = 0; i < 4 * reps; i++) {
            long start = System.nanoTime();
            long cpu = Bench.cpuNanos();
            long read = 0;
            double opened;
            try (ArrowReader r = S3Parquet.read("s3://bench/std/").s3(s3).open()) {
                opened = (System.nanoTime() - start) / 1e9;
                while (r.loadNextBatch()) {
                    read += r.getVectorSchemaRoot().getRowCount();
                }
            }
            check("wrangler", read, rows);
            System.out.printf("# loop: %.3f s (open %.3f s), %.3f s of CPU%n", (System.nanoTime() - start) / 1e9, opened,
                    (Bench.cpuNanos() - cpu) / 1e9);
        }
    }

    /** {@code reps} rounds of every run, the order reversed every other round; seconds per run, in round order. */
    static Map<String, List<Double>> alternate(Map<String, Bench.Run> runs, int reps) throws Exception {
        return alternate(runs, reps, new LinkedHashMap<>());
    }

    /** As {@link #alternate(Map, int)}, and the process's CPU seconds of each run into {@code cpu}. */
    static Map<String, List<Double>> alternate(Map<String, Bench.Run> runs, int reps, Map<String, List<Double>> cpu) throws Exception {
        Map<String, List<Double>> seconds = new LinkedHashMap<>();
        runs.keySet().forEach(k -> seconds.put(k, new ArrayList<>()));
        runs.keySet().forEach(k -> cpu.put(k, new ArrayList<>()));
        for (int rep = 0; rep < reps; rep++) {
            List<String> order = new ArrayList<>(runs.keySet());
            if (rep % 2 == 1) {
                Collections.reverse(order);
            }
            for (String name : order) {
                Bench.settle();
                long start = System.nanoTime();
                long cpuStart = Bench.cpuNanos();
                runs.get(name).run();
                seconds.get(name).add((System.nanoTime() - start) / 1e9);
                cpu.get(name).add((Bench.cpuNanos() - cpuStart) / 1e9);
            }
        }
        return seconds;
    }

    // ---- cold ----

    private static void cold(URI endpoint, Path copies, long rows, int reps) throws Exception {
        Map<String, List<Double>> seconds = new LinkedHashMap<>();
        List<String> kinds = List.of("wrangler", "get", "duck", "bare");
        kinds.forEach(k -> seconds.put(k, new ArrayList<>()));
        for (String k : kinds) {
            child(k, endpoint, copies, rows); // untimed: the page cache holds the jars and DuckDB's library for every kind alike
        }
        for (int rep = 0; rep < reps; rep++) {
            List<String> order = new ArrayList<>(kinds);
            if (rep % 2 == 1) {
                Collections.reverse(order);
            }
            for (String k : order) {
                Bench.settle();
                seconds.get(k).add(child(k, endpoint, copies, rows));
            }
        }
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
            ratios.add(seconds.get("wrangler").get(i) / (seconds.get("get").get(i) + seconds.get("duck").get(i) - seconds.get("bare").get(i)));
        }
        System.out.println();
        System.out.println("| cold process (start to exit) | median s | runs s |");
        System.out.println("| --- | --- | --- |");
        seconds.forEach((k, v) -> System.out.printf("| %s | %.3f | %s |%n", COLD_NAMES.get(k), Bench.median(v), Bench.format(v)));
        System.out.printf("cold: wrangler / (SDK GETs + DuckDB - bare JVM): median %.2fx, rounds %s (min %.2fx, max %.2fx)%n%n",
                Bench.median(ratios), Bench.format(ratios), Collections.min(ratios), Collections.max(ratios));
    }

    private static final Map<String, String> COLD_NAMES = Map.of("wrangler", "wrangler reads the table (fresh JVM)",
            "get", "SDK GETs every data file, 8 threads (fresh JVM)", "duck", "DuckDB aggregates every column of the local copy (fresh JVM)",
            "bare", "bare JVM (a main that returns)");

    /** Runs one cold child, checks its rows, and returns its seconds from start to exit. */
    private static double child(String kind, URI endpoint, Path copies, long rows) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + (Runtime.getRuntime().maxMemory() >> 20) + "m");
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        String extra = System.getenv("BENCH_CHILD_OPTS");
        if (extra != null && !extra.isBlank() && kind.equals("wrangler")) {
            cmd.addAll(Arrays.asList(extra.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SpeedBench.class.getName(), "child", kind, endpoint.toString(),
                copies.toString()));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                lines.add(line);
            }
        }
        int exit = p.waitFor();
        double s = (System.nanoTime() - start) / 1e9;
        String want = kind.equals("bare") ? null : kind.equals("get") ? "FILES" : "ROWS " + rows;
        if (exit != 0 || (want != null && lines.stream().noneMatch(l -> l.startsWith(want)))) {
            throw new IllegalStateException("the cold child " + kind + " exited with " + exit + " and printed " + lines);
        }
        return s;
    }

    /** The child's work: one read, one pass of GETs or one query, then exit. */
    private static void child(String kind, String endpoint, String copies) throws Exception {
        switch (kind) {
            case "bare" -> {
                return;
            }
            case "wrangler" -> {
                try (S3Client s3 = client(URI.create(endpoint))) {
                    System.out.println("ROWS " + read(s3, "s3://bench/std/"));
                }
            }
            case "get" -> {
                try (S3Client s3 = client(URI.create(endpoint))) {
                    List<String> keys = s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket("bench").prefix("std/").build())
                            .contents().stream().map(S3Object::key).filter(SpeedBench::isData).toList();
                    getAll(s3, "bench", keys);
                    System.out.println("FILES " + keys.size());
                }
            }
            case "duck" -> {
                try (Connection duck = duck()) {
                    System.out.println("ROWS " + duckLong(duck, allColumns(Path.of(copies))));
                }
            }
            default -> throw new IllegalArgumentException("no child " + kind);
        }
        System.out.flush();
        System.exit(0);
    }

    /** An SDK client for the server at {@code endpoint}, as a job would build one: region and credentials given. */
    static S3Client client(URI endpoint) {
        return S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(LocalS3.ACCESS_KEY, "wrangler-local-secret")))
                .forcePathStyle(true)
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(ApacheHttpClient.builder().maxConnections(64).connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(60)))
                .build();
    }

    // ---- shared ----

    static Connection duck() throws Exception {
        Connection duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duck.createStatement()) {
            st.execute("SET threads = " + Runtime.getRuntime().availableProcessors());
            st.execute("SET TimeZone = 'UTC'");
        }
        return duck;
    }

    /** DuckDB's aggregate of every column of the local copy (every value decoded). */
    static String allColumns(Path copies) {
        return "SELECT count(*), max(user_id), max(country), sum(amount_cents), sum(price), max(ts), max(dt) FROM read_parquet('"
                + copies + File.separator + "**" + File.separator + "*.parquet', hive_partitioning = true)";
    }

    static long duckLong(Connection duck, String sql) throws Exception {
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void check(String who, long got, long expected) {
        if (got != expected) {
            throw new IllegalStateException(who + " read " + got + " rows where " + expected + " were written");
        }
    }

    /** wrangler's read of every column of the table, default options; its rows. */
    static long read(S3Client s3, String table) throws Exception {
        long rows = 0;
        try (ArrowReader r = S3Parquet.read(table).s3(s3).open()) {
            while (r.loadNextBatch()) {
                rows += r.getVectorSchemaRoot().getRowCount();
            }
        }
        return rows;
    }

    /** The GET floor: every key fetched whole with one GET, {@link #FLOOR_THREADS} at once, the bytes dropped. */
    static void getAll(S3Client s3, String bucket, List<String> keys) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(FLOOR_THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String k : keys) {
                done.add(pool.submit(() -> s3.getObjectAsBytes(b -> b.bucket(bucket).key(k))));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static boolean isData(String key) {
        return key.endsWith(".parquet") && !key.contains("/_");
    }

    /** Copies the table's data files to {@code dir} at the same relative paths; returns their keys, sorted. */
    static List<String> download(S3Client s3, String bucket, String prefix, Path dir) throws Exception {
        List<String> keys = new ArrayList<>();
        for (S3Object o : s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build()).contents()) {
            if (!isData(o.key())) {
                continue;
            }
            Path p = dir.resolve(o.key().substring(prefix.length()));
            Files.createDirectories(p.getParent());
            Files.write(p, s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArrayUnsafe());
            keys.add(o.key());
        }
        Collections.sort(keys);
        return keys;
    }
}
