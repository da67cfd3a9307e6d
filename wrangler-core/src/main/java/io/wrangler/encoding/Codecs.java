package io.wrangler.encoding;

import com.github.luben.zstd.Zstd;
import io.airlift.compress.lz4.Lz4Compressor;
import io.wrangler.Compression;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Codecs is a Parquet codec factory without Hadoop: snappy-java, zstd-jni, aircompressor's LZ4 (raw block
 * format, Parquet's LZ4_RAW) and java.util.zip's gzip. It only compresses; this library never reads Parquet.
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
                    return BytesInput.from(Snappy.compress(bytes.toByteArray()));
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

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        throw new UnsupportedOperationException("wrangler only writes Parquet");
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
