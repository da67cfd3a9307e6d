package io.wrangler.bench;

import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import io.wrangler.testkit.NetworkProfile;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A JVM's first read against DuckDB's first query, each in a fresh process (issue 26, "cold read"). Arguments: rows of
 * the standard table (default 2,000,000), repetitions (default 5), and {@code cds} to add wrangler's readers started
 * from an AppCDS archive.
 *
 * <p>The table is written once by wrangler, partitioned by (dt, country), into an in-memory S3 and copied to local
 * files (data files, manifests and markers alike). Then, per repetition, one child JVM per reader, in alternating
 * order: wrangler reading all columns / one partition, DuckDB (JDBC) querying all columns / one partition. A child
 * first sets up what a job has before it reads, untimed: wrangler's child loads the local files into an in-memory S3
 * (SimS3, so no server's CPU, as DuckDB reads local files), DuckDB's child opens its connection (its native library
 * loaded) and sets its threads. Then the clock runs around the first read only: wrangler's {@code S3Parquet.read(...)
 * .open()} to its last batch (every column decoded into Arrow vectors), DuckDB's query (an aggregate of every column,
 * as in ReadBench) to its answer. A second, identical read in the same process is timed too. The child's whole life
 * (JVM start to exit) is reported beside, measured by this process.
 *
 * <p>{@code cds}: a training child reads the table once with {@code -XX:ArchiveClassesAtExit}, and the "(CDS)" readers
 * start with {@code -XX:SharedArchiveFile} of that archive (JDK 17: no {@code -XX:+AutoCreateSharedArchive}).
 */
public final class ColdBench {
    private ColdBench() {
    }

