package io.wrangler.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/**
 * A batch whose every row holds one string partition value is coded at once (a merge's rows of one rewritten file):
 * each row still gets the code of its own value, whatever row differs, in whichever byte.
 */
class ColumnCoderTest {
    @Test
    void aBatchOfOneValueIsCodedAtOnceAndEveryOtherBatchRowByRow() {
        String day = "2026-12-07"; // ten bytes: a long value; "DE": a short one
        List<String[]> batches = new ArrayList<>();
        batches.add(filled(day, 1000));
        batches.add(filled("DE", 1000));
        for (int at : new int[] {1, 500, 999}) {
            for (int b : new int[] {0, 9}) { // the first byte, the last
                String[] rows = filled(day, 1000);
                char[] c = day.toCharArray();
                c[b] = 'x';
                rows[at] = new String(c);
                batches.add(rows);
            }
        }
        String[] longer = filled(day, 1000);
        longer[999] = day + "0";
        batches.add(longer);
        String[] withNull = filled(day, 1000);
        withNull[700] = null;
        batches.add(withNull);
        try (BufferAllocator a = new RootAllocator(); VarCharVector v = new VarCharVector("dt", a)) {
            ColumnCoder coder = new ColumnCoder();
            for (String[] rows : batches) {
                v.allocateNew();
                fill(v, rows);
                int[] out = new int[rows.length];
                coder.code(v, rows.length, out);
                for (int i = 0; i < rows.length; i++) {
                    assertThat(coder.text(out[i])).as("row %d", i).isEqualTo(rows[i]);
                }
                assertThat(ColumnCoder.oneValue(v, rows.length)).isEqualTo(batches.indexOf(rows) < 2);
            }
        }
    }

    @Test
    void aBatchOfOneLengthIsCodedAtOnceOnlyWhenEveryRowHoldsTheValue() {
        // values of one length that differ in one byte of a two-byte character (é and è share their first byte), a null
        // row whose offsets still span the value's bytes (set, then nulled), a slice not at the vector's start, stale
        // bytes of a longer batch past the valid range, empty strings, one row
        try (BufferAllocator a = new RootAllocator(); VarCharVector v = new VarCharVector("p", a); VarCharVector w = new VarCharVector("p", a)) {
            ColumnCoder coder = new ColumnCoder();
            String[] accents = filled("caf\u00e9", 64);
            accents[37] = "caf\u00e8";
            check(coder, v, accents, false);
            String[] mid = filled("ab\u00e9cd\u00e9ef", 9);
            mid[8] = "ab\u00e9cd\u00e8ef";
            check(coder, v, mid, false);

            // a null row whose offsets step by the value's length and whose bytes repeat it: still the default partition
            v.allocateNew();
            for (int i = 0; i < 5; i++) {
                v.setSafe(i, "2026-12-07".getBytes(StandardCharsets.UTF_8));
            }
            v.setNull(3);
            v.setValueCount(5);
            assertThat(ColumnCoder.oneValue(v, 5)).isFalse();
            int[] out = new int[5];
            coder.code(v, 5, out);
            assertThat(Arrays.stream(out).mapToObj(coder::text).toList())
                    .containsExactly("2026-12-07", "2026-12-07", "2026-12-07", null, "2026-12-07");

            // a slice from row 3: the rows before it differ, the sliced ones hold one value; a slice over a differing row
            String[] whole = filled("2026-12-08", 10);
            whole[0] = "2026-12-09";
            whole[9] = "2026-12-0x";
            fill(v, whole);
            v.splitAndTransferTo(3, 6, w);
            assertThat(ColumnCoder.oneValue(w, 6)).isTrue();
            out = new int[6];
            coder.code(w, 6, out);
            assertThat(Arrays.stream(out).mapToObj(coder::text).distinct().toList()).containsExactly("2026-12-08");
            fill(v, whole);
            v.splitAndTransferTo(3, 7, w);
            assertThat(ColumnCoder.oneValue(w, 7)).isFalse();
            out = new int[7];
            coder.code(w, 7, out);
            assertThat(coder.text(out[6])).isEqualTo("2026-12-0x");
            assertThat(coder.text(out[5])).isEqualTo("2026-12-08");

            // the vector reused: its bytes past the new, shorter batch still hold the old batch's (another value)
            fill(v, filled("2026-12-10", 100));
            v.reset();
            String[] shorter = filled("2026-12-11", 4);
            check(coder, v, shorter, true);
            String[] lastDiffers = filled("2026-12-11", 4);
            lastDiffers[3] = "2026-12-10"; // the old batch's value, the bytes already there
            check(coder, v, lastDiffers, false);

            check(coder, v, filled("", 5), false); // empty strings: the default partition, as nulls
            check(coder, v, new String[] {"", null, ""}, false);
            check(coder, v, filled("2026-12-12", 1), false); // one row: coded as such
            check(coder, v, filled("DE", 3), true);
            String[] shortOther = filled("DE", 3);
            shortOther[1] = "DF";
            check(coder, v, shortOther, false);
        }
    }

    /** Codes {@code rows} and checks each row's text ("" is the default partition, as null) and whether it was one value. */
    private static void check(ColumnCoder coder, VarCharVector v, String[] rows, boolean one) {
        fill(v, rows);
        assertThat(ColumnCoder.oneValue(v, rows.length)).as("one value: %s", Arrays.asList(rows).subList(0, Math.min(3, rows.length)))
                .isEqualTo(one);
        int[] out = new int[rows.length];
        coder.code(v, rows.length, out);
        for (int i = 0; i < rows.length; i++) {
            assertThat(coder.text(out[i])).as("row %d", i).isEqualTo(rows[i] == null || rows[i].isEmpty() ? null : rows[i]);
        }
    }

    private static void fill(VarCharVector v, String[] rows) {
        if (v.getLastSet() >= 0 || v.getValueCapacity() == 0) {
            v.reset();
        }
        if (v.getValueCapacity() == 0) {
            v.allocateNew();
        }
        for (int i = 0; i < rows.length; i++) {
            if (rows[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, rows[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(rows.length);
    }

    private static String[] filled(String value, int n) {
        String[] rows = new String[n];
        Arrays.fill(rows, value);
        return rows;
    }
}
