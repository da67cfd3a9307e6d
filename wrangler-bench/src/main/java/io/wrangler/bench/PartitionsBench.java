package io.wrangler.bench;

import io.wrangler.CommitMethod;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.NetworkProfile;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The cost of a write per partition as the partitions grow: N partitions of two rows each (partitioned by {@code day}, N /
 * 100 values, and {@code slot}, 100 values), written with {@code OVERWRITE_PARTITIONS} into a fresh table, time per
 * partition printed.
 *
 * <p>Arguments: store ({@code sim}: {@link SimS3} in memory, no server CPU, with the first-byte ms given; {@code local}:
 * LocalS3 without a simulated network; {@code floor}: LocalS3 given only the same PUTs and copies of N small objects by 48
 * threads, no wrangler code, which tells S3Mock's own cost from wrangler's), commit method ({@code stage} or
 * {@code deferred}), the partition counts (default 1000,10000,50000), first-byte ms for {@code sim} (default 0).
 */
public final class PartitionsBench {
    private PartitionsBench() {
    }

    public static void main(String[] args) throws Exception {
        String store = args.length > 0 ? args[0] : "sim";
        CommitMethod method = args.length > 1 && args[1].startsWith("def") ? CommitMethod.DEFERRED_UPLOADS : CommitMethod.STAGE_AND_COPY;
        List<Integer> counts = new ArrayList<>();
        for (String c : (args.length > 2 ? args[2] : "1000,10000,50000").split(",")) {
            counts.add(Integer.parseInt(c));
        }
        long ms = args.length > 3 ? Long.parseLong(args[3]) : 0;
        System.out.printf("# partitions bench: store %s, %s, 2 rows per partition, first byte %d ms (sim only), load %s%n", store, method,
                ms, Bench.load());
        NetworkProfile profile = NetworkProfile.builder().firstByte(Duration.ofMillis(ms)).bytesPerSecond(80_000_000L).build();
        try (RootAllocator allocator = new RootAllocator();
             LocalS3 local = store.equals("sim") ? null : LocalS3.start()) {
            S3Client localClient = local == null ? null : local.newClient();
            if (local != null) {
                local.createBucket("bench");
            }
            int n = 0;
            // warm-up, untimed
            try (VectorSchemaRoot warm = table(allocator, 5000)) {
                S3Client c = localClient != null ? localClient : new SimS3(profile, 50, null);
                if (!store.equals("floor")) {
                    write(warm, c, method, "s3://bench/warm/");
                }
            }
            for (int count : counts) {
                double s;
                if (store.equals("floor")) {
                    s = floor(localClient, count, "floor" + n++ + "/");
                } else {
                    try (VectorSchemaRoot t = table(allocator, count)) {
                        S3Client c = localClient != null ? localClient : new SimS3(profile, 50, null);
                        System.gc();
                        long start = System.nanoTime();
                        write(t, c, method, "s3://bench/p" + n++ + "/");
                        s = (System.nanoTime() - start) / 1e9;
                    }
                }
                System.out.printf("%,8d partitions: %8.2f s, %.3f ms per partition (load %s)%n", count, s, s * 1e3 / count, Bench.load());
            }
            if (localClient != null) {
                localClient.close();
            }
        }
    }

    private static void write(VectorSchemaRoot t, S3Client c, CommitMethod method, String uri) {
        S3Parquet.write(t).partitionBy("day", "slot").commitMethod(method).mode(WriteMode.OVERWRITE_PARTITIONS).s3(c).to(uri);
    }

    /** The PUTs and copies of the write's data files alone, 48 at a time: what S3Mock costs for them. */
    private static double floor(S3Client c, int count, String prefix) throws Exception {
        byte[] body = new byte[600];
        ExecutorService pool = Executors.newFixedThreadPool(48);
        long start = System.nanoTime();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String key = prefix + "_tmp/w/day=" + (i / 100) + "/slot=" + (i % 100) + "/part-0.parquet";
                fs.add(pool.submit(() -> c.putObject(b -> b.bucket("bench").key(key), RequestBody.fromBytes(body))));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            fs.clear();
            for (int i = 0; i < count; i++) {
                String from = prefix + "_tmp/w/day=" + (i / 100) + "/slot=" + (i % 100) + "/part-0.parquet";
                String to = prefix + "day=" + (i / 100) + "/slot=" + (i % 100) + "/part-0.parquet";
                fs.add(pool.submit(() -> c.copyObject(b -> b.sourceBucket("bench").sourceKey(from).destinationBucket("bench")
                        .destinationKey(to))));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static VectorSchemaRoot table(RootAllocator allocator, int partitions) {
        Schema schema = new Schema(List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("day", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("slot", FieldType.nullable(new ArrowType.Int(32, true)), null)));
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        int rows = 2 * partitions;
        root.getFieldVectors().forEach(v -> v.setInitialCapacity(rows));
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector(0);
        VarCharVector name = (VarCharVector) root.getVector(1);
        IntVector day = (IntVector) root.getVector(2);
        IntVector slot = (IntVector) root.getVector(3);
        for (int r = 0; r < rows; r++) {
            int p = r % partitions;
            id.set(r, r);
            name.setSafe(r, ("n" + r).getBytes(StandardCharsets.US_ASCII));
            day.set(r, p / 100);
            slot.set(r, p % 100);
        }
        root.setRowCount(rows);
        return root;
    }
}
