package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
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
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A row filter keeps exactly the rows DuckDB's {@code WHERE} keeps, over every type a filter compares (nulls, NaN and
 * signed zeros, unsigned integers, decimals, dates, timestamps of every unit, multibyte strings, binary with high
 * bytes, a partition column), on files wrangler writes in small row groups and pages, on files DuckDB writes, and on
 * wrangler's files as old or minimal writers leave them (no statistics, page index, bloom filter or column order):
 * random predicates, the same objects read by both.
 */
class RowFilterDuckDbTest {
    static final int ROWS = 900;
    private static final String[] STRINGS = {"", "a", "ab", "b", "é", "éa", "世界", "😀", "\uFFFD", "z", "Z"};
    private static final byte[][] BINARIES = {{}, {0}, {0, 1}, {0x7f}, {(byte) 0x80}, {(byte) 0xff}, {(byte) 0xff, 0}};
    private static final float[] FLOATS = {1.5f, -0.25f, 0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 3.4e38f};
    private static final String[] D9 = {"-0.01", "0.00", "1.50", "1234567.89", "-9999999.99", "2.05"};
    private static final LocalDateTime T0 = LocalDateTime.of(2024, 1, 15, 0, 0);

    @TempDir
    Path temp;

    /** A column a predicate compares: how to draw a literal, and how DuckDB writes it. */
    record Col(String name, String sql, Function<Random, Object> literal, Function<Object, String> text) {
    }

