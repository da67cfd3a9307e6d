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
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A table several times the heap compacts in bounded memory: a JVM with a 64 MiB heap compacts some 200 MB of
 * uncompressed rows written as 18 files, each one row group larger than the child's read budget (4 MiB) and than the
 * row groups it may buffer (8 MiB), and DuckDB then reads every row back with the same counts and sums.
 */
class CompactionMemoryTest {
    private static final int APPENDS = 9;
    private static final int ROWS_PER_APPEND = 280_000;
    private static final String[] PARTS = {"a", "b"};

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

    private static Schema schema() {
        return new Schema(List.of(new Field("p", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    }

    /**
     * Row i: partition {@code PARTS[i % 2]}, id i, v a 64-bit hash of i (incompressible), x in [0, 1) from it (every 97th
     * null), s the 16 hex digits of v four times.
     */
    private static GeneratedReader rows(RootAllocator allocator, long from, int count) {
        return new GeneratedReader(allocator, schema(), count, 65_536, (root, first, n) -> {
            root.allocateNew();
            VarCharVector p = (VarCharVector) root.getVector("p");
            BigIntVector id = (BigIntVector) root.getVector("id");
            BigIntVector v = (BigIntVector) root.getVector("v");
            Float8Vector x = (Float8Vector) root.getVector("x");
            VarCharVector text = (VarCharVector) root.getVector("s");
            byte[][] parts = {PARTS[0].getBytes(StandardCharsets.UTF_8), PARTS[1].getBytes(StandardCharsets.UTF_8)};
            byte[] hex = new byte[64];
            for (int r = 0; r < n; r++) {
                long i = from + first + r;
                p.setSafe(r, parts[(int) (i % 2)]);
                id.setSafe(r, i);
                long h = HashedRows.mix(i);
                v.setSafe(r, h);
                if (i % 97 == 0) {
                    x.setNull(r);
                } else {
                    x.setSafe(r, (h >>> 11) * 0x1.0p-53);
                }
                text.setSafe(r, HashedRows.hex4(h, hex));
            }
            root.setRowCount(n);
        });
    }

    @Test
    void aTableSeveralTimesTheHeapCompactsInA64MiBHeap() throws Exception {
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
        long bytes = s3.list(bucket, "t/p=").values().stream().mapToLong(Long::longValue).sum();
        assertThat(s3.list(bucket, "t/p=").keySet()).hasSize(APPENDS * PARTS.length);
        assertThat(bytes).isGreaterThan(3L * 64 * 1024 * 1024);

        long t1 = System.nanoTime();
        ChildJvm.Result child = ChildJvm.of(CompactMain.class, http.endpoint().toString(), table)
                .jvmArgs("-Xmx64m", "-XX:+UseSerialGC").run(600).succeeded();
        long t2 = System.nanoTime();
        long rows = (long) APPENDS * ROWS_PER_APPEND;
        String done = child.line("COMPACTED ");
        String[] f = done.split(" ");
        assertThat(Integer.parseInt(f[1])).isEqualTo(APPENDS * PARTS.length);
        assertThat(Long.parseLong(f[3])).isEqualTo(rows);
        assertThat(Long.parseLong(f[4])).isEqualTo(rows);
        assertThat(Long.parseLong(f[5])).isLessThanOrEqualTo(64);
        System.out.println("CompactionMemoryTest: " + bytes + " bytes in " + (APPENDS * PARTS.length) + " files compacted into " + f[2]
                + " in a " + f[5] + " MiB heap");

        BigInteger sumId = BigInteger.ZERO;
        BigInteger sumV = BigInteger.ZERO;
        BigInteger sumX = BigInteger.ZERO;
        long nullX = 0;
        for (long i = 0; i < rows; i++) {
            sumId = sumId.add(BigInteger.valueOf(i));
            sumV = sumV.add(BigInteger.valueOf(HashedRows.mix(i)));
            if (i % 97 == 0) {
                nullX++;
            } else {
                sumX = sumX.add(BigInteger.valueOf(HashedRows.mix(i) >>> 11));
            }
        }
        List<List<Object>> back = DuckReader.query(s3, bucket, "t/", "SELECT p, count(*), CAST(sum(id) AS VARCHAR), CAST(sum(v::HUGEINT) AS "
                + "VARCHAR), count(x), CAST(sum(CAST(x * 9007199254740992 AS HUGEINT)) AS VARCHAR), "
                + "count(*) FILTER (WHERE s = repeat(lpad(lower(hex(v)), 16, '0'), 4)) FROM t GROUP BY p ORDER BY p");
        long t3 = System.nanoTime();
        System.out.printf("CompactionMemoryTest: write %d ms, compaction (child JVM) %d ms, DuckDB %d ms%n", (t1 - t0) / 1_000_000,
                (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000);
        assertThat(back).hasSize(2);
        long count = 0;
        BigInteger gotId = BigInteger.ZERO;
        BigInteger gotV = BigInteger.ZERO;
        long gotX = 0;
        BigInteger gotSumX = BigInteger.ZERO;
        for (List<Object> r : back) {
            count += ((Number) r.get(1)).longValue();
            gotId = gotId.add(new BigInteger((String) r.get(2)));
            gotV = gotV.add(new BigInteger((String) r.get(3)));
            gotX += ((Number) r.get(4)).longValue();
            gotSumX = gotSumX.add(new BigInteger((String) r.get(5)));
            assertThat(((Number) r.get(1)).longValue()).isEqualTo(rows / 2);
            assertThat(((Number) r.get(6)).longValue()).as("rows whose s matches v").isEqualTo(rows / 2);
        }
        assertThat(count).isEqualTo(rows);
        assertThat(gotId).isEqualTo(sumId);
        assertThat(gotV).isEqualTo(sumV);
        assertThat(gotX).isEqualTo(rows - nullX);
        assertThat(gotSumX).isEqualTo(sumX);
        assertThat(s3.list(bucket, "t/p=").keySet()).hasSize(Integer.parseInt(f[2]));
        assertThat(s3.list(bucket, "t/_tmp/").keySet()).isEmpty();
        assertThat(s3.openMultipartUploads(bucket, "")).isEmpty();
    }
}
