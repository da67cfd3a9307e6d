package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Data in, data out: edge values of every kind are written exactly or refused before anything is written, with a
 * message that names the column, the row and what to do.
 */
class EdgeValuesTest {
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    private static Field f(String name, ArrowType type, Field... children) {
        return new Field(name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
    }

    private static Field notNull(String name, ArrowType type, Field... children) {
        return new Field(name, FieldType.notNullable(type), children.length == 0 ? null : List.of(children));
    }

    private static Field map(String name, Field key, Field value) {
        return f(name, new ArrowType.Map(false), notNull("entries", ArrowType.Struct.INSTANCE, key, value));
    }

    private static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;
    private static final ArrowType INT = new ArrowType.Int(32, true);

    private VectorSchemaRoot root(List<Field> fields, List<List<Object>> rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator);
        ArrowValues.fill(root, rows);
        return root;
    }

    private void refused(WriteBuilder write, String message) {
        assertThatThrownBy(() -> write.s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(message);
        assertThat(TestLake.keys(bucket, "")).isEmpty();
    }

    private String validate(String what) {
        return "Cannot write " + table + " (step: validate): " + what + ". Nothing was written.";
    }

    /** Every row of the table as DuckDB reads it, in the plain form of {@link ArrowValues}, ordered by {@code order}. */
    private List<List<Object>> readBack(List<Field> fields, String order) {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < fields.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(ArrowValues.plainSql(fields.get(i), "\"" + fields.get(i).getName() + "\"", false));
        }
        List<List<Object>> out = new ArrayList<>();
        for (List<Object> row : TestLake.query(bucket, "t/", sql + " FROM t ORDER BY " + order)) {
            List<Object> plain = new ArrayList<>();
            row.forEach(v -> plain.add(ArrowValues.fromDuck(v)));
            out.add(plain);
        }
        return out;
    }

    private static List<List<Object>> expected(List<Field> fields, List<List<Object>> rows) {
        List<List<Object>> out = new ArrayList<>();
        for (List<Object> row : rows) {
            List<Object> plain = new ArrayList<>();
            for (int i = 0; i < fields.size(); i++) {
                plain.add(ArrowValues.expected(fields.get(i), row.get(i), false));
            }
            out.add(plain);
        }
        return out;
    }

    // ---- 1: nested zoned timestamps and fixed-size binaries survive partitioning ----

    @Test
    void nestedZonedTimestampsAndFixedSizeBinariesSurvivePartitioning() {
        ArrowType us = new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
        ArrowType ms = new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC");
        ArrowType fsb = new ArrowType.FixedSizeBinary(3);
        List<Field> fields = List.of(f("k", INT), f("p", UTF8),
                f("lus", ArrowType.List.INSTANCE, f("element", us)),
                map("mms", notNull("key", UTF8), f("value", ms)),
                f("lfsb", ArrowType.List.INSTANCE, f("element", fsb)),
                f("st", ArrowType.Struct.INSTANCE, f("b", fsb), f("ts", us), f("l", ArrowType.List.INSTANCE, f("element", ms))),
                f("ll", ArrowType.List.INSTANCE, f("element", ArrowType.List.INSTANCE, f("element", fsb))));
        List<List<Object>> rows = new ArrayList<>();
        for (int r = 0; r < 6; r++) {
            long t = -86_400_000_000L * 365 * 100 + r * 1_234_567L;
            rows.add(Arrays.asList((long) r, r % 3 == 0 ? "a" : r % 3 == 1 ? "b" : null,
                    r == 4 ? null : Arrays.asList(t, null, t + 1),
                    r == 5 ? null : List.of(List.of("x" + r, t / 1000), Arrays.asList("y", null)),
                    Arrays.asList(new byte[] {(byte) r, 0, -1}, null),
                    r == 2 ? null : Arrays.asList(new byte[] {1, 2, (byte) r}, t, List.of(t / 1000)),
                    List.of(List.of(new byte[] {9, 9, (byte) r}), List.of())));
        }
        try (VectorSchemaRoot root = root(fields, rows)) {
            S3Parquet.write(root).partitionBy("p").maxRowsPerFile(2).s3(TestLake.memory().client()).to(table);
        }
        List<Field> data = new ArrayList<>(fields);
        data.remove(1);
        List<List<Object>> expectedRows = new ArrayList<>();
        for (List<Object> row : rows) {
            List<Object> d = new ArrayList<>(row);
            d.remove(1);
            expectedRows.add(d);
        }
        assertThat(readBack(data, "k")).isEqualTo(expected(data, expectedRows));
        String none = "__HIVE_DEFAULT_PARTITION__"; // DuckDB reads the default partition's name as it is
        assertThat(TestLake.query(bucket, "t/", "SELECT k, p FROM t ORDER BY k")).containsExactly(List.of(0, "a"), List.of(1, "b"),
                List.of(2, none), List.of(3, "a"), List.of(4, "b"), List.of(5, none));
    }

