package io.wrangler.encoding;

import com.github.luben.zstd.Zstd;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.wrangler.Compression;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Codecs is a Parquet codec factory without Hadoop: snappy-java, zstd-jni, aircompressor's LZ4 (raw block
 * format, Parquet's LZ4_RAW) and java.util.zip's gzip, both ways: the writer compresses with it, the reader
 * ({@code io.wrangler.read}) decompresses. A codec outside these (LZO, Brotli, Hadoop's framed LZ4) is refused with the
 * codec's name.
 */
public final class Codecs implements CompressionCodecFactory {
    private static final int ZSTD_LEVEL = 3;

    public static CompressionCodecName parquetName(Compression c) {
        return switch (c) {
            case SNAPPY -> CompressionCodecName.SNAPPY;
            case ZSTD -> CompressionCodecName.ZSTD;
            case GZIP -> CompressionCodecName.GZIP;
            case LZ4_RAW -> CompressionCodecName.LZ4_RAW;
            case NONE -> CompressionCodecName.UNCOMPRESSED;
        };
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Compressor(codec) {
                @Override
                public BytesInput compress(BytesInput bytes) {
                    return bytes;
                }
            };
            case SNAPPY -> new Compressor(codec) {
                @Override
                public BytesInput compress(BytesInput bytes) throws IOException {
                    // A page held in an array is compressed where it lies, into the thread's scratch array: parquet-java's
                    // page store copies the result before it returns (data pages into its collector, dictionary pages by
                    // copy()), so the next page may reuse the array. Not a new input copy and two output arrays a page.
                    ByteBuffer in = bytes.toByteBuffer();
                    byte[] src;
                    int off;
                    int len = in.remaining();
                    if (in.hasArray()) {
                        src = in.array();
                        off = in.arrayOffset() + in.position();
                    } else {
                        src = bytes.toByteArray();
                        off = 0;
                    }
                    byte[] out = scratch(Snappy.maxCompressedLength(len));
                    int n = Snappy.compress(src, off, len, out, 0);
                    return BytesInput.from(out, 0, n);
                }
            };
            case ZSTD -> new Compressor(codec) {
                @Override
                public BytesInput compress(BytesInput bytes) throws IOException {
                    return BytesInput.from(Zstd.compress(bytes.toByteArray(), ZSTD_LEVEL));
                }
            };
            case GZIP -> new Compressor(codec) {
                @Override
                public BytesInput compress(BytesInput bytes) throws IOException {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                        bytes.writeAllTo(gz);
                    }
                    return BytesInput.from(out.toByteArray());
                }
            };
            case LZ4_RAW -> new Compressor(codec) {
                private final Lz4Compressor lz4 = new Lz4Compressor();

                @Override
                public BytesInput compress(BytesInput bytes) throws IOException {
                    byte[] in = bytes.toByteArray();
                    byte[] out = new byte[lz4.maxCompressedLength(in.length)];
                    int n = lz4.compress(in, 0, in.length, out, 0, out.length);
                    return BytesInput.from(out, 0, n);
                }
            };
            default -> throw new IllegalArgumentException("codec not supported by wrangler: " + codec);
        };
    }

    /** Compressed pages up to this size reuse their thread's scratch array; a larger one gets an array of its own. */
    private static final int MAX_SCRATCH = 4 << 20;
    private static final ThreadLocal<byte[]> SCRATCH = new ThreadLocal<>();

    /** An array of at least {@code size} bytes, the calling thread's own, valid until its next call. */
    private static byte[] scratch(int size) {
        byte[] b = SCRATCH.get();
        if (b == null || b.length < size) {
            b = new byte[size];
            if (size <= MAX_SCRATCH) {
                SCRATCH.set(b);
            }
        }
        return b;
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return pageDecompressor(codec);
    }

    /**
     * The decompressor of {@code codec} for whole pages taken where they lie (the reader's buffer of a column chunk),
     * with no copy into a page-sized array of their own first.
     */
    public static PageDecompressor pageDecompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Decompressor() {
                @Override
                public byte[] decompress(byte[] in, int off, int len, int size) throws IOException {
                    byte[] out = new byte[Math.max(0, Math.min(len, size))]; // the size checked before an array of it is made
                    decompress(in, off, len, out, size);
                    return out;
                }

                @Override
                public void decompress(byte[] in, int off, int len, byte[] out, int size) throws IOException {
                    if (len != size) {
                        throw new IOException("an uncompressed page of " + len + " bytes where its header says " + size);
                    }
                    checkBounds(in, off, len, out, size);
                    System.arraycopy(in, off, out, 0, len);
                }
            };
            case SNAPPY -> new Decompressor() {
                @Override
                public void decompress(byte[] in, int off, int len, byte[] out, int size) throws IOException {
                    checkBounds(in, off, len, out, size);
                    // snappy states the length it decompresses to first: checked before it writes, as snappy-java does
                    // not bound its output by the array's end
                    int stated = Snappy.uncompressedLength(in, off, len);
                    if (stated != size) {
                        throw new IOException("a page decompresses to " + stated + " bytes where its header says " + size);
                    }
                    checked(Snappy.uncompress(in, off, len, out, 0), size);
                }
            };
            case ZSTD -> new Decompressor() {
                @Override
                public void decompress(byte[] in, int off, int len, byte[] out, int size) throws IOException {
                    checkBounds(in, off, len, out, size);
                    long n;
                    try {
                        n = Zstd.decompressByteArray(out, 0, size, in, off, len);
                    } catch (RuntimeException e) { // ZstdException: also a page longer than size
                        throw new IOException("zstd could not decompress a page into the " + size + " bytes its header says: " + e, e);
                    }
                    if (Zstd.isError(n)) {
                        throw new IOException("zstd could not decompress a page: " + Zstd.getErrorName(n));
                    }
                    checked(n, size);
                }
            };
            case GZIP -> new Decompressor() {
                @Override
                public void decompress(byte[] in, int off, int len, byte[] out, int size) throws IOException {
                    checkBounds(in, off, len, out, size);
                    try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(in, off, len))) {
                        int n = gz.readNBytes(out, 0, size);
                        if (n == size && gz.read() >= 0) {
                            throw new IOException("a page decompressed to more than " + size + " bytes where its header says " + size);
                        }
                        checked(n, size);
                    }
                }
            };
            case LZ4_RAW -> new Decompressor() {
                private final Lz4Decompressor lz4 = new Lz4Decompressor();

                @Override
                public void decompress(byte[] in, int off, int len, byte[] out, int size) throws IOException {
                    checkBounds(in, off, len, out, size);
                    int n;
                    try {
                        n = lz4.decompress(in, off, len, out, 0, size);
                    } catch (RuntimeException e) { // aircompressor's MalformedInputException: also a page longer than size
                        throw new IOException("LZ4 could not decompress a page into the " + size + " bytes its header says: " + e, e);
                    }
                    checked(n, size);
                }
            };
            default -> throw new IllegalArgumentException("the Parquet codec " + codec + " is not one wrangler reads (it reads "
                    + "SNAPPY, ZSTD, GZIP, LZ4_RAW and UNCOMPRESSED)");
        };
    }

    private static void checked(long n, int size) throws IOException {
        if (n != size) {
            throw new IOException("a page decompressed to " + n + " bytes where its header says " + size);
        }
    }

    /** Decompresses one whole page. */
    public interface PageDecompressor extends BytesInputDecompressor {
        /**
         * The {@code size} bytes that {@code len} compressed bytes of {@code in} from {@code off} hold, in a new array
         * (never {@code in} itself: the caller may reuse it).
         */
        default byte[] decompress(byte[] in, int off, int len, int size) throws IOException {
            if (size < 0) {
                throw new IOException("a page's header states " + size + " bytes uncompressed, a negative size");
            }
            byte[] out = new byte[size];
            decompress(in, off, len, out, size);
            return out;
        }

        /**
         * Decompresses the page into the first {@code size} bytes of {@code out} (at least that long), so that a reader
         * can reuse one array for the pages of a column chunk; refused when the page does not decompress to exactly
         * {@code size} bytes.
         */
        void decompress(byte[] in, int off, int len, byte[] out, int size) throws IOException;
    }

    /**
     * Refuses, before a codec runs, a page whose bytes are not inside {@code in} or whose stated size is negative or
     * longer than {@code out}: snappy-java's native decoder writes as many bytes as the page's own preamble says, with
     * no bound from the array, so every size reaching it must be one the array holds.
     */
    static void checkBounds(byte[] in, int off, int len, byte[] out, int size) throws IOException {
        if (off < 0 || len < 0 || off > in.length - len) {
            throw new IOException("a page of " + len + " bytes from " + off + " is not inside its column chunk's " + in.length
                    + " bytes");
        }
        if (size < 0 || size > out.length) {
            throw new IOException("a page's header states " + size + " bytes uncompressed, "
                    + (size < 0 ? "a negative size" : "more than the " + out.length + " bytes made for it"));
        }
    }

    /** Decompression over byte arrays: Parquet pages are small (1 MiB by default), whole pages in, whole pages out. */
    private abstract static class Decompressor implements PageDecompressor {
        @Override
        public BytesInput decompress(BytesInput bytes, int decompressedSize) throws IOException {
            byte[] in = bytes.toByteArray();
            return BytesInput.from(decompress(in, 0, in.length, decompressedSize));
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int decompressedSize)
                throws IOException {
            byte[] in = new byte[compressedSize];
            input.get(in);
            output.put(decompress(in, 0, compressedSize, decompressedSize), 0, decompressedSize);
        }

        @Override
        public void release() {
        }
    }

    @Override
    public void release() {
    }

    private abstract static class Compressor implements BytesInputCompressor {
        private final CompressionCodecName codec;

        Compressor(CompressionCodecName codec) {
            this.codec = codec;
        }

        @Override
        public CompressionCodecName getCodecName() {
            return codec;
        }

        @Override
        public void release() {
        }
    }
}
