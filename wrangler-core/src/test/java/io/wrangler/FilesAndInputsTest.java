package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FilesAndInputsTest {
    private final String bucket = TestLake.memoryBucket();

    @Test
    void maxRowsPerFileRollsOverWithinEachPartition() {
        var orders = Orders.orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU", "DE"), 25);
        WriteResult r = S3Parquet.write(orders).partitionBy("country").maxRowsPerFile(10).s3(TestLake.memory().client())
                .to("s3://" + bucket + "/t/");

        assertThat(r.partitions()).allSatisfy(p -> assertThat(p.files()).hasSize(3));
        assertThat(TestLake.keys(bucket, "t/country=RU/")).hasSize(3);
        assertThat(TestLake.query(bucket, "t/", "SELECT country, count(*) c FROM t GROUP BY ALL ORDER BY ALL"))
                .containsExactly(List.of("DE", 25L), List.of("RU", 25L));
        assertThat(r.partitions().get(0).files()).allSatisfy(f -> {
            String key = f.substring(("s3://" + bucket + "/").length());
            long rows = (Long) TestLake.queryFile(TestLake.memory().get(bucket, key), "SELECT count(*) FROM $file").get(0).get(0);
            assertThat(rows).isIn(10L, 5L);
        });
    }

    @Test
    void targetFileSizeRollsOverBySizeAndProgressReportsEveryStage() {
        List<Orders.Order> rows = new ArrayList<>();
        Random random = new Random(3);
        for (int i = 0; i < 60_000; i++) {
            byte[] b = new byte[32];
            random.nextBytes(b);
            rows.add(new Orders.Order(HexFormat.of().formatHex(b), LocalDate.of(2024, 1, 15 + i % 2), "RU", i, BigDecimal.ONE));
        }
        java.util.concurrent.atomic.AtomicLong encoded = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger staged = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong uploaded = new java.util.concurrent.atomic.AtomicLong();
        List<String> published = new java.util.concurrent.CopyOnWriteArrayList<>();
        WriteResult r = S3Parquet.write(rows).partitionBy("dt").compression(Compression.NONE).targetFileSize(512 * 1024)
                .progress(new Progress() {
                    @Override
                    public void rowsEncoded(long total) {
                        encoded.accumulateAndGet(total, Math::max);
                    }

                    @Override
                    public void filesStaged(int total) {
                        staged.accumulateAndGet(total, Math::max);
                    }

                    @Override
                    public void bytesUploaded(long total) {
                        uploaded.accumulateAndGet(total, Math::max);
                    }

                    @Override
                    public void partitionsPublished(int total, int of) {
                        published.add(total + "/" + of);
                    }
                })
                .s3(TestLake.memory().client()).to("s3://" + bucket + "/sized/");

        assertThat(r.partitions()).hasSize(2).allSatisfy(p -> assertThat(p.files()).hasSizeGreaterThan(1));
        for (PartitionResult p : r.partitions()) {
            List<String> files = p.files();
            for (String f : files.subList(0, files.size() - 1)) {
                assertThat(TestLake.memory().list(bucket, f.substring(("s3://" + bucket + "/").length())).values())
                        .singleElement().satisfies(size -> assertThat(size).isGreaterThanOrEqualTo(512L * 1024));
            }
        }
        assertThat(encoded.get()).isEqualTo(60_000);
        assertThat(staged.get()).isEqualTo(r.paths().size());
        assertThat(uploaded.get()).isEqualTo(r.partitions().stream().mapToLong(PartitionResult::bytes).sum());
        assertThat(published).containsExactly("2/2");
        assertThat(TestLake.query(bucket, "sized/", "SELECT count(*), count(DISTINCT \"orderId\") FROM t")).containsExactly(List.of(60_000L, 60_000L));
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void everyCodecIsReadBackByDuckDb(Compression codec) {
        var orders = Orders.orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 50);
        WriteResult r = S3Parquet.write(orders).compression(codec).s3(TestLake.memory().client()).to("s3://" + bucket + "/t/");

        String key = r.paths().get(0).substring(("s3://" + bucket + "/").length());
        assertThat(key).endsWith(codec.fileInfix() + ".parquet");
        byte[] file = TestLake.memory().get(bucket, key);
        String expectedCodec = switch (codec) {
            case NONE -> "UNCOMPRESSED";
            case LZ4_RAW -> "LZ4_RAW";
            default -> codec.name();
        };
        assertThat(TestLake.queryFile(file, "SELECT DISTINCT compression FROM parquet_metadata($file)"))
                .containsExactly(List.of(expectedCodec));
        assertThat(TestLake.queryFile(file, "SELECT count(*), CAST(sum(\"amountCents\") AS BIGINT), CAST(sum(price) AS VARCHAR) FROM $file"))
                .containsExactly(List.of(50L, 127500L, "1237.50"));
    }

    @Test
    void writesStatisticsForEveryColumn() {
        var orders = Orders.orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 10);
        WriteResult r = S3Parquet.write(orders).partitionBy("dt").s3(TestLake.memory().client()).to("s3://" + bucket + "/t/");
        byte[] file = TestLake.memory().get(bucket, r.paths().get(0).substring(("s3://" + bucket + "/").length()));

        assertThat(TestLake.queryFile(file, "SELECT path_in_schema, stats_min_value, stats_max_value, stats_null_count "
                + "FROM parquet_metadata($file) ORDER BY column_id")).containsExactly(
                List.of("orderId", "a-2024-01-15-RU-0", "a-2024-01-15-RU-9", 0L),
                List.of("country", "RU", "RU", 0L),
                List.of("amountCents", "100", "1000", 0L),
                List.of("price", "0.25", "9.25", 0L));
    }

    @Test
    void aColumnOfDistinctValuesIsWrittenPlainAndARepetitiveOneWithADictionary() {
        var orders = Orders.orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 3000);
        WriteResult r = S3Parquet.write(orders).partitionBy("dt").s3(TestLake.memory().client()).to("s3://" + bucket + "/t/");
        byte[] file = TestLake.memory().get(bucket, r.paths().get(0).substring(("s3://" + bucket + "/").length()));

        List<List<Object>> encodings = TestLake.queryFile(file, "SELECT path_in_schema, encodings FROM parquet_metadata($file) "
                + "WHERE path_in_schema IN ('orderId', 'country') ORDER BY column_id");
        assertThat(encodings.get(0)).first().isEqualTo("orderId");
        assertThat((String) encodings.get(0).get(1)).as("3,000 distinct ids: no dictionary").doesNotContain("DICTIONARY");
        assertThat(encodings.get(1)).first().isEqualTo("country");
        assertThat((String) encodings.get(1).get(1)).as("one country: a dictionary").contains("DICTIONARY");
        assertThat(TestLake.queryFile(file, "SELECT count(DISTINCT \"orderId\"), count(*) FROM $file")).containsExactly(List.of(3000L, 3000L));
    }

    @Test
    void aLongRunIsEncodedAsRowGroupsOnSeveralThreadsAndKeepsItsOrder() {
        int rows = 2_500_000;
        Schema schema = new Schema(List.of(new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("tag", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        WriteResult r;
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector tag = (VarCharVector) root.getVector("tag");
            id.allocateNew(rows);
            tag.allocateNew(rows * 4L, rows);
            for (int i = 0; i < rows; i++) {
                id.set(i, i);
                if (i % 10 != 0) {
                    tag.setSafe(i, ("t" + i % 97).getBytes(StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(rows);
            r = S3Parquet.write(root).s3(TestLake.memory().client()).to("s3://" + bucket + "/big/");
        }
        byte[] file = TestLake.memory().get(bucket, r.paths().get(0).substring(("s3://" + bucket + "/").length()));

        // Equal row groups of at most 2^20 rows, as many as a multiple of the cores; they come out in input order.
        int cores = Runtime.getRuntime().availableProcessors();
        int groups = cores * (int) Math.ceil(rows / (double) (cores * (1 << 20)));
        List<List<Object>> rowGroups = TestLake.queryFile(file, "SELECT row_group_num_rows FROM parquet_metadata($file) "
                + "WHERE column_id = 0 ORDER BY row_group_id");
        assertThat(rowGroups).hasSize(groups);
        assertThat(rowGroups.subList(0, groups - 1)).allSatisfy(g -> assertThat(g.get(0)).isEqualTo((long) Math.ceil(rows / (double) groups)));
        assertThat(TestLake.queryFile(file, "SELECT count(*) FILTER (WHERE id <> file_row_number), "
                + "count(*) FILTER (WHERE (tag IS NULL) <> (id % 10 = 0) OR tag <> 't' || (id % 97)), count(*) "
                + "FROM read_parquet($file, file_row_number = true)")).containsExactly(List.of(0L, 0L, 2_500_000L));
    }

    @Test
    void stringsOfEveryLengthKeepTheirValuesAndStatisticsPlainOrWithADictionary() {
        int rows = 3000;
        Schema schema = new Schema(List.of(new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("distinct", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("few", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        java.util.TreeSet<String> distinct = new java.util.TreeSet<>();
        WriteResult r;
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            root.allocateNew();
            for (int i = 0; i < rows; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                if (i % 13 != 0) {
                    String d = "x".repeat(i % 700) + i; // up to 700 bytes: the scratch array grows
                    distinct.add(d);
                    ((VarCharVector) root.getVector("distinct")).setSafe(i, d.getBytes(StandardCharsets.UTF_8));
                }
                ((VarCharVector) root.getVector("few")).setSafe(i, "y".repeat(1 + (i % 5) * 150).getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(rows);
            r = S3Parquet.write(root).s3(TestLake.memory().client()).to("s3://" + bucket + "/strings/");
        }
        byte[] file = TestLake.memory().get(bucket, r.paths().get(0).substring(("s3://" + bucket + "/").length()));

        assertThat(TestLake.queryFile(file, "SELECT count(*) FILTER (WHERE (\"distinct\" IS NULL) <> (id % 13 = 0) "
                + "OR \"distinct\" <> repeat('x', CAST(id % 700 AS INTEGER)) || id), "
                + "count(*) FILTER (WHERE few <> repeat('y', CAST(1 + (id % 5) * 150 AS INTEGER))), count(*) FROM $file"))
                .containsExactly(List.of(0L, 0L, 3000L));
        assertThat(TestLake.queryFile(file, "SELECT path_in_schema, stats_min_value, stats_max_value, encodings FROM parquet_metadata($file) "
                + "WHERE path_in_schema = 'distinct'")).singleElement().satisfies(row -> {
                    assertThat(row.get(1)).isEqualTo(distinct.first());
                    assertThat(row.get(2)).isEqualTo(distinct.last());
                    assertThat((String) row.get(3)).doesNotContain("DICTIONARY");
                });
        assertThat(TestLake.queryFile(file, "SELECT encodings FROM parquet_metadata($file) WHERE path_in_schema = 'few'"))
                .singleElement().satisfies(row -> assertThat((String) row.get(0)).contains("DICTIONARY"));
    }

    @Test
    void aFileLargerThanAPartIsUploadedAndCopiedInParts() throws Exception {
        int rows = 12_000;
        Random random = new Random(42);
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        AtomicReference<String> stagedEtag = new AtomicReference<>();
        String table = "s3://" + bucket + "/big/";
        WriteResult r;
        try (BufferAllocator a = new RootAllocator();
             VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                     new Field("k", FieldType.nullable(new ArrowType.Int(32, true)), null),
                     new Field("blob", FieldType.nullable(ArrowType.Binary.INSTANCE), null))), a)) {
            root.allocateNew();
            for (int i = 0; i < rows; i++) {
                byte[] b = new byte[1024];
                random.nextBytes(b);
                md5.update(HexFormat.of().formatHex(b).toUpperCase().getBytes(StandardCharsets.US_ASCII));
                ((IntVector) root.getVector("k")).setSafe(i, i);
                ((VarBinaryVector) root.getVector("blob")).setSafe(i, b);
            }
            root.setRowCount(rows);
            r = S3Parquet.write(root).compression(Compression.NONE).tuning(Tunings.smallParts())
                    .stepHook((step, n) -> {
                        if (step == Step.MANIFEST_WRITTEN) {
                            String staged = TestLake.keys(bucket, "big/_tmp/").stream().filter(k -> k.endsWith(".parquet")).findFirst().orElseThrow();
                            stagedEtag.set(TestLake.memory().client().headObject(h -> h.bucket(bucket).key(staged)).eTag());
                        }
                    })
                    .s3(TestLake.memory().client()).to(table);
        }
        long size = r.partitions().get(0).bytes();
        assertThat(size).isGreaterThan(2L * 5 * Tunings.MIB);
        assertThat(stagedEtag.get()).as("a multipart upload's ETag ends with -<parts>").endsWith("-3\"");
        String finalKey = r.paths().get(0).substring(("s3://" + bucket + "/").length());
        assertThat(TestLake.memory().client().headObject(h -> h.bucket(bucket).key(finalKey)).eTag()).as("copied part by part").endsWith("-3\"");
        assertThat(TestLake.query(bucket, "big/", "SELECT count(*), md5(string_agg(hex(blob), '' ORDER BY k)) FROM t"))
                .containsExactly(List.of((long) rows, HexFormat.of().formatHex(md5.digest())));
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
    }

    enum Tier { GOLD, SILVER }

    record Address(String city, Integer zip) {
    }

    record Customer(String id, int age, Long visits, short s, byte b, double score, float ratio, boolean active, BigDecimal balance,
                    LocalDate since, Instant seen, LocalDateTime local, byte[] avatar, UUID uuid, Tier tier, List<String> tags,
                    Map<String, Integer> counts, Address address, List<Address> previous) {
    }

    @Test
    void javaRecordsOfEverySupportedComponentTypeAreWritten() {
        UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts.put("a", 1);
        counts.put("b", null);
        List<Customer> customers = List.of(
                new Customer("c1", 42, 7L, (short) -3, (byte) 9, 0.5, 1.25f, true, new BigDecimal("10.5"), LocalDate.of(2020, 2, 29),
                        Instant.parse("2024-01-15T10:30:00.123456Z"), LocalDateTime.of(2024, 1, 15, 10, 30), new byte[] {1, 2}, uuid,
                        Tier.GOLD, List.of("x", "y"), counts, new Address("Lisbon", 1000), List.of(new Address("Porto", null))),
                new Customer("c2", 0, null, (short) 0, (byte) 0, -1.0, 0f, false, new BigDecimal("-0.125"), null, null, null, null, null,
                        null, List.of(), Map.of(), null, null));
        S3Parquet.write(customers).s3(TestLake.memory().client()).to("s3://" + bucket + "/c/");

        List<List<Object>> rows = TestLake.query(bucket, "c/", "SELECT id, age, visits, s, b, score, ratio, active, CAST(balance AS VARCHAR), "
                + "typeof(balance), CAST(since AS VARCHAR), CAST(seen AS VARCHAR), CAST(local AS VARCHAR), hex(avatar), uuid, tier, "
                + "CAST(tags AS VARCHAR), CAST(counts AS VARCHAR), CAST(address AS VARCHAR), CAST(previous AS VARCHAR) FROM t ORDER BY id");
        assertThat(rows.get(0)).containsExactly("c1", 42, 7L, (short) -3, (byte) 9, 0.5, 1.25f, true, "10.500", "DECIMAL(38,3)",
                "2020-02-29", "2024-01-15 10:30:00.123456+00", "2024-01-15 10:30:00", "0102", uuid.toString(), "GOLD", "[x, y]",
                "{a=1, b=NULL}", "{'city': Lisbon, 'zip': 1000}", "[{'city': Porto, 'zip': NULL}]");
        assertThat(rows.get(1)).containsExactly("c2", 0, null, (short) 0, (byte) 0, -1.0, 0f, false, "-0.125", "DECIMAL(38,3)",
                null, null, null, null, null, null, "[]", "{}", null, null);
    }

    record Priced(String id, @Decimal(precision = 10, scale = 2) BigDecimal price, BigDecimal inferred) {
    }

    @Test
    void aDeclaredDecimalKeepsItsTypeWhateverTheValues() {
        S3Parquet.write(List.of(new Priced("a", new BigDecimal("7"), new BigDecimal("7")), new Priced("b", null, null)))
                .s3(TestLake.memory().client()).to("s3://" + bucket + "/p/");
        assertThat(TestLake.query(bucket, "p/", "SELECT id, typeof(price), CAST(price AS VARCHAR), typeof(inferred) FROM t ORDER BY id"))
                .containsExactly(List.of("a", "DECIMAL(10,2)", "7.00", "DECIMAL(38,0)"), java.util.Arrays.asList("b", "DECIMAL(10,2)", null, "DECIMAL(38,0)"));
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Priced("c", new BigDecimal("1.005"), null))).s3(TestLake.memory().client())
                .to("s3://" + bucket + "/p/"))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write s3://" + bucket + "/p/ (step: validate): component 'price' holds 1.005, which has more than the 2 "
                        + "decimals of its column: round the values. Nothing was written.");
    }

    @Test
    void anArrowReaderIsStreamedBatchByBatch() throws Exception {
        Schema schema = new Schema(List.of(new Field("day", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("n", FieldType.nullable(new ArrowType.Int(64, true)), null)));
        ByteArrayOutputStream ipc = new ByteArrayOutputStream();
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, ipc)) {
            w.start();
            for (int batch = 0; batch < 5; batch++) {
                root.allocateNew();
                for (int i = 0; i < 1000; i++) {
                    ((VarCharVector) root.getVector("day")).setSafe(i, ("d" + (i % 3)).getBytes(StandardCharsets.UTF_8));
                    ((BigIntVector) root.getVector("n")).setSafe(i, batch * 1000L + i);
                }
                root.setRowCount(1000);
                w.writeBatch();
            }
            w.end();
        }
        WriteResult r;
        try (BufferAllocator a = new RootAllocator();
             ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), a)) {
            r = S3Parquet.write(reader).partitionBy("day").maxRowsPerFile(1000).s3(TestLake.memory().client()).to("s3://" + bucket + "/s/");
        }
        assertThat(r.rows()).isEqualTo(5000);
        // Each batch of 1,000 has 334 rows of d0 and 333 of d1 and d2.
        assertThat(r.partitions()).extracting(PartitionResult::rows).containsExactly(1670L, 1665L, 1665L);
        assertThat(r.partitions()).extracting(p -> p.files().size()).containsExactly(2, 2, 2);
        assertThat(TestLake.query(bucket, "s/", "SELECT day, count(*), CAST(sum(n) AS BIGINT), count(DISTINCT n) FROM t GROUP BY ALL ORDER BY ALL"))
                .containsExactly(List.of("d0", 1670L, sumOf(0), 1670L), List.of("d1", 1665L, sumOf(1), 1665L), List.of("d2", 1665L, sumOf(2), 1665L));
    }

    private static long sumOf(int residue) {
        long s = 0;
        for (long n = 0; n < 5000; n++) {
            if (n % 1000 % 3 == residue) {
                s += n;
            }
        }
        return s;
    }

    @Test
    void dictionaryEncodedColumnsAreWrittenAsTheirValues() {
        try (BufferAllocator a = new RootAllocator()) {
            DictionaryEncoding enc = new DictionaryEncoding(1L, false, null);
            VarCharVector dictValues = new VarCharVector("dict", a);
            dictValues.allocateNew();
            dictValues.setSafe(0, "US".getBytes());
            dictValues.setSafe(1, "RU".getBytes());
            dictValues.setValueCount(2);
            Dictionary dictionary = new Dictionary(dictValues, enc);
            VarCharVector plain = new VarCharVector("country", FieldType.nullable(ArrowType.Utf8.INSTANCE), a);
            plain.allocateNew();
            String[] values = {"RU", "US", "RU", null};
            for (int i = 0; i < values.length; i++) {
                if (values[i] == null) {
                    plain.setNull(i);
                } else {
                    plain.setSafe(i, values[i].getBytes());
                }
            }
            plain.setValueCount(values.length);
            FieldVector encoded = (FieldVector) DictionaryEncoder.encode(plain, dictionary);
            plain.close();
            IntVector n = new IntVector("n", a);
            n.allocateNew();
            for (int i = 0; i < values.length; i++) {
                n.setSafe(i, i);
            }
            n.setValueCount(values.length);
            try (VectorSchemaRoot root = new VectorSchemaRoot(List.of(encoded, n))) {
                root.setRowCount(values.length);
                DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(dictionary);
                S3Parquet.write(root, provider).s3(TestLake.memory().client()).to("s3://" + bucket + "/d/");
            }
            dictValues.close();
        }
        List<List<Object>> rows = TestLake.query(bucket, "d/", "SELECT n, country FROM t ORDER BY n");
        List<List<Object>> expected = new ArrayList<>();
        expected.add(List.of(0, "RU"));
        expected.add(List.of(1, "US"));
        expected.add(List.of(2, "RU"));
        expected.add(java.util.Arrays.asList(3, null));
        assertThat(rows).isEqualTo(expected);
    }

    @Test
    void emptyInputWritesNothingForAppendAndOverwritePartitions() {
        TestLake.memory().put(bucket, "t/dt=2024-01-15/existing.parquet", new byte[] {1});
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        WriteResult append = S3Parquet.write(List.<Orders.Order>of()).partitionBy("dt").s3(TestLake.memory().client()).to("s3://" + bucket + "/t/");
        WriteResult overwrite;
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("dt", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null))), a)) {
            root.setRowCount(0);
            overwrite = S3Parquet.write(root).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.memory().client())
                    .to("s3://" + bucket + "/t/");
        }
        assertThat(append.rows()).isZero();
        assertThat(append.paths()).isEmpty();
        assertThat(overwrite.rows()).isZero();
        assertThat(overwrite.deletedFiles()).isEmpty();
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
    }
}
