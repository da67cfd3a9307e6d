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
}
