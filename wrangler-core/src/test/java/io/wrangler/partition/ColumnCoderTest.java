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
                for (int i = 0; i < rows.length; i++) {
                    if (rows[i] == null) {
                        v.setNull(i);
                    } else {
                        v.setSafe(i, rows[i].getBytes(StandardCharsets.UTF_8));
                    }
                }
                v.setValueCount(rows.length);
                int[] out = new int[rows.length];
                coder.code(v, rows.length, out);
                for (int i = 0; i < rows.length; i++) {
                    assertThat(coder.text(out[i])).as("row %d", i).isEqualTo(rows[i]);
                }
                assertThat(ColumnCoder.oneValue(v, rows.length)).isEqualTo(batches.indexOf(rows) < 2);
            }
        }
    }

    private static String[] filled(String value, int n) {
        String[] rows = new String[n];
        Arrays.fill(rows, value);
        return rows;
    }
}
