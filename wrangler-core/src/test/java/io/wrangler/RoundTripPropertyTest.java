package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.DuckReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The whole write path, property-based: random schemas (every supported type, nested to depth 3, a dictionary column,
 * 0 to 5 partition columns of partitionable types), random values with the edge values of each type, random batch
 * splits and inputs (one VectorSchemaRoot, or an ArrowReader stream), written to MemoryS3 (the protocol tier), read back by DuckDB and
 * compared value by value with what was written; and random Java records of every supported component type, with 0 to 4
 * partition columns.
 *
 * <p>CI runs a short series. Reproduce a case or run a long series:
 * <pre>
 * mvn -B -pl wrangler-core -am test -Dtest=RoundTripPropertyTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dwrangler.property.seed=20261201 -Dwrangler.property.cases=500
 * </pre>
 * Each case prints its seed; a failing case reruns alone with {@code -Dwrangler.property.seed=<seed> -Dwrangler.property.cases=1}.
 */
class RoundTripPropertyTest {
    private static final long SEED = Long.getLong("wrangler.property.seed", 20261201L);
    private static final int CASES = Integer.getInteger("wrangler.property.cases", 20);
    private static final String[] TEXTS = {"", "a", "\u00e9t\u00e9", "\u4e2d\u6587", "\uD83D\uDE00", "\uD83C\uDDE9\uD83C\uDDEA x",
        "quote ' \" \\", "tab\tnew\nline", "%2F/slash", "a=b", "  spaces  ", "\u0001\u001F\u007F", "null", "__HIVE_DEFAULT_PARTITION__"};

    private long values;
    private long rowsWritten;

    @Test
    void randomTablesRoundTripExactly() throws Exception {
        String bucket = TestLake.memoryBucket();
        for (int c = 0; c < CASES; c++) {
            long seed = SEED + c;
            System.out.println("RoundTripPropertyTest case " + c + " seed " + seed);
            runCase(bucket, "case-" + c + "/", seed);
        }
        System.out.println("RoundTripPropertyTest: " + CASES + " cases from seed " + SEED + ", " + rowsWritten + " rows, " + values
                + " values compared");
    }

    enum Color { RED, GREEN }

    record Inner(String name, @Decimal(precision = 20, scale = 4) BigDecimal amount, List<Long> counts) {
    }

    record Rec(long rid, String s, Color color, java.util.UUID id, int i, Short sh, byte b, double d, Float f, boolean flag,
               @Decimal(precision = 12, scale = 2) BigDecimal price, LocalDate day, java.time.Instant at, LocalDateTime local,
               byte[] bytes, List<java.time.Instant> times, Map<String, Long> counts, Inner inner, String part, Integer bucket) {
    }