    record Event(String day, List<Instant> times, Map<String, Instant> named) {
    }

    @Test
    void recordsWithListsAndMapsOfInstantsSurvivePartitioning() {
        Instant a = Instant.parse("1969-07-20T20:17:40.123456Z");
        Instant b = Instant.parse("2024-02-29T23:59:59.999999Z");
        List<Event> events = List.of(new Event("d1", List.of(a, b), new TreeMap<>(Map.of("x", a))),
                new Event("d2", List.of(b), new TreeMap<>(Map.of("y", b, "z", a))),
                new Event("d1", List.of(), Map.of()));
        S3Parquet.write(events).partitionBy("day").s3(TestLake.memory().client()).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT day, list_transform(times, x -> epoch_us(x)), "
                + "list_transform(map_entries(named), e -> e.key || '=' || epoch_us(e.value)) FROM t ORDER BY day, len(times) DESC")
                .stream().map(row -> row.stream().map(ArrowValues::fromDuck).toList()).toList())
                .containsExactly(
                        List.of("d1", List.of(micros(a), micros(b)), List.of("x=" + micros(a))),
                        List.of("d1", List.of(), List.of()),
                        List.of("d2", List.of(micros(b)), List.of("y=" + micros(b), "z=" + micros(a))));
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }

    // ---- 2: decimals wider than their precision ----

    private VectorSchemaRoot decimals(int precision, BigInteger unscaled) {
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(f("price", new ArrowType.Decimal(precision, 2, 128)))),
                allocator);
        root.allocateNew();
        DecimalVector v = (DecimalVector) root.getVector(0);
        v.setSafe(0, new BigDecimal("1.25"));
        // DecimalVector.setSafe(BigDecimal) checks the precision; its raw bytes setter, like Arrow IPC data, does not.
        byte[] bigEndian = unscaled.toByteArray();
        byte[] little = new byte[16];
        Arrays.fill(little, (byte) (unscaled.signum() < 0 ? -1 : 0));
        for (int i = 0; i < bigEndian.length; i++) {
            little[i] = bigEndian[bigEndian.length - 1 - i];
        }
        v.setBigEndianSafe(1, reverse(little));
        root.setRowCount(2);
        return root;
    }

    private static byte[] reverse(byte[] b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = b[b.length - 1 - i];
        }
        return out;
    }

    @Test
    void decimalsWiderThanTheirPrecisionAreRefused() {
        try (VectorSchemaRoot root = decimals(9, new BigInteger("100000000123"))) {
            refused(S3Parquet.write(root), validate("column 'price' holds 1000000001.23, which has 12 digits, more than the 9 of its "
                    + "type decimal(9,2) at row 1: Arrow's setters do not check the precision; round the value or declare a wider decimal"));
        }
        try (VectorSchemaRoot root = decimals(18, new BigInteger("-1234567890123456789012"))) {
            refused(S3Parquet.write(root), validate("column 'price' holds -12345678901234567890.12, which has 22 digits, more than the "
                    + "18 of its type decimal(18,2) at row 1: Arrow's setters do not check the precision; round the value or declare a "
                    + "wider decimal"));
        }
        try (VectorSchemaRoot root = decimals(20, BigInteger.TEN.pow(30))) {
            refused(S3Parquet.write(root), validate("column 'price' holds 10000000000000000000000000000.00, which has 31 digits, more "
                    + "than the 20 of its type decimal(20,2) at row 1: Arrow's setters do not check the precision; round the value or "
                    + "declare a wider decimal"));
        }
        try (VectorSchemaRoot root = decimals(20, BigInteger.TEN.pow(20).subtract(BigInteger.ONE))) {
            S3Parquet.write(root).s3(TestLake.memory().client()).to(table);
            assertThat(TestLake.query(bucket, "t/", "SELECT CAST(price AS VARCHAR) FROM t ORDER BY price"))
                    .containsExactly(List.of("1.25"), List.of("999999999999999999.99"));
        }
    }

    // ---- 3 and 4: invalid UTF-8 ----

    private static final byte[] BAD = {'a', (byte) 0xC3, '(', 'b'};

    @Test
    void invalidUtf8InAStringColumnIsRefused() {
        List<Field> fields = List.of(f("id", INT), f("tags", ArrowType.List.INSTANCE, f("element", UTF8)));
        try (VectorSchemaRoot root = root(fields, List.of(Arrays.asList(1L, List.of("ok", "\uD83D\uDE00")),
                Arrays.asList(2L, Arrays.asList(null, BAD))))) {
            refused(S3Parquet.write(root), validate("column 'tags.element' holds a string that is not valid UTF-8 (bytes C3 28 62 at byte "
                    + "1 of the value) at row 1: Parquet strings must be UTF-8 and readers refuse the whole file over one bad value; "
                    + "decode the source text with its real charset, or store the column as binary"));
        }
    }

    @Test
    void invalidUtf8InAPartitionValueIsRefused() {
        List<Field> fields = List.of(f("id", INT), f("city", UTF8));
        byte[] latin1 = "Z\u00fcrich".getBytes(StandardCharsets.ISO_8859_1);
        byte[] other = "Z\u00e4rich".getBytes(StandardCharsets.ISO_8859_1);
        try (VectorSchemaRoot root = root(fields, List.of(Arrays.asList(1L, latin1), Arrays.asList(2L, other)))) {
            refused(S3Parquet.write(root).partitionBy("city"), validate("column 'city' holds a string that is not valid UTF-8 (bytes FC 72 "
                    + "69 63 at byte 1 of the value) at row 0: Parquet strings must be UTF-8 and readers refuse the whole file over one "
                    + "bad value; decode the source text with its real charset, or store the column as binary"));
        }
    }

    record Named(String name, long n) {
    }

    @Test
    void aStringWithAnUnpairedSurrogateIsRefused() {
        refused(S3Parquet.write(List.of(new Named("ok", 1), new Named("cut \uD83D", 2))), validate("component 'name' holds a string "
                + "with the unpaired surrogate U+D83D at index 4, which UTF-8 cannot encode (it would be written as '?'): fix the "
                + "string where it was cut or decoded"));
    }

    // ---- 5: dictionary indices ----

    @Test
    void aDictionaryIndexPastItsDictionaryIsRefused() {
        DictionaryEncoding encoding = new DictionaryEncoding(7, false, new ArrowType.Int(32, true));
        try (VarCharVector words = new VarCharVector("words", allocator);
             VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                     new Field("word", new FieldType(true, INT, encoding), null))), allocator)) {
            words.allocateNew();
            words.setSafe(0, "red".getBytes(StandardCharsets.UTF_8));
            words.setSafe(1, "blue".getBytes(StandardCharsets.UTF_8));
            words.setValueCount(2);
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
            provider.put(new Dictionary(words, encoding));
            root.allocateNew();
            IntVector indices = (IntVector) root.getVector(0);
            indices.setSafe(0, 1);
            indices.setSafe(1, 2);
            root.setRowCount(2);
            refused(S3Parquet.write(root, provider), validate("column 'word' holds the dictionary index 2 at row 1, but its dictionary "
                    + "(id 7) has 2 values (indices 0 to 1): fix the indices or give the dictionary every value"));
            indices.setSafe(1, 0);
            S3Parquet.write(root, provider).s3(TestLake.memory().client()).to(table);
            assertThat(TestLake.query(bucket, "t/", "SELECT word FROM t ORDER BY word")).containsExactly(List.of("blue"), List.of("red"));
        }
    }

    // ---- 6: decimal partition values ----

    record Priced(BigDecimal price, String item) {
    }

    @Test
    void theSameDecimalNamesTheSameFolderWhateverItsScale() {
        S3Parquet.write(List.of(new Priced(new BigDecimal("1.5"), "a"), new Priced(new BigDecimal("0.000"), "z")))
                .partitionBy("price").mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.memory().client()).to(table);
        S3Parquet.write(List.of(new Priced(new BigDecimal("1.50"), "b"), new Priced(new BigDecimal("2.25"), "c")))
                .partitionBy("price").mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.memory().client()).to(table);
        assertThat(TestLake.keys(bucket, "t/").stream().map(k -> k.substring(0, k.indexOf("/part-"))).distinct())
                .containsExactly("t/price=0", "t/price=1.5", "t/price=2.25");
        assertThat(TestLake.query(bucket, "t/", "SELECT item FROM t ORDER BY item")).containsExactly(List.of("b"), List.of("c"),
                List.of("z"));
    }

    // ---- 7: row counts against vectors ----

    @Test
    void aRootWhoseRowCountWasNeverSetIsRefused() {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(f("n", INT))), allocator)) {
            root.allocateNew();
            IntVector n = (IntVector) root.getVector(0);
            for (int i = 0; i < 3; i++) {
                n.setSafe(i, i);
            }
            n.setValueCount(3);
            refused(S3Parquet.write(root), validate("the batch's row count is 0 but its column 'n' holds 3 values: call setRowCount(3) on "
                    + "the VectorSchemaRoot after filling it (its vectors' value counts alone are not its rows)"));
        }
    }

    @Test
    void aVectorShorterThanTheRowCountIsRefused() {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(f("n", INT), f("s", UTF8))), allocator)) {
            root.allocateNew();
            ((IntVector) root.getVector(0)).setSafe(0, 1);
            ((IntVector) root.getVector(0)).setSafe(1, 2);
            ((VarCharVector) root.getVector(1)).setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
            root.setRowCount(2);
            root.getVector(1).setValueCount(1);
            refused(S3Parquet.write(root), validate("the batch has 2 rows but its column 's' holds 1 values: give every vector the batch's "
                    + "row count (VectorSchemaRoot.setRowCount after filling the vectors)"));
        }
    }

    @Test
    void aListWhoseOffsetsRunPastItsElementsIsRefused() {
        List<Field> fields = List.of(f("l", ArrowType.List.INSTANCE, f("element", INT)));
        try (VectorSchemaRoot root = root(fields, List.of(Arrays.<Object>asList(List.of(1L, 2L)), Arrays.<Object>asList(List.of(3L))))) {
            ((org.apache.arrow.vector.complex.ListVector) root.getVector(0)).getDataVector().setValueCount(2);
            refused(S3Parquet.write(root), validate("column 'l.element' holds 2 values where 3 are needed at row 1: the vector is "
                    + "shorter than its rows (or than the offsets of its parent list); set its values and value count"));
        }
    }

    // ---- 8: errors that name their real cause ----

    @Test
    void secondsThatMillisecondsCannotHoldAreRefused() {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(f("ts", new ArrowType.Timestamp(TimeUnit.SECOND, null)))),
                allocator)) {
            root.allocateNew();
            ((org.apache.arrow.vector.TimeStampSecVector) root.getVector(0)).setSafe(0, 0);
            ((org.apache.arrow.vector.TimeStampSecVector) root.getVector(0)).setSafe(1, Long.MAX_VALUE / 10);
            root.setRowCount(2);
            refused(S3Parquet.write(root), validate("column 'ts' holds the seconds timestamp " + Long.MAX_VALUE / 10 + " at row 1: it is "
                    + "written in milliseconds (Parquet has no seconds unit), which cannot hold more than 9223372036854775 seconds "
                    + "either side of 1970 (about 292 million years); correct the value or make it null"));
        }
    }

    @Test
    void nestedNanosecondsAndDate64sThatCannotBeWrittenAreRefused() {
        List<Field> fields = List.of(f("l", ArrowType.List.INSTANCE, f("element", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"))));
        try (VectorSchemaRoot root = root(fields, List.of(Arrays.<Object>asList(List.of(1L, 2L))))) {
            ((org.apache.arrow.vector.TimeStampNanoTZVector) ((org.apache.arrow.vector.complex.ListVector) root.getVector(0))
                    .getDataVector()).set(1, 2_001L);
            refused(S3Parquet.write(root), validate("column 'l.element' holds the nanosecond timestamp 2001 at row 0: a microsecond "
                    + "timestamp cannot hold it without losing digits; truncate the column to microseconds, or call "
                    + "preserveNanoseconds(true) (Spark and Athena cannot read nanosecond Parquet timestamps)"));
        }
        List<Field> dates = List.of(f("d", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.MILLISECOND)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(dates), allocator)) {
            root.allocateNew();
            ((org.apache.arrow.vector.DateMilliVector) root.getVector(0)).setSafe(0, 86_400_000L * (1L << 36));
            root.setRowCount(1);
            refused(S3Parquet.write(root), validate("column 'd' holds the date64 " + 86_400_000L * (1L << 36) + " ms at row 0: a "
                    + "Parquet DATE holds 32-bit days from 1970-01-01 (about 5.8 million years either side); correct the value or "
                    + "make it null"));
            ((org.apache.arrow.vector.DateMilliVector) root.getVector(0)).setSafe(0, 86_400_000L + 1);
            refused(S3Parquet.write(root), validate("column 'd' holds the date64 86400001 ms, which is not a whole day at row 0: a date is "
                    + "written as whole days and the time of day would be lost; truncate the values to midnight UTC, or use a timestamp "
                    + "column"));
        }
    }

    record Dated(LocalDate day, long n) {
    }

    record Timed(Instant at, long n) {
    }

    @Test
    void datesAndInstantsOutsideTheirParquetTypesAreRefused() {
        refused(S3Parquet.write(List.of(new Dated(LocalDate.MAX, 1))), validate("component 'day' holds +999999999-12-31, outside the "
                + "dates a Parquet DATE holds (32-bit days from 1970-01-01: -5877641-06-23 to +5881580-07-11): use null, not "
                + "LocalDate.MIN or MAX, for an unknown date"));
        refused(S3Parquet.write(List.of(new Timed(Instant.MAX, 1))), validate("component 'at' holds +1000000000-12-31T23:59:59.999999999Z, "
                + "outside the instants a microsecond timestamp holds (64-bit microseconds from 1970: -290308-12-21T19:59:05.224192Z to "
                + "+294247-01-10T04:00:54.775807Z): use null, not Instant.MIN or MAX, for an unknown time"));
    }

    record Box<T>(T value) {
    }

    record Empty() {
    }

    record Scaled(BigDecimal x) {
    }

    @Test
    void recordsThatCannotBecomeColumnsSaySo() {
        refused(S3Parquet.write(Arrays.asList(new Named("a", 1), null)), validate("the record at index 1 of the collection is null: drop "
                + "null records before writing (a null record has no values, not even nulls)"));
        refused(S3Parquet.write(List.of(new Box<>("x"))), validate("component 'value' has the type variable T of class "
                + Box.class.getName() + ", whose class Java erases at run time, so the column type cannot be known: declare the "
                + "component with a concrete type (String, Long, a record, ...)"));
        refused(S3Parquet.write(List.of(new Empty())), validate("the record class " + Empty.class.getName() + " has no components, so "
                + "the files would have no columns: write records with at least one component"));
        refused(S3Parquet.write(List.of(new Scaled(new BigDecimal("1E-40")))), validate("component 'x' holds a BigDecimal of scale 40, "
                + "more than the 38 digits a decimal column holds: round the values"));
    }

    @Test
    void aNulInAPartitionValueIsRefusedBeforeS3() {
        refused(S3Parquet.write(List.of(new Named("a\u0000b", 1))).partitionBy("name"), "Cannot write " + table + " (step: validate): "
                + "the value 'a\u0000b' of partition column 'name' cannot name a folder: it contains the character U+0000 (NUL), "
                + "which Hive, Spark and Athena do not escape in paths and which cannot be part of an S3 key that those tools read "
                + "back. Clean the column before writing; nothing of the table was changed.");
    }

    /** A stream of two batches of one int column; the second fails or changes schema. */
    private static final class TwoBatches extends ArrowReader {
        private final BufferAllocator allocator;
        private final boolean fail;
        private int batch;
        private VectorSchemaRoot other;

        TwoBatches(BufferAllocator allocator, boolean fail) {
            super(allocator);
            this.allocator = allocator;
            this.fail = fail;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            batch++;
            if (batch == 1) {
                VectorSchemaRoot root = super.getVectorSchemaRoot();
                root.allocateNew();
                ((IntVector) root.getVector(0)).setSafe(0, 1);
                root.setRowCount(1);
                return true;
            }
            if (batch == 2) {
                if (fail) {
                    throw new IOException("connection reset by the source");
                }
                other = VectorSchemaRoot.create(new Schema(List.of(f("n", UTF8))), allocator);
                other.allocateNew();
                ((VarCharVector) other.getVector(0)).setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
                other.setRowCount(1);
                return true;
            }
            return false;
        }

        @Override
        public VectorSchemaRoot getVectorSchemaRoot() throws IOException {
            return other != null ? other : super.getVectorSchemaRoot();
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
            if (other != null) {
                other.close();
            }
        }

        @Override
        protected Schema readSchema() {
            return new Schema(List.of(f("n", INT)));
        }
    }

    @Test
    void aReaderThatFailsIsReportedAsAnInputFailure() throws Exception {
        try (TwoBatches reader = new TwoBatches(allocator, true)) {
            assertThatThrownBy(() -> S3Parquet.write(reader).s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(InputException.class)
                    .hasMessage("Cannot write " + table + " (step: stage): the input failed while batch 2 was read: "
                            + "java.io.IOException: connection reset by the source. Nothing of the table was changed; this write's "
                            + "staged files were removed. Fix the input source and rerun the write.")
                    .hasCauseInstanceOf(IOException.class);
        }
        assertThat(TestLake.keys(bucket, "t/")).isEmpty();
    }

    @Test
    void aStreamWhoseSchemaChangesIsRefused() throws Exception {
        try (TwoBatches reader = new TwoBatches(allocator, false)) {
            assertThatThrownBy(() -> S3Parquet.write(reader).s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: stage): batch 2 of the stream has the schema Schema<n: Utf8>, but the "
                            + "stream began with Schema<n: Int(32, true)>: every batch of one write must have the same schema; write "
                            + "batches of another schema with another write. Nothing of the table was changed; this write's staged "
                            + "files were removed.");
        }
        assertThat(TestLake.keys(bucket, "t/")).isEmpty();
    }
}
