package io.wrangler.bench;

import io.wrangler.CommitMethod;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.bench.RequestTimeline.Request;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.NetworkProfile;
import io.wrangler.testkit.NetworkProfile.RequestType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The standard table (shared/reference/peers.md, partitioned by dt, country: 200 partitions) written end to end against
 * LocalS3 behind a simulated network (first-byte delay per request, bandwidth per connection), for both commit methods,
 * next to the encode-only time of the same write (NullS3) and the same write to LocalS3 without the simulation.
 * Arguments: rows (default 5,000,000), repetitions (default 1), first-byte ms (default 30), MB/s per connection
 * (default 80). Run with {@code ./bench.sh --network}.
 */
public final class NetworkBench {
    /** wrangler's upload, copy and delete threads (WriteSpec.Tuning.defaults().threads()): the connections it uses. */
    private static final int CONNECTIONS = 8;
    /**
     * Round trips that must follow the last data upload whatever the overlap: the COMMITTED manifest (it lists every
     * file), the copy or completion of a file (after the commit point), the delete of its staging, the end record.
     */
    private static final int TAIL_ROUND_TRIPS = 4;

    private NetworkBench() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        long firstByteMs = args.length > 2 ? Long.parseLong(args[2]) : 30;
        long mbps = args.length > 3 ? Long.parseLong(args[3]) : 80;
        NetworkProfile profile = NetworkProfile.builder().firstByte(Duration.ofMillis(firstByteMs)).bytesPerSecond(mbps * 1_000_000).build();
        System.out.printf("# wrangler network bench: %,d rows, %d repetitions, %d cores, max heap %d MiB, %s%n# profile %s; "
                        + "wrangler's connections: %d%n", rows, reps, Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"), profile, CONNECTIONS);
        try (RootAllocator allocator = new RootAllocator();
             VectorSchemaRoot table = StandardTable.rows(allocator, 0, rows);
             LocalS3 plain = LocalS3.start();
             LocalS3 networked = LocalS3.start(profile)) {
            RequestTimeline timeline = new RequestTimeline();
            S3Client plainClient = plain.newClient();
            S3Client netClient = networked.newClient(b -> b.overrideConfiguration(o -> o.addExecutionInterceptor(timeline)));
            plain.createBucket("bench");
            networked.createBucket("bench");
            NullS3 sink = new NullS3();
            int[] n = {0};
            for (CommitMethod method : List.of(CommitMethod.STAGE_AND_COPY, CommitMethod.DEFERRED_UPLOADS)) {
                Bench.Run encode = () -> S3Parquet.write(table).partitionBy("dt", "country").commitMethod(method).lease(false)
                        .s3(sink).to("s3://sink/p" + n[0]++ + "/");
                Bench.Run local = () -> S3Parquet.write(table).partitionBy("dt", "country").commitMethod(method)
                        .mode(WriteMode.OVERWRITE_PARTITIONS).s3(plainClient).to("s3://bench/t" + n[0]++ + "/");
                Bench.Run net = () -> S3Parquet.write(table).partitionBy("dt", "country").commitMethod(method)
                        .mode(WriteMode.OVERWRITE_PARTITIONS).s3(netClient).to("s3://bench/t" + n[0]++ + "/");
                encode.run();  // untimed, for the JIT
                local.run();
                net.run();
                for (int rep = 0; rep < reps; rep++) {
                    double encodeS = time(encode);
                    double localS = time(local);
                    timeline.reset();
                    long start = System.nanoTime();
                    net.run();
                    long end = System.nanoTime();
                    report(method, profile, encodeS, localS, start, end, timeline.requests());
                }
            }
            plainClient.close();
            netClient.close();
        }
    }

    private static double time(Bench.Run run) throws Exception {
        System.gc();
        Thread.sleep(300);
        long start = System.nanoTime();
        run.run();
        return (System.nanoTime() - start) / 1e9;
    }

    private static void report(CommitMethod method, NetworkProfile profile, double encodeS, double localS, long start, long end,
                               List<Request> rs) {
        double wall = (end - start) / 1e9;
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
        double bound = Math.max(encodeS, transfer + spread) + TAIL_ROUND_TRIPS * firstByte;

        List<Request> alone = RequestTimeline.alone(rs);
        double aloneS = alone.stream().mapToDouble(r -> (r.end - r.start) / 1e9).sum();
        List<Request> chain = RequestTimeline.longestChain(rs);
        double chainS = chain.stream().mapToDouble(r -> (r.end - r.start) / 1e9).sum();
        String caller = Thread.currentThread().getName();
        List<Request> byCaller = rs.stream().filter(r -> r.thread.equals(caller)).toList();
        long firstData = rs.stream().filter(Request::dataUpload).mapToLong(r -> r.start).min().orElse(end);
        long lastData = rs.stream().filter(Request::dataUpload).mapToLong(r -> r.end).max().orElse(start);
        List<Request> before = rs.stream().filter(r -> r.start < firstData).toList();
        List<Request> tail = rs.stream().filter(r -> r.start >= lastData).toList();

        System.out.println();
        System.out.printf("## %s%n", method);
        System.out.printf("wall time, simulated network:        %.2f s%n", wall);
        System.out.printf("wall time, LocalS3 without network:  %.2f s%n", localS);
        System.out.printf("encode only (NullS3, no lease):      %.2f s%n", encodeS);
        System.out.printf("bytes over the connections:          %,d (request and response bodies; copies are server-side)%n", bytes);
        System.out.printf("  transfer bound bytes/(bw x %d):     %.3f s%n", CONNECTIONS, transfer);
        System.out.printf("  first-byte delays of all %d requests / %d connections: %.3f s%n", rs.size(), CONNECTIONS, spread);
        System.out.printf("  round trips that must follow the last upload: %d x %.0f ms = %.3f s%n", TAIL_ROUND_TRIPS, firstByte * 1e3,
                TAIL_ROUND_TRIPS * firstByte);
        System.out.printf("  lower bound max(encode, transfer + delays/connections) + tail: %.2f s -> wall / bound %.2fx; "
                + "wall / max(encode, transfer) %.2fx%n", bound, wall / bound, wall / Math.max(encodeS, transfer));
        System.out.printf("requests by type: %s%n", RequestTimeline.byOp(rs));
        System.out.printf("requests alone in flight (no other request of the write in flight): %d taking %.2f s: %s%n", alone.size(),
                aloneS, runs(alone));
        System.out.printf("longest chain of non-overlapping requests: %d taking %.2f s of requests: %s%n", chain.size(), chainS,
                RequestTimeline.byOp(chain));
        System.out.printf("requests from the calling thread: %d %s%n", byCaller.size(), RequestTimeline.byOp(byCaller));
        System.out.printf("before the first data upload: %.2f s, %d requests %s%n", (firstData - start) / 1e9, before.size(), runs(before));
        System.out.printf("data uploads from first start to last end: %.2f s%n", (lastData - firstData) / 1e9);
        System.out.printf("after the last data upload: %.2f s, %d requests %s%n", (end - lastData) / 1e9, tail.size(), RequestTimeline.byOp(tail));
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

    /** Operations in order, consecutive repeats folded: "PutObject, ListObjectsV2 x3, ...". */
    private static String runs(List<Request> rs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < rs.size(); ) {
            int j = i;
            while (j < rs.size() && rs.get(j).op.equals(rs.get(i).op)) {
                j++;
            }
            out.add(rs.get(i).op + (j - i > 1 ? " x" + (j - i) : ""));
            i = j;
        }
        return out.toString();
    }
}
