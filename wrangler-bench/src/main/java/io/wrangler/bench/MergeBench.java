package io.wrangler.bench;

import io.wrangler.MergeResult;
import io.wrangler.S3Parquet;
import io.wrangler.testkit.GeneratedReader;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.NetworkProfile;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VarCharVector;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A merge by key against DuckDB's same merge, in one JVM (BENCHMARKS.md, "Merge by key"). The standard table of
 * {@code rows} rows (default 5,000,000) partitioned by {@code dt} over 200 days (one file per partition); the merge
 * input: 50,000 rows, 49,500 of them updates of existing keys (user_id; amount_cents + 1) spread over 20 of the 200
 * partitions (every tenth day, 2,475 each) and 500 new keys in the same partitions.
 *
 * <p>wrangler: {@code S3Parquet.merge(input).on("user_id")} into a fresh copy of the table in an in-memory S3 (SimS3
 * without delays: wrangler's own cost, as DuckDB reading local files pays no server), each run's table written before its
 * clock starts; the result is checked: 49,500 updated, 500 inserted, exactly the 20 files of the touched partitions
 * rewritten, every other file untouched. DuckDB: the same merge over its own files of the same rows (written by its
 * COPY ... PARTITION_BY), with the input in a DuckDB table: the touched partitions read, the input's keys anti-joined,
 * the input unioned, and the result COPYed partitioned by dt (its row count checked). The two alternate, each run
 * once untimed first.
 *
 * <p>{@code memory [rows, default 40,000,000] [heap, default 512m]}: a merge into one partition of {@code rows} rows
 * (several times the heap decoded) on LocalS3, run in a child JVM of that heap; prints its time and the heap.
 */
public final class MergeBench {
    static final int DAYS = 200;
    static final int TOUCHED = 20;
    static final int UPDATES = 49_500;
    static final int INSERTS = 500;

    private MergeBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("memory")) {
            memory(args.length > 1 ? Long.parseLong(args[1]) : 40_000_000L, args.length > 2 ? args[2] : "512m");
            return;
        }
        if (args.length > 0 && args[0].equals("child")) {
            child(args);
            return;
        }
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        if (rows % DAYS != 0 || rows / DAYS <= UPDATES / TOUCHED) {
            throw new IllegalArgumentException("rows must be a multiple of " + DAYS + " and hold the updates");
        }
        System.out.printf("# wrangler merge bench: %,d rows, %d repetitions, %d cores, max heap %d MiB, %s%n", rows, reps,
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"));
        System.out.println("# load before: " + Bench.load());
        Path work = Files.createTempDirectory("wrangler-merge-bench-");
        try (RootAllocator allocator = new RootAllocator();
             Connection duck = DriverManager.getConnection("jdbc:duckdb:");
             VectorSchemaRoot input = input(allocator, rows)) {
            try (Statement st = duck.createStatement()) {
                st.execute("SET threads = " + Runtime.getRuntime().availableProcessors());
                st.execute("SET TimeZone = 'UTC'");
                String std = StandardTable.duckdbSql(rows).replace("i % 10 AS INTEGER", "i % " + DAYS + " AS INTEGER");
                st.execute("COPY (" + std + ") TO '" + work.resolve("duck-t") + "' (FORMAT PARQUET, PARTITION_BY (dt), COMPRESSION SNAPPY)");
                String from = "FROM range(" + rows + ") r(i)";
                String updates = std.replace(from, "FROM (SELECT (k % " + TOUCHED + ") * 10 + " + DAYS + " * (k // " + TOUCHED + ") AS i "
                        + "FROM range(" + UPDATES + ") r(k)) r");
                String inserts = std.replace(from, "FROM (SELECT " + rows + " + " + DAYS + " * (k // " + TOUCHED + ") + (k % " + TOUCHED
                        + ") * 10 AS i FROM range(" + INSERTS + ") r(k)) r");
                st.execute("CREATE TABLE inp AS SELECT user_id, country, amount_cents + 1 AS amount_cents, price, ts, dt FROM (" + updates
                        + ") UNION ALL " + inserts);
            }
            checkSameInput(duck, input);
            List<String> touched = new ArrayList<>();
            for (int k = 0; k < TOUCHED; k++) {
                touched.add("'" + work.resolve("duck-t").resolve("dt=" + java.time.LocalDate.ofEpochDay(StandardTable.DAY0 + k * 10L))
                        + "/*.parquet'");
            }
            long expectedRows = rows / DAYS * TOUCHED + INSERTS;
            int[] n = {0};
            S3Client sim = new SimS3(NetworkProfile.none(), 64, null).keepingData();
            String[] next = {null};
            Map<String, Bench.Run> runs = new LinkedHashMap<>();
            runs.put("duckdb merge: read 20 partitions, anti-join, union, COPY PARTITION_BY (local files)", () -> {
                Path out = work.resolve("duck-m" + n[0]++);
                Bench.copy(duck, "COPY (SELECT * FROM read_parquet([" + String.join(", ", touched) + "], hive_partitioning = true) "
                        + "WHERE user_id NOT IN (SELECT user_id FROM inp) UNION ALL SELECT * FROM inp) TO '" + out
                        + "' (FORMAT PARQUET, PARTITION_BY (dt), COMPRESSION SNAPPY)");
                long got = countOf(duck, out);
                if (got != expectedRows) {
                    throw new IllegalStateException("DuckDB's merge wrote " + got + " rows, not " + expectedRows);
                }
            });
            runs.put("wrangler merge (in-memory S3)", () -> merged(sim, next[0], input));
            Map<String, List<Double>> seconds = new LinkedHashMap<>();
            for (int rep = -1; rep < reps; rep++) {
                for (Map.Entry<String, Bench.Run> e : runs.entrySet()) {
                    if (e.getKey().startsWith("wrangler")) {
                        next[0] = "s3://sim/m" + n[0]++ + "/";
                        write(allocator, sim, next[0], rows);
                    }
                    Bench.settle();
                    long t0 = System.nanoTime();
                    e.getValue().run();
                    double s = (System.nanoTime() - t0) / 1e9;
                    if (rep >= 0) {
                        seconds.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(s);
                    }
                    System.out.printf("# %s%s: %.2f s (load %s)%n", rep < 0 ? "untimed " : "", e.getKey(), s, Bench.load());
                }
            }
            System.out.println();
            System.out.println("| run | median s | runs s |");
            System.out.println("| --- | --- | --- |");
            Map<String, Double> median = new LinkedHashMap<>();
            seconds.forEach((k, v) -> {
                median.put(k, Bench.median(v));
                System.out.printf("| %s | %.3f | %s |%n", k, Bench.median(v), Bench.format(v));
            });
            double duckMedian = median.values().iterator().next();
            System.out.printf("%nwrangler merge / DuckDB merge: %.2fx (load after: %s)%n", median.get("wrangler merge (in-memory S3)") / duckMedian,
                    Bench.load());
        } finally {
            try (var walk = Files.walk(work)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The standard table of {@code rows} rows over {@link #DAYS} days, written partitioned by dt to {@code table}. */
    static void write(BufferAllocator allocator, S3Client s3, String table, long rows) throws Exception {
        try (GeneratedReader in = new GeneratedReader(allocator, StandardTable.schema(), rows, 1 << 20,
                (root, first, count) -> StandardTable.fill(root, first, count, DAYS))) {
            S3Parquet.write(in).partitionBy("dt").s3(s3).to(table);
        }
    }

    /** The merge input: the updates (amount_cents + 1) then the new keys; see the class comment. */
    static VectorSchemaRoot input(BufferAllocator allocator, long rows) {
        VectorSchemaRoot input = VectorSchemaRoot.create(StandardTable.schema(), allocator);
        input.allocateNew();
        try (VectorSchemaRoot one = VectorSchemaRoot.create(StandardTable.schema(), allocator)) {
            for (int k = 0; k < UPDATES + INSERTS; k++) {
                long i = k < UPDATES ? (k % TOUCHED) * 10L + (long) DAYS * (k / TOUCHED)
                        : rows + (long) DAYS * ((k - UPDATES) / TOUCHED) + ((k - UPDATES) % TOUCHED) * 10L;
                StandardTable.fill(one, i, 1, DAYS);
                for (int c = 0; c < one.getFieldVectors().size(); c++) {
                    input.getVector(c).copyFromSafe(0, k, one.getVector(c));
                }
                if (k < UPDATES) {
                    BigIntVector amount = (BigIntVector) input.getVector("amount_cents");
                    amount.set(k, amount.get(k) + 1);
                }
            }
        }
        input.setRowCount(UPDATES + INSERTS);
        return input;
    }

    /** The merge in wrangler, its result checked: see the class comment. */
    private static void merged(S3Client s3, String table, VectorSchemaRoot input) {
        URI uri = URI.create(table);
        String prefix = uri.getPath().substring(1);
        Map<String, String> before = files(s3, uri.getHost(), prefix);
        MergeResult r = S3Parquet.merge(input).on("user_id").s3(s3).to(table);
        Map<String, String> after = files(s3, uri.getHost(), prefix);
        TreeSet<String> rewrittenFolders = new TreeSet<>();
        r.filesRewritten().forEach(f -> rewrittenFolders.add(f.substring(0, f.lastIndexOf('/'))));
        if (r.rowsUpdated() != UPDATES || r.rowsInserted() != INSERTS || r.filesRewritten().size() != TOUCHED
                || rewrittenFolders.size() != TOUCHED || r.partitionsTouched().size() != TOUCHED) {
            throw new IllegalStateException("the merge did other work than expected: " + r);
        }
        for (Map.Entry<String, String> e : before.entrySet()) {
            String uriOf = "s3://" + uri.getHost() + "/" + e.getKey();
            boolean rewritten = r.filesRewritten().contains(uriOf);
            if (rewritten == after.containsKey(e.getKey()) || !rewritten && !e.getValue().equals(after.get(e.getKey()))) {
                throw new IllegalStateException("the merge rewrote other files than those holding its keys: " + e.getKey());
            }
        }
    }

    /** The data files under {@code prefix}, with their ETags. */
    private static Map<String, String> files(S3Client s3, String bucket, String prefix) {
        Map<String, String> out = new TreeMap<>();
        for (S3Object o : s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build()).contents()) {
            if (o.key().endsWith(".parquet") && !o.key().contains("/_")) {
                out.put(o.key(), o.eTag());
            }
        }
        return out;
    }

    private static long countOf(Connection duck, Path dir) throws Exception {
        try (Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM read_parquet('" + dir + "/**/*.parquet')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** DuckDB's input and ours must be the same rows. */
    private static void checkSameInput(Connection duck, VectorSchemaRoot input) throws Exception {
        long sum = 0;
        String max = "";
        BigIntVector amount = (BigIntVector) input.getVector("amount_cents");
        VarCharVector user = (VarCharVector) input.getVector("user_id");
        for (int i = 0; i < input.getRowCount(); i++) {
            sum += amount.get(i);
            String u = new String(user.get(i), StandardCharsets.US_ASCII);
            max = u.compareTo(max) > 0 ? u : max;
        }
        try (Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*), sum(amount_cents)::BIGINT, max(user_id), count(DISTINCT user_id) FROM inp")) {
            rs.next();
            if (rs.getLong(1) != input.getRowCount() || rs.getLong(2) != sum || !rs.getString(3).equals(max) || rs.getLong(4) != rs.getLong(1)) {
                throw new IllegalStateException("DuckDB's merge input differs from Java's: " + rs.getLong(1) + " " + rs.getLong(2) + " "
                        + rs.getString(3) + " vs " + input.getRowCount() + " " + sum + " " + max);
            }
        }
    }

    /**
     * The memory run: {@code rows} rows of the standard table in one partition on LocalS3, then a child JVM with a heap of
     * {@code heap} merges 10,000 rows into it (updates spread over the whole partition, so every file is rewritten).
     */
    private static void memory(long rows, String heap) throws Exception {
        System.out.printf("# wrangler merge memory bench: %,d rows in one partition, child heap %s, load %s%n", rows, heap, Bench.load());
        try (RootAllocator allocator = new RootAllocator(); LocalS3 local = LocalS3.start()) {
            S3Client s3 = local.newClient(b -> { });
            local.createBucket("bench");
            long t0 = System.nanoTime();
            try (GeneratedReader in = new GeneratedReader(allocator, StandardTable.schema(), rows, 1 << 20,
                    (root, first, count) -> StandardTable.fill(root, first, count, 1))) {
                S3Parquet.write(in).partitionBy("dt").s3(s3).to("s3://bench/big/");
            }
            long bytes = local.list("bench", "big/").values().stream().mapToLong(Long::longValue).sum();
            System.out.printf("# table written: %,d bytes in %.1f s%n", bytes, (System.nanoTime() - t0) / 1e9);
            String cp = System.getProperty("java.class.path");
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
                    "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", cp, MergeBench.class.getName(), "child",
                    local.endpoint().toString(), "s3://bench/big/", Long.toString(rows)).redirectErrorStream(true).start();
            long t1 = System.nanoTime();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    System.out.println("# child: " + line);
                }
            }
            int rc = child.waitFor();
            System.out.printf("# child exit %d, merge %.1f s (load %s)%n", rc, (System.nanoTime() - t1) / 1e9, Bench.load());
        }
    }

    /** The process's peak resident set (VmHWM of /proc/self/status), or "n/a" off Linux. */
    private static String peakRss() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM:"))
                    .map(l -> l.substring(6).trim()).findFirst().orElse("n/a");
        } catch (java.io.IOException e) {
            return "n/a";
        }
    }

    /** The child of {@link #memory}: args endpoint, table, rows. */
    private static void child(String[] args) throws Exception {
        long rows = Long.parseLong(args[3]);
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(args[1])).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
             RootAllocator allocator = new RootAllocator();
             VectorSchemaRoot input = VectorSchemaRoot.create(StandardTable.schema(), allocator);
             VectorSchemaRoot one = VectorSchemaRoot.create(StandardTable.schema(), allocator)) {
            int n = 10_000;
            input.allocateNew();
            for (int k = 0; k < n; k++) {
                // user_id repeats every 10,000,000 rows: keys from the first 10 million rows are distinct
                StandardTable.fill(one, k * (Math.min(rows, 10_000_000L) / n), 1, 1);
                for (int c = 0; c < one.getFieldVectors().size(); c++) {
                    input.getVector(c).copyFromSafe(0, k, one.getVector(c));
                }
            }
            input.setRowCount(n);
            long t0 = System.nanoTime();
            MergeResult r = S3Parquet.merge(input).on("user_id").s3(s3).to(args[2]);
            long peak = 0;
            for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == java.lang.management.MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.out.printf("MERGED updated %d inserted %d files rewritten %d in %.1f s, max heap %d MiB, peak heap %d MiB, "
                    + "peak RSS %s%n", r.rowsUpdated(), r.rowsInserted(), r.filesRewritten().size(), (System.nanoTime() - t0) / 1e9,
                    Runtime.getRuntime().maxMemory() >> 20, peak >> 20, peakRss());
        }
    }
}
