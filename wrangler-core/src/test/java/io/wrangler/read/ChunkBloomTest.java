package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * ChunkBloom tells a bloom filter's bitset size from the length the footer records only where it cannot be wrong: for a
 * standard header and a bitset of a power of two bytes it is told exactly; for any other bitset size, and for any header
 * up to 44 bytes other than the standard one (more fields, other encodings), it is not told (the header is then read),
 * never told wrong.
 */
class ChunkBloomTest {
    @Test
    void theBitsetSizeIsToldForTheStandardHeaderOnlyAndNeverWrong() {
        for (int i = 5; i <= 30; i++) {
            int n = 1 << i;
            int header = ChunkBloom.standardHeader(n).length;
            assertThat(header).as("the standard header of %d bytes", n).isBetween(1, 31);
            assertThat(ChunkBloom.numBytesOf(header + n)).as("bitset of %d bytes", n).isEqualTo(n);
        }
        // every bitset of whole blocks up to 1 MiB, behind every header of 0 to 44 bytes: told right or not told
        int told = 0;
        for (int n = 32; n <= 1 << 20; n += 32) {
            int standard = ChunkBloom.standardHeader(n).length;
            for (int header = 0; header <= 44; header++) {
                int got = ChunkBloom.numBytesOf(header + n);
                if (got != -1) {
                    assertThat(got).as("a bitset of %d bytes behind a header of %d", n, header).isEqualTo(n);
                    assertThat(header).isEqualTo(standard);
                    assertThat(Integer.bitCount(n)).isEqualTo(1);
                    told++;
                }
            }
        }
        assertThat(told).as("one a power of two from 32 bytes to 1 MiB").isEqualTo(16);
        assertThat(ChunkBloom.numBytesOf(0)).isEqualTo(-1);
        assertThat(ChunkBloom.numBytesOf(20)).as("shorter than a block").isEqualTo(-1);
    }
}
