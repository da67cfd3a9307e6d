package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import io.wrangler.SmallPages;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.testkit.LocalS3;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flat columns decoded page by page straight into Arrow buffers ({@link DirectColumn}) give exactly what the column
 * readers and converters give, for every type the direct path takes, with nulls in random places and in long runs, at
 * batch sizes that cut pages (1, 7, 4096): dictionary and plain chunks, a chunk whose dictionary filled up (dictionary
 * pages, then plain ones), data pages V1 (wrangler) and V2 (DuckDB). Each read also asserts which columns took the
 * direct path and with which pages, so it cannot pass by falling back to the converters.
 */
class DirectColumnTest {
    private static final int ROWS = 12_000;
    private static final int[] BATCHES = {1, 7, 4096};
    private static LocalS3 s3;

    @TempDir
    Path temp;

    @BeforeAll
    static void start() {
        s3 = LocalS3.start();
    }

    @AfterAll
    static void stop() {
        if (s3 != null) {
            s3.close();
        }
    }

    private static String bucket(String name) {
        String b = name + "-" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        s3.createBucket(b);
        return b;
    }

    private static Field f(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    /** A column of the all-types table: its type and its value at a row, from a random source. */
    private record Column(String name, ArrowType type, BiConsumer<FieldVector, Integer> set) {
    }

    /** Each supported type twice: few distinct values (a dictionary chunk) and many (a plain chunk); and a decimal. */
    private static List<Column> columns(Random rnd) {
        List<Column> out = new ArrayList<>();
        for (String card : List.of("few", "many")) {
            boolean few = card.equals("few");
            int bound = few ? 20 : Integer.MAX_VALUE;
            out.add(new Column("i8_" + card, new ArrowType.Int(8, true), (v, i) -> ((TinyIntVector) v).setSafe(i, (byte) rnd.nextInt(few ? 20 : 256))));
            out.add(new Column("i16_" + card, new ArrowType.Int(16, true), (v, i) -> ((SmallIntVector) v).setSafe(i, (short) rnd.nextInt(few ? 20 : 65536))));
            out.add(new Column("i32_" + card, new ArrowType.Int(32, true), (v, i) -> ((IntVector) v).setSafe(i, few ? rnd.nextInt(bound) - 10 : rnd.nextInt())));
            out.add(new Column("i64_" + card, new ArrowType.Int(64, true), (v, i) -> ((BigIntVector) v).setSafe(i, few ? rnd.nextInt(bound) * 1_000_000_007L : rnd.nextLong())));
            out.add(new Column("u8_" + card, new ArrowType.Int(8, false), (v, i) -> ((UInt1Vector) v).setSafe(i, rnd.nextInt(few ? 20 : 256))));
            out.add(new Column("u16_" + card, new ArrowType.Int(16, false), (v, i) -> ((UInt2Vector) v).setSafe(i, rnd.nextInt(few ? 20 : 65536))));
            out.add(new Column("u32_" + card, new ArrowType.Int(32, false), (v, i) -> ((UInt4Vector) v).setSafe(i, few ? rnd.nextInt(bound) : rnd.nextInt())));
            out.add(new Column("u64_" + card, new ArrowType.Int(64, false), (v, i) -> ((UInt8Vector) v).setSafe(i, few ? -rnd.nextInt(bound) : rnd.nextLong())));
            out.add(new Column("f32_" + card, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
                    (v, i) -> ((Float4Vector) v).setSafe(i, few ? rnd.nextInt(bound) / 4f : rnd.nextFloat() * 1e6f - 5e5f)));
            out.add(new Column("f64_" + card, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
                    (v, i) -> ((Float8Vector) v).setSafe(i, few ? rnd.nextInt(bound) / 8.0 : rnd.nextGaussian() * 1e9)));
            out.add(new Column("day_" + card, new ArrowType.Date(DateUnit.DAY), (v, i) -> ((DateDayVector) v).setSafe(i, 19_000 + rnd.nextInt(few ? 20 : 100_000) - 50_000)));
            out.add(new Column("ts_ms_" + card, new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC"),
                    (v, i) -> ((TimeStampMilliTZVector) v).setSafe(i, 1_700_000_000_000L + (few ? rnd.nextInt(bound) * 1000L : rnd.nextLong() % 100_000_000_000L))));
            out.add(new Column("ts_us_" + card, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"),
                    (v, i) -> ((TimeStampMicroTZVector) v).setSafe(i, 1_700_000_000_000_000L + (few ? rnd.nextInt(bound) : rnd.nextLong() % 100_000_000_000_000L))));
            out.add(new Column("s_" + card, ArrowType.Utf8.INSTANCE, (v, i) -> ((VarCharVector) v).setSafe(i,
                    (few ? "cat-" + rnd.nextInt(bound) + (rnd.nextInt(bound) == 0 ? "" : "é") : Long.toString(rnd.nextLong(), 36).repeat(rnd.nextInt(4)))
                            .getBytes(StandardCharsets.UTF_8))));
            out.add(new Column("bin_" + card, ArrowType.Binary.INSTANCE, (v, i) -> {
                byte[] b = new byte[few ? 3 : rnd.nextInt(40)];
                if (few) {
                    b[0] = (byte) rnd.nextInt(bound);
                } else {
                    rnd.nextBytes(b);
                }
                ((VarBinaryVector) v).setSafe(i, b);
            }));
        }
        out.add(new Column("b", ArrowType.Bool.INSTANCE, (v, i) -> ((BitVector) v).setSafe(i, rnd.nextInt(3) == 0 ? 1 : 0)));
        out.add(new Column("d18", new ArrowType.Decimal(18, 3, 128), (v, i) -> ((DecimalVector) v).setSafe(i, BigDecimal.valueOf(rnd.nextLong() % 1_000_000_000_000L, 3))));
        return out;
    }

    /**
     * Whether column {@code c}'s row {@code i} is null: by column, none, a few at random, half at random, or runs of
     * 300 (long RLE runs of levels) with a few at random between them.
     */
    private static boolean isNull(int c, int i, Random rnd) {
        return switch (c % 4) {
            case 0 -> false;
            case 1 -> rnd.nextInt(20) == 0;
            case 2 -> rnd.nextBoolean();
            default -> (i / 300) % 3 == 0 || rnd.nextInt(50) == 0;
        };
    }

    private static TableReader reader(String table, BufferAllocator allocator, int batch, boolean direct) {
        S3Location at = S3Location.parse(table, null, "read");
        TableFiles.Listing listing = new TableFiles(new S3Store(s3.client(), at.bucket(), RequestOptions.defaults()), at).list(PartitionFilter.all());
        return new TableReader(allocator, null, new TableReader.Source(s3.client(), RequestOptions.defaults(), at.uri(), listing, Map.of()), null,
                batch).directPages(direct);
    }

    static String render(FieldVector v, int i) {
        if (v.isNull(i)) {
            return "null";
        }
        Object o = v instanceof UInt8Vector u ? u.getObjectNoOverflow(i) : v.getObject(i);
        if (o instanceof byte[] b) {
            return "0x" + HexFormat.of().formatHex(b);
        }
        return String.valueOf(o);
    }

    private static Map<String, List<String>> values(VectorSchemaRoot root, Map<String, List<String>> into) {
        for (FieldVector v : root.getFieldVectors()) {
            List<String> col = into.computeIfAbsent(v.getName() + " " + v.getField().getType(), k -> new ArrayList<>());
            for (int i = 0; i < root.getRowCount(); i++) {
                col.add(render(v, i));
            }
        }
        return into;
    }

    /** Every column by name and type, as rendered values. */
    private static Map<String, List<String>> readAll(TableReader r) throws Exception {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (r) {
            while (r.loadNextBatch()) {
                assertThat(r.getVectorSchemaRoot().getRowCount()).isPositive();
                values(r.getVectorSchemaRoot(), out);
            }
        }
        return out;
    }

    /** What pages of each column the direct path decoded, as words. */
    private static Map<String, Set<String>> pages(Map<String, Integer> masks) {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        masks.forEach((column, m) -> {
            Set<String> s = new TreeSet<>();
            if ((m & DirectColumn.V1) != 0) {
                s.add("V1");
            }
            if ((m & DirectColumn.V2) != 0) {
                s.add("V2");
            }
            if ((m & DirectColumn.PLAIN) != 0) {
                s.add("PLAIN");
            }
            if ((m & DirectColumn.DICTIONARY) != 0) {
                s.add("DICTIONARY");
            }
            if ((m & DirectColumn.MIXED) != 0) {
                s.add("MIXED");
            }
            out.put(column, s);
        });
        return out;
    }

    /**
     * Reads the table through the converters (batches of 4096), then directly at each batch size: the same values;
     * returns what pages of which columns the direct path decoded (the same at every batch size).
     */
    private static Map<String, Set<String>> directEqualsConverters(String table, Map<String, List<String>> expected) throws Exception {
        Map<String, List<String>> converters;
        try (BufferAllocator a = new RootAllocator()) {
            TableReader r = reader(table, a, 4096, false);
            converters = readAll(r);
            assertThat(r.directPages()).isEmpty();
        }
        if (expected != null) {
            assertThat(converters).isEqualTo(expected);
        }
        Map<String, Set<String>> seen = null;
        for (int batch : BATCHES) {
            try (BufferAllocator a = new RootAllocator()) {
                TableReader r = reader(table, a, batch, true);
                Map<String, List<String>> direct = readAll(r);
                for (String column : converters.keySet()) {
                    assertThat(direct.get(column)).as(column + " in batches of " + batch).isEqualTo(converters.get(column));
                }
                assertThat(direct.keySet()).isEqualTo(converters.keySet());
                Map<String, Set<String>> p = pages(r.directPages());
                if (seen != null) {
                    assertThat(p).isEqualTo(seen);
                }
                seen = p;
            }
        }
        return seen;
    }

    @Test
    void everySupportedTypeReadsDirectlyAsThroughTheConvertersWithNullsAnywhere() throws Exception {
        String bucket = bucket("direct-types");
        String table = "s3://" + bucket + "/t/";
        Random rnd = new Random(20261203);
        List<Column> columns = columns(rnd);
        Map<String, List<String>> expected;
        try (BufferAllocator a = new RootAllocator();
             VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(columns.stream().map(c -> f(c.name(), c.type())).toList()), a)) {
            root.allocateNew();
            for (int c = 0; c < columns.size(); c++) {
                FieldVector v = root.getVector(c);
                for (int i = 0; i < ROWS; i++) {
                    if (isNull(c, i, rnd)) {
                        v.setNull(i);
                    } else {
                        columns.get(c).set().accept(v, i);
                    }
                }
            }
            root.setRowCount(ROWS);
            expected = values(root, new LinkedHashMap<>());
            // Row groups of 64 KiB and pages of 4 KiB: many of each, so batches of 4096 cut pages and row groups too.
            SmallPages.write(root, 64 * 1024, 4 * 1024, s3.client(), table);
        }
        Map<String, Set<String>> pages = directEqualsConverters(table, expected);

        Set<String> direct = new TreeSet<>();
        columns.forEach(c -> direct.add(c.name()));
        direct.remove("d18"); // decimals keep the converters
        assertThat(pages.keySet()).containsExactlyInAnyOrderElementsOf(direct);
        for (Map.Entry<String, Set<String>> e : pages.entrySet()) {
            String column = e.getKey();
            if (column.endsWith("_few") || column.startsWith("i8_") || column.startsWith("u8_")) { // 256 values repeat too
                assertThat(e.getValue()).as(column).containsExactlyInAnyOrder("V1", "DICTIONARY");
            } else {
                assertThat(e.getValue()).as(column).containsExactlyInAnyOrder("V1", "PLAIN");
            }
        }
    }

