package io.wrangler.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

/**
 * The merge's key numbering: equal keys get one number whether compared in their bytes or, for other types and for rows
 * read into another type than the input's, as Dedup's values; nulls and unknown keys have none.
 */
class KeyIndexTest {
    @Test
    void twoColumnKeysAreNumberedByTheirBytesAndFoundInAnotherBatch() {
        try (BufferAllocator a = new RootAllocator();
             VarCharVector s = new VarCharVector("s", a); BigIntVector n = new BigIntVector("n", a);
             VarCharVector fs = new VarCharVector("s", a); BigIntVector fn = new BigIntVector("n", a)) {
            text(s, "a", "ab", "a", "", "ab", null);
            longs(n, 1, 1, 1, 1, 2, 3);
            List<FieldVector> in = List.of(s, n);
            KeyIndex index = new KeyIndex(List.of(ArrowType.Utf8.INSTANCE, new ArrowType.Int(64, true)), b -> in);
            assertThat(index.add(in, 0, 0)).isEqualTo(0);
            assertThat(index.add(in, 0, 1)).isEqualTo(1);
            assertThat(index.add(in, 0, 2)).isEqualTo(0); // ("a", 1) again
            assertThat(index.add(in, 0, 3)).isEqualTo(2); // ("", 1): the empty string is a value
            assertThat(index.add(in, 0, 4)).isEqualTo(3); // ("ab", 2): another key than ("ab", 1)
            assertThat(index.add(in, 0, 5)).isEqualTo(-1); // a null string
            assertThat(index.size()).isEqualTo(4);
            assertThat(index.first(0)).isEqualTo(0L);
            // a table file's batch: other vectors, same types
            text(fs, "ab", "x", "a", "", "ab", "a");
            longs(fn, 2, 1, 1, 1, 1, 2);
            List<FieldVector> file = List.of(fs, fn);
            assertThat(List.of(index.find(file, 0), index.find(file, 1), index.find(file, 2), index.find(file, 3), index.find(file, 4),
                    index.find(file, 5))).containsExactly(3, -1, 0, 2, 1, -1);
            // a thread's own probe (the merge's scan threads) finds the same numbers
            KeyIndex.Probe probe = index.probe();
            assertThat(List.of(index.find(file, 0, probe), index.find(file, 1, probe), index.find(file, 2, probe), index.find(file, 3, probe),
                    index.find(file, 4, probe), index.find(file, 5, probe))).containsExactly(3, -1, 0, 2, 1, -1);
        }
    }

    @Test
    void manyKeysSurviveTheTableGrowing() {
        try (BufferAllocator a = new RootAllocator(); VarCharVector s = new VarCharVector("s", a)) {
            String[] values = new String[20_000];
            for (int i = 0; i < values.length; i++) {
                values[i] = "user-" + i * 7919L;
            }
            text(s, values);
            List<FieldVector> in = List.of(s);
            KeyIndex index = new KeyIndex(List.of(ArrowType.Utf8.INSTANCE), b -> in);
            for (int i = 0; i < values.length; i++) {
                assertThat(index.add(in, 0, i)).isEqualTo(i);
            }
            KeyIndex.Probe probe = index.probe();
            for (int i = 0; i < values.length; i++) {
                assertThat(index.find(in, i)).isEqualTo(i);
                assertThat(index.find(in, i, probe)).isEqualTo(i);
            }
            try (VarCharVector other = new VarCharVector("s", a)) {
                text(other, "user-1", "user-7918", "nobody", "user-" + 20_000L * 7919);
                for (int i = 0; i < 4; i++) {
                    assertThat(index.find(List.of(other), i, probe)).isEqualTo(-1); // not an input key, past the bits and the table alike
                }
            }
        }
    }

    @Test
    void floatKeysAndRowsOfAnotherTypeAreComparedAsValues() {
        try (BufferAllocator a = new RootAllocator();
             Float8Vector f = new Float8Vector("f", a); Float8Vector g = new Float8Vector("f", a);
             VarCharVector s = new VarCharVector("s", a); LargeVarCharVector large = new LargeVarCharVector("s", a)) {
            f.allocateNew(3);
            f.set(0, -0.0);
            f.set(1, Double.NaN);
            f.set(2, 1.5);
            f.setValueCount(3);
            List<FieldVector> in = List.of(f);
            KeyIndex floats = new KeyIndex(List.of(f.getField().getType()), b -> in);
            assertThat(List.of(floats.add(in, 0, 0), floats.add(in, 0, 1), floats.add(in, 0, 2))).containsExactly(0, 1, 2);
            g.allocateNew(3);
            g.set(0, 1.5);
            g.set(1, 0.0); // equals -0.0, as DuckDB joins them
            g.set(2, Double.NaN);
            g.setValueCount(3);
            assertThat(List.of(floats.find(List.of(g), 0), floats.find(List.of(g), 1), floats.find(List.of(g), 2))).containsExactly(2, 0, 1);

            text(s, "k1", "k2");
            List<FieldVector> strings = List.of(s);
            KeyIndex index = new KeyIndex(List.of(ArrowType.Utf8.INSTANCE), b -> strings);
            index.add(strings, 0, 0);
            index.add(strings, 0, 1);
            large.allocateNew();
            large.setSafe(0, "k2".getBytes(StandardCharsets.UTF_8));
            large.setSafe(1, "k3".getBytes(StandardCharsets.UTF_8));
            large.setValueCount(2);
            // a file read into another type than the input's: found by value, through the map made on first need
            assertThat(index.find(List.of(large), 0)).isEqualTo(1);
            assertThat(index.find(List.of(large), 1)).isEqualTo(-1);
            assertThat(index.find(strings, 0)).isEqualTo(0);
        }
    }

