package io.wrangler.bench;

import io.wrangler.CompactionResult;
import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import io.wrangler.read.FullBatches;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.NetworkProfile;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Reading and compaction against DuckDB, in one JVM (BENCHMARKS.md, "Reading and compaction"). Arguments: rows of the
 * standard table (default 5,000,000), repetitions (default 3), rows of the compaction table (default 2,000,000).
 *
 * <p>Read: the standard table written by wrangler partitioned by (dt, country) to LocalS3, then read back whole and one
 * partition of it, by wrangler from LocalS3 and by DuckDB from local copies of the very same files (DuckDB's httpfs
 * cannot be loaded offline). So that the comparison is fair, the LocalS3 floor is timed too: the same files fetched
 * whole with one GET each, sequentially as wrangler reads them, and nothing else. DuckDB is made to decode every column
 * (an aggregate of each); wrangler decodes every column into Arrow vectors and does nothing with them. The same table
 * is also read from an in-memory S3 (wrangler's own cost), timed against DuckDB in a block of its own before any LocalS3
 * run (see the comment in {@link #main} for why).
 *
 * <p>Compaction: 200 partitions (10 days x 20 countries) of 20 small files each (20 appends), compacted by wrangler
 * on LocalS3, against DuckDB's {@code COPY (SELECT * FROM read_parquet(...)) TO ... (PARTITION_BY (dt, country))} of
 * local copies of the same files. Each compaction run gets a fresh copy of the table, built before its clock starts.
 */
public final class ReadBench {
    private ReadBench() {
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        long compactRows = args.length > 2 ? Long.parseLong(args[2]) : 2_000_000L;
        // "memory-only": the compaction through LocalS3 (minutes a run, all of it S3Mock's time per request) is left out
        boolean localCompaction = !(args.length > 3 && args[3].equals("memory-only"));
        // "read-only": no compaction at all (the reads' table and ratios only)
        boolean compaction = !(args.length > 3 && args[3].equals("read-only"));
        System.out.printf("# wrangler read bench: %,d rows, %d repetitions, compaction of %,d rows, %d cores, max heap %d MiB, %s%n", rows,
                reps, compactRows, Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                System.getProperty("java.version"));
        System.out.println("# load before: " + load());
        Path work = Files.createTempDirectory("wrangler-read-bench-");
        try (RootAllocator allocator = new RootAllocator();
             LocalS3 local = LocalS3.start();
             Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            try (Statement st = duck.createStatement()) {
                st.execute("SET threads = " + Runtime.getRuntime().availableProcessors());
                st.execute("SET TimeZone = 'UTC'");
            }
            S3Client s3 = local.newClient(b -> { });
            local.createBucket("bench");
            try (VectorSchemaRoot table = StandardTable.rows(allocator, 0, Math.toIntExact(rows))) {
                S3Parquet.write(table).partitionBy("dt", "country").s3(s3).to("s3://bench/std/");
            }
            // The same table in an in-memory S3 (SimS3 without delays): wrangler's own read cost, no server's CPU, as
            // DuckDB reading local copies pays none either.
            S3Client sim = new SimS3(NetworkProfile.none(), 64, null).keepingData();
            try (VectorSchemaRoot table = StandardTable.rows(allocator, 0, Math.toIntExact(rows))) {
                S3Parquet.write(table).partitionBy("dt", "country").s3(sim).to("s3://sim/std/");
            }
            Path copies = work.resolve("std");
            List<String> keys = download(local, "bench", "std/", copies);
            System.out.printf("# standard table: %d files, %,d bytes%n", keys.size(), Bench.sizeOf(copies));
            String glob = copies + "/**/*.parquet";
            String all = "SELECT count(*), max(user_id), max(country), sum(amount_cents), sum(price), max(ts), max(dt) FROM read_parquet('"
                    + glob + "', hive_partitioning = true)";
            String one = all + " WHERE dt = DATE '2025-01-03' AND country = 'US'";
            PartitionFilter us3 = PartitionFilter.in("dt", "2025-01-03").and(PartitionFilter.in("country", "US"));

            long[] expected = {rows, duckLong(duck, one)};
            // Two blocks, in this order. First wrangler's own cost against DuckDB: the in-memory S3 and DuckDB's scans
            // alternating, and nothing else in the JVM. Then the LocalS3 runs. Not one block: S3Mock serves LocalS3 from
            // this JVM, and after each LocalS3 read the JIT compiled S3Mock's code (Tomcat, Spring, its store) on the
            // same two cores while the next run was timed: with the runs of both blocks alternating, the compiler
            // threads spent up to 0.28 s of CPU inside a 0.38 s in-memory read and 1,773 methods were made not entrant
            // over 8 alternations (PrintCompilation; 29 of them wrangler's or Arrow's, none in the decoder), and the
            // in-memory read took 0.46 s and 0.88 s of CPU where it takes 0.25 s and 0.48 s alone. A JVM reading a table
            // talks to one S3, not to a server in its own heap.
            Map<String, Bench.Run> runs = new LinkedHashMap<>();
            runs.put("duckdb read all columns (local copies)", () -> duckLong(duck, all));
            runs.put("wrangler read all columns (in-memory S3)", () -> check(read(sim, "s3://sim/std/", null, 0), expected[0]));
            runs.put("wrangler read one partition (in-memory S3)", () -> check(read(sim, "s3://sim/std/", us3, 0), expected[1]));
            runs.put("duckdb read one partition (local copies)", () -> duckLong(duck, one));
            // The JIT: one untimed run of each (time) leaves the decoding half compiled; a JVM job that reads more than once
            // runs compiled code, so the in-memory read is warmed WARM_READS times more (DuckDB has nothing to warm).
            // PrintCompilation on ReadLoop: C2 still compiled 100 to 300 methods a read (0.15 s of compiler-thread CPU
            // a read, on the same two cores as the decoding) until about the fifteenth read of the table's 200 files,
            // whose footer parsing runs 200 times a read; the read's time kept falling until about the thirtieth
            // (`--read-loop 5000000 120 0`: 0.53 s at the fifth read, 0.44 at the twentieth, 0.29 at the thirtieth,
            // then a median of 0.26 s and 0.50 s of CPU; the compiler threads' CPU 0.013 s a read from the 45th on).
            for (int w = 0; w < WARM_READS; w++) {
                read(sim, "s3://sim/std/", null, 0);
            }
            Map<String, List<Double>> seconds = time(runs, reps);
            Map<String, Bench.Run> localRuns = new LinkedHashMap<>();
            localRuns.put("wrangler read all columns (LocalS3)", () -> check(read(s3, "s3://bench/std/", null, 0), expected[0]));
            localRuns.put("wrangler read all columns, one thread (LocalS3)", () -> check(read(s3, "s3://bench/std/", null, 1), expected[0]));
            localRuns.put("LocalS3 floor: GET each file whole, sequentially", () -> getAll(s3, "bench", keys));
            localRuns.put("wrangler read one partition (LocalS3)", () -> check(read(s3, "s3://bench/std/", us3, 0), expected[1]));
            seconds.putAll(time(localRuns, reps));
            seconds.forEach((k, v) -> System.out.println("# " + k + ": " + Bench.format(v) + " s"));
            if (!compaction) {
                summary(seconds, null);
                s3.close();
                return;
            }

            // Compaction: a fresh table of 200 partitions x 20 files per run.
            int[] n = {0};
            Map<String, Bench.Run> compactions = new LinkedHashMap<>();
            Path small = work.resolve("small");
            // Each compaction table in a bucket of its own: S3Mock's cost per request grows with the objects in the bucket.
            local.createBucket("small0");
            String smallTable = smallFiles(allocator, s3, "s3://small0/t/", compactRows);
            download(local, "small0", "t/", small);
            System.out.printf("# compaction table: %d files, %,d bytes%n", local.list("small0", "t/").keySet().stream()
                    .filter(k -> k.endsWith(".parquet")).count(), Bench.sizeOf(small));
            String[] next = {smallTable};
            compactions.put("duckdb COPY ... PARTITION_BY (local copies)", () -> Bench.copy(duck, "COPY (SELECT * FROM read_parquet('" + small
                    + "/**/*.parquet', hive_partitioning = true)) TO '" + work.resolve("duck-c" + n[0]++) + "' (FORMAT PARQUET, "
                    + "PARTITION_BY (dt, country), COMPRESSION SNAPPY)"));
            if (localCompaction) {
                compactions.put("wrangler compact (LocalS3)", () -> {
                    CompactionResult r = S3Parquet.compact(next[0]).s3(s3).run();
                    if (r.rowsWritten() != compactRows || r.partitions().size() != 200 || r.filesAfter() != 200) {
                        throw new IllegalStateException("the compaction did other work than expected: " + r);
                    }
                });
            }
            // The same compaction in an in-memory S3 (a fresh table per run): wrangler's own cost without S3Mock's,
            // whose time per request grows with the objects of the bucket (4,000 here).
            String[] nextSim = {null};
            compactions.put("wrangler compact (in-memory S3)", () -> {
                CompactionResult r = S3Parquet.compact(nextSim[0]).s3(sim).run();
                if (r.rowsWritten() != compactRows || r.partitions().size() != 200 || r.filesAfter() != 200) {
                    throw new IllegalStateException("the compaction did other work than expected: " + r);
                }
            });
            // No untimed run of the LocalS3 compaction (each one would cost a table of 4,000 files in S3Mock); the compaction's
            // own code is warmed by six untimed compactions of fresh in-memory tables (the sixth run of a JVM settles).
            for (int w = 0; w < 6; w++) {
                S3Parquet.compact(smallFiles(allocator, sim, "s3://sim/warm" + w + "/", compactRows)).s3(sim).run();
            }
            boolean[] used = {false};
            Map<String, List<Double>> compactSeconds = timeEach(compactions, reps, false, name -> {
                if (name.contains("in-memory")) {
                    nextSim[0] = smallFiles(allocator, sim, "s3://sim/small" + (++n[0]) + "/", compactRows);
                } else if (name.startsWith("wrangler")) {
                    if (used[0]) {
                        String bucket = "small" + (++n[0]);
                        local.createBucket(bucket);
                        next[0] = smallFiles(allocator, s3, "s3://" + bucket + "/t/", compactRows);
                    }
                    used[0] = true;
                }
            });
            compactSeconds.forEach((k, v) -> System.out.println("# " + k + ": " + Bench.format(v) + " s"));
            seconds.putAll(compactSeconds);

            summary(seconds, localCompaction);
            s3.close();
        } finally {
            try (var walk = Files.walk(work)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The table of medians and the ratios; {@code localCompaction} null when no compaction ran. */
    private static void summary(Map<String, List<Double>> seconds, Boolean localCompaction) {
        {
            Map<String, Double> median = new LinkedHashMap<>();
            seconds.forEach((k, v) -> median.put(k, Bench.median(v)));
            System.out.println();
            System.out.println("| run | median s | runs s | median CPU s |");
            System.out.println("| --- | --- | --- | --- |");
            median.forEach((k, v) -> System.out.printf("| %s | %.3f | %s | %s |%n", k, v, Bench.format(seconds.get(k)),
                    CPU.containsKey(k) ? String.format("%.3f", Bench.median(CPU.get(k))) : "-"));
            System.out.println();
            double readAll = median.get("wrangler read all columns (LocalS3)");
            double floor = median.get("LocalS3 floor: GET each file whole, sequentially");
            double duckAll = median.get("duckdb read all columns (local copies)");
            System.out.printf("LocalS3 (S3Mock's time per request): read all / DuckDB: %.2fx; read all / LocalS3 floor: %.2fx%n",
                    readAll / duckAll, readAll / floor);
            System.out.printf("read one partition / DuckDB: %.2fx%n", median.get("wrangler read one partition (LocalS3)")
                    / median.get("duckdb read one partition (local copies)"));
            System.out.printf("in-memory S3: read all / DuckDB: %.2fx; read one partition / DuckDB: %.2fx%n",
                    median.get("wrangler read all columns (in-memory S3)") / duckAll,
                    median.get("wrangler read one partition (in-memory S3)") / median.get("duckdb read one partition (local copies)"));
            System.out.printf("CPU, in-memory S3: read all / DuckDB: %.2fx%n",
                    Bench.median(CPU.get("wrangler read all columns (in-memory S3)")) / Bench.median(CPU.get("duckdb read all columns (local copies)")));
            if (localCompaction == null) {
                System.out.println("# load after: " + load());
                return;
            }
            double duckCopy = median.get("duckdb COPY ... PARTITION_BY (local copies)");
            System.out.printf("compact / DuckDB COPY: %s; in-memory S3: %.2fx%n", localCompaction
                    ? String.format("%.2fx", median.get("wrangler compact (LocalS3)") / duckCopy) : "not run",
                    median.get("wrangler compact (in-memory S3)") / duckCopy);
            System.out.printf("CPU, in-memory S3: compact / DuckDB COPY: %.2fx%n",
                    Bench.median(CPU.get("wrangler compact (in-memory S3)")) / Bench.median(CPU.get("duckdb COPY ... PARTITION_BY (local copies)")));
            System.out.println("# load after: " + load());
        }
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Reads the table, every column decoded, on {@code threads} decoding threads (0: the default); returns the rows. */
    private static long read(S3Client s3, String table, PartitionFilter filter, int threads) throws Exception {
        var b = S3Parquet.read(table).s3(s3);
        if (filter != null) {
            b.filter(filter);
        }
        long rows = 0;
        try (ArrowReader r = b.open()) {
            if (threads > 0) {
                ((FullBatches) r).threads(threads);
            }
            while (r.loadNextBatch()) {
                rows += r.getVectorSchemaRoot().getRowCount();
            }
        }
        return rows;
    }

    private static void check(long got, long expected) {
        if (got != expected) {
            throw new IllegalStateException("wrangler read " + got + " rows where DuckDB counts " + expected);
        }
    }

    private static long duckLong(Connection duck, String sql) throws Exception {
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void getAll(S3Client s3, String bucket, List<String> keys) {
        for (String k : keys) {
            s3.getObjectAsBytes(b -> b.bucket(bucket).key(k));
        }
    }

    /** Copies the table's data files to {@code dir}, at the same relative paths; returns their keys. */
    private static List<String> download(LocalS3 local, String bucket, String prefix, Path dir) throws Exception {
        List<String> keys = new ArrayList<>();
        for (String k : local.list(bucket, prefix).keySet()) {
            if (!k.endsWith(".parquet") || k.contains("/_")) {
                continue;
            }
            Path p = dir.resolve(k.substring(prefix.length()));
            Files.createDirectories(p.getParent());
            Files.write(p, local.get(bucket, k));
            keys.add(k);
        }
        Collections.sort(keys);
        return keys;
    }

    /** 200 partitions of 20 files each: 20 appends of the standard table's rows over 10 days and 20 countries. */
    static String smallFiles(RootAllocator allocator, S3Client s3, String table, long rows) {
        int appends = 20;
        long per = rows / appends;
        for (int a = 0; a < appends; a++) {
            try (VectorSchemaRoot part = StandardTable.rows(allocator, a * per, Math.toIntExact(per))) {
                S3Parquet.write(part).partitionBy("dt", "country").s3(s3).to(table);
            }
        }
        return table;
    }

    /**
     * The process's CPU seconds of each timed run (every thread: wrangler's decoders and prefetch, DuckDB's workers):
     * what a run costs whatever else the machine runs, where wall time also measures the neighbours.
     */
    private static final Map<String, List<Double>> CPU = new LinkedHashMap<>();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** Untimed reads of the in-memory table before the timed runs: see where it is used. */
    private static final int WARM_READS = 40;

    private static Map<String, List<Double>> time(Map<String, Bench.Run> runs, int reps) throws Exception {
        return timeEach(runs, reps, true, name -> { });
    }

    interface Before {
        void prepare(String name) throws Exception;
    }

    /**
     * Optionally one untimed run of each, then {@code reps} timed rounds, alternating the order; {@code before} runs
     * before each timed run, off the clock.
     */
    private static Map<String, List<Double>> timeEach(Map<String, Bench.Run> runs, int reps, boolean warmUp, Before before) throws Exception {
        Map<String, List<Double>> seconds = new LinkedHashMap<>();
        runs.keySet().forEach(k -> seconds.put(k, new ArrayList<>()));
        if (warmUp) {
            for (Bench.Run r : runs.values()) {
                r.run();
            }
        }
        for (int rep = 0; rep < reps; rep++) {
            List<String> order = new ArrayList<>(runs.keySet());
            if (rep % 2 == 1) {
                Collections.reverse(order);
            }
            for (String name : order) {
                before.prepare(name);
                Bench.settle();
                long start = System.nanoTime();
                long cpu = OS.getProcessCpuTime();
                runs.get(name).run();
                seconds.get(name).add((System.nanoTime() - start) / 1e9);
                CPU.computeIfAbsent(name, k -> new ArrayList<>()).add((OS.getProcessCpuTime() - cpu) / 1e9);
            }
        }
        return seconds;
    }
}