    @Test
    void randomRecordsRoundTripExactly() {
        String bucket = TestLake.memoryBucket();
        int cases = Math.max(1, CASES / 4);
        long recordValues = 0;
        for (int c = 0; c < cases; c++) {
            long seed = SEED + 100_000 + c;
            System.out.println("RoundTripPropertyTest records case " + c + " seed " + seed);
            Random rnd = new Random(seed);
            List<Rec> recs = new ArrayList<>();
            int n = 1 + rnd.nextInt(120);
            for (int r = 0; r < n; r++) {
                recs.add(record(rnd, r));
            }
            List<String> partitionBy = new ArrayList<>();
            for (String p : List.of("part", "bucket", "day", "price")) {
                if (rnd.nextInt(3) == 0) {
                    partitionBy.add(p);
                }
            }
            if (partitionBy.contains("day") && recs.stream().allMatch(x -> x.day() == null)
                    || partitionBy.contains("price") && recs.stream().allMatch(x -> x.price() == null)
                    || partitionBy.contains("part") && recs.stream().allMatch(x -> x.part() == null || x.part().isEmpty())
                    || partitionBy.contains("bucket") && recs.stream().allMatch(x -> x.bucket() == null)) {
                partitionBy.clear();
            }
            System.out.println("  " + n + " records" + (partitionBy.isEmpty() ? "" : ", partitionBy " + partitionBy));
            String prefix = "records-" + c + "/";
            S3Parquet.write(recs).partitionBy(partitionBy.toArray(String[]::new)).s3(TestLake.memory().client()).to("s3://" + bucket + "/" + prefix);
            List<List<Object>> read = DuckReader.query(TestLake.memory(), bucket, prefix, "SELECT rid, s, color, id, i, sh, b, d, f, flag, "
                    + "CAST(price AS VARCHAR), CAST(\"day\" AS VARCHAR), epoch_us(\"at\"), epoch_us(\"local\"), hex(bytes), "
                    + "list_transform(times, x -> epoch_us(x)), list_transform(map_entries(counts), e -> e.key || '=' || e.value), "
                    + "CASE WHEN \"inner\" IS NULL THEN NULL ELSE [\"inner\".name, CAST(\"inner\".amount AS VARCHAR), "
                    + "CAST(\"inner\".counts AS VARCHAR)] END, part, CAST(bucket AS VARCHAR) FROM t ORDER BY rid", "hive_types_autocast=false");
            assertThat(read).hasSize(n);
            for (int r = 0; r < n; r++) {
                Rec x = recs.get(r);
                List<Object> got = new ArrayList<>();
                read.get(r).forEach(v -> got.add(ArrowValues.fromDuck(v)));
                String none = "__HIVE_DEFAULT_PARTITION__";
                List<Object> want = Arrays.asList((long) r, x.s(), x.color() == null ? null : x.color().name(),
                        x.id() == null ? null : x.id().toString(), (long) x.i(), x.sh() == null ? null : (long) x.sh(), (long) x.b(), x.d(),
                        x.f(), x.flag(), x.price() == null ? (partitionBy.contains("price") ? none : null)
                                : partitionBy.contains("price") ? HivePathsText.decimal(x.price()) : x.price().setScale(2).toPlainString(),
                        x.day() == null ? (partitionBy.contains("day") ? none : null) : x.day().toString(), micros(x.at()),
                        x.local() == null ? null : micros(x.local().toInstant(ZoneOffset.UTC)),
                        x.bytes() == null ? null : java.util.HexFormat.of().withUpperCase().formatHex(x.bytes()),
                        x.times() == null ? null : x.times().stream().map(t -> (Object) micros(t)).toList(),
                        x.counts() == null ? null : x.counts().entrySet().stream().map(e -> (Object) (e.getKey() + "=" + e.getValue())).toList(),
                        x.inner() == null ? null : Arrays.asList(x.inner().name(), x.inner().amount() == null ? null
                                : x.inner().amount().setScale(4).toPlainString(), x.inner().counts() == null ? null : x.inner().counts().toString()),
                        x.part() == null || x.part().isEmpty() ? (partitionBy.contains("part") ? none : x.part()) : x.part(),
                        x.bucket() == null ? (partitionBy.contains("bucket") ? none : null) : x.bucket().toString());
                assertThat(got).as("record %d of case %d", r, c).isEqualTo(want);
                recordValues += want.size();
            }
        }
        System.out.println("RoundTripPropertyTest records: " + cases + " cases, " + recordValues + " values compared");
    }

    /** The partition text of a decimal, as an independent check: plain digits, no trailing zeros, zero as 0. */
    private static final class HivePathsText {
        static String decimal(BigDecimal d) {
            String s = d.toPlainString();
            if (s.contains(".")) {
                s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
            }
            return s.equals("-0") ? "0" : s;
        }
    }

    private static Long micros(java.time.Instant t) {
        return t == null ? null : t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }

