package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.junit.jupiter.api.Test;

/** FullBatches' copy of validity and boolean bits between batches, at every alignment, against a bit-by-bit copy. */
class FullBatchesTest {
    @Test
    void bitsAreCopiedAtEveryAlignmentAndLengthIntoZeroedBits() {
        Random random = new Random(26);
        try (BufferAllocator a = new RootAllocator(); ArrowBuf src = a.buffer(64); ArrowBuf dst = a.buffer(128)) {
            for (int round = 0; round < 2000; round++) {
                for (int i = 0; i < 64; i++) {
                    src.setByte(i, random.nextInt(256));
                }
                dst.setZero(0, dst.capacity());
                int from = random.nextInt(200);
                int to = random.nextInt(200);
                int n = random.nextInt(512 - from);
                // what the destination held before the copy, bits set before `to` only (as an earlier range leaves them)
                for (int i = 0; i < to; i++) {
                    if (random.nextBoolean()) {
                        BitVectorHelper.setBit(dst, i);
                    }
                }
                boolean[] before = new boolean[1024];
                for (int i = 0; i < 1024; i++) {
                    before[i] = BitVectorHelper.get(dst, i) != 0;
                }
                FullBatches.copyBits(src, from, dst, to, n);
                for (int i = 0; i < 1024; i++) {
                    boolean want = i >= to && i < to + n ? BitVectorHelper.get(src, from + i - to) != 0 : before[i];
                    assertThat(BitVectorHelper.get(dst, i) != 0).as("round %d: bit %d after copying %d bits from %d to %d", round, i, n, from, to)
                            .isEqualTo(want);
                }
            }
        }
    }
}