    private static final String PARTITION_DAY = "2025-01-03";
    private static final String PARTITION_COUNTRY = "US";

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], Path.of(args[2]));
            return;
        }
        if (args.length > 0 && args[0].equals("write")) { // a table to time one child against, by hand or with a profiler
            write(Long.parseLong(args[1]), Path.of(args[2]));
            return;
        }
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        boolean cds = args.length > 2 && args[2].equals("cds");
        System.out.printf("# wrangler cold read bench: %,d rows, %d repetitions%s, %d cores, %s%n", rows, reps, cds ? ", with CDS" : "",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        System.out.println("# load before: " + Bench.load());
        Path work = Files.createTempDirectory("wrangler-cold-bench-");
        try {
            Path table = work.resolve("table");
            int objects = write(rows, table);
            System.out.printf("# standard table: %d objects, %,d bytes, in %s%n", objects, Bench.sizeOf(table), table);

            Map<String, List<String>> readers = new LinkedHashMap<>();
            readers.put("wrangler read all columns", List.of("wrangler-all"));
            readers.put("duckdb read all columns", List.of("duck-all"));
            readers.put("wrangler read one partition", List.of("wrangler-one"));
            readers.put("duckdb read one partition", List.of("duck-one"));
            if (cds) {
                Path archive = work.resolve("wrangler.jsa");
                Result training = run("wrangler-all", table, List.of("-XX:ArchiveClassesAtExit=" + archive));
                System.out.printf("# CDS archive: %,d bytes, made by a read of %.3f s%n", Files.size(archive), training.first);
                readers.put("wrangler read all columns (CDS)", List.of("wrangler-all", "-XX:SharedArchiveFile=" + archive));
                readers.put("wrangler read one partition (CDS)", List.of("wrangler-one", "-XX:SharedArchiveFile=" + archive));
            }
            Map<String, List<Result>> results = new LinkedHashMap<>();
            readers.keySet().forEach(k -> results.put(k, new ArrayList<>()));
            for (int rep = 0; rep < reps; rep++) {
                List<String> order = new ArrayList<>(readers.keySet());
                if (rep % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String name : order) {
                    List<String> r = readers.get(name);
                    Bench.settle();
                    results.get(name).add(run(r.get(0), table, r.subList(1, r.size())));
                }
            }
            long all = results.get("duckdb read all columns").get(0).rows;
            long one = results.get("duckdb read one partition").get(0).rows;
            results.forEach((name, list) -> list.forEach(r -> {
                long want = name.contains("all columns") ? rows : one;
                if (r.rows != want || all != rows) {
                    throw new IllegalStateException(name + " read " + r.rows + " rows where " + want + " were expected (DuckDB counts "
                            + all + " in all)");
                }
            }));

            System.out.println();
            System.out.println("| reader | first read s (median) | runs | CPU s | second read s | process s (JVM start to exit) |");
            System.out.println("| --- | --- | --- | --- | --- | --- |");
            Map<String, Double> first = new LinkedHashMap<>();
            results.forEach((name, list) -> {
                double f = Bench.median(list.stream().map(r -> r.first).toList());
                first.put(name, f);
                System.out.printf("| %s | %.3f | %s | %.3f | %.3f | %.2f |%n", name, f, Bench.format(list.stream().map(r -> r.first).toList()),
                        Bench.median(list.stream().map(r -> r.cpu).toList()), Bench.median(list.stream().map(r -> r.second).toList()),
                        Bench.median(list.stream().map(r -> r.process).toList()));
            });
            System.out.println();
            System.out.printf("cold, first read / DuckDB's first query: all columns %.2fx, one partition %.2fx%n",
                    first.get("wrangler read all columns") / first.get("duckdb read all columns"),
                    first.get("wrangler read one partition") / first.get("duckdb read one partition"));
            if (cds) {
                System.out.printf("cold with CDS: all columns %.2fx, one partition %.2fx%n",
                        first.get("wrangler read all columns (CDS)") / first.get("duckdb read all columns"),
                        first.get("wrangler read one partition (CDS)") / first.get("duckdb read one partition"));
            }
            System.out.println("# load after: " + Bench.load());
        } finally {
            try (Stream<Path> walk = Files.walk(work)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Writes the standard table to an in-memory S3 and copies its objects under {@code table}; returns how many. */
    private static int write(long rows, Path table) throws Exception {
        SimS3 sim = new SimS3(NetworkProfile.none(), 64, null).keepingData();
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot t = StandardTable.rows(allocator, 0, Math.toIntExact(rows))) {
            S3Parquet.write(t).partitionBy("dt", "country").s3(sim).to("s3://sim/std/");
        }
        int objects = 0;
        for (S3Object o : sim.listObjectsV2(ListObjectsV2Request.builder().bucket("sim").prefix("std/").build()).contents()) {
            Path p = table.resolve(o.key());
            Files.createDirectories(p.getParent());
            Files.write(p, sim.getObjectAsBytes(b -> b.bucket("sim").key(o.key())).asByteArrayUnsafe());
            objects++;
        }
        return objects;
    }

    /** A child's report: the first and second read's seconds, the first read's CPU seconds, its rows, its process's seconds. */
    private record Result(double first, double second, double cpu, long rows, double process) {
    }

    /** Runs {@code reader} in a fresh JVM with this one's class path and heap, plus {@code jvm} options. */
    private static Result run(String reader, Path table, List<String> jvm) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + (Runtime.getRuntime().maxMemory() >> 20) + "m");
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        String extra = System.getenv("BENCH_CHILD_OPTS");
        if (extra != null && !extra.isBlank()) {
            cmd.addAll(Arrays.asList(extra.trim().split("\\s+")));
        }
        cmd.addAll(jvm);
        boolean archive = jvm.stream().anyMatch(o -> o.contains("SharedArchiveFile") || o.contains("ArchiveClassesAtExit"));
        String classPath = archive ? jarsOnly(System.getProperty("java.class.path")) : System.getProperty("java.class.path");
        cmd.addAll(List.of("-cp", classPath, ColdBench.class.getName(), "child", reader, table.toString()));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String result = null;
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                lines.add(line);
                if (line.startsWith("RESULT ")) {
                    result = line;
                }
            }
        }
        int exit = p.waitFor();
        double process = (System.nanoTime() - start) / 1e9;
        if (exit != 0 || result == null) {
            throw new IllegalStateException("the child " + reader + " exited with " + exit + " and printed " + lines);
        }
        String[] f = result.split(" ");
        return new Result(Double.parseDouble(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3]), Long.parseLong(f[4]), process);
    }

    /**
     * The class path with each module's {@code target/classes} replaced by the jar the same build made beside it: a CDS
     * archive takes classes from jars only (the JVM refuses a non-empty directory on an archived class path).
     */
    static String jarsOnly(String classPath) throws Exception {
        List<String> out = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p) && p.endsWith(Path.of("target", "classes"))) {
                Path target = p.getParent();
                String module = target.getParent().getFileName().toString();
                try (Stream<Path> jars = Files.list(target)) {
                    Path jar = jars.filter(j -> {
                        String n = j.getFileName().toString();
                        return n.startsWith(module + "-") && n.endsWith(".jar") && !n.endsWith("-sources.jar") && !n.endsWith("-javadoc.jar")
                                && !n.endsWith("-tests.jar");
                    }).findFirst().orElseThrow(() -> new IllegalStateException("no jar of " + module + " in " + target
                            + " for the CDS readers: build with ./bench.sh, whose mvn install makes it"));
                    out.add(jar.toString());
                }
            } else {
                out.add(entry);
            }
        }
        return String.join(File.pathSeparator, out);
    }

    // ---- the child ----

    private static void child(String reader, Path table) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        os.getProcessCpuTime();
        Timed read;
        if (reader.startsWith("wrangler")) {
            S3Client s3 = load(table);
            PartitionFilter filter = reader.endsWith("-one")
                    ? PartitionFilter.in("dt", PARTITION_DAY).and(PartitionFilter.in("country", PARTITION_COUNTRY)) : null;
            read = () -> wrangler(s3, filter);
        } else {
            Connection duck = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement st = duck.createStatement()) {
                st.execute("SET threads = " + Runtime.getRuntime().availableProcessors());
                st.execute("SET TimeZone = 'UTC'");
            }
            String glob = table.resolve("std") + File.separator + "dt=*" + File.separator + "country=*" + File.separator + "*.parquet";
            String sql = "SELECT count(*), max(user_id), max(country), sum(amount_cents), sum(price), max(ts), max(dt) FROM read_parquet('"
                    + glob + "', hive_partitioning = true)"
                    + (reader.endsWith("-one") ? " WHERE dt = DATE '" + PARTITION_DAY + "' AND country = '" + PARTITION_COUNTRY + "'" : "");
            read = () -> {
                try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                    rs.next();
                    return rs.getLong(1);
                }
            };
        }
        long cpu = os.getProcessCpuTime();
        long start = System.nanoTime();
        long rows = read.run();
        double first = (System.nanoTime() - start) / 1e9;
        double firstCpu = (os.getProcessCpuTime() - cpu) / 1e9;
        start = System.nanoTime();
        long again = read.run();
        double second = (System.nanoTime() - start) / 1e9;
        if (again != rows) {
            throw new IllegalStateException("the second read gave " + again + " rows, the first " + rows);
        }
        System.out.printf("RESULT %.4f %.4f %.4f %d%n", first, second, firstCpu, rows);
        System.out.flush();
        System.exit(0); // DuckDB's and the readers' threads need not be waited for
    }

    private interface Timed {
        long run() throws Exception;
    }

    /** An in-memory S3 holding the table's local copies at their keys. */
    private static S3Client load(Path table) throws Exception {
        SimS3 s3 = new SimS3(NetworkProfile.none(), 64, null).keepingData();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(table)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
            String key = table.relativize(f).toString().replace(File.separatorChar, '/');
            s3.putObject(b -> b.bucket("sim").key(key), RequestBody.fromBytes(Files.readAllBytes(f)));
        }
        return s3;
    }

    private static long wrangler(S3Client s3, PartitionFilter filter) throws Exception {
        var b = S3Parquet.read("s3://sim/std/").s3(s3);
        if (filter != null) {
            b.filter(filter);
        }
        long rows = 0;
        try (ArrowReader r = b.open()) {
            while (r.loadNextBatch()) {
                rows += r.getVectorSchemaRoot().getRowCount();
            }
        }
        return rows;
    }
}
