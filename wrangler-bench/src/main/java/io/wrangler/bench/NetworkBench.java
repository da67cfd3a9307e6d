package io.wrangler.bench;

import io.wrangler.CommitMethod;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.bench.RequestTimeline.Request;
import io.wrangler.commit.WriteSpec;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.NetworkProfile.RequestType;
import io.wrangler.testkit.NetworkProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Tables written end to end against S3 behind a simulated network (first-byte delay per request, bandwidth per
 * connection), for both commit methods, next to the encode-only time of the same write (NullS3) and the physical lower
 * bound. Shapes: {@code standard} (shared/reference/peers.md, partitioned by dt, country: 200 partitions), {@code wide}
 * (the same rows over 50 days: 1,000 partitions), {@code large} (the same rows over 2 days, partitioned by dt: two files
 * of about 60 MB, each a multipart upload). Each repetition overwrites the partitions the one before wrote
 * ({@code OVERWRITE_PARTITIONS}), so every timed run lists, replaces and deletes old files, as a daily job does.
 *
 * <p>Arguments: store ({@code sim}: {@link SimS3}, an in-memory S3 that costs no local CPU; {@code local}: LocalS3,
 * S3Mock on this machine, behind the testkit's {@code NetworkProfile}), rows (default 5,000,000), repetitions (default 3;
 * medians printed), first-byte ms (default 30), MB/s per connection (default 80), shapes (default standard,wide,large).
 * Run with {@code ./bench.sh --network}.
 */
public final class NetworkBench {
    /** wrangler's requests in flight (WriteSpec.Tuning.defaults().threads()): the connections it uses. */
    private static final int CONNECTIONS = WriteSpec.Tuning.DEFAULT_THREADS;
    /** The client's HTTP connection pool that SimS3 simulates (the SDK's default Apache client). */
    private static final int POOL = 50;
    /**
     * Round trips the protocol orders after the last data upload, none of which can overlap the next: the fence and the
     * COMMITTED manifest (it lists every file), a copy or completion (after the commit point), the fence and the delete
     * of the replaced files (after every copy), the PUBLISHED record, the end (the manifest's conditional delete), the
     * lease's release.
     */
    private static final int TAIL_ROUND_TRIPS = 8;
    /**
     * Round trips the protocol orders before the first upload: the bucket check, the lease's create and its two checks
     * that the server enforces conditions, the recovery listings (folders and open uploads at once), the fence and the
     * STARTED record.
     */
    private static final int HEAD_ROUND_TRIPS = 7;

    private NetworkBench() {
    }

    private record Shape(String name, int days, String[] partitionBy) {
    }

    private record Run(double wall, List<Request> requests) {
    }

