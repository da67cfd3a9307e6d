package io.wrangler.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Compression;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
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
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageEncodingStats;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flat-column encoder ({@link ColumnarEncoder} over {@link FlatColumnWriter}) against parquet-java's own writer
 * ({@link RecordEncoder}, the record-consumer path nested columns use) on the same Arrow rows: the footers must hold
 * the same statistics (min, max, null and NaN counts, byte-array sizes) column chunk by column chunk, the same column
 * indexes page by page where the pages are the same, and DuckDB must read the same values from both files, which are
 * also asserted against the Arrow input.
 */
class FlatColumnWriterTest {
    @TempDir
    Path dir;

    private static Field f(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    /** Every flat type, each column with its own null pattern. */
    private static List<Field> fields() {
        return List.of(
                f("id", new ArrowType.Int(32, true)),
                f("i8", new ArrowType.Int(8, true)), f("i16", new ArrowType.Int(16, true)), f("i32", new ArrowType.Int(32, true)),
                f("i64", new ArrowType.Int(64, true)), f("u8", new ArrowType.Int(8, false)), f("u16", new ArrowType.Int(16, false)),
                f("u32", new ArrowType.Int(32, false)), f("u64", new ArrowType.Int(64, false)),
                f("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                f("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                f("price", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                f("i32s", new ArrowType.Int(32, true)), f("b", ArrowType.Bool.INSTANCE), f("country", ArrowType.Utf8.INSTANCE), f("name", ArrowType.Utf8.INSTANCE),
                f("large", ArrowType.LargeUtf8.INSTANCE), f("bin", ArrowType.Binary.INSTANCE), f("fixed", new ArrowType.FixedSizeBinary(5)),
                f("dec9", new ArrowType.Decimal(9, 2, 128)), f("dec18", new ArrowType.Decimal(18, 3, 128)),
                f("dec38", new ArrowType.Decimal(38, 5, 128)), f("day", new ArrowType.Date(DateUnit.DAY)),
                f("dms", new ArrowType.Date(DateUnit.MILLISECOND)), f("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
                f("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")), f("ts_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                f("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)), f("nothing", ArrowType.Utf8.INSTANCE));
    }

    private static final String[] COUNTRIES = {"US", "DE", "FR", "GB", "BR", "IN", "JP", "CN", "", "ÉS"};

    /**
     * Rows of {@link #fields()}: nulls at random (a tenth), in runs (rows 1000 to 1099 null in every column but id), never
     * (id, country), always ({@code nothing}); NaN, -0.0 and 0.0 among the doubles; extreme and unsigned values.
     */
    private static VectorSchemaRoot rows(RootAllocator allocator, int n, long seed) {
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields()), allocator);
        root.allocateNew();
        Random rnd = new Random(seed);
        for (int r = 0; r < n; r++) {
            ((IntVector) root.getVector("id")).setSafe(r, r);
            ((VarCharVector) root.getVector("country")).setSafe(r, COUNTRIES[rnd.nextInt(COUNTRIES.length)].getBytes(StandardCharsets.UTF_8));
            for (FieldVector v : root.getFieldVectors()) {
                String name = v.getName();
                if (name.equals("id") || name.equals("country") || name.equals("nothing")) {
                    continue;
                }
                if ((r >= 1000 && r < 1100) || rnd.nextInt(10) == 0) {
                    continue; // null
                }
                set(v, r, rnd);
            }
        }
        root.setRowCount(n);
        return root;
    }

