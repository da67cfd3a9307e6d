package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.GeneratedReader;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Endpoint;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A merge into a partition several times the heap runs in a small heap (docs/merge.md, "Memory": the input and one
 * batch of one file at a time): a JVM with a 64 MiB heap merges 3,000 updates spread over the whole partition (so every
 * file of it is read and rewritten) and 100 new keys into one partition of some 125 MB of uncompressed rows in 2 files (twice the heap, each file about the heap),
 * and DuckDB then reads the table back: every row once, the updated and inserted ones with the input's values, the
 * others as they were. The full-size run (a 512 MB heap) is {@code ./bench.sh --merge memory} (BENCHMARKS.md).
 */
class MergeMemoryTest {
    private static final int APPENDS = 2;
    private static final int ROWS_PER_APPEND = 700_000;
    private static final int UPDATES = 3_000;
    private static final int INSERTS = 100;

    /**
     * A MemoryS3 of this test's own, served over HTTP for the child JVM: the parent writes and reads it without HTTP
     * ({@link S3Endpoint#memory}), and its hundreds of MB go when the test ends (the shared S3s of the test JVM would keep them).
     */
    private S3Endpoint http;

    @BeforeEach
    void start() {
        http = S3Endpoint.start();
    }

    @AfterEach
    void stop() {
        http.close();
    }

    /** Row i: partition "a", id i, v a 64-bit hash of i (incompressible), x in [0, 1) from it, s the hex of v four times. */
    private static GeneratedReader rows(RootAllocator allocator, long from, int count) {
        return new GeneratedReader(allocator, MergeMain.schema(), count, 65_536, (root, first, n) -> {
            root.allocateNew();
            VarCharVector p = (VarCharVector) root.getVector("p");
            BigIntVector id = (BigIntVector) root.getVector("id");
            BigIntVector v = (BigIntVector) root.getVector("v");
            Float8Vector x = (Float8Vector) root.getVector("x");
            VarCharVector text = (VarCharVector) root.getVector("s");
            byte[] a = "a".getBytes(StandardCharsets.UTF_8);
            byte[] hex = new byte[64];
            for (int r = 0; r < n; r++) {
                long i = from + first + r;
                p.setSafe(r, a);
                id.setSafe(r, i);
                long h = HashedRows.mix(i);
                v.setSafe(r, h);
                x.setSafe(r, (h >>> 11) * 0x1.0p-53);
                text.setSafe(r, HashedRows.hex4(h, hex));
            }
            root.setRowCount(n);
        });
    }

    @Test
    void aMergeIntoAPartitionSeveralTimesTheHeapRunsInA64MiBHeap() throws Exception {
        MemoryS3 s3 = http.memory();
        String bucket = "lake";
        s3.createBucket(bucket);
        String table = "s3://" + bucket + "/t/";
        long t0 = System.nanoTime();
        try (RootAllocator allocator = new RootAllocator()) {
            for (int run = 0; run < APPENDS; run++) {
                try (GeneratedReader in = rows(allocator, (long) run * ROWS_PER_APPEND, ROWS_PER_APPEND)) {
                    S3Parquet.write(in).partitionBy("p").compression(Compression.NONE).s3(s3.client()).to(table);
                }
            }
        }
        long rows = (long) APPENDS * ROWS_PER_APPEND;
        long bytes = s3.list(bucket, "t/p=a/").values().stream().mapToLong(Long::longValue).sum();
        assertThat(s3.list(bucket, "t/p=a/").keySet()).hasSize(APPENDS);
        assertThat(bytes).isGreaterThan(7L * 16 * 1024 * 1024); // 1.75 times the child's heap, uncompressed

        long t1 = System.nanoTime();
        ChildJvm.Result child = ChildJvm.of(MergeMain.class, http.endpoint().toString(), table, Long.toString(rows),
                Integer.toString(UPDATES), Integer.toString(INSERTS)).jvmArgs("-Xmx64m", "-XX:+UseSerialGC").run(600).succeeded();
        long t2 = System.nanoTime();
        String done = child.line("MERGED ");
        String[] f = done.split(" ");
        assertThat(Long.parseLong(f[1])).isEqualTo(UPDATES);
        assertThat(Long.parseLong(f[2])).isEqualTo(INSERTS);
        assertThat(Integer.parseInt(f[3])).isEqualTo(APPENDS); // every file held an updated key
        assertThat(Long.parseLong(f[4])).isLessThanOrEqualTo(64);

        long step = rows / UPDATES;
        BigInteger sumId = BigInteger.ZERO;
        BigInteger sumV = BigInteger.ZERO;
        for (long i = 0; i < rows; i++) {
            sumId = sumId.add(BigInteger.valueOf(i));
            if (i % step != 0 || i / step >= UPDATES) {
                sumV = sumV.add(BigInteger.valueOf(HashedRows.mix(i)));
            }
        }
        for (long i = rows; i < rows + INSERTS; i++) {
            sumId = sumId.add(BigInteger.valueOf(i));
        }
        List<List<Object>> back = DuckReader.query(s3, bucket, "t/", "SELECT count(*), count(DISTINCT id), CAST(sum(id) AS VARCHAR), "
                + "CAST(sum(v::HUGEINT) FILTER (WHERE v <> -1) AS VARCHAR), count(*) FILTER (WHERE v = -1 AND s = 'merged' AND x IS NULL), "
                + "count(*) FILTER (WHERE s = repeat(lpad(lower(hex(v)), 16, '0'), 4)) FROM t");
        long t3 = System.nanoTime();
        System.out.printf("MergeMemoryTest: %d bytes in %d files; write %d ms, merge (child JVM, %s MiB heap) %d ms, DuckDB %d ms%n", bytes,
                APPENDS, (t1 - t0) / 1_000_000, f[4], (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000);
        assertThat(back.get(0)).containsExactly(rows + INSERTS, rows + INSERTS, sumId.toString(), sumV.toString(),
                (long) UPDATES + INSERTS, rows - UPDATES);
        assertThat(s3.list(bucket, "t/_tmp/").keySet()).isEmpty();
        assertThat(s3.openMultipartUploads(bucket, "")).isEmpty();
    }
}
