package io.wrangler.bench;

import io.wrangler.S3Parquet;
import io.wrangler.testkit.LocalS3;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Where the warm read's CPU goes, by kind of thread, against the GET floor's: in one JVM, after untimed rounds, each
 * round runs wrangler's read of every column of the standard table, the GET floor (every data file whole,
 * {@code getObjectAsBytes}, 8 threads) and a ranged floor (every data file by one ranged GET of all its bytes read into
 * an array of its size, 8 threads: the shape of wrangler's own GETs). Per run, the CPU seconds of each kind of thread:
 * the JVM's long-lived threads from {@code /proc/self/task} (S3Mock's Tomcat workers and tasks, the testkit's key proxy
 * and its HttpClient, the compiler and GC threads, the caller), the threads a run starts (wrangler's footer and decoding
 * threads, the floors' pools) by polling their CPU time every millisecond while they live, and what is left of the
 * process's CPU. Prints the mean per run of each kind.
 * {@code ./bench.sh --warm-account [rows, default 2000000] [repetitions, default 8] [untimed rounds, default 15]}.
 */
public final class WarmAccount {
    private WarmAccount() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int warm = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        System.out.println("# warm read, CPU by kind of thread: " + rows + " rows, " + warm + " untimed rounds, " + reps
                + " timed; load before: " + Bench.load());
        try (RootAllocator allocator = new RootAllocator(); LocalS3 local = LocalS3.start(); S3Client s3 = local.newClient()) {
            local.createBucket("bench");
            try (VectorSchemaRoot t = StandardTable.rows(allocator, 0L, rows)) {
                S3Parquet.write(t).partitionBy("dt", "country").lease(false).s3(s3).to("s3://bench/std/");
            }
            List<String> keys = new ArrayList<>();
            Map<String, Long> sizes = new HashMap<>();
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket("bench").prefix("std/")).contents()) {
                if (SpeedBench.isData(o.key())) {
                    keys.add(o.key());
                    sizes.put(o.key(), o.size());
                }
            }
            Collections.sort(keys);
            Map<String, Callable<Object>> runs = new LinkedHashMap<>();
            runs.put("read", () -> {
                SpeedBench.check("read", SpeedBench.read(s3, "s3://bench/std/"), rows);
                return null;
            });
            runs.put("floor", () -> {
                SpeedBench.getAll(s3, "bench", keys);
                return null;
            });
            runs.put("ranged floor", () -> {
                rangedAll(s3, "bench", keys, sizes);
                return null;
            });
            for (int i = 0; i < warm; i++) {
                for (Callable<Object> c : runs.values()) {
                    c.call();
                }
            }
            Map<String, Map<String, Double>> cpu = new LinkedHashMap<>();
            for (int rep = 0; rep < reps; rep++) {
                for (Map.Entry<String, Callable<Object>> e : runs.entrySet()) {
                    Map<String, Double> kinds = cpu.computeIfAbsent(e.getKey(), k -> new TreeMap<>());
                    Map<Integer, Long> before = tasks(null);
                    Started started = new Started();
                    started.start();
                    long p0 = Bench.cpuNanos();
                    e.getValue().call();
                    long p1 = Bench.cpuNanos();
                    started.finish();
                    Map<String, String> names = new HashMap<>();
                    Map<Integer, Long> after = tasks(names);
                    double known = 0;
                    for (Map.Entry<Integer, Long> t : after.entrySet()) {
                        Long b = before.get(t.getKey());
                        if (b != null) {
                            double s = (t.getValue() - b) / 100.0; // clock ticks
                            known += s;
                            kinds.merge(kind(names.get(String.valueOf(t.getKey()))), s, Double::sum);
                        }
                    }
                    for (Map.Entry<String, Long> s : started.byKind().entrySet()) {
                        String k = s.getKey();
                        boolean own = k.startsWith("wrangler") || k.startsWith("pool-") || k.equals("warm-account");
                        kinds.merge(own ? "started: " + k : kind(k), s.getValue() / 1e9, Double::sum); // a server thread started now
                        known += s.getValue() / 1e9;
                    }
                    kinds.merge("~ rest of the process", (p1 - p0) / 1e9 - known, Double::sum);
                    kinds.merge("= process", (p1 - p0) / 1e9, Double::sum);
                }
            }
            for (Map.Entry<String, Map<String, Double>> e : cpu.entrySet()) {
                System.out.printf("%s: CPU seconds a run, mean of %d%n", e.getKey(), reps);
                e.getValue().forEach((k, v) -> {
                    if (Math.abs(v / reps) >= 0.002) {
                        System.out.printf("  %-34s %.3f%n", k, v / reps);
                    }
                });
            }
            System.out.println("# load after: " + Bench.load());
        }
    }

    /** The kind of a JVM thread by its name (digits folded). */
    private static String kind(String name) {
        String n = name == null ? "?" : name.replaceAll("[0-9]+", "#");
        if (n.startsWith("http-nio") || n.startsWith("task-") || n.startsWith("Catalina")) {
            return "server: S3Mock (Tomcat, tasks)";
        }
        if (n.startsWith("local-s#-keys") || n.startsWith("HttpClient-") || n.startsWith("HTTP-Dispatcher")) {
            return "server: testkit key proxy";
        }
        if (n.contains("CompilerThre")) {
            return "JIT compiler";
        }
        if (n.startsWith("GC Thread") || n.startsWith("G#") || n.equals("VM Thread")) {
            return "GC and VM";
        }
        if (n.equals("java") || n.equals("main")) {
            return "caller (main)";
        }
        return "other: " + n;
    }

    /** CPU ticks of each of the JVM's threads now; their names into {@code names} if given. */
    private static Map<Integer, Long> tasks(Map<String, String> names) throws IOException {
        Map<Integer, Long> out = new HashMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path p : ds) {
                String s;
                try {
                    s = Files.readString(p.resolve("stat"));
                } catch (IOException gone) {
                    continue;
                }
                int r = s.lastIndexOf(')');
                String[] f = s.substring(r + 2).split(" ");
                out.put(Integer.parseInt(p.getFileName().toString()), Long.parseLong(f[11]) + Long.parseLong(f[12]));
                if (names != null) {
                    names.put(p.getFileName().toString(), s.substring(s.indexOf('(') + 1, r));
                }
            }
        }
        return out;
    }

    /** The CPU time of the threads a run starts (wrangler's, the floors' pools), polled every millisecond while they live. */
    private static final class Started extends Thread {
        private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        private final Map<Long, Long> cpu = new HashMap<>();
        private final Map<Long, String> kinds = new HashMap<>();
        private final Map<Long, Boolean> seen = new HashMap<>();
        private volatile boolean stop;

        Started() {
            setDaemon(true);
            setName("warm-account");
            for (Thread t : all()) {
                seen.put(t.getId(), true); // alive before the run: not started by it
            }
        }

        @Override
        public void run() {
            while (!stop) {
                poll();
                LockSupport.parkNanos(1_000_000);
            }
        }

        void finish() throws InterruptedException {
            stop = true;
            join();
            poll();
        }

        private static Thread[] all() {
            ThreadGroup root = Thread.currentThread().getThreadGroup();
            while (root.getParent() != null) {
                root = root.getParent();
            }
            Thread[] ts = new Thread[root.activeCount() * 2 + 64];
            int n = root.enumerate(ts, true);
            Thread[] out = new Thread[n];
            System.arraycopy(ts, 0, out, 0, n);
            return out;
        }

        private void poll() {
            for (Thread t : all()) {
                long id = t.getId();
                if (Boolean.TRUE.equals(seen.get(id)) && !cpu.containsKey(id)) {
                    continue;
                }
                long c = mx.getThreadCpuTime(id);
                if (c >= 0) {
                    cpu.put(id, c);
                    kinds.put(id, t.getName().replaceAll("[0-9]+", "#"));
                }
            }
        }

        Map<String, Long> byKind() {
            Map<String, Long> out = new TreeMap<>();
            cpu.forEach((id, c) -> out.merge(kinds.get(id), c, Long::sum));
            return out;
        }
    }

    /** Every key by one ranged GET of all its bytes, read into an array of its size, 8 threads: wrangler's GETs' shape. */
    static void rangedAll(S3Client s3, String bucket, List<String> keys, Map<String, Long> sizes) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String k : keys) {
                done.add(pool.submit(() -> {
                    int n = Math.toIntExact(sizes.get(k));
                    byte[] into = new byte[n];
                    return s3.getObject(GetObjectRequest.builder().bucket(bucket).key(k).range("bytes=0-" + (n - 1)).build(),
                            (response, in) -> in.readNBytes(into, 0, n));
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