    private static void set(FieldVector v, int r, Random rnd) {
        switch (v.getName()) {
            case "i8" -> ((TinyIntVector) v).setSafe(r, (byte) rnd.nextInt());
            case "i16" -> ((SmallIntVector) v).setSafe(r, (short) rnd.nextInt());
            case "i32" -> ((IntVector) v).setSafe(r, r % 977 == 0 ? Integer.MIN_VALUE : rnd.nextInt());
            case "i64" -> ((BigIntVector) v).setSafe(r, r % 991 == 0 ? Long.MAX_VALUE : rnd.nextLong());
            case "u8" -> ((UInt1Vector) v).setSafe(r, rnd.nextInt(256));
            case "u16" -> ((UInt2Vector) v).setSafe(r, (char) rnd.nextInt(65536));
            case "u32" -> ((UInt4Vector) v).setSafe(r, rnd.nextInt()); // above 2^31 as well: unsigned order in the statistics
            case "u64" -> ((UInt8Vector) v).setSafe(r, rnd.nextLong());
            case "f32" -> ((Float4Vector) v).setSafe(r, r % 101 == 0 ? Float.NaN : (rnd.nextFloat() - 0.5f) * 1e6f);
            case "f64" -> ((Float8Vector) v).setSafe(r, switch (r % 97) {
                case 0 -> Double.NaN;
                case 1 -> -0.0;
                case 2 -> 0.0;
                default -> rnd.nextGaussian() * 1e9;
            });
            case "price" -> ((Float8Vector) v).setSafe(r, rnd.nextInt(5000) / 100.0); // repeats: a dictionary pays
            case "i32s" -> ((IntVector) v).setSafe(r, rnd.nextInt(14_000)); // a dictionary tried, not paying on the first page
            case "b" -> ((BitVector) v).setSafe(r, rnd.nextInt(3) == 0 ? 1 : 0);
            case "name" -> ((VarCharVector) v).setSafe(r, ("user-" + rnd.nextInt(1_000_000_000)).getBytes(StandardCharsets.UTF_8));
            case "large" -> ((LargeVarCharVector) v).setSafe(r, ("l" + rnd.nextInt(50)).getBytes(StandardCharsets.UTF_8));
            case "bin" -> {
                byte[] b = new byte[rnd.nextInt(12)];
                rnd.nextBytes(b);
                ((VarBinaryVector) v).setSafe(r, b);
            }
            case "fixed" -> {
                byte[] b = new byte[5];
                rnd.nextBytes(b);
                ((FixedSizeBinaryVector) v).setSafe(r, b);
            }
            case "dec9" -> ((DecimalVector) v).setSafe(r, BigDecimal.valueOf(rnd.nextInt(200_000_000) - 100_000_000, 2));
            case "dec18" -> ((DecimalVector) v).setSafe(r, BigDecimal.valueOf(rnd.nextLong() % 100_000_000_000_000_000L, 3));
            case "dec38" -> ((DecimalVector) v).setSafe(r, new BigDecimal(new BigInteger(120, rnd).subtract(BigInteger.ONE.shiftLeft(119)), 5));
            case "day" -> ((DateDayVector) v).setSafe(r, 18_000 + rnd.nextInt(3000));
            case "dms" -> ((DateMilliVector) v).setSafe(r, (18_000L + rnd.nextInt(3000)) * 86_400_000L);
            case "ts_s", "ts_ms", "ts_us" -> ((TimeStampVector) v).setSafe(r, 1_600_000_000L + rnd.nextInt(1_000_000_000));
            case "ts_ns" -> ((TimeStampVector) v).setSafe(r, (1_600_000_000_000_000L + rnd.nextInt(1_000_000_000)) * 1000);
            default -> throw new IllegalArgumentException(v.getName());
        }
    }

