package io.wrangler.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/** Runs of rows copied whole: values, nulls and offsets as a copy value by value gives, the target grown as needed. */
class RunsTest {
    @Test
    void runsOfStringsAndLongsWithNullsAreAppendedAsTheirValues() {
        int n = 5_000;
        try (BufferAllocator a = new RootAllocator();
             VarCharVector s = new VarCharVector("s", a); BigIntVector l = new BigIntVector("l", a);
             VarCharVector ts = new VarCharVector("s", a); BigIntVector tl = new BigIntVector("l", a)) {
            String[] text = new String[n];
            l.allocateNew(n);
            for (int i = 0; i < n; i++) {
                text[i] = i % 7 == 0 ? null : "value-" + "x".repeat(i % 13) + i;
                if (i % 5 == 0) {
                    l.setNull(i);
                } else {
                    l.set(i, i * 1_000_003L);
                }
            }
            l.setValueCount(n);
            KeyIndexTest.text(s, text);
            ts.allocateNew(16, 4); // small: the copies grow it
            tl.allocateNew(4);
            List<Integer> kept = new ArrayList<>();
            int at = 0;
            for (int start = 0; start < n; ) {
                int length = Math.min(1 + start % 37, n - start);
                if (start % 3 != 0) { // every third run left out
                    assertThat(Runs.copy(s, start, length, ts, at)).isTrue();
                    assertThat(Runs.copy(l, start, length, tl, at)).isTrue();
                    for (int j = 0; j < length; j++) {
                        kept.add(start + j);
                    }
                    at += length;
                }
                start += length;
            }
            ts.setValueCount(at);
            tl.setValueCount(at);
            for (int k = 0; k < at; k++) {
                int i = kept.get(k);
                assertThat(ts.getObject(k) == null ? null : ts.getObject(k).toString()).as("string row %d", k).isEqualTo(text[i]);
                assertThat(tl.getObject(k)).as("long row %d", k).isEqualTo(l.getObject(i));
            }
        }
    }

    @Test
    void vectorsOfAnotherTypeOrBitsAreLeftToTheCopyByValue() {
        try (BufferAllocator a = new RootAllocator();
             IntVector i = new IntVector("i", a); BigIntVector l = new BigIntVector("i", a);
             BitVector b = new BitVector("b", a); BitVector tb = new BitVector("b", a)) {
            i.allocateNew(1);
            l.allocateNew(1);
            b.allocateNew(1);
            tb.allocateNew(1);
            assertThat(Runs.copy(i, 0, 1, l, 0)).isFalse();
            assertThat(Runs.copy(b, 0, 1, tb, 0)).isFalse();
        }
    }

    @Test
    void runsCopiedColumnAtOnceHoldWhatTheRunByRunCopyHolds() {
        int n = 3_000;
        try (BufferAllocator a = new RootAllocator();
             VarCharVector s = new VarCharVector("s", a); BigIntVector l = new BigIntVector("l", a); BigIntVector full = new BigIntVector("f", a);
             VarCharVector ts = new VarCharVector("s", a); BigIntVector tl = new BigIntVector("l", a); BigIntVector tf = new BigIntVector("f", a);
             VarCharVector rs = new VarCharVector("s", a); BigIntVector rl = new BigIntVector("l", a); BigIntVector rf = new BigIntVector("f", a)) {
            String[] text = new String[n];
            l.allocateNew(n);
            full.allocateNew(n);
            for (int i = 0; i < n; i++) {
                text[i] = i % 11 == 0 ? null : "v" + "y".repeat(i % 17) + i;
                if (i % 4 == 0) {
                    l.setNull(i);
                } else {
                    l.set(i, -i * 31L);
                }
                full.set(i, i); // no null: its validity set in whole bytes
            }
            l.setValueCount(n);
            full.setValueCount(n);
            KeyIndexTest.text(s, text);
            int[] starts = new int[n];
            int[] lengths = new int[n];
            int runs = 0;
            int at = 0;
            for (int start = 0; start < n; ) {
                int length = Math.min(1 + start % 29, n - start);
                if (start % 5 != 1) { // some runs left out
                    starts[runs] = start;
                    lengths[runs++] = length;
                    assertThat(Runs.copy(s, start, length, rs, at) && Runs.copy(l, start, length, rl, at) && Runs.copy(full, start, length, rf, at))
                            .isTrue();
                    at += length;
                }
                start += length;
            }
            ts.allocateNew(8, 2); // small: grown once
            tl.allocateNew(2);
            tf.allocateNew(2);
            assertThat(Runs.copyRuns(s, starts, lengths, runs, ts) && Runs.copyRuns(l, starts, lengths, runs, tl)
                    && Runs.copyRuns(full, starts, lengths, runs, tf)).isTrue();
            for (org.apache.arrow.vector.FieldVector v : List.of(ts, tl, tf, rs, rl, rf)) {
                v.setValueCount(at);
            }
            for (int k = 0; k < at; k++) {
                assertThat(ts.getObject(k) == null ? null : ts.getObject(k).toString()).as("string row %d", k)
                        .isEqualTo(rs.getObject(k) == null ? null : rs.getObject(k).toString());
                assertThat(tl.getObject(k)).as("long row %d", k).isEqualTo(rl.getObject(k));
                assertThat(tf.getObject(k)).as("full row %d", k).isEqualTo(rf.getObject(k)).isNotNull();
            }
            assertThat(tf.getNullCount()).isZero();
            assertThat(tl.getNullCount()).isEqualTo(rl.getNullCount()).isPositive();
            try (IntVector i = new IntVector("i", a); BigIntVector other = new BigIntVector("i", a)) {
                i.allocateNew(1);
                assertThat(Runs.copyRuns(i, starts, lengths, 1, other)).isFalse(); // another type: left to the copy by value
            }
        }
    }

    @Test
    void textsSetAtOnceHoldWhatSetSafeRowByRowHolds() {
        // a batch's key ids (shared arrays, as a run of one key and stamp shares one) and partition texts (nulls among them)
        byte[] shared = "k\0stamp 2026-12-07T00:00:00Z part-00000.parquet".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (boolean nulls : new boolean[] {false, true}) {
            int n = 2_000;
            byte[][] values = new byte[n][];
            for (int i = 0; i < n; i++) {
                values[i] = nulls && i % 9 == 4 ? null : i % 5 == 0 ? new byte[0] : i % 3 == 0 ? ("v" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8) : shared;
            }
            try (BufferAllocator a = new RootAllocator(); VarCharVector at = new VarCharVector("s", a); VarCharVector by = new VarCharVector("s", a)) {
                at.allocateNew(8, 2); // small: grown once
                by.allocateNew(8, 2);
                assertThat(Runs.texts(at, values)).isTrue();
                for (int i = 0; i < n; i++) {
                    if (values[i] == null) {
                        by.setNull(i);
                    } else {
                        by.setSafe(i, values[i]);
                    }
                }
                at.setValueCount(n);
                by.setValueCount(n);
                assertThat(at.getNullCount()).isEqualTo(by.getNullCount()).isEqualTo(nulls ? 222 : 0);
                for (int i = 0; i < n; i++) {
                    assertThat(at.isNull(i)).as("row %d", i).isEqualTo(by.isNull(i));
                    assertThat(at.get(i)).as("row %d", i).isEqualTo(by.get(i));
                }
                assertThat(Runs.texts(at, values)).as("a vector that holds rows already").isFalse();
            }
        }
    }
}