    private static Rec record(Random rnd, int r) {
        boolean nulls = rnd.nextInt(5) == 0;
        java.time.Instant at = java.time.Instant.ofEpochSecond(rnd.nextInt(2) == 0 ? -62_135_596_800L + rnd.nextInt(1000) : (long) ((rnd.nextDouble() - 0.5) * 1e10),
                rnd.nextInt(1_000_000) * 1000);
        Map<String, Long> counts = new LinkedHashMap<>();
        for (int k = 0; k < rnd.nextInt(3); k++) {
            counts.put(TEXTS[rnd.nextInt(TEXTS.length)], rnd.nextLong());
        }
        String[] parts = {"RU", "\uD83D\uDE00", "a b", "", "x/y", "Z\u00fcrich"};
        return new Rec(r, nulls ? null : text(rnd), nulls ? null : Color.values()[rnd.nextInt(2)], nulls ? null : new java.util.UUID(rnd.nextLong(), rnd.nextLong()),
                rnd.nextInt(), nulls ? null : (short) rnd.nextInt(), (byte) rnd.nextInt(), rnd.nextInt(4) == 0 ? Double.NaN : rnd.nextGaussian() * 1e10,
                nulls ? null : rnd.nextInt(4) == 0 ? -0.0f : (float) rnd.nextGaussian(), rnd.nextBoolean(),
                nulls ? null : new BigDecimal(BigInteger.valueOf(rnd.nextLong() % 1_000_000_000L), rnd.nextInt(3)),
                nulls ? null : LocalDate.ofEpochDay(rnd.nextInt(100_000) - 50_000), nulls ? null : at,
                nulls ? null : LocalDateTime.ofEpochSecond(rnd.nextInt(), rnd.nextInt(1_000_000) * 1000, ZoneOffset.UTC),
                nulls ? null : randomBytes(rnd), nulls ? null : List.of(at, java.time.Instant.EPOCH), nulls ? null : counts,
                nulls ? null : new Inner(text(rnd), new BigDecimal(BigInteger.valueOf(rnd.nextLong() % 10_000_000_000_000L), 4),
                        rnd.nextBoolean() ? null : List.of(rnd.nextLong(), 0L)),
                rnd.nextInt(8) == 0 ? null : parts[rnd.nextInt(parts.length)], rnd.nextInt(8) == 0 ? null : rnd.nextInt(5) - 2);
    }

    private static byte[] randomBytes(Random rnd) {
        byte[] b = new byte[rnd.nextInt(20)];
        rnd.nextBytes(b);
        return b;
    }