    @Test
    void aBoundBatchFindsWhatEachRowsLookupFinds() {
        try (BufferAllocator a = new RootAllocator();
             VarCharVector s = new VarCharVector("s", a); BigIntVector n = new BigIntVector("n", a);
             VarCharVector fs = new VarCharVector("s", a); BigIntVector fn = new BigIntVector("n", a);
             LargeVarCharVector large = new LargeVarCharVector("s", a)) {
            text(s, "a", "ab", "", "a long key of more than eight bytes");
            longs(n, 1, 2, 3, 4);
            List<FieldVector> in = List.of(s, n);
            KeyIndex index = new KeyIndex(List.of(ArrowType.Utf8.INSTANCE, new ArrowType.Int(64, true)), b -> in);
            for (int i = 0; i < 4; i++) {
                index.add(in, 0, i);
            }
            text(fs, "a long key of more than eight bytes", null, "ab", "", "a", "ab");
            longs(fn, 4, 1, 2, 3, 2, 2);
            fn.setNull(5);
            List<FieldVector> file = List.of(fs, fn);
            KeyIndex.Probe probe = index.probe();
            KeyIndex.Bound bound = index.bind(file, probe);
            List<Integer> rows = new java.util.ArrayList<>();
            List<Integer> bound1 = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                rows.add(index.find(file, i, probe));
                bound1.add(bound.find(i));
            }
            assertThat(rows).containsExactly(3, -1, 1, 2, -1, -1); // a null string, ("a", 2) no key, a null number
            assertThat(bound1).isEqualTo(rows);
            int[] all = new int[6];
            bound.findAll(6, all); // two key columns: row by row
            assertThat(all).containsExactly(3, -1, 1, 2, -1, -1);
            // rows of another type than the input's: the bound batch looks them up as values
            text(s, "k");
            KeyIndex strings = new KeyIndex(List.of(ArrowType.Utf8.INSTANCE), b -> List.of(s));
            strings.add(List.of(s), 0, 0);
            large.allocateNew();
            large.setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
            large.setSafe(1, "k".getBytes(StandardCharsets.UTF_8));
            large.setValueCount(2);
            KeyIndex.Bound other = strings.bind(List.of(large), strings.probe());
            assertThat(List.of(other.find(0), other.find(1))).containsExactly(-1, 0);
        }
    }

    @Test
    void aBoundStringKeyIsHashedWhereItIsAsTheScratchHashesIt() {
        // one string key column: the bound batch hashes each value in the vector's bytes (every length, 0 to 40, so the
        // length's bytes, whole words and the tail all count), a row lookup in the scratch: both find the same keys
        java.util.Random random = new java.util.Random(8);
        String[] keys = new String[600];
        for (int i = 0; i < keys.length; i++) {
            StringBuilder b = new StringBuilder();
            int n = i % 41;
            for (int c = 0; c < n; c++) {
                b.append((char) (random.nextBoolean() ? 'a' + random.nextInt(26) : 0x80 + random.nextInt(0x700)));
            }
            keys[i] = b.toString();
        }
        try (BufferAllocator a = new RootAllocator(); VarCharVector in = new VarCharVector("k", a); VarCharVector file = new VarCharVector("k", a)) {
            text(in, java.util.Arrays.copyOf(keys, 300)); // half the keys are the input's
            KeyIndex index = new KeyIndex(List.of(ArrowType.Utf8.INSTANCE), b -> List.of(in));
            for (int i = 0; i < 300; i++) {
                index.add(List.of(in), 0, i);
            }
            String[] rows = new String[keys.length + 1];
            for (int i = 0; i < keys.length; i++) {
                rows[i] = keys[keys.length - 1 - i];
            }
            text(file, rows); // and a null last
            KeyIndex.Bound bound = index.bind(List.of(file), index.probe());
            KeyIndex.Probe probe = index.probe();
            int found = 0;
            for (int i = 0; i < rows.length; i++) {
                int want = index.find(List.of(file), i, probe);
                assertThat(bound.find(i)).as("row %d (%s)", i, rows[i]).isEqualTo(want);
                found += want >= 0 ? 1 : 0;
            }
            int[] all = new int[rows.length + 5];
            index.bind(List.of(file), index.probe()).findAll(rows.length, all); // the two passes: the same numbers
            for (int i = 0; i < rows.length; i++) {
                assertThat(all[i]).as("row %d (%s) of findAll", i, rows[i]).isEqualTo(index.find(List.of(file), i, probe));
            }
            java.util.Set<String> input = new java.util.HashSet<>(List.of(keys).subList(0, 300));
            assertThat(found).isEqualTo((int) List.of(keys).stream().filter(input::contains).count()).isGreaterThan(300);
        }
    }

    @Test
    void aBoundStringOrBinaryKeyFindsTheInputsKeysByAMapsAnswerNotJustTheScratchs() {
        // every length 0 to 40 (the length's word, whole words, the tail), and for each input key the keys that differ
        // from it in one byte only (its first, a middle one, its last) or by one byte more or less; nulls among the file's
        // rows (the bits sparse); checked against a HashMap of the input's keys, not against the index's own lookup
        java.util.Random random = new java.util.Random(88);
        List<byte[]> inputKeys = new java.util.ArrayList<>();
        for (int n = 0; n <= 40; n++) {
            byte[] k = new byte[n];
            for (int c = 0; c < n; c++) {
                k[c] = (byte) (random.nextBoolean() ? 'a' + random.nextInt(26) : 0x80 | random.nextInt(0x80));
            }
            inputKeys.add(k);
        }
        java.util.Map<java.nio.ByteBuffer, Integer> want = new java.util.HashMap<>();
        List<byte[]> fileRows = new java.util.ArrayList<>();
        for (byte[] k : inputKeys) {
            fileRows.add(k);
            for (int at : new int[] {0, k.length / 2, k.length - 1}) {
                if (at >= 0 && at < k.length) {
                    byte[] x = k.clone();
                    x[at] ^= 1;
                    fileRows.add(x);
                }
            }
            fileRows.add(java.util.Arrays.copyOf(k, k.length + 1)); // a zero byte more
            if (k.length > 0) {
                fileRows.add(java.util.Arrays.copyOf(k, k.length - 1));
            }
            fileRows.add(null);
        }
        for (boolean binary : new boolean[] {false, true}) {
            try (BufferAllocator a = new RootAllocator();
                 org.apache.arrow.vector.BaseVariableWidthVector in = binary ? new org.apache.arrow.vector.VarBinaryVector("k", a) : new VarCharVector("k", a);
                 org.apache.arrow.vector.BaseVariableWidthVector file = binary ? new org.apache.arrow.vector.VarBinaryVector("k", a) : new VarCharVector("k", a)) {
                bytes(in, inputKeys);
                KeyIndex index = new KeyIndex(List.of(binary ? ArrowType.Binary.INSTANCE : ArrowType.Utf8.INSTANCE), b -> List.of(in));
                want.clear();
                for (int i = 0; i < inputKeys.size(); i++) {
                    int id = index.add(List.of(in), 0, i);
                    want.putIfAbsent(java.nio.ByteBuffer.wrap(inputKeys.get(i)), id);
                }
                assertThat(index.size()).isEqualTo(inputKeys.size());
                bytes(file, fileRows);
                KeyIndex.Bound bound = index.bind(List.of(file), index.probe());
                int[] all = new int[fileRows.size()];
                bound.findAll(fileRows.size(), all);
                int found = 0;
                for (int i = 0; i < fileRows.size(); i++) {
                    byte[] r = fileRows.get(i);
                    int expected = r == null ? -1 : want.getOrDefault(java.nio.ByteBuffer.wrap(r), -1);
                    assertThat(all[i]).as("%s row %d %s of findAll", binary ? "binary" : "string", i, r == null ? null : java.util.Arrays.toString(r))
                            .isEqualTo(expected);
                    assertThat(bound.find(i)).as("row %d of find", i).isEqualTo(expected);
                    found += expected >= 0 ? 1 : 0;
                }
                assertThat(found).isEqualTo(inputKeys.size() + 1); // the empty key is also the key of one byte less its byte
            }
        }
    }

    private static void bytes(org.apache.arrow.vector.BaseVariableWidthVector v, List<byte[]> values) {
        v.allocateNew();
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values.get(i));
            }
        }
        v.setValueCount(values.size());
    }

    static void text(VarCharVector v, String... values) {
        v.allocateNew();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(values.length);
    }

    static void longs(BigIntVector v, long... values) {
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            v.set(i, values[i]);
        }
        v.setValueCount(values.length);
    }
}
