package io.wrangler.read;

import io.wrangler.encoding.Codecs;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.util.HashMap;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * The options every footer and page of a read is parsed with: parquet-java's {@link ParquetReadOptions} made without
 * Hadoop, with wrangler's {@link Codecs}. One set for the reader, the footer units ({@link Footers},
 * {@link FileFooters}) and compaction.
 */
final class ParquetOptions {
    /** parquet-java 1.18's ParquetReadOptions.Builder creates Hadoop's codec factory in its constructor. */
    private static final Constructor<?> OPTIONS = optionsConstructor();
    /**
     * The one set, shared by every reader on any thread: parquet-java only reads it, its codecs ({@link Codecs}) hold no
     * state and release nothing, its properties are empty. Made once instead of once a footer and once a file (a
     * reflective call and a codec factory each time).
     */
    private static final ParquetReadOptions READ = make();

    private ParquetOptions() {
    }

    /** A reader of {@code in}, its footer fetched and parsed. */
    static ParquetFileReader open(S3InputFile in) throws IOException {
        return ParquetFileReader.open(in, readOptions());
    }

    /** A reader of {@code in} over its {@code footer}, parsed before: the footer is not read again. */
    static ParquetFileReader open(S3InputFile in, ParquetMetadata footer) throws IOException {
        return ParquetFileReader.open(in, footer, readOptions(), in.newStream());
    }

    static ParquetReadOptions readOptions() {
        return READ;
    }

    private static ParquetReadOptions make() {
        try {
            return (ParquetReadOptions) OPTIONS.newInstance(false, true, true, false, false, true, false, false, false,
                    FilterCompat.NOOP, ParquetMetadataConverter.NO_FILTER, new Codecs(), new HeapByteBufferAllocator(),
                    8 * 1024 * 1024, new HashMap<String, String>(), null, null, new PlainParquetConfiguration());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("parquet-java's ParquetReadOptions changed: " + e, e);
        }
    }

    /**
     * parquet-java 1.18 has no public way to read options without Hadoop: {@code ParquetReadOptions.Builder}'s
     * constructor creates Hadoop's codec factory (HadoopCodecs), whatever codec factory is set afterwards. The options
     * themselves hold nothing of Hadoop, so they are made with their package-private constructor, with our
     * {@link Codecs}.
     */
    private static Constructor<?> optionsConstructor() {
        for (Constructor<?> c : ParquetReadOptions.class.getDeclaredConstructors()) {
            if (c.getParameterCount() == 18) {
                c.setAccessible(true);
                return c;
            }
        }
        throw new IllegalStateException("parquet-java's ParquetReadOptions has no 18-argument constructor: this wrangler needs "
                + "parquet-java 1.18");
    }
}
