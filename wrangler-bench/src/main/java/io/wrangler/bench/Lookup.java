package io.wrangler.bench;

import io.wrangler.RowFilter;
import io.wrangler.S3Parquet;
import io.wrangler.testkit.LocalS3;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/**
 * SpeedBench's lookup: one {@code user_id} in the standard table written with a bloom filter on {@code user_id}, and
 * sorted by it, read with a row filter. The bytes a read fetched are counted from the GETs' responses (an SDK
 * interceptor, {@link GetLog}), and the GET floor of a lookup is the same requests (key and range) replayed on
 * {@link SpeedBench#FLOOR_THREADS} threads. A second floor sends the lookup's listings first, one after another as the
 * read protocol sends them, then the same GETs: the ratio to it tells how much of the gap the listings are (the figure
 * the target names stays the first).
 */
final class Lookup {
    private Lookup() {
    }

    /**
     * A user id present in the standard table: row 1's by default, in the middle of every file's range, so that only bloom
     * filters and pages rule files out (row 0's, {@code u0000000}, is the least id: min/max alone rule out all but its
     * file). {@code -Dlookup.user=...} (in BENCH_JAVA_OPTS) looks up another.
     */
    static final String USER = System.getProperty("lookup.user", "u4435761");

    static void run(RootAllocator allocator, S3Client s3, LocalS3 local, RequestCounter counter, Path work, long rows, int reps)
            throws Exception {
        String missing = missingApi();
        if (missing != null) {
            System.out.println("lookup: SKIPPED, not measured: " + missing);
            return;
        }
        try (VectorSchemaRoot table = StandardTable.rows(allocator, 0, Math.toIntExact(rows))) {
            SpeedBench.write(() -> S3Parquet.write(table).partitionBy("dt", "country").lease(false).bloomFilters("user_id").sortBy("user_id").s3(s3)
                    .to("s3://bench/lookup/"));
        }
        Path copies = work.resolve("lookup");
        SpeedBench.download(s3, "bench", "lookup/", copies);
        long tableBytes = Bench.sizeOf(copies);
        GetLog log = new GetLog();
        RequestTimeline timeline = new RequestTimeline();
        try (S3Client logged = local.newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(log)));
             S3Client traced = local.newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(timeline)));
             Connection duck = SpeedBench.duck()) {
            long want = duck(duck, copies, USER);
            List<Get>[] fetched = new List[1];
            Map<String, Bench.Run> runs = new LinkedHashMap<>();
            runs.put("wrangler lookup", () -> SpeedBench.check("wrangler lookup", lookup(logged, "s3://bench/lookup/", USER), want));
            runs.put("duckdb lookup (local copy)", () -> SpeedBench.check("duckdb lookup", duck(duck, copies, USER), want));
            runs.put("GET floor of the lookup's requests (8 threads)", () -> replay(s3, fetched[0]));
            List<ListObjectsV2Request>[] listed = new List[1];
            runs.put("its listings, then the GET floor", () -> {
                for (ListObjectsV2Request l : listed[0]) {
                    // as sent, less wrangler's per-request override (its retry plugin), as the GETs are replayed
                    s3.listObjectsV2(l.toBuilder().overrideConfiguration((AwsRequestOverrideConfiguration) null).build());
                }
                replay(s3, fetched[0]);
            });
            log.reset();
            runs.get("wrangler lookup").run();
            fetched[0] = log.gets();
            listed[0] = log.listings();
            long bytes = log.bytes();
            System.out.printf("# lookup of user_id = '%s' (%d rows): %d GETs, %,d bytes of the table's %,d (%.2f%%)%n", USER, want,
                    fetched[0].size(), bytes, tableBytes, 100.0 * bytes / tableBytes);
            for (int w = 0; w < 15; w++) {
                for (Bench.Run r : runs.values()) {
                    r.run();
                }
            }
            System.out.println(phases(traced, timeline, want));
            Map<String, List<Double>> seconds = SpeedBench.alternate(runs, reps);
            List<Double> ratios = new ArrayList<>();
            List<Double> listedRatios = new ArrayList<>();
            for (int i = 0; i < reps; i++) {
                ratios.add(seconds.get("wrangler lookup").get(i) / (seconds.get("duckdb lookup (local copy)").get(i)
                        + seconds.get("GET floor of the lookup's requests (8 threads)").get(i)));
                listedRatios.add(seconds.get("wrangler lookup").get(i) / (seconds.get("duckdb lookup (local copy)").get(i)
                        + seconds.get("its listings, then the GET floor").get(i)));
            }
            System.out.println();
            System.out.println("| lookup run | median s | runs s |");
            System.out.println("| --- | --- | --- |");
            seconds.forEach((k, v) -> System.out.printf("| %s | %.4f | %s |%n", k, Bench.median(v), Bench.format(v)));
            System.out.printf("lookup: bytes fetched %.2f%% of the table (target 5%%); wrangler / (DuckDB + GET floor of its requests): "
                    + "median %.2fx, rounds %s (min %.2fx, max %.2fx)%n%n", 100.0 * bytes / tableBytes, Bench.median(ratios),
                    Bench.format(ratios), Collections.min(ratios), Collections.max(ratios));
            System.out.printf("lookup, its %d listings in the floor (not the target's figure): wrangler / (DuckDB + its listings, then "
                    + "the GET floor): median %.2fx, rounds %s%n%n", listed[0].size(), Bench.median(listedRatios), Bench.format(listedRatios));
        }
    }

    /**
     * One lookup through a client that records its requests (after the warm-up): where its time went, in milliseconds
     * from its start: until its first request, its listings, the span of its GETs and the requests in flight on
     * average over that span (the floor keeps 8), and from the last request's end to the last batch.
     */
    static String phases(S3Client traced, RequestTimeline timeline, long want) throws Exception {
        timeline.reset();
        long start = System.nanoTime();
        SpeedBench.check("wrangler lookup (traced)", lookup(traced, "s3://bench/lookup/", USER), want);
        long end = System.nanoTime();
        List<RequestTimeline.Request> rs = timeline.requests();
        List<RequestTimeline.Request> gets = rs.stream().filter(r -> r.op.equals("GetObject")).toList();
        long lastListEnd = rs.stream().filter(r -> !r.op.equals("GetObject")).mapToLong(r -> r.end).max().orElse(start);
        long firstGet = gets.stream().mapToLong(r -> r.start).min().orElse(end);
        long lastGetEnd = gets.stream().mapToLong(r -> r.end).max().orElse(end);
        long busy = gets.stream().mapToLong(r -> r.end - r.start).sum();
        java.util.function.LongFunction<String> ms = t -> String.format("%.1f", (t - start) / 1e6);
        return String.format("# traced lookup: %s ms in all; requests %s; listings end %s; GETs %s to %s (%d, %.1f in flight on average, "
                        + "the longest chain %d requests); last batch %.1f ms after the last GET", ms.apply(end), RequestTimeline.byOp(rs),
                ms.apply(lastListEnd), ms.apply(firstGet), ms.apply(lastGetEnd), gets.size(),
                busy / (double) Math.max(1, lastGetEnd - firstGet), RequestTimeline.longestChain(gets).size(), (end - lastGetEnd) / 1e6);
    }

    /** wrangler's read of every column of the rows of {@code user}; their count. */
    static long lookup(S3Client s3, String table, String user) throws Exception {
        long n = 0;
        try (ArrowReader r = S3Parquet.read(table).s3(s3).where(RowFilter.eq("user_id", user)).open()) {
            while (r.loadNextBatch()) {
                n += r.getVectorSchemaRoot().getRowCount();
            }
        }
        return n;
    }

    /** What this build lacks for the lookup (row filters, bloom filters, sortBy), or null when it has them all. */
    static String missingApi() {
        List<String> missing = new ArrayList<>();
        if (!hasMethod("io.wrangler.ReadBuilder", "where")) {
            missing.add("row filters (ReadBuilder.where, branch h-filters)");
        }
        if (!hasMethod("io.wrangler.WriteBuilder", "sortBy")) {
            missing.add("sortBy (branch h-layoutopts)");
        }
        if (!hasMethod("io.wrangler.WriteBuilder", "bloomFilter") && !hasMethod("io.wrangler.WriteBuilder", "bloomFilters")) {
            missing.add("bloom filters (branch h-layoutopts)");
        }
        return missing.isEmpty() ? null : "this build has no " + String.join(", no ", missing);
    }

    private static boolean hasMethod(String type, String name) {
        try {
            for (var m : Class.forName(type).getMethods()) {
                if (m.getName().equals(name)) {
                    return true;
                }
            }
            return false;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** DuckDB's count of the rows of {@code user} in the local copy (every column of them read). */
    static long duck(Connection duck, Path copies, String user) throws Exception {
        return SpeedBench.duckLong(duck, SpeedBench.allColumns(copies) + " WHERE user_id = '" + user + "'");
    }

    /** One GET as sent: its key, range (or null: whole) and the bytes its response carried. */
    record Get(String bucket, String key, String range, long bytes) {
    }

    /** Every GetObject a client sent, with the bytes of its response (Content-Length), and its listings in the order sent. */
    static final class GetLog implements ExecutionInterceptor {
        private final ConcurrentLinkedQueue<Get> gets = new ConcurrentLinkedQueue<>();
        private final ConcurrentLinkedQueue<ListObjectsV2Request> listings = new ConcurrentLinkedQueue<>();

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            if (context.request() instanceof ListObjectsV2Request l) {
                listings.add(l);
            }
        }

        @Override
        public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
            SdkRequest q = context.request();
            SdkResponse r = context.response();
            if (q instanceof GetObjectRequest g && r instanceof GetObjectResponse got) {
                gets.add(new Get(g.bucket(), g.key(), g.range(), got.contentLength() == null ? 0 : got.contentLength()));
            }
        }

        void reset() {
            gets.clear();
            listings.clear();
        }

        List<ListObjectsV2Request> listings() {
            return List.copyOf(listings);
        }

        List<Get> gets() {
            return List.copyOf(gets);
        }

        long bytes() {
            return gets.stream().mapToLong(Get::bytes).sum();
        }
    }

    /** The GET floor of a read: its GETs sent again, {@link SpeedBench#FLOOR_THREADS} at once, the bytes dropped. */
    static void replay(S3Client s3, List<Get> gets) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(SpeedBench.FLOOR_THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Get g : gets) {
                done.add(pool.submit(() -> s3.getObjectAsBytes(b -> b.bucket(g.bucket()).key(g.key()).range(g.range()))));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

}