    /** A chunk of one PLAIN data page V1 of byte arrays (required: no levels), its bytes {@code page}. */
    private static PageReader onePlainPage(byte[] page, int values) {
        return new PageReader() {
            private boolean read;

            @Override
            public DictionaryPage readDictionaryPage() {
                return null;
            }

            @Override
            public long getTotalValueCount() {
                return values;
            }

            @Override
            public DataPage readPage() {
                if (read) {
                    return null;
                }
                read = true;
                return new DataPageV1(BytesInput.from(page), values, page.length, null, Encoding.RLE, Encoding.RLE, Encoding.PLAIN);
            }
        };
    }

    private static byte[] plainPage(List<byte[]> values) {
        ByteBuffer b = ByteBuffer.allocate(values.stream().mapToInt(v -> 4 + v.length).sum()).order(ByteOrder.LITTLE_ENDIAN);
        values.forEach(v -> b.putInt(v.length).put(v));
        return b.array();
    }

    private static final ColumnDescriptor REQUIRED_BYTES = new ColumnDescriptor(new String[] {"s"},
            org.apache.parquet.schema.Types.required(PrimitiveTypeName.BINARY).named("s"), 0, 0);

    /**
     * PLAIN byte arrays are decoded in one pass when the batch's data buffer has room for the rest of the page, else
     * in two (lengths first, the buffer grown once): the same values either way, in batches that cut the page anywhere
     * (empty values, values past the 16 bytes written as two words, multibyte ones, the last one at the page's end).
     */
    @Test
    void plainByteArraysDecodeTheSameWithRoomForTheirPageOrWithout() {
        Random rnd = new Random(11);
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            values.add(rnd.nextInt(9) == 0 ? new byte[0]
                    : ("é" + Long.toString(rnd.nextLong(), 36).repeat(rnd.nextInt(4))).getBytes(StandardCharsets.UTF_8));
        }
        byte[] page = plainPage(values);
        for (int room : new int[] {page.length, 1}) {
            for (int batch : new int[] {1, 7, 1000, 3000}) {
                List<String> got = new ArrayList<>();
                try (BufferAllocator a = new RootAllocator(); VarCharVector v = new VarCharVector("s", a)) {
                    DirectColumn c = new DirectColumn(DirectKind.BINARY, REQUIRED_BYTES, onePlainPage(page, values.size()), v);
                    for (int done = 0; done < values.size(); done += batch) {
                        int n = Math.min(batch, values.size() - done);
                        v.clear();
                        v.allocateNew(room, n);
                        c.read(n);
                        v.setValueCount(n);
                        for (int i = 0; i < n; i++) {
                            got.add(HexFormat.of().formatHex(v.get(i)));
                        }
                    }
                }
                assertThat(got).as("room " + room + ", batches of " + batch)
                        .isEqualTo(values.stream().map(HexFormat.of()::formatHex).toList());
            }
        }
    }

    /** A PLAIN byte array whose length runs past its page is an error, whether the batch has room for the page or not. */
    @Test
    void aPlainByteArrayLongerThanItsPageIsAnErrorWithRoomOrWithout() {
        List<byte[]> values = List.of("abc".getBytes(StandardCharsets.UTF_8), "defgh".getBytes(StandardCharsets.UTF_8));
        byte[] page = plainPage(values);
        page[7] = 6; // the second value's length: 6 where 5 bytes are left
        for (int room : new int[] {page.length, 1}) {
            try (BufferAllocator a = new RootAllocator(); VarCharVector v = new VarCharVector("s", a)) {
                DirectColumn c = new DirectColumn(DirectKind.BINARY, REQUIRED_BYTES, onePlainPage(page, 2), v);
                v.allocateNew(room, 2);
                assertThatThrownBy(() -> c.read(2)).as("room " + room).isInstanceOf(ParquetDecodingException.class)
                        .hasMessage("a page of the column s ends before its values do");
            }
        }
    }

    @Test
    void aChunkWhoseDictionaryFillsUpReadsItsDictionaryAndPlainPagesDirectly() throws Exception {
        String bucket = bucket("direct-fallback");
        String table = "s3://" + bucket + "/t/";
        List<Field> fields = List.of(f("id", new ArrowType.Int(32, true)), f("s", ArrowType.Utf8.INSTANCE));
        int n = 25_000;
        Map<String, List<String>> expected;
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), a)) {
            root.allocateNew();
            Random rnd = new Random(7);
            for (int r = 0; r < n; r++) {
                ((IntVector) root.getVector("id")).setSafe(r, r);
                // 800 values of 600 bytes for the first 20,000 rows (a dictionary pays on the first page), then new
                // values: the dictionary outgrows its 1 MiB page and parquet-java goes on with plain pages.
                int value = r < 20_000 ? r % 800 : r;
                if (rnd.nextInt(9) != 0) {
                    ((VarCharVector) root.getVector("s")).setSafe(r, String.format("%08d", value).repeat(75).getBytes(StandardCharsets.US_ASCII));
                }
            }
            root.setRowCount(n);
            expected = values(root, new LinkedHashMap<>());
            S3Parquet.write(root).s3(s3.client()).to(table);
        }
        Map<String, Set<String>> pages = directEqualsConverters(table, expected);
        assertThat(pages.get("s")).containsExactlyInAnyOrder("V1", "PLAIN", "DICTIONARY", "MIXED");
        assertThat(pages.get("id")).containsExactlyInAnyOrder("V1", "PLAIN");
    }

    @Test
    void duckdbFilesReadDirectlyAsThroughTheConvertersItsDeltaChunksThroughTheConverters() throws Exception {
        String bucket = bucket("direct-duckdb");
        String query = "SELECT i AS id, "
                + "CASE WHEN hash(i * 7 + 1) % 4 = 0 THEN NULL ELSE (i % 50 - 25)::TINYINT END AS i8, "
                + "CASE WHEN (i // 300) % 3 = 0 THEN NULL ELSE (hash(i + 1) % 60000)::INTEGER - 30000 END AS i16x, "
                + "CASE WHEN hash(i * 7 + 2) % 9 = 0 THEN NULL ELSE (i % 7000)::SMALLINT END AS i16, "
                + "CASE WHEN hash(i * 7 + 3) % 2 = 0 THEN NULL ELSE (hash(i + 2) % 2000000000)::INTEGER END AS i32, "
                + "CASE WHEN hash(i * 7 + 4) % 5 = 0 THEN NULL ELSE (i % 37)::INTEGER END AS i32few, "
                + "CASE WHEN hash(i * 7 + 5) % 3 = 0 THEN NULL ELSE (hash(i + 3) >> 1)::BIGINT - 4611686018427387904 END AS i64, "
                + "CASE WHEN hash(i * 7 + 6) % 6 = 0 THEN NULL ELSE (i % 11)::BIGINT * 1000000007 END AS i64few, "
                + "(i % 200)::UTINYINT AS u8, CASE WHEN hash(i * 7 + 8) % 4 = 0 THEN NULL ELSE (i % 300)::USMALLINT END AS u16, "
                + "CASE WHEN hash(i * 7 + 9) % 4 = 0 THEN NULL ELSE (i % 23 + 4000000000)::UINTEGER END AS u32, "
                + "CASE WHEN hash(i * 7 + 10) % 4 = 0 THEN NULL ELSE (i % 19)::UBIGINT + 18000000000000000000 END AS u64, "
                + "CASE WHEN hash(i * 7 + 11) % 4 = 0 THEN NULL ELSE ((i % 17) / 4.0)::FLOAT END AS f32, "
                + "CASE WHEN hash(i * 7 + 12) % 4 = 0 THEN NULL ELSE (i % 29) / 7.0 END AS f64, "
                + "CASE WHEN hash(i * 7 + 13) % 4 = 0 THEN NULL ELSE hash(i + 8) % 3 = 0 END AS b, "
                + "CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || (i % 13) END AS s, "
                + "CASE WHEN hash(i * 7 + 14) % 4 = 0 THEN NULL ELSE md5(i::VARCHAR) END AS smany, "
                + "CASE WHEN hash(i * 7 + 15) % 4 = 0 THEN NULL ELSE encode('k' || (i % 5)) END AS bin, "
                + "CASE WHEN hash(i * 7 + 16) % 4 = 0 THEN NULL ELSE DATE '2020-01-01' + (i % 1000)::INTEGER END AS day, "
                + "CASE WHEN hash(i * 7 + 17) % 4 = 0 THEN NULL ELSE TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_microseconds((i % 41) * 1000003) END AS ts, "
                + "CASE WHEN hash(i * 7 + 18) % 4 = 0 THEN NULL ELSE TIMESTAMP '2020-01-01' + to_microseconds((i % 43)::BIGINT * 999999937) END AS tsl, "
                + "CASE WHEN hash(i * 7 + 19) % 4 = 0 THEN NULL ELSE CAST(i AS DECIMAL(18, 3)) END AS d "
                + "FROM range(" + ROWS + ") r(i)";
        Map<String, Map<String, Set<String>>> byVersion = new LinkedHashMap<>();
        Map<String, List<String>> v1Values = null;
        for (String version : List.of("V1", "V2")) {
            Path file = temp.resolve(version + ".parquet");
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
                st.execute("SET TimeZone = 'UTC'");
                st.execute("COPY (" + query + ") TO '" + file + "' (FORMAT PARQUET, PARQUET_VERSION " + version + ", ROW_GROUP_SIZE 5000, "
                        + "COMPRESSION ZSTD)");
            }
            s3.put(bucket, version + "/part-0.parquet", Files.readAllBytes(file));
            String table = "s3://" + bucket + "/" + version + "/";
            byVersion.put(version, directEqualsConverters(table, v1Values));
            if (v1Values == null) {
                try (BufferAllocator a = new RootAllocator()) {
                    v1Values = readAll(reader(table, a, 4096, false));
                }
                assertThat(v1Values.get("i8 Int(8, true)").get(1)).isIn("-24", "null");
                assertThat(v1Values.get("s Utf8").get(0)).isEqualTo("null");
                assertThat(v1Values.get("s Utf8").get(1)).isEqualTo("v1");
            }
        }
        Map<String, Set<String>> v1 = byVersion.get("V1");
        Map<String, Set<String>> v2 = byVersion.get("V2");
        // DuckDB (1.4) writes data page headers V1 under either setting; PARQUET_VERSION V2 brings delta encodings.
        assertThat(v1).doesNotContainKey("d");
        assertThat(v1.keySet()).hasSize(21); // every column of the query but the decimal
        for (String column : List.of("id", "i16", "i32", "i64", "smany", "b")) {
            assertThat(v1.get(column)).as(column).containsExactlyInAnyOrder("V1", "PLAIN");
        }
        for (String column : List.of("i8", "i32few", "i64few", "u8", "u16", "u32", "u64", "f32", "f64", "s", "bin", "day", "ts", "tsl")) {
            assertThat(v1.get(column)).as(column).containsExactlyInAnyOrder("V1", "DICTIONARY");
        }
        // Under V2 its plain integers and strings are DELTA_* encoded: those chunks keep the converters, the others do not.
        assertThat(v2.keySet()).doesNotContain("d", "id", "i16", "i32", "i64", "smany").contains("i8", "s", "bin", "b", "f64", "ts");
        for (String column : List.of("i8", "s", "bin", "ts")) {
            assertThat(v2.get(column)).as(column).containsExactlyInAnyOrder("V1", "DICTIONARY");
        }
    }

    /** A flat column of the parquet-java-written table: its Parquet type, and its value at a row (null: a null). */
    private record JavaColumn(org.apache.parquet.schema.PrimitiveType type, java.util.function.IntFunction<Object> value) {
    }

    private static org.apache.parquet.schema.PrimitiveType optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName p, String name,
                                                                   org.apache.parquet.schema.LogicalTypeAnnotation ann) {
        return org.apache.parquet.schema.Types.optional(p).as(ann).named(name);
    }

    /**
     * parquet-java's own writer, data pages V1 and V2: in V1 every chunk reads directly, narrow integers in PLAIN pages
     * too (their dictionary turned off); in V2 dictionary pages with RLE_DICTIONARY ids, RLE booleans and PLAIN floats
     * read directly, DELTA_* chunks (its V2 fallback for integers and strings) through the converters, decided per chunk:
     * {@code i32} has few values in its first row groups (a dictionary) and distinct ones later (delta in V2).
     */
    @Test
    void parquetJavaDataPagesV1AndV2ReadDirectlyAsThroughTheConverters() throws Exception {
        String bucket = bucket("direct-v2");
        Random rnd = new Random(42);
        // Values drawn up front so that each column's are the same whatever the order they are asked in.
        int[] ints = new int[ROWS];
        long[] longs = new long[ROWS];
        boolean[][] nulls = new boolean[15][ROWS];
        for (int i = 0; i < ROWS; i++) {
            ints[i] = rnd.nextInt();
            longs[i] = rnd.nextLong();
            for (int c = 0; c < nulls.length; c++) {
                nulls[c][i] = isNull(c + 1, i, rnd);
            }
        }
        List<JavaColumn> columns = List.of(
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32, "i32", null),
                        i -> i < ROWS / 3 ? (Object) (i % 10) : ints[i]),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32, "i8",
                        org.apache.parquet.schema.LogicalTypeAnnotation.intType(8, true)), i -> (ints[i] % 100)),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32, "i8p",
                        org.apache.parquet.schema.LogicalTypeAnnotation.intType(8, true)), i -> (int) (byte) ints[i]),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32, "u8p",
                        org.apache.parquet.schema.LogicalTypeAnnotation.intType(8, false)), i -> ints[i] & 0xFF),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32, "u16p",
                        org.apache.parquet.schema.LogicalTypeAnnotation.intType(16, false)), i -> ints[i] >>> 16),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32, "u16",
                        org.apache.parquet.schema.LogicalTypeAnnotation.intType(16, false)), i -> (ints[i] & 0xFFFF) % 300 + 65_000),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32, "day",
                        org.apache.parquet.schema.LogicalTypeAnnotation.dateType()), i -> 18_000 + (ints[i] & 63)),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64, "i64", null),
                        i -> (long) (ints[i] % 50) * 1_000_000_007L),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64, "ts",
                        org.apache.parquet.schema.LogicalTypeAnnotation.timestampType(true,
                                org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS)), i -> longs[i] >> 8),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FLOAT, "f32", null),
                        i -> Float.intBitsToFloat(ints[i] & 0x3FFFFFFF)),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.DOUBLE, "f64", null),
                        i -> (ints[i] % 30) / 8.0),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BOOLEAN, "b", null),
                        i -> ints[i] % 3 == 0),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY, "s",
                        org.apache.parquet.schema.LogicalTypeAnnotation.stringType()), i -> "w" + (ints[i] & 15) + "é"),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY, "s2",
                        org.apache.parquet.schema.LogicalTypeAnnotation.stringType()), i -> Long.toString(longs[i], 36)),
                new JavaColumn(optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY, "bin", null),
                        i -> new byte[] {(byte) (ints[i] & 7), 0, (byte) 0xFF}));
        org.apache.parquet.schema.MessageType schema = new org.apache.parquet.schema.MessageType("t",
                columns.stream().map(c -> (org.apache.parquet.schema.Type) c.type()).toList());
        Map<String, Map<String, Set<String>>> pages = new LinkedHashMap<>();
        Map<String, Map<String, Integer>> converted = new LinkedHashMap<>();
        for (var version : org.apache.parquet.column.ParquetProperties.WriterVersion.values()) {
            Path file = temp.resolve(version + ".parquet");
            try (org.apache.parquet.hadoop.ParquetWriter<Integer> w = new RowsWriter(new org.apache.parquet.io.LocalOutputFile(file), schema,
                    columns, nulls).withConf(new org.apache.parquet.conf.PlainParquetConfiguration())
                    .withCodecFactory(new io.wrangler.encoding.Codecs())
                    .withCompressionCodec(org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY)
                    .withWriterVersion(version).withRowGroupSize(64 * 1024).withPageSize(4 * 1024).withDictionaryEncoding(true)
                    .withDictionaryEncoding("i8p", false).withDictionaryEncoding("u8p", false).withDictionaryEncoding("u16p", false)
                    .build()) {
                for (int i = 0; i < ROWS; i++) {
                    w.write(i);
                }
            }
            s3.put(bucket, version + "/part-0.parquet", Files.readAllBytes(file));
            String table = "s3://" + bucket + "/" + version + "/";
            pages.put(version.name(), directEqualsConverters(table, null));
            try (BufferAllocator a = new RootAllocator()) {
                TableReader r = reader(table, a, 4096, true);
                Map<String, List<String>> all = readAll(r);
                assertThat(all.get("i32 Int(32, true)").get(1)).isIn("1", "null");
                assertThat(all.get("s Utf8")).hasSize(ROWS);
                converted.put(version.name(), r.converterChunks());
            }
        }
        Map<String, Set<String>> v1 = pages.get("PARQUET_1_0");
        Map<String, Set<String>> v2 = pages.get("PARQUET_2_0");
        // V1: every chunk directly, PLAIN_DICTIONARY ids and PLAIN values (i32: dictionary chunks, then plain ones).
        assertThat(converted.get("PARQUET_1_0")).isEmpty();
        for (String column : List.of("i8", "u16", "day", "i64", "f64", "s", "bin")) {
            assertThat(v1.get(column)).as(column).containsExactlyInAnyOrder("V1", "DICTIONARY");
        }
        assertThat(v1.get("i32")).containsExactlyInAnyOrder("V1", "DICTIONARY", "PLAIN"); // in different chunks: not MIXED
        for (String column : List.of("i8p", "u8p", "u16p", "ts", "s2", "b", "f32")) {
            assertThat(v1.get(column)).as(column).containsExactlyInAnyOrder("V1", "PLAIN");
        }
        // V2: RLE_DICTIONARY ids, RLE booleans, PLAIN floats directly; DELTA_* chunks through the converters.
        for (String column : List.of("i8", "u16", "day", "i64", "f64", "s", "bin")) {
            // (a small last row group may find its dictionary not worth it: PLAIN floats then)
            assertThat(v2.get(column)).as(column).contains("V2", "DICTIONARY").doesNotContain("V1");
        }
        assertThat(v2.get("b")).containsExactlyInAnyOrder("V2", "PLAIN"); // RLE booleans
        assertThat(v2.get("f32")).contains("V2", "PLAIN");
        // i32: its first row groups' chunks directly, its later (delta) chunks through the converters
        assertThat(v2.get("i32")).containsExactlyInAnyOrder("V2", "DICTIONARY");
        assertThat(converted.get("PARQUET_2_0").get("i32")).isPositive();
        assertThat(v2).doesNotContainKeys("ts", "s2", "i8p", "u8p", "u16p");
        assertThat(converted.get("PARQUET_2_0")).containsKeys("ts", "s2", "i8p").doesNotContainKeys("i8", "s", "b", "f64");
    }

    /** Writes row i of {@code columns} for each Integer i it is given. */
    private static final class RowsWriter extends org.apache.parquet.hadoop.ParquetWriter.Builder<Integer, RowsWriter> {
        private final org.apache.parquet.schema.MessageType schema;
        private final List<JavaColumn> columns;
        private final boolean[][] nulls;

        RowsWriter(org.apache.parquet.io.OutputFile file, org.apache.parquet.schema.MessageType schema, List<JavaColumn> columns, boolean[][] nulls) {
            super(file);
            this.schema = schema;
            this.columns = columns;
            this.nulls = nulls;
        }

        @Override
        protected RowsWriter self() {
            return this;
        }

        @Override
        protected org.apache.parquet.hadoop.api.WriteSupport<Integer> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
            return support();
        }

        @Override
        protected org.apache.parquet.hadoop.api.WriteSupport<Integer> getWriteSupport(org.apache.parquet.conf.ParquetConfiguration conf) {
            return support();
        }

        private org.apache.parquet.hadoop.api.WriteSupport<Integer> support() {
            return new org.apache.parquet.hadoop.api.WriteSupport<>() {
                private org.apache.parquet.io.api.RecordConsumer out;

                @Override
                public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
                    return new WriteContext(schema, Map.of());
                }

                @Override
                public WriteContext init(org.apache.parquet.conf.ParquetConfiguration configuration) {
                    return new WriteContext(schema, Map.of());
                }

                @Override
                public void prepareForWrite(org.apache.parquet.io.api.RecordConsumer consumer) {
                    this.out = consumer;
                }

                @Override
                public void write(Integer row) {
                    out.startMessage();
                    for (int c = 0; c < columns.size(); c++) {
                        if (nulls[c][row]) {
                            continue;
                        }
                        Object v = columns.get(c).value().apply(row);
                        out.startField(columns.get(c).type().getName(), c);
                        if (v instanceof Integer x) {
                            out.addInteger(x);
                        } else if (v instanceof Long x) {
                            out.addLong(x);
                        } else if (v instanceof Float x) {
                            out.addFloat(x);
                        } else if (v instanceof Double x) {
                            out.addDouble(x);
                        } else if (v instanceof Boolean x) {
                            out.addBoolean(x);
                        } else if (v instanceof String x) {
                            out.addBinary(org.apache.parquet.io.api.Binary.fromString(x));
                        } else {
                            out.addBinary(org.apache.parquet.io.api.Binary.fromConstantByteArray((byte[]) v));
                        }
                        out.endField(columns.get(c).type().getName(), c);
                    }
                    out.endMessage();
                }
            };
        }
    }
}
