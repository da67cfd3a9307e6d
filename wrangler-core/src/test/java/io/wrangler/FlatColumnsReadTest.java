package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.WriteSpec;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reader's column-by-column path for flat columns: exact values and types across many pages and row groups, with
 * dictionary and plain pages, nulls in every nullable column, decimals of each physical type (INT32, INT64,
 * FIXED_LEN_BYTE_ARRAY), INT96 and zoned timestamps; the same values when every row group is streamed through small
 * windows; and DuckDB's data pages V2 read as its V1 pages are.
 */
class FlatColumnsReadTest {
    private static final int ROWS = 12_000;
    private static final String[] CATEGORIES = {"alpha", "beta", "gamma", "delta", "", "é", "zeta", "eta"};

    @TempDir
    Path temp;

    private static Field f(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    private static Schema schema() {
        return new Schema(List.of(f("id", new ArrowType.Int(64, true)), f("cat", ArrowType.Utf8.INSTANCE), f("n", new ArrowType.Int(32, true)),
                f("small", new ArrowType.Int(16, true)), f("d9", new ArrowType.Decimal(9, 2, 128)), f("d18", new ArrowType.Decimal(18, 3, 128)),
                f("d38", new ArrowType.Decimal(38, 6, 128)), f("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                f("b", ArrowType.Bool.INSTANCE), f("bin", ArrowType.Binary.INSTANCE), f("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                f("day", new ArrowType.Date(DateUnit.DAY))));
    }

    /** Row i; column c (but id) is null where {@code i % (5 + c) == 0}. */
    private static void fill(VectorSchemaRoot root) {
        root.allocateNew();
        for (int i = 0; i < ROWS; i++) {
            long h = i * 0x9E3779B97F4A7C15L;
            ((BigIntVector) root.getVector("id")).setSafe(i, i);
            ((VarCharVector) root.getVector("cat")).setSafe(i, CATEGORIES[i % CATEGORIES.length].getBytes(StandardCharsets.UTF_8));
            ((IntVector) root.getVector("n")).setSafe(i, (int) (h >> 32));
            ((SmallIntVector) root.getVector("small")).setSafe(i, (short) (i % 100 - 50));
            ((DecimalVector) root.getVector("d9")).setSafe(i, BigDecimal.valueOf((h >> 40) % 100_000_000, 2));
            ((DecimalVector) root.getVector("d18")).setSafe(i, BigDecimal.valueOf(h % 1_000_000_000_000_000L, 3));
            ((DecimalVector) root.getVector("d38")).setSafe(i, new BigDecimal(java.math.BigInteger.valueOf(h).multiply(
                    java.math.BigInteger.valueOf(h | 1)).divide(java.math.BigInteger.TEN), 6));
            ((Float8Vector) root.getVector("x")).setSafe(i, (h >>> 11) * 0x1.0p-53 - 0.5);
            ((BitVector) root.getVector("b")).setSafe(i, (h >>> 63) == 0 ? 1 : 0);
            ((VarBinaryVector) root.getVector("bin")).setSafe(i, new byte[] {(byte) i, (byte) (h >> 8), 0, (byte) 0xFF});
            ((TimeStampMicroTZVector) root.getVector("ts")).setSafe(i, 1_700_000_000_000_000L + h % 100_000_000_000_000L);
            ((DateDayVector) root.getVector("day")).setSafe(i, 19_000 + i % 400 - 200);
        }
        for (int c = 1; c < root.getFieldVectors().size(); c++) {
            FieldVector v = root.getVector(c);
            for (int i = 0; i < ROWS; i += 5 + c) {
                v.setNull(i);
            }
        }
        root.setRowCount(ROWS);
    }

    /** Small row groups (16 KiB) and pages (4 KiB): many of each. */
    private static S3Parquet.Tuning smallGroups() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), 16 * 1024, 4 * 1024, d.maxOpenFiles(),
                d.deleteBatch(), d.singleCopyLimit(), d.copyPartSize(), d.leaseTtl(), d.openBytes(), Duration.ZERO));
    }

    private static Map<String, String> types(Schema s) {
        Map<String, String> out = new LinkedHashMap<>();
        s.getFields().forEach(f -> out.put(f.getName(), f.getType().toString()));
        return out;
    }

    private static Map<String, List<String>> values(VectorSchemaRoot root) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (FieldVector v : root.getFieldVectors()) {
            List<String> col = new ArrayList<>();
            for (int i = 0; i < root.getRowCount(); i++) {
                col.add(ReadTest.render(v, i));
            }
            out.put(v.getName(), col);
        }
        return out;
    }

    private static TableReader streamed(String table, BufferAllocator allocator, long budget, int window, List<String> columns) {
        S3Location at = S3Location.parse(table, null, "read");
        TableFiles.Listing listing = new TableFiles(new S3Store(TestLake.memory().client(), at.bucket(), RequestOptions.defaults()), at)
                .list(PartitionFilter.all());
        return new TableReader(allocator, null, new TableReader.Source(TestLake.memory().client(), RequestOptions.defaults(), at.uri(), listing,
                Map.of()), columns, 4096)
                .readBudget(budget, window);
    }

    @Test
    void flatColumnsReadBackExactlyAcrossPagesRowGroupsDictionariesAndNulls() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/flat/";
        Map<String, List<String>> expected;
        Map<String, String> expectedTypes;
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema(), a)) {
            fill(root);
            expected = values(root);
            expectedTypes = types(root.getSchema());
            S3Parquet.write(root).tuning(smallGroups()).s3(TestLake.memory().client()).to(table);
        }
        List<String> keys = TestLake.keys(bucket, "flat/");
        keys.removeIf(k -> !k.endsWith(".parquet") || k.contains("/_"));
        assertThat(keys).hasSize(1);
        // The file is what the test is about: many row groups, chunks of several pages, cat as a dictionary, id plain.
        byte[] file = TestLake.memory().get(bucket, keys.get(0));
        List<List<Object>> meta = TestLake.queryFile(file, "SELECT count(DISTINCT row_group_id), max(total_uncompressed_size) "
                + "FILTER (WHERE path_in_schema = 'id'), bool_and(encodings LIKE '%DICTIONARY%') FILTER (WHERE path_in_schema = 'cat'), "
                + "bool_or(encodings LIKE '%DICTIONARY%') FILTER (WHERE path_in_schema = 'id') FROM parquet_metadata($file)");
        assertThat(((Number) meta.get(0).get(0)).longValue()).isGreaterThan(2);
        assertThat(((Number) meta.get(0).get(1)).longValue()).isGreaterThan(3 * 4096);
        assertThat(meta.get(0).get(2)).isEqualTo(true);
        assertThat(meta.get(0).get(3)).isEqualTo(false);

        try (ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).open()) {
            assertThat(types(r.getVectorSchemaRoot().getSchema())).isEqualTo(expectedTypes);
            assertThat(ReadTest.readAll(r)).isEqualTo(expected);
        }
        // Every row group streamed: windows of 1 KiB per column, pages (4 KiB) fetched by themselves (a few columns: a GET a page).
        List<String> some = List.of("cat", "d38", "bin");
        Map<String, List<String>> someExpected = new LinkedHashMap<>();
        some.forEach(c -> someExpected.put(c, expected.get(c)));
        try (BufferAllocator a = new RootAllocator(); TableReader r = streamed(table, a, 1, 1024, some)) {
            assertThat(ReadTest.readAll(r)).isEqualTo(someExpected);
        }
        // Windows of 16 KiB: several pages each, refilled as they are consumed.
        try (BufferAllocator a = new RootAllocator(); TableReader r = streamed(table, a, 1, 16 * 1024, null)) {
            assertThat(ReadTest.readAll(r)).isEqualTo(expected);
        }
    }

    @Test
    void int96TimestampsReadBackAsNanoseconds() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/int96/";
        Schema schema = new Schema(List.of(f("id", new ArrowType.Int(64, true)), f("t", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null))));
        Map<String, List<String>> expected;
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            root.allocateNew();
            long[] samples = {0, 1, -1, 1_705_314_600_123_456_789L, -86_400_000_000_001L, 4_102_444_800_000_000_000L};
            for (int i = 0; i < ROWS; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                if (i % 11 == 3) {
                    root.getVector("t").setNull(i);
                } else {
                    ((TimeStampNanoVector) root.getVector("t")).setSafe(i, samples[i % samples.length] + i * 1_000_003L);
                }
            }
            root.setRowCount(ROWS);
            expected = values(root);
            S3Parquet.write(root).timestampsAsInt96(true).tuning(smallGroups()).s3(TestLake.memory().client()).to(table);
        }
        try (ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).open()) {
            assertThat(r.getVectorSchemaRoot().getSchema().findField("t").getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null));
            assertThat(ReadTest.readAll(r)).isEqualTo(expected);
        }
    }

    @Test
    void duckdbDataPagesV2ReadAsItsV1Pages() throws Exception {
        String bucket = TestLake.memoryBucket();
        String query = "SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || (i % 13) END AS s, CASE WHEN i % 5 = 0 THEN NULL "
                + "ELSE (i * 7919) % 100003 END AS n, CAST(i AS DECIMAL(18, 3)) AS d, i / 3.0 AS x, "
                + "TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_microseconds(i * 1000003) AS ts FROM range(" + ROWS + ") r(i)";
        for (String version : List.of("V1", "V2")) {
            Path file = temp.resolve(version + ".parquet");
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
                st.execute("SET TimeZone = 'UTC'");
                st.execute("COPY (" + query + ") TO '" + file + "' (FORMAT PARQUET, PARQUET_VERSION " + version + ", ROW_GROUP_SIZE 5000, "
                        + "COMPRESSION ZSTD)");
            }
            TestLake.memory().put(bucket, version + "/part-0.parquet", Files.readAllBytes(file));
        }
        Map<String, List<String>> v1;
        Map<String, String> v1Types;
        try (ArrowReader r = S3Parquet.read("s3://" + bucket + "/V1/").s3(TestLake.memory().client()).open()) {
            v1Types = types(r.getVectorSchemaRoot().getSchema());
            v1 = ReadTest.readAll(r);
        }
        try (ArrowReader r = S3Parquet.read("s3://" + bucket + "/V2/").s3(TestLake.memory().client()).open()) {
            assertThat(types(r.getVectorSchemaRoot().getSchema())).isEqualTo(v1Types);
            assertThat(ReadTest.readAll(r)).isEqualTo(v1);
        }
        assertThat(v1.get("id")).hasSize(ROWS);
        assertThat(v1.get("s").stream().filter("null"::equals).count()).isEqualTo((ROWS + 6) / 7);
        assertThat(v1.get("n").get(1)).isEqualTo("7919");
        assertThat(v1.get("d").get(7)).isEqualTo("7.000");
        assertThat(v1.get("ts").get(1)).isEqualTo(String.valueOf(1_735_689_600_000_000L + 1_000_003L));
    }
}
