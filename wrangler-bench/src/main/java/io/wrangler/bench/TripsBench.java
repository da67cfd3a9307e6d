package io.wrangler.bench;

import io.wrangler.CommitMethod;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.bench.RequestTimeline.Request;
import io.wrangler.testkit.NetworkProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Sequential round trips of a write: the standard table (200 partitions, one file each) written with
 * {@code OVERWRITE_PARTITIONS} over its own earlier run, against {@link SimS3} (no server CPU) behind a client pool of
 * {@code pool} connections (the SDK's default client has 50), at two or more per-request first-byte delays. The slope of
 * the write's time against the delay (seconds per second of latency) is the number of round trips the write waits for one
 * after the other: the protocol's serial steps plus the waves of requests queued behind the pool.
 *
 * <p>Arguments: rows (default 200,000), delays in ms (default 50,250), repetitions (default 3; medians), pool
 * (default 50), methods (default stage,deferred), MB/s per connection (default 80), the write's {@code concurrency} (default 48). Run with {@code ./bench.sh --trips}.
 */
public final class TripsBench {
    private TripsBench() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        List<Long> delays = new ArrayList<>();
        for (String d : (args.length > 1 ? args[1] : "50,250").split(",")) {
            delays.add(Long.parseLong(d));
        }
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int pool = args.length > 3 ? Integer.parseInt(args[3]) : 50;
        List<String> methods = List.of((args.length > 4 ? args[4] : "stage,deferred").split(","));
        long mbps = args.length > 5 ? Long.parseLong(args[5]) : 80;
        int concurrency = args.length > 6 ? Integer.parseInt(args[6]) : 48;
        System.out.printf("# round-trips bench: standard table, %,d rows (200 files), delays %s ms, %d repetitions (medians), client pool %d,"
                + " concurrency %d, %d MB/s per connection, %d cores, %s%n", rows, delays, reps, pool, concurrency, mbps, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        System.out.println("# load: " + Bench.load());
        RequestTimeline timeline = new RequestTimeline();
        int n = 0;
        try (RootAllocator allocator = new RootAllocator();
             VectorSchemaRoot table = VectorSchemaRoot.create(StandardTable.schema(), allocator)) {
            StandardTable.fill(table, 0, rows, 10);
            for (String m : methods) {
                CommitMethod method = m.startsWith("def") ? CommitMethod.DEFERRED_UPLOADS : CommitMethod.STAGE_AND_COPY;
                List<Bench.Run> writes = new ArrayList<>();
                for (long delay : delays) {
                    NetworkProfile profile = NetworkProfile.builder().firstByte(Duration.ofMillis(delay)).bytesPerSecond(mbps * 1_000_000).build();
                    SimS3 s3 = new SimS3(profile, pool, timeline);
                    String uri = "s3://bench/trips-" + n++ + "/";
                    Bench.Run write = () -> S3Parquet.write(table).partitionBy("dt", "country").commitMethod(method)
                            .mode(WriteMode.OVERWRITE_PARTITIONS).concurrency(concurrency).s3(s3).to(uri);
                    write.run(); // untimed: the JIT, and the partitions every timed run replaces
                    writes.add(write);
                }
                // The delays alternate within each repetition, so that the machine's load drifts alike over all of them.
                List<List<Double>> walls = new ArrayList<>();
                List<List<Request>> last = new ArrayList<>();
                for (int i = 0; i < delays.size(); i++) {
                    walls.add(new ArrayList<>());
                    last.add(null);
                }
                List<Double> slopes = new ArrayList<>();
                int hi = delays.size() - 1;
                for (int rep = 0; rep < reps; rep++) {
                    for (int i = 0; i < delays.size(); i++) {
                        System.gc();
                        Thread.sleep(300);
                        timeline.reset();
                        long start = System.nanoTime();
                        writes.get(i).run();
                        walls.get(i).add((System.nanoTime() - start) / 1e9);
                        last.set(i, timeline.requests());
                    }
                    slopes.add((walls.get(hi).get(rep) - walls.get(0).get(rep)) / ((delays.get(hi) - delays.get(0)) / 1e3));
                }
                for (int i = 0; i < delays.size(); i++) {
                    List<Request> rs = last.get(i);
                    List<Request> chain = RequestTimeline.longestChain(rs);
                    System.out.printf("%s, %4d ms: median %.2f s (all: %s); %d requests %s; lease %s; longest chain of non-overlapping requests %d: %s%n",
                            method, delays.get(i), median(walls.get(i)), walls.get(i).stream().map(w -> String.format("%.2f", w)).toList(),
                            rs.size(), RequestTimeline.byOp(rs), RequestTimeline.byOp(lease(rs)), chain.size(), RequestTimeline.runs(chain));
                }
                // The trace of the longest chain at the largest delay, and every listing the write sent: the round trips to look at.
                List<Request> rs = last.get(hi);
                List<Request> longest = RequestTimeline.longestChain(rs);
                int first = -1;
                int lastUpload = -1;
                for (int k = 0; k < longest.size(); k++) {
                    if (upload(longest.get(k))) {
                        first = first < 0 ? k : first;
                        lastUpload = k;
                    }
                }
                // The protocol's own steps, which no encoding speed hides: the chain's requests before its first data upload
                // and after its last (the copies or completions included), at the largest delay.
                System.out.printf("%s, %d ms: protocol round trips in the longest chain: %d before the first upload, %d after the last%n",
                        method, delays.get(hi), first, longest.size() - 1 - lastUpload);
                String root = "trips-" + (n - delays.size() + hi) + "/";
                System.out.printf("%s, %d ms: the longest chain, in units of the delay from the first request:%n%s", method, delays.get(hi),
                        RequestTimeline.trace(RequestTimeline.longestChain(rs), rs.get(0).start, delays.get(hi) * 1_000_000L, root));
                System.out.printf("%s, %d ms: every listing:%n%s", method, delays.get(hi), RequestTimeline.trace(rs.stream()
                        .filter(r -> r.op.startsWith("List")).toList(), rs.get(0).start, delays.get(hi) * 1_000_000L, root));
                System.out.printf("%s: slope %.1f sequential round trips (median of %s: s of write time per s of latency, %d -> %d ms)%n%n",
                        method, median(slopes), slopes.stream().map(x -> String.format("%.1f", x)).toList(), delays.get(0), delays.get(hi));
            }
        }
        System.out.println("# load: " + Bench.load());
    }

    /**
     * The lease's requests of one run (its create, the checks of conditional requests, renewals and fences, reads back
     * after a refused swap, the release): a GetObject here is a fence or renewal that was refused by another of its own.
     */
    private static List<Request> lease(List<Request> rs) {
        return rs.stream().filter(r -> r.key != null && r.key.endsWith("_tmp/_lease.json")).toList();
    }

    /** A data file's upload while staging: a PUT of a Parquet file, or a deferred upload's create or part. */
    private static boolean upload(Request r) {
        return r.op.equals("CreateMultipartUpload") || r.op.equals("UploadPart")
                || r.op.equals("PutObject") && r.key != null && r.key.endsWith(".parquet");
    }

    private static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}