    private static byte[] flat(FileEncoder.Settings s, VectorSchemaRoot root, int from, int to) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (FileEncoder e = new ColumnarEncoder(s, out)) {
            e.write(root.getFieldVectors(), from, to);
        }
        return out.toByteArray();
    }

    /** The same rows through parquet-java's writer. */
    private static byte[] reference(FileEncoder.Settings s, VectorSchemaRoot root, int from, int to) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (FileEncoder e = new RecordEncoder(s, out)) {
            e.write(root.getFieldVectors(), from, to);
        }
        return out.toByteArray();
    }

    private static FileMetaData footer(byte[] file) throws Exception {
        int length = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return Util.readFileMetaData(new ByteArrayInputStream(Arrays.copyOfRange(file, file.length - 8 - length, file.length - 8)));
    }

    private static ColumnIndex columnIndex(byte[] file, ColumnChunk c) throws Exception {
        return Util.readColumnIndex(new ByteArrayInputStream(file, (int) c.getColumn_index_offset(), c.getColumn_index_length()));
    }

    private static OffsetIndex offsetIndex(byte[] file, ColumnChunk c) throws Exception {
        return Util.readOffsetIndex(new ByteArrayInputStream(file, (int) c.getOffset_index_offset(), c.getOffset_index_length()));
    }

    private static String path(ColumnChunk c) {
        return String.join(".", c.getMeta_data().getPath_in_schema());
    }

    /** Encodings of the data pages and whether a dictionary page came first. */
    private static Set<String> pageEncodings(ColumnMetaData m) {
        return m.getEncoding_stats().stream().map(PageEncodingStats::toString).collect(Collectors.toSet());
    }

    /** Asserts that one row group of each file holds the same statistics per column; with {@code samePages}, per page too. */
    private static void assertSameStatistics(byte[] mine, RowGroup a, byte[] theirs, RowGroup b, boolean samePages) throws Exception {
        assertThat(a.getNum_rows()).isEqualTo(b.getNum_rows());
        assertThat(a.getColumns()).hasSameSizeAs(b.getColumns());
        for (int c = 0; c < a.getColumns().size(); c++) {
            ColumnChunk x = a.getColumns().get(c);
            ColumnChunk y = b.getColumns().get(c);
            ColumnMetaData mx = x.getMeta_data();
            ColumnMetaData my = y.getMeta_data();
            assertThat(mx.getStatistics()).as("statistics of %s", path(x)).isEqualTo(my.getStatistics());
            assertThat(mx.getNum_values()).as("values of %s", path(x)).isEqualTo(my.getNum_values());
            assertThat(mx.getType()).isEqualTo(my.getType());
            assertThat(mx.getCodec()).isEqualTo(my.getCodec());
            assertThat(mx.getSize_statistics()).as("size statistics of %s", path(x)).isEqualTo(my.getSize_statistics());
            assertThat(x.isSetColumn_index_offset()).as("column index of %s", path(x)).isEqualTo(y.isSetColumn_index_offset());
            if (samePages && x.isSetColumn_index_offset()) {
                assertThat(columnIndex(mine, x)).as("column index of %s", path(x)).isEqualTo(columnIndex(theirs, y));
            }
            if (samePages) {
                assertThat(offsetIndex(mine, x).getPage_locations().stream().map(p -> p.getFirst_row_index()).toList())
                        .as("page first rows of %s", path(x))
                        .isEqualTo(offsetIndex(theirs, y).getPage_locations().stream().map(p -> p.getFirst_row_index()).toList());
                if (mx.getType() == org.apache.parquet.format.Type.INT96) {
                    // parquet-java tries a dictionary for INT96 (and keeps it for distinct values: it counts 16 raw bytes
                    // a value); the flat writer writes them plain, as both write FIXED_LEN_BYTE_ARRAY
                    assertThat(mx.getEncoding_stats()).as("page encodings of %s", path(x))
                            .allSatisfy(e -> assertThat(e.getEncoding()).isEqualTo(org.apache.parquet.format.Encoding.PLAIN));
                } else {
                    assertThat(pageEncodings(mx)).as("page encodings of %s", path(x)).isEqualTo(pageEncodings(my));
                }
            }
        }
    }

    /** Every column of both files as text, row by row in id order, read by DuckDB. */
    private List<List<String>> duck(byte[] file, String name) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, file);
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
            st.execute("SET TimeZone='UTC'");
            try (ResultSet rs = st.executeQuery("SELECT COLUMNS(* EXCLUDE (k))::VARCHAR FROM (SELECT *, id AS k FROM read_parquet('" + p
                    + "')) ORDER BY k")) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<String> row = new ArrayList<>(n);
                    for (int i = 1; i <= n; i++) {
                        row.add(rs.getString(i));
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    /** Asserts DuckDB's values of a few columns against the Arrow input, for every row. */
    private static void assertValues(List<List<String>> read, VectorSchemaRoot root, boolean int96) {
        List<String> names = fields().stream().map(Field::getName).toList();
        assertThat(read).hasSize(root.getRowCount());
        for (int r = 0; r < root.getRowCount(); r++) {
            List<String> row = read.get(r);
            for (String col : List.of("i64", "u32", "u64", "country", "name", "dec38", "day", "ts_us", "b")) {
                FieldVector v = root.getVector(col);
                String expected;
                if (v.isNull(r)) {
                    expected = null;
                } else if (v instanceof UInt4Vector u) {
                    expected = Long.toString(u.get(r) & 0xFFFFFFFFL);
                } else if (v instanceof UInt8Vector u) {
                    expected = Long.toUnsignedString(u.get(r));
                } else if (v instanceof DateDayVector d) {
                    expected = java.time.LocalDate.ofEpochDay(d.get(r)).toString();
                } else if (v instanceof TimeStampVector t) {
                    java.time.LocalDateTime d = java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(t.get(r), 1_000_000L), 0,
                            java.time.ZoneOffset.UTC);
                    String micros = String.format("%06d", Math.floorMod(t.get(r), 1_000_000L)).replaceAll("0+$", "");
                    expected = d.toLocalDate() + " " + d.toLocalTime().format(java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss"))
                            + (micros.isEmpty() ? "" : "." + micros) + (int96 ? "" : "+00"); // INT96 has no zone
                } else if (v instanceof BitVector b) {
                    expected = b.get(r) == 1 ? "true" : "false";
                } else {
                    expected = v.getObject(r).toString();
                }
                assertThat(row.get(names.indexOf(col))).as("%s at row %d", col, r).isEqualTo(expected);
            }
        }
    }

    @Test
    void everyFlatTypeWithNullsHasTheStatisticsOfParquetJavasWriterPageByPage() throws Exception {
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = rows(allocator, 50_000, 1)) {
            for (boolean int96 : List.of(false, true)) {
                FileEncoder.Settings s = new FileEncoder.Settings(fields(), Compression.SNAPPY, false, int96, 128L << 20, 1 << 20);
                byte[] mine = flat(s, root, 0, 50_000);
                byte[] theirs = reference(s, root, 0, 50_000);
                FileMetaData a = footer(mine);
                FileMetaData b = footer(theirs);
                assertThat(a.getRow_groups()).hasSize(1);
                assertThat(b.getRow_groups()).hasSize(1);
                assertThat(a.getSchema()).isEqualTo(b.getSchema());
                assertThat(a.getColumn_orders()).isEqualTo(b.getColumn_orders());
                assertSameStatistics(mine, a.getRow_groups().get(0), theirs, b.getRow_groups().get(0), true);
                if (!int96) {
                    // Where the two make the same encoding choices (here every column: INT96 aside, the sample's choice and
                    // parquet-java's fallback agree) the files are the same to the byte. A parquet-java upgrade that changes
                    // its RLE runs or page cuts would break only this line; the statistics above are the contract.
                    assertThat(mine).isEqualTo(theirs);
                }
                // 20,000-row pages, and a dictionary where values repeat
                ColumnChunk country = a.getRow_groups().get(0).getColumns().stream().filter(c -> path(c).equals("country"))
                        .findFirst().orElseThrow();
                assertThat(offsetIndex(mine, country).getPage_locations()).hasSize(3);
                assertThat(country.getMeta_data().getDictionary_page_offset()).isPositive();

                List<List<String>> read = duck(mine, "mine" + int96 + ".parquet");
                if (int96) {
                    assertThat(read).isEqualTo(duck(theirs, "theirs" + int96 + ".parquet"));
                }
                assertValues(read, root, int96);
            }
        }
    }

    @Test
    void manyPagesAndRowGroupsHoldTheStatisticsOfTheirRows() throws Exception {
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = rows(allocator, 40_000, 2)) {
            FileEncoder.Settings s = new FileEncoder.Settings(fields(), Compression.ZSTD, false, false, 512L << 10, 16 << 10);
            byte[] mine = flat(s, root, 0, 40_000);
            FileMetaData a = footer(mine);
            assertThat(a.getRow_groups().size()).isGreaterThan(2);
            int from = 0;
            for (RowGroup g : a.getRow_groups()) {
                int rows = (int) g.getNum_rows();
                // parquet-java's writer on the same rows, as one row group: the same statistics per column chunk
                FileEncoder.Settings one = new FileEncoder.Settings(fields(), Compression.ZSTD, false, false, 1L << 30, 16 << 10);
                byte[] theirs = reference(one, root, from, from + rows);
                assertSameStatistics(mine, g, theirs, footer(theirs).getRow_groups().get(0), false);
                for (ColumnChunk c : g.getColumns()) {
                    if (g == a.getRow_groups().get(0) && !path(c).equals("nothing") && !path(c).equals("b")) {
                        assertThat(offsetIndex(mine, c).getPage_locations().size()).as("pages of %s", path(c)).isGreaterThan(1);
                    }
                }
                from += rows;
            }
            assertThat(from).isEqualTo(40_000);
            List<List<String>> read = duck(mine, "mine.parquet");
            assertThat(read).isEqualTo(duck(reference(s, root, 0, 40_000), "theirs.parquet"));
            assertValues(read, root, false);
        }
    }

    /**
     * Byte strings that differ only in trailing zero bytes, in the byte after the eighth, or in a high byte (unsigned order):
     * the 8-byte keys of the dictionary lookup and of the min/max compare must tell them apart, zero padding included. One
     * column repeats 14 such values (a dictionary), the other the same with a row number after them (plain); both must
     * come out as parquet-java writes them, to the byte, and read back as written.
     */
    @Test
    void shortAndZeroPaddedBytesKeepTheirOwnDictionaryIdsAndOrder() throws Exception {
        byte[][] values = {{}, {0}, {0, 0}, {'a'}, {'a', 0}, {'a', 0, 0, 0, 0, 0, 0, 0}, {'a', 0, 0, 0, 0, 0, 0, 0, 0},
                {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}, {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0}, {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 1},
                {(byte) 0xFF}, {(byte) 0xFF, 0}, {(byte) 0x80, 'x'}, {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}};
        List<Field> fields = List.of(f("id", new ArrowType.Int(32, true)), f("d", ArrowType.Binary.INSTANCE), f("p", ArrowType.Binary.INSTANCE));
        int n = 30_000;
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator)) {
            root.allocateNew();
            Random rnd = new Random(7);
            for (int r = 0; r < n; r++) {
                ((IntVector) root.getVector("id")).setSafe(r, r);
                byte[] v = values[rnd.nextInt(values.length)];
                ((VarBinaryVector) root.getVector("d")).setSafe(r, v);
                byte[] unique = Arrays.copyOf(v, v.length + 4);
                ByteBuffer.wrap(unique, v.length, 4).putInt(r);
                ((VarBinaryVector) root.getVector("p")).setSafe(r, rnd.nextInt(50) == 0 ? v : unique);
            }
            root.setRowCount(n);
            FileEncoder.Settings s = new FileEncoder.Settings(fields, Compression.SNAPPY, false, false, 128L << 20, 1 << 20);
            byte[] mine = flat(s, root, 0, n);
            byte[] theirs = reference(s, root, 0, n);
            RowGroup a = footer(mine).getRow_groups().get(0);
            assertSameStatistics(mine, a, theirs, footer(theirs).getRow_groups().get(0), true);
            assertThat(pageEncodings(a.getColumns().get(1).getMeta_data()).toString()).contains("PLAIN_DICTIONARY");
            assertThat(pageEncodings(a.getColumns().get(2).getMeta_data()).toString()).doesNotContain("PLAIN_DICTIONARY");
            assertThat(mine).isEqualTo(theirs);
            assertThat(a.getColumns().get(1).getMeta_data().getStatistics().getMin_value()).isEqualTo(new byte[0]);
            assertThat(a.getColumns().get(1).getMeta_data().getStatistics().getMax_value()).isEqualTo(new byte[] {(byte) 0xFF, 0});

            Path file = dir.resolve("zero-padded.parquet");
            Files.write(file, mine);
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, d, p FROM read_parquet('" + file + "') ORDER BY id")) {
                for (int r = 0; r < n; r++) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(r);
                    assertThat(rs.getBytes(2)).as("d of row %d", r).isEqualTo(((VarBinaryVector) root.getVector("d")).get(r));
                    assertThat(rs.getBytes(3)).as("p of row %d", r).isEqualTo(((VarBinaryVector) root.getVector("p")).get(r));
                }
                assertThat(rs.next()).isFalse();
            }
        }
    }

    @Test
    void aDictionaryThatOutgrowsItsPageGivesWayToPlainAsInParquetJava() throws Exception {
        List<Field> fields = List.of(f("id", new ArrowType.Int(32, true)), f("s", ArrowType.Utf8.INSTANCE));
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator)) {
            root.allocateNew();
            int n = 25_000;
            for (int r = 0; r < n; r++) {
                ((IntVector) root.getVector("id")).setSafe(r, r);
                // 800 values of 600 bytes for 20,000 rows (the first page), then new values: past 1 MiB of dictionary
                int value = r < 20_000 ? r % 800 : r;
                if (r % 13 != 0) {
                    String text = String.format("%08d", value).repeat(75);
                    ((VarCharVector) root.getVector("s")).setSafe(r, text.getBytes(StandardCharsets.US_ASCII));
                }
            }
            root.setRowCount(n);
            FileEncoder.Settings s = new FileEncoder.Settings(fields, Compression.SNAPPY, false, false, 128L << 20, 1 << 20);
            byte[] mine = flat(s, root, 0, n);
            byte[] theirs = reference(s, root, 0, n);
            RowGroup a = footer(mine).getRow_groups().get(0);
            RowGroup b = footer(theirs).getRow_groups().get(0);
            assertSameStatistics(mine, a, theirs, b, false);
            ColumnMetaData m = a.getColumns().get(1).getMeta_data();
            Set<String> kinds = new HashSet<>();
            for (PageEncodingStats e : m.getEncoding_stats()) {
                kinds.add(e.getPage_type() + " " + e.getEncoding());
            }
            assertThat(kinds).containsExactlyInAnyOrder("DICTIONARY_PAGE PLAIN_DICTIONARY", "DATA_PAGE PLAIN_DICTIONARY", "DATA_PAGE PLAIN");
            Set<String> theirKinds = new HashSet<>();
            for (PageEncodingStats e : b.getColumns().get(1).getMeta_data().getEncoding_stats()) {
                theirKinds.add(e.getPage_type() + " " + e.getEncoding());
            }
            assertThat(kinds).isEqualTo(theirKinds);
            assertThat(m.getEncoding_stats().stream().filter(e -> e.getPage_type() == PageType.DATA_PAGE
                    && e.getEncoding() == org.apache.parquet.format.Encoding.PLAIN_DICTIONARY).findFirst().orElseThrow().getCount()).isEqualTo(1);

            Path p = dir.resolve("fallback.parquet");
            Files.write(p, mine);
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, s FROM read_parquet('" + p + "') ORDER BY id")) {
                for (int r = 0; r < n; r++) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(r);
                    int value = r < 20_000 ? r % 800 : r;
                    assertThat(rs.getString(2)).as("row %d", r).isEqualTo(r % 13 == 0 ? null : String.format("%08d", value).repeat(75));
                }
                assertThat(rs.next()).isFalse();
            }
        }
    }
    @Test
    void pagesOfLargeValuesEndWhereParquetJavasEnd() throws Exception {
        List<Field> fields = List.of(f("id", new ArrowType.Int(32, true)), f("s", ArrowType.Utf8.INSTANCE));
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator)) {
            root.allocateNew();
            int n = 600;
            for (int r = 0; r < n; r++) {
                ((IntVector) root.getVector("id")).setSafe(r, r);
                ((VarCharVector) root.getVector("s")).setSafe(r, String.format("%010d", r).repeat(2_000).getBytes(StandardCharsets.US_ASCII));
            }
            root.setRowCount(n);
            int page = 64 << 10;
            FileEncoder.Settings s = new FileEncoder.Settings(fields, Compression.NONE, false, false, 128L << 20, page);
            byte[] mine = flat(s, root, 0, n);
            byte[] theirs = reference(s, root, 0, n);
            RowGroup a = footer(mine).getRow_groups().get(0);
            RowGroup b = footer(theirs).getRow_groups().get(0);
            // pages of 100 rows (the size is checked 100 rows apart), the same pages and page statistics as parquet-java's
            assertSameStatistics(mine, a, theirs, b, true);
            assertThat(offsetIndex(mine, a.getColumns().get(1)).getPage_locations()).hasSize(6)
                    .allSatisfy(p -> assertThat(p.getFirst_row_index() % 100).isZero());
        }
    }
}
