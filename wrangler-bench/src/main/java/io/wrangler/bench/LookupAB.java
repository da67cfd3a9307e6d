package io.wrangler.bench;

import io.wrangler.testkit.LocalS3;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.concurrent.*;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.core.interceptor.*;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.*;

/**
 * SpeedBench's lookup A/B in one JVM: two builds of wrangler-core (A and B, each a folder of compiled classes, each in a
 * class loader of its own that loads wrangler's classes itself first), alternating in each round (order reversed every
 * other round) with the GET floor of each one's own requests (8 threads), the same replay with a per-request retry
 * plugin (a diagnostic: what the SDK's per-request configuration costs), and DuckDB's same filter on the local copy.
 * {@code ./bench.sh --lookup-ab <A classes> <B classes> [rows, default 2000000] [repetitions, default 9]}, e.g. main's
 * classes copied aside before a change, and the change's {@code wrangler-core/target/classes}.
 */
public final class LookupAB {
    private LookupAB() {
    }

    record Get(String key, String range) {}
    static final class Log implements ExecutionInterceptor {
        final ConcurrentLinkedQueue<Get> gets = new ConcurrentLinkedQueue<>();
        public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
            if (c.request() instanceof GetObjectRequest g) gets.add(new Get(g.key(), g.range()));
        }
    }

    /** A class loader that loads wrangler's classes (but the testkit's and this one) from its own folders first. */
    private static final class Own extends URLClassLoader {
        Own(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                boolean own = name.startsWith("io.wrangler.") && !name.startsWith("io.wrangler.testkit.") && !name.startsWith(LookupAB.class.getName())
                        && !name.startsWith(WarmAB.class.getName());
                Class<?> c = findLoadedClass(name);
                if (c == null && own) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        c = null;
                    }
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    /** A class loader of wrangler's classes in {@code classes} (and the bench's at {@code bench}) before {@code parent}'s. */
    static ClassLoader own(Path classes, URL bench, ClassLoader parent) throws Exception {
        return new Own(new URL[] {classes.toUri().toURL(), bench}, parent);
    }

    static Method m(ClassLoader l, String cls, String name, Class<?>... types) throws Exception {
        Method m = l.loadClass(cls).getDeclaredMethod(name, types);
        m.setAccessible(true);
        return m;
    }

    static Object call(Object o, String name, Object... args) throws Exception {
        for (Method m : o.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                Class<?>[] t = m.getParameterTypes();
                boolean ok = true;
                for (int i = 0; i < t.length; i++) ok &= args[i] == null || box(t[i]).isInstance(args[i]);
                if (ok) return m.invoke(o, args);
            }
        }
        throw new NoSuchMethodException(name);
    }

    static Class<?> box(Class<?> c) {
        return c == boolean.class ? Boolean.class : c == int.class ? Integer.class : c == long.class ? Long.class : c;
    }

    static void replay(S3Client s3, List<Get> gets) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> f = new ArrayList<>();
            for (Get g : gets) f.add(pool.submit(() -> s3.getObjectAsBytes(b -> b.bucket("bench").key(g.key()).range(g.range()))));
            for (Future<?> x : f) x.get();
        } finally {
            pool.shutdownNow();
        }
    }

    static final software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration PLUGIN = software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration.builder()
            .addPlugin(c -> c.overrideConfiguration(o -> o.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.standardRetryStrategy()))).build();

    /** The floor's replay, each GET with a per-request retry plugin as wrangler sends it (a diagnostic, not the floor). */
    static void replayPlugin(S3Client s3, List<Get> gets) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> f = new ArrayList<>();
            for (Get g : gets) f.add(pool.submit(() -> s3.getObjectAsBytes(b -> b.bucket("bench").key(g.key()).range(g.range()).overrideConfiguration(PLUGIN))));
            for (Future<?> x : f) x.get();
        } finally {
            pool.shutdownNow();
        }
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        URL bench = LookupAB.class.getProtectionDomain().getCodeSource().getLocation();
        ClassLoader parent = LookupAB.class.getClassLoader();
        ClassLoader[] loaders = {new Own(new URL[] {Path.of(args[0]).toUri().toURL(), bench}, parent),
                new Own(new URL[] {Path.of(args[1]).toUri().toURL(), bench}, parent)};
        String[] names = {"A", "B"};
        int rows = args.length > 2 ? Integer.parseInt(args[2]) : 2_000_000;
        int reps = args.length > 3 ? Integer.parseInt(args[3]) : 9;
        System.out.println("# lookup A/B: A " + args[0] + ", B " + args[1] + "; load before: " + Bench.load());
        String user = "u4435761";
        Path work = Files.createTempDirectory("wrangler-lookup-ab-");
        try {
            try (RootAllocator allocator = new RootAllocator(); LocalS3 local = LocalS3.start(); S3Client s3 = local.newClient()) {
                local.createBucket("bench");
                ClassLoader w = loaders[1];
                try (VectorSchemaRoot t = (VectorSchemaRoot) m(w, "io.wrangler.bench.StandardTable", "rows", BufferAllocator.class, long.class, int.class)
                        .invoke(null, allocator, 0L, rows)) {
                    Object b = m(w, "io.wrangler.S3Parquet", "write", VectorSchemaRoot.class).invoke(null, t);
                    b = call(b, "partitionBy", (Object) new String[] {"dt", "country"});
                    b = call(b, "lease", false);
                    b = call(b, "bloomFilters", (Object) new String[] {"user_id"});
                    b = call(b, "sortBy", (Object) new String[] {"user_id"});
                    b = call(b, "s3", s3);
                    call(b, "to", "s3://bench/lookup/");
                }
                Path copies = work.resolve("lookup");
                m(w, "io.wrangler.bench.SpeedBench", "download", S3Client.class, String.class, String.class, Path.class).invoke(null, s3, "bench", "lookup/", copies);
                java.sql.Connection duck = (java.sql.Connection) m(w, "io.wrangler.bench.SpeedBench", "duck").invoke(null);
                Method duckQ = m(w, "io.wrangler.bench.Lookup", "duck", java.sql.Connection.class, Path.class, String.class);
                Method[] lookup = new Method[2];
                List<Get>[] gets = new List[2];
                Log log = new Log();
                S3Client logged = local.newClient(c -> c.overrideConfiguration(o -> o.addExecutionInterceptor(log)));
                for (int i = 0; i < 2; i++) {
                    lookup[i] = m(loaders[i], "io.wrangler.bench.Lookup", "lookup", S3Client.class, String.class, String.class);
                    log.gets.clear();
                    long n = (long) lookup[i].invoke(null, logged, "s3://bench/lookup/", user);
                    gets[i] = new ArrayList<>(log.gets);
                    System.out.printf("# %s: %d rows, %d GETs%n", names[i], n, gets[i].size());
                }
                Map<String, Callable<Object>> runs = new LinkedHashMap<>();
                runs.put("A lookup", () -> lookup[0].invoke(null, s3, "s3://bench/lookup/", user));
                runs.put("A floor", () -> { replay(s3, gets[0]); return null; });
                runs.put("duck", () -> duckQ.invoke(null, duck, copies, user));
                runs.put("B lookup", () -> lookup[1].invoke(null, s3, "s3://bench/lookup/", user));
                runs.put("B floor", () -> { replay(s3, gets[1]); return null; });
                runs.put("B floor+plugin", () -> { replayPlugin(s3, gets[1]); return null; });
                for (int i = 0; i < 10; i++) for (Callable<Object> r : runs.values()) r.call();
                Map<String, List<Double>> s = new LinkedHashMap<>();
                runs.keySet().forEach(k -> s.put(k, new ArrayList<>()));
                List<String> order = new ArrayList<>(runs.keySet());
                for (int rep = 0; rep < reps; rep++) {
                    List<String> o = new ArrayList<>(order);
                    if (rep % 2 == 1) Collections.reverse(o);
                    for (String k : o) {
                        long t0 = System.nanoTime();
                        runs.get(k).call();
                        s.get(k).add((System.nanoTime() - t0) / 1e9);
                    }
                }
                List<Double> ra = new ArrayList<>(), rb = new ArrayList<>();
                for (int i = 0; i < reps; i++) {
                    ra.add(s.get("A lookup").get(i) / (s.get("A floor").get(i) + s.get("duck").get(i)));
                    rb.add(s.get("B lookup").get(i) / (s.get("B floor").get(i) + s.get("duck").get(i)));
                }
                s.forEach((k, v) -> System.out.printf("%-16s median %.4f s  %s%n", k, median(v), v.stream().map(x -> String.format("%.3f", x)).toList()));
                System.out.printf("A ratio median %.3fx %s%nB ratio median %.3fx %s%n", median(ra), ra.stream().map(x -> String.format("%.2f", x)).toList(),
                        median(rb), rb.stream().map(x -> String.format("%.2f", x)).toList());
                logged.close();
                System.out.println("# load after: " + Bench.load());
            }
        } finally {
            try (java.util.stream.Stream<Path> walk = Files.walk(work)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
