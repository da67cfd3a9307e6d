package io.wrangler.bench;

import io.wrangler.testkit.LocalS3;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * SpeedBench's warm read A/B in one JVM: two builds of wrangler-core (A and B, each a folder of compiled classes, each in
 * a class loader of its own, as {@link LookupAB}), each reading every column of the standard table, alternating in each
 * round (order reversed every other round) with the GET floor (every data file whole, 8 threads) and DuckDB aggregating
 * every column of the local copy, after 10 untimed rounds; per run the wall and the process's CPU seconds.
 * {@code ./bench.sh --warm-ab <A classes> <B classes> [rows, default 2000000] [repetitions, default 9]}.
 */
public final class WarmAB {
    private WarmAB() {
    }

    public static void main(String[] args) throws Exception {
        URL bench = WarmAB.class.getProtectionDomain().getCodeSource().getLocation();
        ClassLoader parent = WarmAB.class.getClassLoader();
        ClassLoader[] loaders = {LookupAB.own(Path.of(args[0]), bench, parent), LookupAB.own(Path.of(args[1]), bench, parent)};
        int rows = args.length > 2 ? Integer.parseInt(args[2]) : 2_000_000;
        int reps = args.length > 3 ? Integer.parseInt(args[3]) : 9;
        System.out.println("# warm read A/B: A " + args[0] + ", B " + args[1] + "; load before: " + Bench.load());
        Path work = Files.createTempDirectory("wrangler-warm-ab-");
        try (RootAllocator allocator = new RootAllocator(); LocalS3 local = LocalS3.start(); S3Client s3 = local.newClient()) {
            local.createBucket("bench");
            ClassLoader w = loaders[1];
            try (VectorSchemaRoot t = (VectorSchemaRoot) LookupAB.m(w, "io.wrangler.bench.StandardTable", "rows", BufferAllocator.class,
                    long.class, int.class).invoke(null, allocator, 0L, rows)) {
                Object b = LookupAB.m(w, "io.wrangler.S3Parquet", "write", VectorSchemaRoot.class).invoke(null, t);
                b = LookupAB.call(b, "partitionBy", (Object) new String[] {"dt", "country"});
                b = LookupAB.call(b, "lease", false);
                b = LookupAB.call(b, "s3", s3);
                LookupAB.call(b, "to", "s3://bench/std/");
            }
            Path copies = work.resolve("std");
            List<String> keys = SpeedBench.download(s3, "bench", "std/", copies);
            Method[] read = new Method[2];
            for (int i = 0; i < 2; i++) {
                read[i] = LookupAB.m(loaders[i], "io.wrangler.bench.SpeedBench", "read", S3Client.class, String.class);
            }
            try (Connection duck = SpeedBench.duck()) {
                String sql = SpeedBench.allColumns(copies);
                Map<String, Callable<Object>> runs = new LinkedHashMap<>();
                runs.put("A read", () -> check(read[0].invoke(null, s3, "s3://bench/std/"), rows));
                runs.put("floor", () -> {
                    SpeedBench.getAll(s3, "bench", keys);
                    return null;
                });
                runs.put("duck", () -> check(SpeedBench.duckLong(duck, sql), rows));
                runs.put("B read", () -> check(read[1].invoke(null, s3, "s3://bench/std/"), rows));
                for (int i = 0; i < 10; i++) {
                    for (Callable<Object> r : runs.values()) {
                        r.call();
                    }
                }
                Map<String, List<Double>> wall = new LinkedHashMap<>();
                Map<String, List<Double>> cpu = new LinkedHashMap<>();
                runs.keySet().forEach(k -> {
                    wall.put(k, new ArrayList<>());
                    cpu.put(k, new ArrayList<>());
                });
                List<String> order = new ArrayList<>(runs.keySet());
                for (int rep = 0; rep < reps; rep++) {
                    List<String> o = new ArrayList<>(order);
                    if (rep % 2 == 1) {
                        Collections.reverse(o);
                    }
                    for (String k : o) {
                        long c0 = Bench.cpuNanos();
                        long t0 = System.nanoTime();
                        runs.get(k).call();
                        wall.get(k).add((System.nanoTime() - t0) / 1e9);
                        cpu.get(k).add((Bench.cpuNanos() - c0) / 1e9);
                    }
                }
                for (Map<String, List<Double>> f : List.of(wall, cpu)) {
                    String what = f == wall ? "wall" : "CPU";
                    f.forEach((k, v) -> System.out.printf("%-7s %-5s median %.3f s  %s%n", k, what, Bench.median(v), Bench.format(v)));
                    for (String side : List.of("A", "B")) {
                        List<Double> r = new ArrayList<>();
                        for (int i = 0; i < reps; i++) {
                            r.add(f.get(side + " read").get(i) / (f.get("floor").get(i) + f.get("duck").get(i)));
                        }
                        System.out.printf("%s %s ratio median %.2fx, rounds %s%n", side, what, Bench.median(r), Bench.format(r));
                    }
                }
            }
            System.out.println("# load after: " + Bench.load());
        } finally {
            try (java.util.stream.Stream<Path> walk = Files.walk(work)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Object check(Object rows, long expected) {
        SpeedBench.check("read", ((Number) rows).longValue(), expected);
        return rows;
    }
}