    static List<Col> columns() {
        Function<Object, String> plain = String::valueOf;
        List<Col> c = new ArrayList<>();
        c.add(new Col("k", "k", r -> r.nextInt(ROWS + 20) - 10, plain));
        c.add(new Col("i8", "i8", r -> pick(r, -128, -1, 0, 1, 5, 127, -200, 300), plain));
        c.add(new Col("i16", "i16", r -> (short) (int) pick(r, -32768, -1, 0, 7, 32767), plain));
        c.add(new Col("i32", "i32", r -> r.nextInt(ROWS * 7 + 200) - 1100, plain));
        c.add(new Col("i64", "i64", r -> r.nextBoolean() ? (Object) pickLong(r, Long.MIN_VALUE, -1, 0, 3, Long.MAX_VALUE)
                : BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE), plain));
        c.add(new Col("u8", "u8", r -> pick(r, 0, 1, 128, 255, -1, 256), plain));
        c.add(new Col("u16", "u16", r -> pick(r, 0, 40000, 65535, 65536), plain));
        c.add(new Col("u32", "u32", r -> pickLong(r, 0, 1, 2147483648L, 4294967295L, 2147483647L, -5), plain));
        c.add(new Col("u64", "u64", r -> new BigInteger(pick(r, "0", "1", "9223372036854775807", "9223372036854775808",
                "18446744073709551615", "-1", "18446744073709551616")), plain));
        c.add(new Col("f32", "CAST(f32 AS DOUBLE)", r -> r.nextInt(4) == 0 ? (Object) (double) (r.nextInt(20) - 10)
                : (double) FLOATS[r.nextInt(FLOATS.length)], RowFilterDuckDbTest::doubleSql));
        c.add(new Col("f64", "f64", r -> r.nextInt(5) == 0 ? Double.NaN : r.nextInt(5) == 0 ? -0.0 : (r.nextInt(ROWS) - 5) * 0.5,
                RowFilterDuckDbTest::doubleSql));
        c.add(new Col("b", "b", Random::nextBoolean, plain));
        c.add(new Col("s", "s", r -> r.nextInt(6) == 0 ? "aa" : STRINGS[r.nextInt(STRINGS.length)], v -> "'" + v + "'"));
        c.add(new Col("bin", "bin", r -> BINARIES[r.nextInt(BINARIES.length)], v -> "'" + hex((byte[]) v) + "'::BLOB"));
        c.add(new Col("d9", "d9", r -> new BigDecimal(pick(r, D9)).add(new BigDecimal(pick(r, "0", "0.001", "0.5"))),
                v -> ((BigDecimal) v).toPlainString()));
        c.add(new Col("d38", "d38", r -> new BigDecimal(r.nextInt(ROWS * 3) - 100).scaleByPowerOfTen(15).add(new BigDecimal("0.25")),
                v -> "CAST('" + ((BigDecimal) v).toPlainString() + "' AS DECIMAL(38, 10))"));
        c.add(new Col("day", "day", r -> LocalDate.of(2024, 1, 1).plusDays(r.nextInt(ROWS / 5 + 20) - 10), v -> "DATE '" + v + "'"));
        c.add(new Col("ts_s", "ts_s", r -> T0.plusSeconds(r.nextInt(ROWS * 2)).plusNanos(r.nextBoolean() ? 0 : 500_000),
                v -> "TIMESTAMP '" + v.toString().replace('T', ' ') + "'"));
        c.add(new Col("ts_ms", "ts_ms", r -> T0.toInstant(ZoneOffset.UTC).plusMillis(r.nextInt(ROWS * 3)).plusNanos(r.nextBoolean() ? 0 : 1000),
                v -> "TIMESTAMPTZ '" + v.toString().replace('T', ' ').replace("Z", "+00") + "'"));
        c.add(new Col("ts_us", "ts_us", r -> T0.toInstant(ZoneOffset.UTC).plusNanos(1000L * r.nextInt(ROWS * 11)),
                v -> "TIMESTAMPTZ '" + v.toString().replace('T', ' ').replace("Z", "+00") + "'"));
        c.add(new Col("ts_ns", "ts_ns", r -> T0.plusNanos(r.nextInt(ROWS * 13) + (r.nextBoolean() ? 0 : 1)),
                v -> "'" + v.toString().replace('T', ' ') + "'::TIMESTAMP_NS"));
        c.add(new Col("p", "p", r -> pick(r, "x", "y", "z", "w"), v -> "'" + v + "'"));
        return c;
    }

    @SafeVarargs
    private static <T> T pick(Random r, T... values) {
        return values[r.nextInt(values.length)];
    }

    private static long pickLong(Random r, long... values) {
        return values[r.nextInt(values.length)];
    }

    private static String doubleSql(Object v) {
        return "'" + v + "'::DOUBLE";
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append("\\x").append(HexFormat.of().withUpperCase().toHexDigits(x));
        }
        return s.toString();
    }

    static Schema schema() {
        return new Schema(List.of(f("k", new ArrowType.Int(32, true)), f("i8", new ArrowType.Int(8, true)), f("i16", new ArrowType.Int(16, true)),
                f("i32", new ArrowType.Int(32, true)), f("i64", new ArrowType.Int(64, true)), f("u8", new ArrowType.Int(8, false)),
                f("u16", new ArrowType.Int(16, false)), f("u32", new ArrowType.Int(32, false)), f("u64", new ArrowType.Int(64, false)),
                f("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                f("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), f("b", ArrowType.Bool.INSTANCE),
                f("s", ArrowType.Utf8.INSTANCE), f("bin", ArrowType.Binary.INSTANCE), f("d9", new ArrowType.Decimal(9, 2, 128)),
                f("d38", new ArrowType.Decimal(38, 10, 128)), f("day", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY)),
                f("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)), f("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
                f("ts_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), f("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
                f("p", ArrowType.Utf8.INSTANCE)));
    }

    private static Field f(String name, ArrowType t) {
        return new Field(name, FieldType.nullable(t), null);
    }

    /**
     * {@code rows} rows, clustered by {@code k} where a column can be (so statistics prune), from small pools elsewhere
     * (so equalities hit), about one value in eight null in alternate stretches of 3,000 rows (never {@code k}, never {@code p}).
     */
    static void fill(VectorSchemaRoot root, int rows, Random r) {
        root.allocateNew();
        for (int i = 0; i < rows; i++) {
            ((IntVector) root.getVector("k")).setSafe(i, i);
            ((TinyIntVector) root.getVector("i8")).setSafe(i, pick(r, -128, -1, 0, 1, 5, 127));
            ((SmallIntVector) root.getVector("i16")).setSafe(i, pick(r, -32768, -1, 0, 7, 32767));
            ((IntVector) root.getVector("i32")).setSafe(i, i * 7 - 1000 + r.nextInt(5));
            ((BigIntVector) root.getVector("i64")).setSafe(i, pickLong(r, Long.MIN_VALUE, -1, 0, 3, Long.MAX_VALUE));
            ((UInt1Vector) root.getVector("u8")).setSafe(i, pick(r, 0, 1, 128, 255));
            ((UInt2Vector) root.getVector("u16")).setSafe(i, pick(r, 0, 40000, 65535));
            ((UInt4Vector) root.getVector("u32")).setSafe(i, (int) pickLong(r, 0, 1, 2147483648L, 4294967295L, 2147483647L));
            ((UInt8Vector) root.getVector("u64")).setSafe(i, pickLong(r, 0, 1, Long.MAX_VALUE, Long.MIN_VALUE, -1L));
            ((Float4Vector) root.getVector("f32")).setSafe(i, i % 50 < 25 ? FLOATS[r.nextInt(FLOATS.length)] : (float) (i % 20 - 10));
            ((Float8Vector) root.getVector("f64")).setSafe(i, i % 97 == 0 ? Double.NaN : i % 89 == 0 ? -0.0 : i * 0.5 + r.nextInt(3) - 1);
            ((BitVector) root.getVector("b")).setSafe(i, r.nextInt(2));
            ((VarCharVector) root.getVector("s")).setSafe(i, STRINGS[(i / 40 + r.nextInt(2)) % STRINGS.length].getBytes(StandardCharsets.UTF_8));
            ((VarBinaryVector) root.getVector("bin")).setSafe(i, BINARIES[(i / 60 + r.nextInt(2)) % BINARIES.length]);
            ((DecimalVector) root.getVector("d9")).setSafe(i, new BigDecimal(pick(r, D9)));
            ((DecimalVector) root.getVector("d38")).setSafe(i, new BigDecimal(i * 3 - 100).scaleByPowerOfTen(15).setScale(10));
            ((DateDayVector) root.getVector("day")).setSafe(i, (int) LocalDate.of(2024, 1, 1).plusDays(i / 5).toEpochDay());
            ((TimeStampSecVector) root.getVector("ts_s")).setSafe(i, T0.toEpochSecond(ZoneOffset.UTC) + i * 2L + r.nextInt(2));
            ((TimeStampMilliTZVector) root.getVector("ts_ms")).setSafe(i, T0.toInstant(ZoneOffset.UTC).toEpochMilli() + i * 3L);
            ((TimeStampMicroTZVector) root.getVector("ts_us")).setSafe(i, T0.toEpochSecond(ZoneOffset.UTC) * 1_000_000 + i * 11L);
            ((TimeStampNanoVector) root.getVector("ts_ns")).setSafe(i, T0.toEpochSecond(ZoneOffset.UTC) * 1_000_000_000 + i * 13L);
            ((VarCharVector) root.getVector("p")).setSafe(i, new byte[] {(byte) ("xyz".charAt(i * 3 / rows))});
            for (FieldVector v : root.getFieldVectors()) {
                if (!v.getName().equals("k") && !v.getName().equals("p") && (i / 3000) % 2 == 0 && r.nextInt(8) == 0) {
                    v.setNull(i);
                }
            }
        }
        root.setRowCount(rows);
    }

    /** A random predicate over {@code cols} of depth at most {@code depth}, with its DuckDB text. */
    record Pred(RowFilter filter, String sql) {
    }

    static Pred predicate(Random r, List<Col> cols, int depth) {
        int kind = depth == 0 ? 0 : r.nextInt(10);
        if (kind >= 7) {
            Pred a = predicate(r, cols, depth - 1);
            if (kind == 9) {
                return new Pred(RowFilter.not(a.filter), "NOT (" + a.sql + ")");
            }
            Pred b = predicate(r, cols, depth - 1);
            return kind == 7 ? new Pred(RowFilter.and(a.filter, b.filter), "(" + a.sql + ") AND (" + b.sql + ")")
                    : new Pred(RowFilter.or(a.filter, b.filter), "(" + a.sql + ") OR (" + b.sql + ")");
        }
        Col c = cols.get(r.nextInt(cols.size()));
        Object v = c.literal.apply(r);
        String lit = c.text.apply(v);
        return switch (r.nextInt(c.name.equals("s") ? 10 : 9)) {
            case 0 -> new Pred(RowFilter.eq(c.name, v), c.sql + " = " + lit);
            case 1 -> new Pred(RowFilter.ne(c.name, v), c.sql + " <> " + lit);
            case 2 -> new Pred(RowFilter.lt(c.name, v), c.sql + " < " + lit);
            case 3 -> new Pred(RowFilter.le(c.name, v), c.sql + " <= " + lit);
            case 4 -> new Pred(RowFilter.gt(c.name, v), c.sql + " > " + lit);
            case 5 -> new Pred(RowFilter.ge(c.name, v), c.sql + " >= " + lit);
            case 6 -> {
                Object w = c.literal.apply(r);
                yield new Pred(RowFilter.in(c.name, v, w), c.sql + " IN (" + lit + ", " + c.text.apply(w) + ")");
            }
            case 7 -> r.nextBoolean() ? new Pred(RowFilter.isNull(c.name), c.sql + " IS NULL")
                    : new Pred(RowFilter.notNull(c.name), c.sql + " IS NOT NULL");
            case 8 -> new Pred(RowFilter.eq(c.name, v), c.sql + " = " + lit);
            default -> {
                String prefix = pick(r, "", "a", "é", "世", "😀", "\uFFFD", "b");
                yield new Pred(RowFilter.startsWith(c.name, prefix), "starts_with(s, '" + prefix + "')");
            }
        };
    }

    record K(int k) {
    }

    @Test
    void randomPredicatesKeepWhatDuckDbKeepsOnWranglersAndDuckDbsFiles() throws Exception {
        S3Client s3 = TestLake.memory().client();
        String bucket = TestLake.memoryBucket();
        String mine = "s3://" + bucket + "/mine/";
        Random r = new Random(34);
        try (RootAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema(), a)) {
            fill(root, ROWS, r);
            FilterFixtures.write(root, 6 * 1024, 512, s3, mine, "p");
        }
        Path local = FilterFixtures.copy(s3, bucket, "mine/", temp.resolve("mine"));
        // the same rows as DuckDB writes them: its own statistics, row groups of 100 rows, no page index
        Path duck = temp.resolve("duck");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
            st.execute("SET TimeZone='UTC'");
            st.execute("COPY (SELECT * FROM read_parquet('" + local + "/**/*.parquet', hive_partitioning=true, hive_types_autocast=false)) TO '"
                    + duck + "' (FORMAT PARQUET, PARTITION_BY (p), ROW_GROUP_SIZE 100)");
        }
        FilterFixtures.upload(s3, bucket, "duck/", duck);
        // the same files as an old or minimal writer leaves them: no statistics, no page index, no bloom filter, no column order
        FilterFixtures.upload(s3, bucket, "old/", local, FilterFixtures::withoutStatistics);
        FilterFixtures.copy(s3, bucket, "old/", temp.resolve("old")); // DuckDB reads the same objects from a local copy

        List<Col> cols = columns();
        int compared = 0;
        int nonTrivial = 0;
        for (String layout : List.of("mine", "duck", "old")) {
            Path dir = temp.resolve(layout);
            String table = "s3://" + bucket + "/" + layout + "/";
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
                st.execute("SET TimeZone='UTC'");
                // a table, not a view: DuckDB's WHERE over its own rows, not pushed into the files (its pushdown takes the
                // float statistics wrangler writes, which leave NaN out, as bounds of NaN too)
                st.execute("CREATE TABLE t AS SELECT * FROM read_parquet('" + dir + "/**/*.parquet', hive_partitioning=true, "
                        + "hive_types_autocast=false)");
                for (int i = 0; i < (layout.equals("old") ? 40 : 70); i++) {
                    Pred p = predicate(r, cols, 2);
                    List<Integer> expected = new ArrayList<>();
                    try (ResultSet rs = st.executeQuery("SELECT k FROM t WHERE " + p.sql + " ORDER BY k")) {
                        while (rs.next()) {
                            expected.add(rs.getInt(1));
                        }
                    }
                    List<Integer> got;
                    if (i % 3 == 0) {
                        got = S3Parquet.read(table).s3(s3).where(p.filter).toList(K.class).stream().map(K::k).sorted().toList();
                    } else {
                        got = FilterFixtures.readK(S3Parquet.read(table).s3(s3).where(p.filter).batchRows(i % 2 == 0 ? 37 : 65_536));
                    }
                    assertThat(got).as(layout + ": " + p.filter + "  (DuckDB: " + p.sql + ")").isEqualTo(expected);
                    if (i % 4 == 0) {
                        assertThat(S3Parquet.read(table).s3(s3).where(p.filter).count()).as("count " + p.filter).isEqualTo(expected.size());
                    }
                    compared++;
                    if (!expected.isEmpty() && expected.size() < ROWS) {
                        nonTrivial++;
                    }
                }
            }
        }
        assertThat(compared).isEqualTo(180);
        assertThat(nonTrivial).isGreaterThan(50);
    }
}
