package io.wrangler.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

/**
 * Every codec wrangler writes decompresses a page from where it lies inside a larger buffer (the reader's window of a
 * column chunk) into an array of its own, and refuses a page whose header announces another size.
 */
class CodecsTest {
    private static final CompressionCodecName[] CODECS = {CompressionCodecName.UNCOMPRESSED, CompressionCodecName.SNAPPY,
        CompressionCodecName.ZSTD, CompressionCodecName.GZIP, CompressionCodecName.LZ4_RAW};

    private static byte[] page() {
        byte[] b = new byte[70_000];
        Random r = new Random(7);
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i % 97 < 60 ? i % 13 : r.nextInt()); // half repetitive, half noise
        }
        return b;
    }

    @Test
    void aPageInsideALargerBufferDecompressesToItsBytesInAnArrayOfItsOwn() throws IOException {
        byte[] plain = page();
        Codecs codecs = new Codecs();
        for (CompressionCodecName codec : CODECS) {
            byte[] compressed = codecs.getCompressor(codec).compress(BytesInput.from(plain)).toByteArray();
            byte[] window = new byte[compressed.length + 300];
            Arrays.fill(window, (byte) 0x5A);
            System.arraycopy(compressed, 0, window, 123, compressed.length);
            byte[] out = Codecs.pageDecompressor(codec).decompress(window, 123, compressed.length, plain.length);
            assertThat(out).as(codec.name()).isEqualTo(plain).isNotSameAs(window);
            // the BytesInput form parquet-java calls gives the same bytes
            assertThat(codecs.getDecompressor(codec).decompress(BytesInput.from(compressed), plain.length).toByteArray())
                    .as(codec.name()).isEqualTo(plain);
        }
    }

    @Test
    void aPageThatDecompressesToAnotherSizeThanItsHeaderSaysIsRefused() throws IOException {
        byte[] plain = page();
        Codecs codecs = new Codecs();
        for (CompressionCodecName codec : CODECS) {
            byte[] compressed = codecs.getCompressor(codec).compress(BytesInput.from(plain)).toByteArray();
            for (int size : new int[] {plain.length + 10, plain.length - 10}) {
                assertThatThrownBy(() -> Codecs.pageDecompressor(codec).decompress(compressed, 0, compressed.length, size))
                        .as(codec + " to " + size).isInstanceOf(IOException.class).hasMessageContaining(String.valueOf(size));
            }
        }
    }

    /**
     * The reader decompresses every data page of a column chunk into one array: a page shorter than the one before
     * fills the start of it with exactly its own bytes, and a page that announces fewer bytes than it holds is refused
     * without writing past what it announced (the bytes after stay as they were).
     */
    @Test
    void pagesDecompressIntoOneReusedArrayAndNeverPastTheirAnnouncedSize() throws IOException {
        byte[] big = page();
        byte[] small = Arrays.copyOfRange(page(), 500, 20_500);
        small[0] ^= 0x33;
        Codecs codecs = new Codecs();
        for (CompressionCodecName codec : CODECS) {
            Codecs.PageDecompressor d = Codecs.pageDecompressor(codec);
            byte[] bigC = codecs.getCompressor(codec).compress(BytesInput.from(big)).toByteArray();
            byte[] smallC = codecs.getCompressor(codec).compress(BytesInput.from(small)).toByteArray();
            byte[] reused = new byte[big.length + 64];
            d.decompress(bigC, 0, bigC.length, reused, big.length);
            assertThat(Arrays.copyOf(reused, big.length)).as(codec.name()).isEqualTo(big);
            d.decompress(smallC, 0, smallC.length, reused, small.length);
            assertThat(Arrays.copyOf(reused, small.length)).as(codec.name()).isEqualTo(small);

            byte[] guard = new byte[big.length];
            Arrays.fill(guard, (byte) 0x5A);
            int announced = small.length - 1000;
            assertThatThrownBy(() -> d.decompress(smallC, 0, smallC.length, guard, announced)).as(codec.name())
                    .isInstanceOf(IOException.class);
            for (int i = announced; i < guard.length; i++) {
                if (guard[i] != 0x5A) {
                    throw new AssertionError(codec + " wrote byte " + i + " past the " + announced + " bytes the page announced");
                }
            }
        }
    }

    /**
     * Sizes no array holds are refused before a codec runs. snappy-java's native decoder writes as many bytes as the
     * page's own preamble says, whatever the array: a page whose preamble and header both say -5 (the preamble's
     * 0xFFFFFFFB read back as an int) or more than the array would otherwise write past it into the heap.
     */
    @Test
    void negativeSizesAndSizesLongerThanTheArrayAreRefusedBeforeAnyCodecRuns() throws IOException {
        byte[] page = new byte[5 + 2 + 256];
        byte[] preamble = {(byte) 0xFB, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F};
        System.arraycopy(preamble, 0, page, 0, 5);
        page[5] = (byte) 0xF0; // a literal whose length - 1 follows in one byte
        page[6] = (byte) 0xFF; // 256 bytes
        byte[] out = new byte[16];
        assertThatThrownBy(() -> Codecs.pageDecompressor(CompressionCodecName.SNAPPY).decompress(page, 0, page.length, out, -5))
                .isInstanceOf(IOException.class).hasMessageContaining("negative");
        byte[] plain = new byte[300];
        Arrays.fill(plain, (byte) 7);
        for (CompressionCodecName codec : CODECS) {
            byte[] c = new Codecs().getCompressor(codec).compress(BytesInput.from(plain)).toByteArray();
            assertThatThrownBy(() -> Codecs.pageDecompressor(codec).decompress(c, 0, c.length, out, 300)).as(codec.name())
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> Codecs.pageDecompressor(codec).decompress(c, 0, c.length, -1)).as(codec.name())
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> Codecs.pageDecompressor(codec).decompress(c, 5, c.length, new byte[300], 300)).as(codec.name())
                    .isInstanceOf(IOException.class).hasMessageContaining("not inside");
        }
        // an uncompressed page stating 2 GiB is refused without an array of that size being made
        assertThatThrownBy(() -> Codecs.pageDecompressor(CompressionCodecName.UNCOMPRESSED).decompress(plain, 0, 10, Integer.MAX_VALUE - 8))
                .isInstanceOf(IOException.class);
    }
}
