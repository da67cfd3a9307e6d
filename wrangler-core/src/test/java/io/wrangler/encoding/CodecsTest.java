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
        for (CompressionCodecName codec : new CompressionCodecName[] {CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD,
            CompressionCodecName.LZ4_RAW}) {
            byte[] compressed = codecs.getCompressor(codec).compress(BytesInput.from(plain)).toByteArray();
            assertThatThrownBy(() -> Codecs.pageDecompressor(codec).decompress(compressed, 0, compressed.length, plain.length + 10))
                    .as(codec.name()).isInstanceOf(IOException.class);
        }
    }
}
