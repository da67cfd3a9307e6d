package io.wrangler.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.junit.jupiter.api.Test;

/**
 * The digest's paths agree: a batch of every row taken and no null (4- and 8-byte values hashed at once, strings without
 * a validity check) digests as the same values read row by row (a batch with a null, or rows left out).
 */
class DigestTest {
    private static VectorSchemaRoot batch(BufferAllocator a, Long[] longs, Integer[] ints, String[] texts) {
        BigIntVector l = new BigIntVector("l", a);
        IntVector i = new IntVector("i", a);
        VarCharVector t = new VarCharVector("t", a);
        l.allocateNew(longs.length);
        i.allocateNew(ints.length);
        t.allocateNew(texts.length);
        for (int r = 0; r < longs.length; r++) {
            if (longs[r] != null) {
                l.set(r, longs[r]);
            }
            if (ints[r] != null) {
                i.set(r, ints[r]);
            }
            if (texts[r] != null) {
                t.setSafe(r, texts[r].getBytes(StandardCharsets.UTF_8));
            }
        }
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(l, i, t));
        root.setRowCount(longs.length);
        return root;
    }

    @Test
    void aBatchOfNoNullDigestsAsTheSameValuesWithANullOrARowLeftOut() {
        try (BufferAllocator a = new RootAllocator();
             VectorSchemaRoot whole = batch(a, new Long[] {7L, -1L, Long.MIN_VALUE}, new Integer[] {3, -9, Integer.MAX_VALUE},
                     new String[] {"ab", "", "a longer value than eight bytes"});
             VectorSchemaRoot withNull = batch(a, new Long[] {7L, null, -1L, Long.MIN_VALUE}, new Integer[] {3, null, -9, Integer.MAX_VALUE},
                     new String[] {"ab", null, "", "a longer value than eight bytes"});
             VectorSchemaRoot extra = batch(a, new Long[] {7L, -1L, Long.MIN_VALUE, 5L}, new Integer[] {3, -9, Integer.MAX_VALUE, 5},
                     new String[] {"ab", "", "a longer value than eight bytes", "x"})) {
            Digest fast = new Digest();
            fast.add(whole, r -> true);
            Digest nulls = new Digest();
            nulls.add(withNull, r -> true);
            Digest leftOut = new Digest();
            leftOut.add(extra, r -> r < 3);
            assertThat(fast.difference(leftOut)).isNull();
            assertThat(nulls.difference(fast)).isEqualTo("4 rows read, 3 written");
            Digest other = new Digest();
            extra.getVector("l").setNull(3);
            extra.getVector("i").setNull(3);
            ((VarCharVector) extra.getVector("t")).setSafe(3, "y".getBytes(StandardCharsets.UTF_8));
            other.add(extra, r -> r != 1);
            assertThat(fast.difference(other)).isEqualTo("the column 'l' has 3 values read, 2 written");
        }
    }

    @Test
    void theNoNullPathsHashTheValuesAsTheRowByRowPath() {
        try (BufferAllocator a = new RootAllocator();
             VectorSchemaRoot whole = batch(a, new Long[] {1L, 2L}, new Integer[] {1, 2}, new String[] {"a", "b"});
             VectorSchemaRoot changed = batch(a, new Long[] {1L, 3L, 9L}, new Integer[] {1, 2, 9}, new String[] {"a", "b", "z"})) {
            Digest fast = new Digest();
            fast.add(whole, r -> true);
            Digest slow = new Digest();
            slow.add(changed, r -> r < 2);
            assertThat(fast.difference(slow)).isEqualTo("the values of the column 'l' differ (checksum)");
        }
    }

    @Test
    void aStringsLastBytesHashAlikeInsideTheBufferAndAtItsEnd() {
        try (BufferAllocator a = new RootAllocator();
             VectorSchemaRoot inside = batch(a, new Long[] {1L, 2L, 3L}, new Integer[] {1, 2, 3},
                     new String[] {"abc", "0123456789x", "a tail of seven!"});
             VectorSchemaRoot atEnd = batch(a, new Long[] {3L, 2L, 1L}, new Integer[] {3, 2, 1},
                     new String[] {"a tail of seven!", "0123456789x", "abc"});
             VectorSchemaRoot lastByte = batch(a, new Long[] {3L, 2L, 1L}, new Integer[] {3, 2, 1},
                     new String[] {"a tail of seven!", "0123456789x", "abd"})) {
            // "abc" read as eight bytes and masked in the first batch, byte by byte at the end of the second's buffer
            Digest one = new Digest();
            one.add(inside, r -> true);
            Digest two = new Digest();
            two.add(atEnd, r -> true);
            assertThat(one.difference(two)).isNull();
            Digest three = new Digest();
            three.add(lastByte, r -> true);
            assertThat(one.difference(three)).isEqualTo("the values of the column 't' differ (checksum)");
        }
    }

    /** Adds to {@code root} a boolean, a 2-byte and a list column of {@code n} rows, a null at row 1 of each. */
    private static VectorSchemaRoot withMore(BufferAllocator a, VectorSchemaRoot root) {
        int n = root.getRowCount();
        BitVector b = new BitVector("b", a);
        SmallIntVector s = new SmallIntVector("s", a);
        ListVector l = ListVector.empty("list", a);
        b.allocateNew(n);
        s.allocateNew(n);
        UnionListWriter w = l.getWriter();
        for (int r = 0; r < n; r++) {
            w.setPosition(r);
            if (r == 1) {
                b.setNull(r);
                s.setNull(r);
                continue; // the list too: nothing written there
            }
            b.set(r, r % 2);
            s.set(r, 10 * r);
            w.startList();
            w.writeInt(r);
            w.writeInt(-r);
            w.endList();
        }
        b.setValueCount(n);
        s.setValueCount(n);
        l.setValueCount(n);
        List<org.apache.arrow.vector.FieldVector> all = new java.util.ArrayList<>(root.getFieldVectors());
        all.addAll(List.of(b, s, l));
        VectorSchemaRoot more = new VectorSchemaRoot(all);
        more.setRowCount(n);
        return more;
    }

    @Test
    void addAllDigestsAsEveryRowTakenWithAndWithoutNulls() {
        try (BufferAllocator a = new RootAllocator();
             VectorSchemaRoot noNull = withMore(a, batch(a, new Long[] {7L, -1L, Long.MIN_VALUE}, new Integer[] {3, -9, 4},
                     new String[] {"ab", "", "a longer value than eight bytes"}));
             VectorSchemaRoot nulls = withMore(a, batch(a, new Long[] {7L, null, -1L, 5L}, new Integer[] {3, null, -9, 5},
                     new String[] {"ab", null, "a longer value than eight bytes", "seven!!"}))) {
            for (VectorSchemaRoot root : List.of(noNull, nulls)) {
                Digest all = new Digest();
                all.addAll(root);
                Digest taken = new Digest();
                taken.add(root, r -> true);
                assertThat(all.difference(taken)).isNull();
                assertThat(taken.difference(all)).isNull();
            }
            Digest none = new Digest();
            none.addAll(noNull);
            Digest withNulls = new Digest();
            withNulls.addAll(nulls);
            assertThat(none.difference(withNulls)).isEqualTo("3 rows read, 4 written");
            Digest lastRowOut = new Digest();
            lastRowOut.add(nulls, r -> r < 3);
            Digest changed = new Digest();
            nulls.setRowCount(3);
            ((VarCharVector) nulls.getVector("t")).setSafe(2, "a longer value than eight bytez".getBytes(StandardCharsets.UTF_8));
            changed.addAll(nulls);
            assertThat(lastRowOut.difference(changed)).isEqualTo("the values of the column 't' differ (checksum)");
        }
    }
}