    public static void main(String[] args) throws Exception {
        String store = args.length > 0 ? args[0] : "sim";
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 5_000_000;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        long firstByteMs = args.length > 3 ? Long.parseLong(args[3]) : 30;
        long mbps = args.length > 4 ? Long.parseLong(args[4]) : 80;
        List<String> shapes = List.of((args.length > 5 ? args[5] : "standard,wide,large").split(","));
        NetworkProfile profile = NetworkProfile.builder().firstByte(Duration.ofMillis(firstByteMs)).bytesPerSecond(mbps * 1_000_000).build();
        System.out.printf("# wrangler network bench: store %s, %,d rows, %d repetitions (medians), %d cores, max heap %d MiB, %s%n# profile %s; "
                        + "wrangler's requests in flight: %d; client pool: %s%n", store, rows, reps, Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"), profile, CONNECTIONS,
                store.equals("sim") ? POOL + " (simulated)" : "64 (testkit client)");
        System.out.println("# load: " + Bench.load());
        List<Shape> all = List.of(new Shape("standard", 10, new String[] {"dt", "country"}),
                new Shape("wide", 50, new String[] {"dt", "country"}), new Shape("large", 2, new String[] {"dt"}));
        RequestTimeline timeline = new RequestTimeline();
        try (RootAllocator allocator = new RootAllocator();
             LocalS3 networked = store.equals("local") ? LocalS3.start(profile) : null) {
            S3Client localClient = networked == null ? null
                    : networked.newClient(b -> b.overrideConfiguration(o -> o.addExecutionInterceptor(timeline)));
            if (networked != null) {
                networked.createBucket("bench");
            }
            NullS3 sink = new NullS3();
            int[] n = {0};
            for (Shape shape : all) {
                if (!shapes.contains(shape.name)) {
                    continue;
                }
                try (VectorSchemaRoot table = VectorSchemaRoot.create(StandardTable.schema(), allocator)) {
                    StandardTable.fill(table, 0, rows, shape.days);
                    for (CommitMethod method : List.of(CommitMethod.STAGE_AND_COPY, CommitMethod.DEFERRED_UPLOADS)) {
                        S3Client client = localClient != null ? localClient : new SimS3(profile, POOL, timeline);
                        String uri = "s3://bench/" + shape.name + "-" + n[0]++ + "/";
                        Bench.Run encode = () -> S3Parquet.write(table).partitionBy(shape.partitionBy).commitMethod(method).lease(false)
                                .s3(sink).to("s3://sink/p" + n[0]++ + "/");
                        Bench.Run net = () -> S3Parquet.write(table).partitionBy(shape.partitionBy).commitMethod(method)
                                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(client).to(uri);
                        encode.run();  // untimed, for the JIT
                        net.run();     // untimed; creates the partitions every timed run replaces
                        List<Double> encodes = new ArrayList<>();
                        List<Run> runs = new ArrayList<>();
                        for (int rep = 0; rep < reps; rep++) {
                            encodes.add(time(encode));
                            System.gc();
                            Thread.sleep(300);
                            timeline.reset();
                            long start = System.nanoTime();
                            net.run();
                            long end = System.nanoTime();
                            runs.add(new Run((end - start) / 1e9, timeline.requests()));
                        }
                        encodes.sort(null);
                        List<Run> byWall = new ArrayList<>(runs);
                        byWall.sort(Comparator.comparingDouble(Run::wall));
                        Run median = byWall.get(byWall.size() / 2);
                        report(shape.name, method, profile, encodes.get(encodes.size() / 2), median, runs);
                    }
                }
            }
            if (localClient != null) {
                localClient.close();
            }
        }
        System.out.println("# load: " + Bench.load());
    }

    private static double time(Bench.Run run) throws Exception {
        System.gc();
        Thread.sleep(300);
        long start = System.nanoTime();
        run.run();
        return (System.nanoTime() - start) / 1e9;
    }