    private void runCase(String bucket, String prefix, long seed) throws Exception {
        Random rnd = new Random(seed);
        boolean keepNanos = rnd.nextInt(4) == 0;
        ArrowValues.KEEP_NANOS.set(keepNanos);
        List<Field> fields = new ArrayList<>();
        fields.add(new Field("rid", FieldType.nullable(new ArrowType.Int(64, true)), null));
        int dataColumns = 1 + rnd.nextInt(5);
        for (int i = 0; i < dataColumns; i++) {
            fields.add(field(rnd, "c" + i, 1 + rnd.nextInt(3)));
        }
        int partitions = rnd.nextInt(6); // up to 5: more than the 3 the partitioner packs into one key
        List<String> partitionBy = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            fields.add(new Field("p" + i, FieldType.nullable(partitionType(rnd)), null));
            partitionBy.add("p" + i);
        }
        // A dictionary-encoded string column: data, or a partition column.
        boolean dictionary = rnd.nextBoolean();
        String dictColumn = dictionary ? (partitions > 0 && rnd.nextBoolean() ? "p" + rnd.nextInt(partitions) : "d") : null;
        if ("d".equals(dictColumn)) {
            fields.add(new Field("d", FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
        } else if (dictColumn != null) {
            int at = fields.indexOf(fields.stream().filter(f -> f.getName().equals(dictColumn)).findFirst().orElseThrow());
            fields.set(at, new Field(dictColumn, FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
        }

        int rows = rnd.nextInt(4) == 0 ? rnd.nextInt(3) + 1 : 1 + rnd.nextInt(200);
        if (partitions > 3) {
            rows = Math.min(rows, 40); // nearly a partition a row: files, each costing S3 requests
        }
        List<List<Object>> data = new ArrayList<>();
        Map<String, List<Object>> partitionValues = new LinkedHashMap<>();
        for (Field f : fields) {
            if (f.getName().startsWith("p") || f.getName().equals("d")) {
                List<Object> distinct = new ArrayList<>();
                int n = 1 + rnd.nextInt(4);
                for (int i = 0; i < n; i++) {
                    distinct.add(rnd.nextInt(6) == 0 ? null : partitionValue(rnd, f.getType()));
                }
                partitionValues.put(f.getName(), distinct);
            }
        }
        for (int r = 0; r < rows; r++) {
            List<Object> row = new ArrayList<>();
            for (Field f : fields) {
                if (f.getName().equals("rid")) {
                    row.add((long) r);
                } else if (partitionValues.containsKey(f.getName())) {
                    List<Object> choices = partitionValues.get(f.getName());
                    row.add(choices.get(rnd.nextInt(choices.size())));
                } else {
                    row.add(value(rnd, f, 0));
                }
            }
            data.add(row);
        }
        // Every partition column needs a value somewhere (an all-null partition column is refused, as it should be).
        for (int c = 0; c < fields.size(); c++) {
            if (partitionBy.contains(fields.get(c).getName())) {
                final int col = c;
                if (data.stream().allMatch(row -> row.get(col) == null || "".equals(row.get(col)))) {
                    Object v;
                    do {
                        v = partitionValue(rnd, fields.get(c).getType());
                    } while ("".equals(v));
                    data.get(0).set(col, v);
                }
            }
        }

        boolean stream = rnd.nextBoolean();
        long maxRowsPerFile = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(50) : Long.MAX_VALUE;
        String table = "s3://" + bucket + "/" + prefix;
        System.out.println("  schema " + fields + (partitionBy.isEmpty() ? "" : " partitionBy " + partitionBy) + ", " + rows + " rows, "
                + (stream ? "stream" : "root") + (dictColumn == null ? "" : ", dictionary " + dictColumn) + (keepNanos ? ", nanos kept" : ""));
        try (BufferAllocator allocator = new RootAllocator()) {
            Dictionary dict = dictColumn == null ? null : dictionary(allocator, partitionValues.get(dictColumn), data, fields, dictColumn);
            Schema schema = encodedSchema(fields, dictColumn);
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
            if (dict != null) {
                provider.put(dict);
            }
            try {
                if (!stream) {
                    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
                        fill(root, data, fields, dictColumn, dict);
                        S3Parquet.write(root, provider).partitionBy(partitionBy.toArray(String[]::new)).maxRowsPerFile(maxRowsPerFile)
                                .preserveNanoseconds(keepNanos).s3(TestLake.memory().client()).to(table);
                    }
                } else {
                    ByteArrayOutputStream ipc = new ByteArrayOutputStream();
                    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                         ArrowStreamWriter w = new ArrowStreamWriter(root, provider, ipc)) {
                        w.start();
                        int at = 0;
                        while (at < rows) {
                            int n = rnd.nextInt(3) == 0 ? 1 : 1 + rnd.nextInt(rows - at);
                            n = Math.min(n, rows - at);
                            fill(root, data.subList(at, at + n), fields, dictColumn, dict);
                            w.writeBatch();
                            at += n;
                        }
                        w.end();
                    }
                    try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), allocator)) {
                        S3Parquet.write(reader).partitionBy(partitionBy.toArray(String[]::new)).maxRowsPerFile(maxRowsPerFile)
                                .preserveNanoseconds(keepNanos).s3(TestLake.memory().client()).to(table);
                    }
                }
            } finally {
                if (dict != null) {
                    dict.getVector().close();
                }
            }
        }
        compare(bucket, prefix, fields, partitionBy, data, keepNanos);
        rowsWritten += rows;
    }

    private void compare(String bucket, String prefix, List<Field> fields, List<String> partitionBy, List<List<Object>> data,
                         boolean keepNanos) {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            String column = "\"" + f.getName() + "\"";
            sql.append(i == 0 ? "" : ", ").append(partitionBy.contains(f.getName()) ? column : ArrowValues.plainSql(f, column, keepNanos));
        }
        sql.append(" FROM t ORDER BY rid");
        List<List<Object>> read = DuckReader.query(TestLake.memory(), bucket, prefix, sql.toString(), "hive_types_autocast=false");
        assertThat(read).hasSameSizeAs(data);
        for (int r = 0; r < data.size(); r++) {
            for (int c = 0; c < fields.size(); c++) {
                Field f = fields.get(c);
                Object written = data.get(r).get(c);
                Object got = read.get(r).get(c);
                if (partitionBy.contains(f.getName())) {
                    assertThat(partitionMatches(f.getType(), written, (String) got))
                            .as("row %d partition column %s: wrote %s, read %s", r, f.getName(), written, got).isTrue();
                } else {
                    assertThat(ArrowValues.fromDuck(got)).as("row %d column %s", r, f.getName())
                            .isEqualTo(ArrowValues.expected(f, written, keepNanos));
                }
                values++;
            }
        }
    }

    /** Whether the folder text DuckDB read stands for the value written (null and "" both name the default partition). */
    private static boolean partitionMatches(ArrowType type, Object written, String text) {
        if (written == null || "".equals(written)) {
            return "__HIVE_DEFAULT_PARTITION__".equals(text);
        }
        if (type instanceof ArrowType.Utf8) {
            return written.equals(text);
        }
        if (type instanceof ArrowType.Int || type instanceof ArrowType.Bool) {
            return written.toString().equals(text);
        }
        if (type instanceof ArrowType.Date) {
            return LocalDate.parse(text).toEpochDay() == (Long) written;
        }
        if (type instanceof ArrowType.Decimal) {
            return new BigDecimal(text).compareTo((BigDecimal) written) == 0 && !text.contains("E");
        }
        if (type instanceof ArrowType.Timestamp ts) {
            LocalDateTime t = LocalDateTime.parse(text.replace(' ', 'T'));
            long micros = t.toEpochSecond(ZoneOffset.UTC) * 1_000_000 + t.getNano() / 1000;
            long value = (Long) written;
            return switch (ArrowValues.writtenUnit(ts, false)) {
                case MILLISECOND -> micros == value * 1000;
                default -> micros == value;
            };
        }
        throw new IllegalStateException("no partition type " + type);
    }

    // ---- schemas ----

    private static ArrowType partitionType(Random rnd) {
        return switch (rnd.nextInt(8)) {
            case 0, 1 -> ArrowType.Utf8.INSTANCE;
            case 2 -> new ArrowType.Int(32, true);
            case 3 -> new ArrowType.Int(64, true);
            case 4 -> ArrowType.Bool.INSTANCE;
            case 5 -> new ArrowType.Date(DateUnit.DAY);
            case 6 -> new ArrowType.Timestamp(rnd.nextBoolean() ? TimeUnit.MICROSECOND : TimeUnit.MILLISECOND, rnd.nextBoolean() ? "UTC" : null);
            default -> new ArrowType.Decimal(1 + rnd.nextInt(38), 0, 128);
        };
    }

    private static Field field(Random rnd, String name, int depth) {
        if (depth > 1 && rnd.nextInt(3) > 0) {
            switch (rnd.nextInt(5)) {
                case 0:
                    return new Field(name, FieldType.nullable(ArrowType.List.INSTANCE), List.of(field(rnd, "element", depth - 1)));
                case 1:
                    return new Field(name, FieldType.nullable(ArrowType.LargeList.INSTANCE), List.of(field(rnd, "element", depth - 1)));
                case 2:
                    return new Field(name, FieldType.nullable(new ArrowType.FixedSizeList(1 + rnd.nextInt(3))),
                            List.of(field(rnd, "element", depth - 1)));
                case 3: {
                    List<Field> children = new ArrayList<>();
                    int n = 1 + rnd.nextInt(3);
                    for (int i = 0; i < n; i++) {
                        children.add(field(rnd, "f" + i, depth - 1));
                    }
                    return new Field(name, FieldType.nullable(ArrowType.Struct.INSTANCE), children);
                }
                default: {
                    ArrowType keyType = rnd.nextBoolean() ? ArrowType.Utf8.INSTANCE : new ArrowType.Int(32, true);
                    Field key = new Field("key", FieldType.notNullable(keyType), null);
                    Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE),
                            List.of(key, field(rnd, "value", depth - 1)));
                    return new Field(name, FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
                }
            }
        }
        return new Field(name, FieldType.nullable(leafType(rnd)), null);
    }

    private static ArrowType leafType(Random rnd) {
        return switch (rnd.nextInt(17)) {
            case 0 -> new ArrowType.Int(8 << rnd.nextInt(4), true);
            case 1 -> new ArrowType.Int(8 << rnd.nextInt(4), false);
            case 2 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case 3 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case 4 -> ArrowType.Bool.INSTANCE;
            case 5, 6 -> ArrowType.Utf8.INSTANCE;
            case 7 -> ArrowType.LargeUtf8.INSTANCE;
            case 8 -> ArrowType.Binary.INSTANCE;
            case 9 -> ArrowType.LargeBinary.INSTANCE;
            case 10 -> new ArrowType.FixedSizeBinary(1 + rnd.nextInt(16));
            case 11, 12 -> {
                int p = 1 + rnd.nextInt(38);
                yield new ArrowType.Decimal(p, rnd.nextInt(p + 1), 128);
            }
            case 13 -> new ArrowType.Date(rnd.nextBoolean() ? DateUnit.DAY : DateUnit.MILLISECOND);
            default -> new ArrowType.Timestamp(TimeUnit.values()[rnd.nextInt(4)], rnd.nextBoolean() ? "UTC" : null);
        };
    }

    // ---- values ----

    private static Object value(Random rnd, Field f, int depth) {
        if (rnd.nextInt(8) == 0) {
            return null;
        }
        ArrowType t = f.getType();
        switch (t.getTypeID()) {
            case List, LargeList: {
                int n = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(4);
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    out.add(value(rnd, f.getChildren().get(0), depth + 1));
                }
                return out;
            }
            case FixedSizeList: {
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < ((ArrowType.FixedSizeList) t).getListSize(); i++) {
                    out.add(value(rnd, f.getChildren().get(0), depth + 1));
                }
                return out;
            }
            case Struct: {
                List<Object> out = new ArrayList<>();
                for (Field c : f.getChildren()) {
                    out.add(value(rnd, c, depth + 1));
                }
                return out;
            }
            case Map: {
                Field entries = f.getChildren().get(0);
                int n = rnd.nextInt(4);
                Set<Object> keys = new LinkedHashSet<>();
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    Object k = nonNull(rnd, entries.getChildren().get(0));
                    if (keys.add(k)) {
                        out.add(Arrays.asList(k, value(rnd, entries.getChildren().get(1), depth + 1)));
                    }
                }
                return out;
            }
            default:
                return leaf(rnd, t);
        }
    }

    private static Object nonNull(Random rnd, Field f) {
        Object v;
        do {
            v = value(rnd, f, 1);
        } while (v == null);
        return v;
    }

    private static Object leaf(Random rnd, ArrowType t) {
        switch (t.getTypeID()) {
            case Int: {
                ArrowType.Int it = (ArrowType.Int) t;
                int bits = it.getBitWidth();
                long min = it.getIsSigned() ? -(1L << (bits - 1)) : 0;
                long max = bits == 64 ? Long.MAX_VALUE : it.getIsSigned() ? (1L << (bits - 1)) - 1 : (1L << bits) - 1;
                return switch (rnd.nextInt(6)) {
                    case 0 -> bits == 64 && !it.getIsSigned() ? -1L : max; // -1L: the unsigned 64-bit maximum
                    case 1 -> min;
                    case 2 -> 0L;
                    default -> bits == 64 ? rnd.nextLong() & (it.getIsSigned() ? -1L : Long.MAX_VALUE) : min + (long) (rnd.nextDouble() * (max - min));
                };
            }
            case FloatingPoint: {
                boolean single = ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.SINGLE;
                double[] edges = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE,
                    -Double.MAX_VALUE, 1e-300, 0.1};
                double d = rnd.nextInt(3) == 0 ? edges[rnd.nextInt(edges.length)] : (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(40) - 20);
                if (single) {
                    float[] fedges = {Float.NaN, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, Float.NEGATIVE_INFINITY};
                    return rnd.nextInt(3) == 0 ? fedges[rnd.nextInt(fedges.length)] : (float) ((rnd.nextDouble() - 0.5) * 1e6);
                }
                return d;
            }
            case Bool:
                return rnd.nextBoolean();
            case Utf8, LargeUtf8:
                return text(rnd);
            case Binary, LargeBinary: {
                byte[] b = new byte[rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(40)];
                rnd.nextBytes(b);
                return b;
            }
            case FixedSizeBinary: {
                byte[] b = new byte[((ArrowType.FixedSizeBinary) t).getByteWidth()];
                rnd.nextBytes(b);
                return b;
            }
            case Decimal: {
                ArrowType.Decimal d = (ArrowType.Decimal) t;
                BigInteger max = BigInteger.TEN.pow(d.getPrecision()).subtract(BigInteger.ONE);
                BigInteger unscaled = switch (rnd.nextInt(5)) {
                    case 0 -> max;
                    case 1 -> max.negate();
                    case 2 -> BigInteger.ZERO;
                    default -> new BigInteger(max.bitLength() + 2, rnd).mod(max.add(BigInteger.ONE)).multiply(BigInteger.valueOf(rnd.nextBoolean() ? 1 : -1));
                };
                return new BigDecimal(unscaled, d.getScale());
            }
            case Date:
                // Days within DuckDB's date range; before and after 1970.
                return rnd.nextInt(4) == 0 ? (long) (rnd.nextBoolean() ? -719_528 : 2_932_896) : (long) (rnd.nextInt(200_000) - 100_000);
            case Timestamp: {
                ArrowType.Timestamp ts = (ArrowType.Timestamp) t;
                // Years 1 to 9999, before and after 1970; within the 292 years around 1970 that nanoseconds hold.
                boolean nanos = ts.getUnit() == TimeUnit.NANOSECOND;
                long micros = rnd.nextInt(4) == 0 ? (rnd.nextBoolean() ? (nanos ? -9_000_000_000_000_000L : -62_135_596_800_000_000L)
                        : (nanos ? 9_000_000_000_000_000L : 253_402_300_799_999_999L))
                        : (long) ((rnd.nextDouble() - 0.6) * (nanos ? 1.5e16 : 4e15));
                // The plain form is in the written unit.
                return switch (ArrowValues.writtenUnit(ts, ArrowValues.KEEP_NANOS.get())) {
                    case MILLISECOND -> ts.getUnit() == TimeUnit.SECOND ? Math.floorDiv(micros, 1_000_000L) * 1000 : Math.floorDiv(micros, 1000L);
                    case NANOSECOND -> micros * 1000 + rnd.nextInt(1000);
                    default -> micros;
                };
            }
            default:
                throw new IllegalStateException("no values for " + t);
        }
    }

    private static String text(Random rnd) {
        if (rnd.nextInt(3) > 0) {
            return TEXTS[rnd.nextInt(TEXTS.length)];
        }
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(10) == 0 ? 1000 + rnd.nextInt(3000) : rnd.nextInt(30);
        for (int i = 0; i < n; i++) {
            int kind = rnd.nextInt(10);
            if (kind < 6) {
                sb.append((char) (' ' + rnd.nextInt(95)));
            } else if (kind < 8) {
                sb.append((char) (0xA0 + rnd.nextInt(0xD7FF - 0xA0)));
            } else {
                sb.appendCodePoint(0x1F300 + rnd.nextInt(0x300));
            }
        }
        return sb.toString();
    }

    private static Object partitionValue(Random rnd, ArrowType t) {
        if (t instanceof ArrowType.Utf8) {
            String[] values = {"RU", "DE", "\u00e9t\u00e9", "\uD83D\uDE00", "a b", "x/y", "100%", "a=b:c", "", "tab\there", "Z\u00fcrich", "007"};
            return values[rnd.nextInt(values.length)];
        }
        if (t instanceof ArrowType.Timestamp) {
            // Whole milliseconds within 1900 to 2100, before and after 1970.
            long ms = (long) ((rnd.nextDouble() - 0.35) * 6.3e12);
            return ArrowValues.writtenUnit((ArrowType.Timestamp) t, false) == TimeUnit.MILLISECOND ? ms : ms * 1000;
        }
        if (t instanceof ArrowType.Date) {
            return (long) (rnd.nextInt(80_000) - 30_000);
        }
        if (t instanceof ArrowType.Decimal d) {
            return new BigDecimal(BigInteger.valueOf(rnd.nextInt(2000) - 1000).multiply(BigInteger.TEN.pow(Math.max(0, d.getPrecision() - 4))),
                    0).min(new BigDecimal(BigInteger.TEN.pow(d.getPrecision()).subtract(BigInteger.ONE)))
                    .max(new BigDecimal(BigInteger.TEN.pow(d.getPrecision()).subtract(BigInteger.ONE).negate()));
        }
        return leaf(rnd, t);
    }

    // ---- Arrow ----

    private static Schema encodedSchema(List<Field> fields, String dictColumn) {
        List<Field> out = new ArrayList<>();
        for (Field f : fields) {
            if (f.getName().equals(dictColumn)) {
                out.add(new Field(f.getName(), new FieldType(true, new ArrowType.Int(32, true),
                        new DictionaryEncoding(1, false, new ArrowType.Int(32, true))), null));
            } else {
                out.add(f);
            }
        }
        return new Schema(out);
    }

    private static Dictionary dictionary(BufferAllocator allocator, List<Object> choices, List<List<Object>> data, List<Field> fields,
                                         String column) {
        VarCharVector words = new VarCharVector("words", allocator);
        words.allocateNew();
        int c = indexOf(fields, column);
        Set<String> distinct = new LinkedHashSet<>();
        for (List<Object> row : data) {
            if (row.get(c) != null) {
                distinct.add((String) row.get(c));
            }
        }
        int i = 0;
        for (String s : distinct) {
            words.setSafe(i++, s.getBytes(StandardCharsets.UTF_8));
        }
        words.setValueCount(i);
        return new Dictionary(words, new DictionaryEncoding(1, false, new ArrowType.Int(32, true)));
    }

    private static void fill(VectorSchemaRoot root, List<List<Object>> rows, List<Field> fields, String dictColumn, Dictionary dict) {
        if (dictColumn == null) {
            ArrowValues.fill(root, rows);
            return;
        }
        int c = indexOf(fields, dictColumn);
        List<String> words = new ArrayList<>();
        VarCharVector w = (VarCharVector) dict.getVector();
        for (int i = 0; i < w.getValueCount(); i++) {
            words.add(new String(w.get(i), StandardCharsets.UTF_8));
        }
        List<List<Object>> plain = new ArrayList<>();
        for (List<Object> row : rows) {
            List<Object> copy = new ArrayList<>(row);
            copy.set(c, null);
            plain.add(copy);
        }
        ArrowValues.fill(root, plain);
        IntVector indices = (IntVector) root.getVector(c);
        for (int r = 0; r < rows.size(); r++) {
            Object v = rows.get(r).get(c);
            if (v != null) {
                indices.setSafe(r, words.indexOf(v));
            }
        }
        root.setRowCount(rows.size());
    }

    private static int indexOf(List<Field> fields, String name) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).getName().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(name);
    }
}
