package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.partition.Buckets;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A compaction keeps what the table's writes made: the buckets of its files (by path: the `_bucket-N` names), its
 * timestamp encodings and codec (from the files' footers), and dedupBy keeps the row SQL's {@code row_number()} keeps,
 * for keys and order columns of every type, ties broken by commit order.
 */
class CompactionKeepsTheTableTest {
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    record User(long id, String name, String dt) {
    }

    private static final Pattern BUCKET_FILE = Pattern.compile("t/dt=(d[12])/part-\\d{5}-\\d{3}-.+_bucket-(\\d{5})\\.snappy\\.parquet");

    @Test
    void aBucketedTableIsCompactedBucketByBucketKeepingEachRowInItsBucket() {
        // Two writes of 4 buckets each into one partition: 8 files over 4 buckets (a small id v is in bucket v % 4; -7 in 2).
        List<User> first = new ArrayList<>();
        List<User> second = new ArrayList<>();
        for (long id = 0; id < 16; id++) {
            (id < 8 ? first : second).add(new User(id == 10 ? -7 : id, "n" + id, "d1"));
        }
        for (List<User> run : List.of(first, second)) {
            S3Parquet.write(run).partitionBy("dt").bucketBy(List.of("id"), 4).s3(TestLake.memory().client()).to(table);
        }
        // The partition d2 has one file per bucket and is left alone.
        S3Parquet.write(List.of(new User(1, "x", "d2"), new User(2, "y", "d2"))).partitionBy("dt").bucketBy(List.of("id"), 4)
                .s3(TestLake.memory().client()).to(table);
        List<List<Object>> before = TestLake.query(bucket, "t/", "SELECT id, name, dt FROM t ORDER BY ALL");
        assertThat(TestLake.keys(bucket, "t/dt=d1/")).hasSize(8);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).run();

        assertThat(r.partitions()).containsExactly(table + "dt=d1/");
        assertThat(r.filesBefore()).isEqualTo(8);
        assertThat(r.filesAfter()).isEqualTo(4);
        Map<String, Integer> filesByBucket = new TreeMap<>();
        TestLake.snapshot(bucket, "t/").forEach((key, bytes) -> {
            Matcher m = BUCKET_FILE.matcher(key);
            assertThat(m.matches()).as(key).isTrue();
            int number = Integer.parseInt(m.group(2));
            filesByBucket.merge(m.group(1) + "/" + number, 1, Integer::sum);
            // DuckDB reads each file: every row's bucket (awswrangler's hash of its id) is the file's number.
            for (List<Object> row : TestLake.queryFile(bytes, "SELECT id FROM $file")) {
                assertThat(Buckets.bucketOf(List.of(((Number) row.get(0)).longValue()), 4)).as(key + " " + row).isEqualTo(number);
            }
        });
        assertThat(filesByBucket).containsExactlyEntriesOf(new TreeMap<>(Map.of("d1/0", 1, "d1/1", 1, "d1/2", 1, "d1/3", 1, "d2/1", 1,
                "d2/2", 1)));
        assertThat(TestLake.query(bucket, "t/", "SELECT id, name, dt FROM t ORDER BY ALL")).isEqualTo(before);
    }

    @Test
    void aPartitionMixingBucketFilesAndOthersIsRefusedBeforeAnyChange() {
        S3Parquet.write(List.of(new User(1, "a", "d1"), new User(2, "b", "d1"))).partitionBy("dt").bucketBy(List.of("id"), 4)
                .s3(TestLake.memory().client()).to(table);
        S3Parquet.write(List.of(new User(3, "c", "d1"))).partitionBy("dt").s3(TestLake.memory().client()).to(table);
        String plain = TestLake.keys(bucket, "t/dt=d1/").stream().filter(k -> !k.contains("_bucket-")).findFirst().orElseThrow();
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");

        assertThatThrownBy(() -> S3Parquet.compact(table).s3(TestLake.memory().client()).whenMoreFilesThan(1).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot compact " + table + " (step: validate): the partition [dt=d1] holds files with a bucket number "
                        + "(_bucket-N in their names) and files without one, such as s3://" + bucket + "/" + plain + ", so the bucket of "
                        + "its rows is not known and a compaction could not keep each row in its bucket. Move the files without a "
                        + "bucket number out of the partition, or rewrite the partition with bucketBy (OVERWRITE_PARTITIONS), then "
                        + "compact again; nothing was changed.");
        assertThat(TestLake.snapshot(bucket, "")).containsOnlyKeys(before.keySet());
    }

    private static Schema nanosSchema() {
        return new Schema(List.of(new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)), null)));
    }

    /** Writes {@code nanos} (ids from {@code firstId}) as one append with the given timestamp encoding. */
    private void writeNanos(long firstId, long[] nanos, boolean int96) {
        try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(nanosSchema(), allocator)) {
            root.allocateNew();
            for (int i = 0; i < nanos.length; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, firstId + i);
                ((TimeStampNanoVector) root.getVector("ts")).setSafe(i, nanos[i]);
            }
            root.setRowCount(nanos.length);
            WriteBuilder w = S3Parquet.write(root).s3(TestLake.memory().client()).compression(Compression.ZSTD);
            (int96 ? w.timestampsAsInt96(true) : w.preserveNanoseconds(true)).to(table);
        }
    }

    /** Every (id, ts) as wrangler reads the table back, nanoseconds included. */
    private Map<Long, Long> readNanos() throws Exception {
        Map<Long, Long> out = new TreeMap<>();
        try (ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).open()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.put(((BigIntVector) b.getVector("id")).get(i), (Long) ((org.apache.arrow.vector.TimeStampVector) b.getVector("ts")).get(i));
                }
            }
        }
        return out;
    }

    private static final long[] NANOS = {1_705_314_600_123_456_789L, -1, 1, 0};

    @ParameterizedTest
    @EnumSource(names = {"INT64_NANOS", "INT96"})
    void aDefaultCompactionKeepsTheTimestampEncodingAndTheCodecOfTheFiles(Encoding encoding) throws Exception {
        boolean int96 = encoding == Encoding.INT96;
        writeNanos(0, NANOS, int96);
        writeNanos(10, new long[] {Long.MAX_VALUE, 999}, int96);
        Map<Long, Long> before = readNanos();
        assertThat(before).containsEntry(0L, 1_705_314_600_123_456_789L).containsEntry(11L, 999L);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).run();

        assertThat(r.filesBefore()).isEqualTo(2);
        assertThat(r.filesAfter()).isEqualTo(1);
        assertThat(readNanos()).isEqualTo(before);
        Map<String, byte[]> files = TestLake.snapshot(bucket, "t/");
        assertThat(files).hasSize(1);
        assertThat(files.keySet().iterator().next()).endsWith(".zstd.parquet");
        byte[] file = files.values().iterator().next();
        assertThat(TestLake.queryFile(file, "SELECT type, coalesce(CAST(logical_type AS VARCHAR), '') LIKE '%NanoSeconds%' "
                + "FROM parquet_schema($file) WHERE name = 'ts'")).containsExactly(int96 ? List.of("INT96", false) : List.of("INT64", true));
        assertThat(TestLake.queryFile(file, "SELECT DISTINCT compression FROM parquet_metadata($file)")).containsExactly(List.of("ZSTD"));
    }

    enum Encoding { INT64_NANOS, INT96 }

    @Test
    void aPrefixThatIsNotATableIsRefusedAsACompaction() {
        S3Parquet.write(List.of(new User(1, "a", "d1"))).partitionBy("dt").s3(TestLake.memory().client()).to(table);
        TestLake.memory().put(bucket, "t/notes/readme.txt", "x".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> S3Parquet.compact(table).s3(TestLake.memory().client()).run())
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot compact " + table + " (step: list): " + table + "notes/readme.txt lies in the folder 'notes', which is "
                        + "not a Hive partition folder (column=value). Nothing was changed. Move the stray object out of the table (a "
                        + "compaction rewrites Hive partition folders only), or compact the table with catalog(...), which lists only "
                        + "the partitions the catalog registers.");
        TestLake.memory().client().deleteObject(b -> b.bucket(bucket).key("t/notes/readme.txt"));
        TestLake.memory().put(bucket, "t/region=eu/f.parquet", "x".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(TestLake.memory().client()).filter(PartitionFilter.where(p -> true)).run())
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot compact " + table + " (step: list): " + table + "region=eu/ is a folder of the column 'region' where "
                        + "the table's folders are of 'dt'. Nothing was changed. Move the stray object out of the table (a compaction "
                        + "rewrites Hive partition folders only), or compact the table with catalog(...), which lists only the "
                        + "partitions the catalog registers.");
    }

    // ---- dedupBy against DuckDB's row_number() ----

    record Tagged(long id, List<Long> tags) {
    }

    @Test
    void dedupOrderedByANestedColumnIsRefusedBeforeAnyChange() {
        for (int run = 0; run < 2; run++) {
            S3Parquet.write(List.of(new Tagged(1, List.of(1L, (long) run)))).s3(TestLake.memory().client()).to(table);
        }
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");

        assertThatThrownBy(() -> S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(List.of("id"), "tags").run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot compact " + table + " (step: validate): dedupBy orders by the column 'tags' of the type List, whose "
                        + "values have no order. Order by a number, string, binary, boolean, decimal, date, time or timestamp column; "
                        + "nothing was changed.");
        assertThat(TestLake.snapshot(bucket, "")).containsOnlyKeys(before.keySet());
    }

    /** The key columns and order column of one dedup case. */
    enum DedupCase {
        BINARY_KEY_UINT64_ORDER(List.of("kbin"), "o64"),
        STRING_AND_INT_KEYS_UINT64_ORDER(List.of("kstr", "kint"), "o64"),
        DECIMAL_KEY_DECIMAL_ORDER(List.of("kdec"), "odec"),
        NULL_KEYS_UINT64_ORDER(List.of("knull"), "o64"),
        INT_KEY_STRING_ORDER(List.of("kint"), "kstr"),
        BINARY_AND_NULL_KEYS_BINARY_ORDER(List.of("kbin", "knull"), "kbin");

        final List<String> keys;
        final String order;

        DedupCase(List<String> keys, String order) {
            this.keys = keys;
            this.order = order;
        }
    }

    private static Schema dedupSchema() {
        return new Schema(List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("seq", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("rn", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("kbin", FieldType.nullable(ArrowType.Binary.INSTANCE), null),
                new Field("kstr", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("kint", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("kdec", FieldType.nullable(new ArrowType.Decimal(9, 2, 128)), null),
                new Field("knull", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("o64", FieldType.nullable(new ArrowType.Int(64, false)), null),
                new Field("odec", FieldType.nullable(new ArrowType.Decimal(9, 2, 128)), null)));
    }

    private static final byte[][] BINARIES = {{1, 2}, {(byte) 0xFF}, {}, {1, 2, 0}};
    private static final String[] STRINGS = {"a", "é", "b", "ab"};
    private static final long[] UNSIGNED = {1, 2, Long.MIN_VALUE + 5, -1}; // -1 and MIN+5 are 2^64-1 and 2^63+5 unsigned
    private static final String[] DECIMALS = {"1.50", "-0.25", "2.00", "0.00"};

    /**
     * Five appends of 14 rows each to one partition, drawn from small domains so that keys repeat and order values tie;
     * each write's files get a file name prefix that sorts before the earlier writes', so that file-name order is the
     * reverse of commit order.
     */
    private void dedupTable(long seed) {
        Random random = new Random(seed);
        for (int seq = 1; seq <= 5; seq++) {
            try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(dedupSchema(), allocator)) {
                root.allocateNew();
                int n = 14;
                for (int i = 0; i < n; i++) {
                    ((BigIntVector) root.getVector("id")).setSafe(i, seq * 100L + i);
                    ((IntVector) root.getVector("seq")).setSafe(i, seq);
                    ((IntVector) root.getVector("rn")).setSafe(i, i);
                    ((VarBinaryVector) root.getVector("kbin")).setSafe(i, BINARIES[random.nextInt(BINARIES.length)]);
                    ((VarCharVector) root.getVector("kstr")).setSafe(i, STRINGS[random.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8));
                    ((IntVector) root.getVector("kint")).setSafe(i, random.nextInt(3) - 1);
                    ((DecimalVector) root.getVector("kdec")).setSafe(i, new BigDecimal(DECIMALS[random.nextInt(DECIMALS.length)]));
                    if (random.nextBoolean()) {
                        ((VarCharVector) root.getVector("knull")).setSafe(i, "x".getBytes(StandardCharsets.UTF_8));
                    } else {
                        ((VarCharVector) root.getVector("knull")).setNull(i);
                    }
                    if (random.nextInt(6) == 0) {
                        ((UInt8Vector) root.getVector("o64")).setNull(i);
                    } else {
                        ((UInt8Vector) root.getVector("o64")).setSafe(i, UNSIGNED[random.nextInt(UNSIGNED.length)]);
                    }
                    ((DecimalVector) root.getVector("odec")).setSafe(i, new BigDecimal(DECIMALS[random.nextInt(DECIMALS.length)]));
                }
                root.setRowCount(n);
                S3Parquet.write(root).filenamePrefix("w" + (9 - seq) + "-").s3(TestLake.memory().client()).to(table);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DedupCase.class)
    void dedupKeepsTheRowsDuckDbsRowNumberKeepsForEveryKeyAndOrderType(DedupCase c) {
        dedupTable(c.ordinal() * 31L + 7);
        String keys = String.join(", ", c.keys);
        // Commit order is the order of the writes (seq), and within a write the order of its rows (rn).
        List<List<Object>> expected = TestLake.query(bucket, "t/", "SELECT * FROM t QUALIFY row_number() OVER (PARTITION BY " + keys
                + " ORDER BY " + c.order + " DESC NULLS LAST, seq DESC, rn DESC) = 1 ORDER BY id");
        long all = (Long) TestLake.query(bucket, "t/", "SELECT count(*) FROM t").get(0).get(0);
        assertThat(expected.size()).as("the case has duplicates").isLessThan((int) all);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(c.keys, c.order).run();

        assertThat(r.rowsRead()).isEqualTo(all);
        assertThat(r.duplicatesDropped()).isEqualTo(all - expected.size());
        assertThat(TestLake.query(bucket, "t/", "SELECT * FROM t ORDER BY id")).isEqualTo(expected);
    }
}
