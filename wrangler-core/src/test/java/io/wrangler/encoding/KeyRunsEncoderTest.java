package io.wrangler.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Compression;
import io.wrangler.testkit.DuckReader;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Rows that carry their key ids: the ids become the footer's runs, never a column, with either encoder. */
class KeyRunsEncoderTest {
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theKeyColumnBecomesTheFootersRunsAndTheFileKeepsItsOtherColumns(boolean nested) throws Exception {
        String[] keys = {"k-a-1", "k-a-1", "", "", "k-b-2", "k-a-1"};
        Field id = new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null);
        Field list = new Field("l", FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null)));
        Field key = new Field(KeyRuns.COLUMN, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        List<Field> data = nested ? List.of(id, list) : List.of(id);
        List<Field> all = new ArrayList<>(data);
        all.add(key);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(all), allocator)) {
            root.allocateNew();
            BigIntVector ids = (BigIntVector) root.getVector("id");
            VarCharVector ks = (VarCharVector) root.getVector(KeyRuns.COLUMN);
            for (int i = 0; i < keys.length; i++) {
                ids.setSafe(i, i);
                ks.setSafe(i, keys[i].getBytes(StandardCharsets.UTF_8));
            }
            if (nested) {
                UnionListWriter w = ((ListVector) root.getVector("l")).getWriter();
                for (int i = 0; i < keys.length; i++) {
                    w.setPosition(i);
                    w.startList();
                    w.writeInt(i * 10);
                    w.endList();
                }
            }
            root.setRowCount(keys.length);
            FileEncoder.Settings settings = new FileEncoder.Settings(data, Compression.SNAPPY, false, false, 128L << 20, 1 << 20)
                    .withKeyRuns();
            try (FileEncoder e = FileEncoder.open(settings, out)) {
                // in two calls: a run that spans them is one run
                e.write(root.getFieldVectors(), 0, 3);
                e.write(root.getFieldVectors(), 3, keys.length);
            }
        }
        byte[] file = out.toByteArray();
        assertThat(DuckReader.queryFile(file, "SELECT decode(value) FROM parquet_kv_metadata($file) WHERE decode(key) = 'wrangler.keys'"))
                .containsExactly(List.of("[[\"k-a-1\",2],[\"\",2],[\"k-b-2\",1],[\"k-a-1\",1]]"));
        assertThat(DuckReader.queryFile(file, "SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet($file))"))
                .containsExactlyElementsOf(data.stream().map(f -> List.<Object>of(f.getName())).toList());
        assertThat(DuckReader.queryFile(file, "SELECT sum(id)::BIGINT, count(*) FROM read_parquet($file)")).containsExactly(List.of(15L, 6L));
        assertThat(KeyRuns.parse(KeyRuns.format(List.of(new KeyRuns.Run("k-a-1", 2), new KeyRuns.Run("", 2)))))
                .containsExactly(new KeyRuns.Run("k-a-1", 2), new KeyRuns.Run("", 2));
    }

    @Test
    void keysOfOneLengthThatDifferInOneByteAnywhereAreRunsOfTheirOwn() throws Exception {
        // 21 bytes: two whole words and a tail of five, compared in place; one byte differs in the first word, the second, the last of the tail
        String k = "key-of-21-bytes-abcde";
        String[] keys = {k, k, k.substring(0, 3) + "X" + k.substring(4), k, k.substring(0, 12) + "X" + k.substring(13),
            k.substring(0, 20) + "X", k.substring(0, 20) + "X", k};
        Field id = new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null);
        Field key = new Field(KeyRuns.COLUMN, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(id, key)), allocator)) {
            root.allocateNew();
            for (int i = 0; i < keys.length; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                ((VarCharVector) root.getVector(KeyRuns.COLUMN)).setSafe(i, keys[i].getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(keys.length);
            FileEncoder.Settings settings = new FileEncoder.Settings(List.of(id), Compression.SNAPPY, false, false, 128L << 20, 1 << 20)
                    .withKeyRuns();
            try (FileEncoder e = FileEncoder.open(settings, out)) {
                e.write(root.getFieldVectors(), 0, keys.length);
            }
        }
        assertThat(DuckReader.queryFile(out.toByteArray(), "SELECT decode(value) FROM parquet_kv_metadata($file) WHERE decode(key) = 'wrangler.keys'"))
                .containsExactly(List.of("[[\"" + k + "\",2],[\"" + keys[2] + "\",1],[\"" + k + "\",1],[\"" + keys[4] + "\",1],[\""
                        + keys[5] + "\",2],[\"" + k + "\",1]]"));
    }

    @Test
    void aNullKeyIdIsARunOfItsOwnEvenWhereItsOffsetsSpanItsNeighboursBytes() throws Exception {
        // rows 2 and 3 were set to the key, then nulled: their offsets still step by its length over its bytes; a key of
        // eight bytes (one whole word) and one of three (a tail only); the write in two calls, the second from row 4
        String k = "8-bytes!";
        String[] keys = {k, k, k, k, k, "abc", "abc", null};
        Field id = new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null);
        Field key = new Field(KeyRuns.COLUMN, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(id, key)), allocator)) {
            root.allocateNew();
            VarCharVector ks = (VarCharVector) root.getVector(KeyRuns.COLUMN);
            for (int i = 0; i < keys.length; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                if (keys[i] != null) {
                    ks.setSafe(i, keys[i].getBytes(StandardCharsets.UTF_8));
                }
            }
            ks.setNull(2);
            ks.setNull(3);
            ks.setNull(7);
            root.setRowCount(keys.length);
            FileEncoder.Settings settings = new FileEncoder.Settings(List.of(id), Compression.SNAPPY, false, false, 128L << 20, 1 << 20)
                    .withKeyRuns();
            try (FileEncoder e = FileEncoder.open(settings, out)) {
                e.write(root.getFieldVectors(), 0, 4);
                e.write(root.getFieldVectors(), 4, keys.length);
            }
        }
        // a null id is written as the empty one; the two nulled rows one run, the run of k broken by them
        assertThat(DuckReader.queryFile(out.toByteArray(), "SELECT decode(value) FROM parquet_kv_metadata($file) WHERE decode(key) = 'wrangler.keys'"))
                .containsExactly(List.of("[[\"" + k + "\",2],[\"\",2],[\"" + k + "\",1],[\"abc\",2],[\"\",1]]"));
        assertThat(DuckReader.queryFile(out.toByteArray(), "SELECT sum(id)::BIGINT, count(*) FROM read_parquet($file)"))
                .containsExactly(List.of(28L, 8L));
    }
}