    private static void report(String shape, CommitMethod method, NetworkProfile profile, double encodeS, Run median, List<Run> runs) {
        List<Request> rs = median.requests;
        double wall = median.wall;
        long start = rs.stream().mapToLong(r -> r.start).min().orElse(0);
        long end = rs.stream().mapToLong(r -> r.end).max().orElse(0);
        double rate = profile.bytesPerSecond();
        long bytes = 0;
        double latency = 0;
        for (Request r : rs) {
            bytes += r.sent + r.received;
            latency += delay(profile, r);
        }
        double transfer = bytes / (rate * CONNECTIONS);
        double spread = latency / CONNECTIONS;
        double firstByte = profile.firstByte(RequestType.PUT).toNanos() / 1e9;
        // A staged copy can only start after the commit point, and S3 copies a file's bytes (about as fast as a
        // connection carries them): the largest file's copy is on the critical path whatever the overlap.
        Map<String, Long> fileBytes = new HashMap<>();
        for (Request r : rs) {
            if (r.key != null && r.key.endsWith(".parquet") && (r.op.equals("PutObject") || r.op.equals("UploadPart"))) {
                fileBytes.merge(r.key, r.sent, Long::sum);
            }
        }
        long largest = fileBytes.values().stream().mapToLong(Long::longValue).max().orElse(0);
        double copyLargest = method == CommitMethod.STAGE_AND_COPY ? largest / rate : 0;
        double sequential = (HEAD_ROUND_TRIPS + TAIL_ROUND_TRIPS) * firstByte + copyLargest;
        double physical = Math.max(transfer + spread, sequential);
        double bound = Math.max(encodeS, physical);

        List<Request> alone = RequestTimeline.alone(rs);
        double aloneS = alone.stream().mapToDouble(r -> (r.end - r.start) / 1e9).sum();
        List<Request> chain = RequestTimeline.longestChain(rs);
        double chainS = chain.stream().mapToDouble(r -> (r.end - r.start) / 1e9).sum();
        long firstData = rs.stream().filter(Request::dataUpload).mapToLong(r -> r.start).min().orElse(end);
        long lastData = rs.stream().filter(Request::dataUpload).mapToLong(r -> r.end).max().orElse(start);
        List<Request> before = rs.stream().filter(r -> r.start < firstData).toList();
        List<Request> tail = rs.stream().filter(r -> r.start >= lastData).toList();

        System.out.println();
        System.out.printf("## %s, %s%n", shape, method);
        System.out.printf("wall time, simulated network (median):  %.2f s  (all: %s)%n", wall,
                runs.stream().map(r -> String.format("%.2f", r.wall)).toList());
        System.out.printf("encode only (NullS3, no lease, median): %.2f s%n", encodeS);
        System.out.printf("bytes over the connections:          %,d (request and response bodies; copies are server-side)%n", bytes);
        System.out.printf("  transfer bound bytes/(bw x %d):     %.3f s%n", CONNECTIONS, transfer);
        System.out.printf("  first-byte delays of all %d requests / %d connections: %.3f s%n", rs.size(), CONNECTIONS, spread);
        System.out.printf("  sequential, no overlap can remove: %d round trips before the first upload + %d after the last"
                + " + the copy of the largest file (%,d bytes, staged copy only) = %.3f s%n", HEAD_ROUND_TRIPS, TAIL_ROUND_TRIPS,
                largest, sequential);
        System.out.printf("  physical bound max(transfer + delays/connections, sequential round trips): %.2f s%n", physical);
        System.out.printf("  bound max(encode, physical): %.2f s -> wall / bound %.2fx%n", bound, wall / bound);
        System.out.printf("requests by type: %s%n", RequestTimeline.byOp(rs));
        System.out.printf("requests alone in flight (no other request of the write in flight): %d taking %.2f s: %s%n", alone.size(),
                aloneS, RequestTimeline.runs(alone));
        System.out.printf("longest chain of non-overlapping requests: %d taking %.2f s of requests: %s%n", chain.size(), chainS,
                RequestTimeline.byOp(chain));
        System.out.printf("before the first data upload: %.2f s, %d requests %s%n", (firstData - start) / 1e9, before.size(), RequestTimeline.runs(before));
        System.out.printf("data uploads from first start to last end: %.2f s%n", (lastData - firstData) / 1e9);
        System.out.printf("after the last data upload: %.2f s, %d requests %s%n", (end - lastData) / 1e9, tail.size(), RequestTimeline.runs(tail));
    }

    /** The profile's first-byte delay for one request (its body time is in the transfer bound). */
    private static double delay(NetworkProfile profile, Request r) {
        return profile.firstByte(type(r.op)).toNanos() / 1e9;
    }

    private static RequestType type(String op) {
        return switch (op) {
            case "PutObject" -> RequestType.PUT;
            case "GetObject" -> RequestType.GET;
            case "ListObjectsV2", "ListObjects", "ListMultipartUploads", "ListParts", "ListBuckets" -> RequestType.LIST;
            case "CopyObject", "UploadPartCopy" -> RequestType.COPY;
            case "DeleteObject", "DeleteObjects", "AbortMultipartUpload" -> RequestType.DELETE;
            case "CreateMultipartUpload" -> RequestType.CREATE_MULTIPART;
            case "UploadPart" -> RequestType.UPLOAD_PART;
            case "CompleteMultipartUpload" -> RequestType.COMPLETE_MULTIPART;
            case "HeadObject", "HeadBucket" -> RequestType.HEAD;
            default -> RequestType.OTHER;
        };
    }
}
