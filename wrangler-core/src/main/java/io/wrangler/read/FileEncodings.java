package io.wrangler.read;

import io.wrangler.Compression;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * FileEncodings is what the footers of a set of data files say about how they were written, where a rewrite of them
 * must do the same: their timestamps' physical types and their codecs. Read from each file's footer ({@link FileFooters}),
 * never from the catalog, which does not record them.
 *
 * @param int96 some timestamp column (at any depth) of some file is INT96
 * @param nanos some timestamp column of some file is INT64 with the unit NANOS
 * @param codecs the codecs of the files' column chunks that wrangler can write (UNCOMPRESSED as {@link Compression#NONE})
 * @param otherCodecs whether some column chunk has a codec wrangler does not write (LZ4's Hadoop framing, Brotli, LZO)
 */
public record FileEncodings(boolean int96, boolean nanos, Set<Compression> codecs, boolean otherCodecs) {
    public FileEncodings {
        codecs = codecs.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(codecs));
    }

    /** The codec every column chunk of the files has, or null when they have several, or one wrangler does not write. */
    public Compression single() {
        return codecs.size() == 1 && !otherCodecs ? codecs.iterator().next() : null;
    }

    /** What one file's footer says: its schema, and the codecs of its column chunks. */
    public static FileEncodings of(MessageType schema, Iterable<CompressionCodecName> chunkCodecs) {
        Found out = new Found();
        visit(schema, out);
        for (CompressionCodecName c : chunkCodecs) {
            switch (c) {
                case SNAPPY -> out.codecs.add(Compression.SNAPPY);
                case ZSTD -> out.codecs.add(Compression.ZSTD);
                case GZIP -> out.codecs.add(Compression.GZIP);
                case LZ4_RAW -> out.codecs.add(Compression.LZ4_RAW);
                case UNCOMPRESSED -> out.codecs.add(Compression.NONE);
                default -> out.other = true;
            }
        }
        return new FileEncodings(out.int96, out.nanos, out.codecs, out.other);
    }

    /** What the footers of several files say together: {@code all}, each one file's (none: nothing). */
    public static FileEncodings union(Collection<FileEncodings> all) {
        Found out = new Found();
        for (FileEncodings one : all) {
            out.int96 |= one.int96;
            out.nanos |= one.nanos;
            out.codecs.addAll(one.codecs);
            out.other |= one.otherCodecs;
        }
        return new FileEncodings(out.int96, out.nanos, out.codecs, out.other);
    }

    private static final class Found {
        boolean int96;
        boolean nanos;
        final Set<Compression> codecs = EnumSet.noneOf(Compression.class);
        boolean other;
    }

    private static void visit(Type t, Found out) {
        if (t instanceof GroupType g) {
            g.getFields().forEach(c -> visit(c, out));
            return;
        }
        PrimitiveType p = t.asPrimitiveType();
        if (p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96) {
            out.int96 = true;
        } else if (p.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts
                && ts.getUnit() == LogicalTypeAnnotation.TimeUnit.NANOS) {
            out.nanos = true;
        }
    }
}
