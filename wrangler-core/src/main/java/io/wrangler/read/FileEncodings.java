package io.wrangler.read;

import io.wrangler.Compression;
import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * FileEncodings is what the footers of a set of data files say about how they were written, where a rewrite of them
 * must do the same: their timestamps' physical types and their codecs. Read from each file's footer (one GET for a
 * file of up to 1 MiB, as the reader's first), never from the catalog, which does not record them.
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

    /**
     * Reads the footers of {@code files}, up to 8 at once.
     *
     * @throws IOException when a footer cannot be read (the first failure, with the file's URI)
     */
    public static FileEncodings of(S3Client s3, RequestOptions options, List<TableFiles.DataFile> files) throws IOException {
        if (files.isEmpty()) {
            return new FileEncodings(false, false, Set.of(), false);
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, files.size()), r -> {
            Thread t = new Thread(r, "wrangler-footers");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Found>> pending = new ArrayList<>();
            for (TableFiles.DataFile f : files) {
                pending.add(pool.submit(() -> read(s3, options, f)));
            }
            Found all = new Found();
            for (Future<Found> p : pending) {
                Found one = p.get();
                all.int96 |= one.int96;
                all.nanos |= one.nanos;
                all.codecs.addAll(one.codecs);
                all.other |= one.other;
            }
            return new FileEncodings(all.int96, all.nanos, all.codecs, all.other);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading the files' footers");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static final class Found {
        boolean int96;
        boolean nanos;
        final Set<Compression> codecs = EnumSet.noneOf(Compression.class);
        boolean other;
    }

    private static Found read(S3Client s3, RequestOptions options, TableFiles.DataFile f) throws IOException {
        Found out = new Found();
        S3InputFile in = new S3InputFile(s3, f.bucket(), f.key(), f.size(), options);
        try (ParquetFileReader r = ParquetFileReader.open(in, TableReader.readOptions())) {
            visit(r.getFooter().getFileMetaData().getSchema(), out);
            for (BlockMetaData b : r.getFooter().getBlocks()) {
                for (ColumnChunkMetaData c : b.getColumns()) {
                    switch (c.getCodec()) {
                        case SNAPPY -> out.codecs.add(Compression.SNAPPY);
                        case ZSTD -> out.codecs.add(Compression.ZSTD);
                        case GZIP -> out.codecs.add(Compression.GZIP);
                        case LZ4_RAW -> out.codecs.add(Compression.LZ4_RAW);
                        case UNCOMPRESSED -> out.codecs.add(Compression.NONE);
                        default -> out.other = true;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("the footer of s3://" + f.bucket() + "/" + f.key() + " could not be read: " + e, e);
        }
        return out;
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
