package io.wrangler.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.SmallPages;
import io.wrangler.WriteOptions;
import io.wrangler.WriteStep;
import io.wrangler.commit.WriteSpec;
import io.wrangler.input.ArrowSource;
import io.wrangler.read.ColumnValues;
import io.wrangler.read.TableFiles;
import io.wrangler.spi.StepHook;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.testkit.MemoryS3;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The merge's key scan looks a key of one column up where its values lie in the files' pages ({@link ColumnValues},
 * {@link KeyIndex#pages}) and finds exactly what the lookup of the same files decoded into vectors finds: the same rows
 * holding an input key ({@code row << 32 | key}, per file), the same keys found, updated and inserted, the same files to
 * rewrite. Over utf8, binary, int64 and int32 keys, in files of parquet-java (data pages V1: dictionary pages, then plain
 * ones once the dictionary is given up, in the same chunk or the next; V2: dictionary pages, and a file of delta pages,
 * which the scan decodes into vectors) and of wrangler's writer, each of several row groups of many pages, with nulls
 * alone and in long runs, empty and multibyte strings, and input keys in several files. The rows found in the
 * parquet-java files are also checked against the rows the test wrote. Isolated: the switch between the two ways is
 * shared by every merge of the JVM.
 */
@org.junit.jupiter.api.parallel.Isolated
class KeyPagesScanTest {
    private static final int ROWS = 6_000;

    @TempDir
    Path temp;

    /** A key column's type: its Arrow type, its Parquet column, its value at a row of a file (null: a null), and its vector's setter. */
    private record KeyType(ArrowType arrow, Type parquet, Value value) {
    }

    private interface Value {
        /** The key of row {@code i} of file {@code f}: few distinct values for the first third, then distinct ones; null for some. */
        Object at(int f, int i);
    }

    private static boolean isNull(int i) {
        return i % 11 == 3 || (i / 250) % 7 == 2; // single nulls, and runs of 250
    }

    private static KeyType type(String name) {
        return switch (name) {
            case "utf8" -> new KeyType(ArrowType.Utf8.INSTANCE, Types.optional(PrimitiveTypeName.BINARY)
                    .as(LogicalTypeAnnotation.stringType()).named("id"), KeyPagesScanTest::text);
            case "binary" -> new KeyType(ArrowType.Binary.INSTANCE, Types.optional(PrimitiveTypeName.BINARY).named("id"),
                    (f, i) -> {
                        String t = text(f, i);
                        return t == null ? null : t.getBytes(StandardCharsets.UTF_8);
                    });
            case "int64" -> new KeyType(new ArrowType.Int(64, true), Types.optional(PrimitiveTypeName.INT64).named("id"),
                    (f, i) -> isNull(i) ? null : i < ROWS / 3 ? (i % 13 - 6) * 1_000_000_007L : f * 1_000_000_000_000L + i * 7919L);
            case "int32" -> new KeyType(new ArrowType.Int(32, true), Types.optional(PrimitiveTypeName.INT32).named("id"),
                    (f, i) -> isNull(i) ? null : i < ROWS / 3 ? (i % 13 - 6) * 1_000_003 : f * 10_000_000 + i * 31);
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** Strings: empty, multibyte, short and long (past 8 and 16 bytes), few distinct ones first, then distinct ones. */
    private static String text(int f, int i) {
        if (isNull(i)) {
            return null;
        }
        if (i < ROWS / 3) {
            return switch (i % 13) {
                case 0 -> "";
                case 1 -> "ключ-é";
                case 2 -> "漢字かな-" + "x".repeat(20);
                default -> "d" + (i % 13);
            };
        }
        return "k" + f + "-" + i + (i % 5 == 0 ? "é漢" : "") + (i % 3 == 0 ? "-long-enough-to-pass-sixteen" : "");
    }

    /** The key of {@code value} as the input's (and its Java value's) text, for maps. */
    private static Object comparable(Object value) {
        return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : value;
    }

    /**
     * Writes rows {@code 0..ROWS-1} of file {@code f} with parquet-java: row groups of 16 KiB and pages of 1 KiB, so
     * several of each; the other column {@code v} the row's number.
     */
    private byte[] javaFile(KeyType t, int f, WriterVersion version, IntFunction<Object> keys) throws Exception {
        MessageType schema = new MessageType("t", t.parquet(), Types.required(PrimitiveTypeName.INT64).named("v"));
        Path file = temp.resolve("f" + f + "-" + version + ".parquet");
        try (org.apache.parquet.hadoop.ParquetWriter<Integer> w = new RowsWriter(new org.apache.parquet.io.LocalOutputFile(file), schema, keys)
                .withConf(new org.apache.parquet.conf.PlainParquetConfiguration()).withCodecFactory(new io.wrangler.encoding.Codecs())
                .withCompressionCodec(org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY).withWriterVersion(version)
                .withRowGroupSize(16 * 1024).withPageSize(1024).withDictionaryPageSize(2 * 1024).withDictionaryEncoding(true).build()) {
            for (int i = 0; i < ROWS; i++) {
                w.write(i);
            }
        }
        return Files.readAllBytes(file);
    }

    private static MergePlan plan(S3Client s3, String table, VectorSchemaRoot in, BufferAllocator allocator, boolean pages) {
        WriteOptions o = WriteOptions.builder().build();
        RequestOptions requests = RequestOptions.of(o.encryption(), null, null, o.retryPolicy());
        MergeSpec spec = new MergeSpec(S3Location.parse(table, WriteStep.VALIDATE, "merge into"), s3, o, requests, ArrowSource.of(in, null),
                List.of("id"), null, false, null, null, StepHook.NONE, WriteSpec.Tuning.defaults());
        boolean was = MergePlan.keyPages;
        MergePlan.keyPages = pages;
        try (InputRows input = InputRows.read(spec, spec.input(), allocator)) {
            return MergePlan.of(spec, input, allocator);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            MergePlan.keyPages = was;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"utf8", "binary", "int64", "int32"})
    void theKeyScanFindsInPagesWhatItFindsInVectors(String typeName) throws Exception {
        KeyType t = type(typeName);
        MemoryS3 mem = MemoryS3.start();
        S3Client s3 = mem.client();
        String bucket = "pages-" + typeName;
        mem.createBucket(bucket);
        String table = "s3://" + bucket + "/t/";
        // the table: a file of wrangler's writer, then parquet-java's: V1 (files 1 and 2), V2 of dictionary pages only (3),
        // V2 whose later chunks are delta-encoded (4)
        Map<String, Object[]> written = new LinkedHashMap<>(); // by file name: each row's key
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("id", FieldType.nullable(t.arrow()), null), new Field("v", FieldType.notNullable(new ArrowType.Int(64, true)), null))), a)) {
            root.allocateNew();
            for (int i = 0; i < ROWS; i++) {
                set(root, i, t.value().at(0, i));
                ((BigIntVector) root.getVector("v")).setSafe(i, i);
            }
            root.setRowCount(ROWS);
            SmallPages.write(root, 16 * 1024, 1024, s3, table);
        }
        for (int f = 1; f <= 4; f++) {
            int file = f;
            IntFunction<Object> keys = f == 3 ? i -> t.value().at(file, i % (ROWS / 3)) : i -> t.value().at(file, i);
            Object[] rows = new Object[ROWS];
            for (int i = 0; i < ROWS; i++) {
                rows[i] = keys.apply(i);
            }
            String name = "part-" + f + ".parquet";
            mem.put(bucket, "t/" + name, javaFile(t, f, f <= 2 ? WriterVersion.PARQUET_1_0 : WriterVersion.PARQUET_2_0, keys));
            written.put("t/" + name, rows);
        }
        // the input: every 29th distinct non-null key of the files (the wrangler file's rows are file 0's keys), and keys
        // no file holds; numbered in this order, as the input's KeyIndex numbers them
        Map<Object, Integer> input = new LinkedHashMap<>();
        int seen = 0;
        for (int f = 0; f <= 4; f++) {
            for (int i = 0; i < ROWS; i++) {
                Object k = f == 0 ? t.value().at(0, i) : written.get("t/part-" + f + ".parquet")[i];
                if (k != null && !input.containsKey(comparable(k)) && seen++ % 29 == 0) {
                    input.put(comparable(k), input.size());
                }
            }
        }
        int absent = ROWS - 1;
        while (t.value().at(9, absent) == null) {
            absent--;
        }
        input.put(comparable(t.value().at(9, absent)), input.size()); // of no file
        Random rnd = new Random(35);
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot in = VectorSchemaRoot.create(new Schema(List.of(
                new Field("id", FieldType.nullable(t.arrow()), null), new Field("v", FieldType.notNullable(new ArrowType.Int(64, true)), null))), a)) {
            in.allocateNew();
            int i = 0;
            for (Object k : input.keySet()) {
                set(in, i, k instanceof String s && t.arrow() instanceof ArrowType.Binary ? s.getBytes(StandardCharsets.UTF_8) : k);
                ((BigIntVector) in.getVector("v")).setSafe(i++, rnd.nextLong());
            }
            in.setRowCount(i);

            MergePlan vectors = plan(s3, table, in, a, false);
            MergePlan pages = plan(s3, table, in, a, true);

            // the files of the table, and which of them the scan reads in pages: all but the V2 file of delta pages
            List<String> files = vectors.scanned.stream().map(TableFiles.DataFile::key).toList();
            assertThat(files).hasSize(5).containsAll(written.keySet());
            assertThat(pages.scanned.stream().map(TableFiles.DataFile::key).toList()).isEqualTo(files);
            List<String> byPages = new ArrayList<>();
            boolean dictionary = false;
            boolean plain = false;
            boolean v2 = false;
            for (String key : files) {
                ParquetMetadata footer = pages.footers.get(key);
                if (ColumnValues.scannable(footer, "id", t.arrow())) {
                    byPages.add(key);
                    for (BlockMetaData b : footer.getBlocks()) {
                        ColumnChunkMetaData c = b.getColumns().get(0);
                        EncodingStats stats = c.getEncodingStats();
                        dictionary |= stats.hasDictionaryEncodedPages();
                        plain |= stats.hasNonDictionaryEncodedPages();
                        v2 |= stats.usesV2Pages();
                    }
                    if (!key.equals("t/part-3.parquet")) { // dictionary ids only: a small file
                        assertThat(footer.getBlocks().size()).as(key + "'s row groups").isGreaterThan(1);
                    }
                }
            }
            assertThat(byPages).as("the files read in pages").hasSize(4).doesNotContain("t/part-4.parquet");
            assertThat(dictionary && plain && v2).as("dictionary pages, plain pages and data pages V2 among them").isTrue();

            // the same findings both ways, and the rows the test wrote
            long matched = 0;
            for (TableFiles.DataFile f : pages.scanned) {
                long[] got = pages.matches(f);
                assertThat(got).as(f.key()).isEqualTo(vectors.matches(f));
                Object[] rows = written.get(f.key());
                if (rows != null) {
                    List<Long> expected = new ArrayList<>();
                    for (int r = 0; r < ROWS; r++) {
                        Integer k = rows[r] == null ? null : input.get(comparable(rows[r]));
                        if (k != null) {
                            expected.add((long) r << 32 | k);
                        }
                    }
                    assertThat(got == null ? List.of() : Arrays.stream(got).boxed().toList()).as(f.key()).isEqualTo(expected);
                }
                matched += got == null ? 0 : got.length;
            }
            assertThat(matched).isGreaterThan(ROWS / 10);
            assertThat(pages.updated).isEqualTo(vectors.updated);
            assertThat(pages.updated.cardinality()).isEqualTo(input.size() - 1);
            assertThat(pages.inserted).isEqualTo(vectors.inserted).isEqualTo(1);
            assertThat(pages.rewrite).isEqualTo(vectors.rewrite).hasSize(5);
        }
    }

    private static void set(VectorSchemaRoot root, int i, Object value) {
        var v = root.getVector("id");
        if (value == null) {
            v.setNull(i);
        } else if (v instanceof VarCharVector s) {
            s.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof VarBinaryVector b) {
            b.setSafe(i, (byte[]) value);
        } else if (v instanceof BigIntVector l) {
            l.setSafe(i, (Long) value);
        } else {
            ((IntVector) v).setSafe(i, (Integer) value);
        }
    }

    @Test
    void aKeyOfSeveralColumnsOrAnotherTypeIsNotLookedUpInPages() {
        KeyIndex two = new KeyIndex(List.of(ArrowType.Utf8.INSTANCE, new ArrowType.Int(64, true)), b -> List.of());
        KeyIndex date = new KeyIndex(List.of(new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY)), b -> List.of());
        KeyIndex floats = new KeyIndex(List.of(new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)),
                b -> List.of());
        assertThat(two.byPages()).isFalse();
        assertThat(date.byPages()).isFalse();
        assertThat(floats.byPages()).isFalse();
        assertThat(new KeyIndex(List.of(ArrowType.Utf8.INSTANCE), b -> List.of()).byPages()).isTrue();
    }

    /** Writes row i's key ({@code keys}) and {@code v = i} for each Integer i it is given. */
    private static final class RowsWriter extends org.apache.parquet.hadoop.ParquetWriter.Builder<Integer, RowsWriter> {
        private final MessageType schema;
        private final IntFunction<Object> keys;

        RowsWriter(org.apache.parquet.io.OutputFile file, MessageType schema, IntFunction<Object> keys) {
            super(file);
            this.schema = schema;
            this.keys = keys;
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
                    Object k = keys.apply(row);
                    if (k != null) {
                        out.startField("id", 0);
                        if (k instanceof Long l) {
                            out.addLong(l);
                        } else if (k instanceof Integer n) {
                            out.addInteger(n);
                        } else if (k instanceof String s) {
                            out.addBinary(org.apache.parquet.io.api.Binary.fromString(s));
                        } else {
                            out.addBinary(org.apache.parquet.io.api.Binary.fromConstantByteArray((byte[]) k));
                        }
                        out.endField("id", 0);
                    }
                    out.startField("v", 1);
                    out.addLong(row);
                    out.endField("v", 1);
                    out.endMessage();
                }
            };
        }
    }
}
