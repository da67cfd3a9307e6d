package io.wrangler.read;

import io.wrangler.storage.RequestOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * FileFooters is what a compaction needs of the footers of the files it reads, each footer fetched and parsed once
 * (one GET of its tail, the whole file when small; up to 8 at once; its Thrift decoded, and of parquet-java's
 * conversion only the schema's and key-values'): every file's schema, for the read's schema
 * ({@link TableReader#knownSchemas}), how the files were written ({@link FileEncodings}), and the key runs of the files
 * marked as recording their rows' keys ({@link Footers.Keyed}). Equal schemas and encodings are held once.
 */
public final class FileFooters {
    private static final int THREADS = 8;

    /**
     * One file's footer, as far as it is needed.
     *
     * @param keyed its key runs when the file is marked as recording its rows' keys, else null
     */
    public record Footer(MessageType schema, FileEncodings encodings, Footers.Keyed keyed) {
    }

    /** A marked file whose footer does not say whose its rows are: no key runs, or runs that do not count its rows. */
    public static final class UnknownKeys extends IOException {
        UnknownKeys(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    private final Map<String, Footer> byKey;

    private FileFooters(Map<String, Footer> byKey) {
        this.byKey = byKey;
    }

    /** The footers {@code byKey} (of {@link #of}), as if read here: for a caller that fetched them with its read. */
    public static FileFooters of(Map<String, Footer> byKey) {
        return new FileFooters(new HashMap<>(byKey));
    }

    /**
     * What this class keeps of the footer {@code footer} of {@code f}, parsed by a read ({@link TableReader#footerSeen}),
     * with its key runs when {@code marked}.
     *
     * @throws UnknownKeys the file is marked and its footer does not say whose its rows are
     */
    public static Footer of(TableFiles.DataFile f, ParquetMetadata footer, boolean marked) throws UnknownKeys {
        List<CompressionCodecName> codecs = new ArrayList<>();
        long rows = 0;
        for (BlockMetaData b : footer.getBlocks()) {
            rows += b.getRowCount();
            for (ColumnChunkMetaData c : b.getColumns()) {
                codecs.add(c.getCodec());
            }
        }
        Footers.Keyed keyed = null;
        if (marked) {
            try {
                keyed = Footers.keyed(footer.getFileMetaData(), rows, f.bucket(), f.key());
            } catch (IOException e) {
                throw new UnknownKeys(e);
            }
        }
        MessageType schema = footer.getFileMetaData().getSchema();
        return new Footer(schema, FileEncodings.of(schema, codecs), keyed);
    }

    /** The footer of the file at {@code key}, one of those read; null for another. */
    public Footer get(String key) {
        return byKey.get(key);
    }

    /** The schemas of {@code files}, all of them among those read, in their order. */
    public List<MessageType> schemas(List<TableFiles.DataFile> files) {
        List<MessageType> out = new ArrayList<>(files.size());
        for (TableFiles.DataFile f : files) {
            Footer footer = byKey.get(f.key());
            if (footer == null) {
                throw new IllegalArgumentException("the footer of s3://" + f.bucket() + "/" + f.key() + " was not read");
            }
            out.add(footer.schema());
        }
        return out;
    }

    /** What the footers of all the files say about how they were written. */
    public FileEncodings encodings() {
        return FileEncodings.union(byKey.values().stream().map(Footer::encodings).distinct().toList());
    }

    /**
     * Fetches and parses the footers of {@code files}, and the key runs of those whose key {@code marked} takes.
     *
     * @throws UnknownKeys a marked file's footer has no key runs, or runs that do not count its rows (the first such file)
     * @throws IOException a footer cannot be fetched or read (the first failure in file order, naming its file)
     */
    public static FileFooters read(S3Client s3, RequestOptions options, List<TableFiles.DataFile> files, Predicate<String> marked)
            throws IOException {
        Map<String, Footer> out = new HashMap<>();
        if (files.isEmpty()) {
            return new FileFooters(out);
        }
        Map<MessageType, MessageType> schemas = new ConcurrentHashMap<>();
        Map<FileEncodings, FileEncodings> encodings = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(THREADS, files.size()), r -> {
            Thread t = new Thread(r, "wrangler-footers");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Footer>> pending = new ArrayList<>(files.size());
            for (TableFiles.DataFile f : files) {
                pending.add(pool.submit(() -> one(s3, options, f, marked.test(f.key()), schemas, encodings)));
            }
            for (int i = 0; i < files.size(); i++) {
                out.put(files.get(i).key(), pending.get(i).get());
            }
            return new FileFooters(out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the files' footers");
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

    private static Footer one(S3Client s3, RequestOptions options, TableFiles.DataFile f, boolean marked,
                              Map<MessageType, MessageType> schemas, Map<FileEncodings, FileEncodings> encodings) throws IOException {
        FileMetaData meta;
        long rows;
        List<CompressionCodecName> codecs = new ArrayList<>();
        try {
            byte[] tail = new S3InputFile(s3, f, options).fetchFooter();
            org.apache.parquet.format.FileMetaData thrift = thrift(tail, f.size());
            if (thrift != null) {
                rows = 0;
                for (RowGroup g : thrift.getRow_groups()) {
                    rows += g.getNum_rows();
                    for (ColumnChunk c : g.getColumns()) {
                        codecs.add(CompressionCodecName.fromParquet(c.getMeta_data().getCodec()));
                    }
                }
                // what is needed of the row groups was taken: the conversion of the rest (schema, key-values) is cheap
                thrift.setRow_groups(new ArrayList<>());
                meta = new ParquetMetadataConverter().fromParquetMetadata(thrift).getFileMetaData();
            } else {
                // anything else parquet-java reads as it does when the file is decoded, with its own errors
                try (ParquetFileReader r = ParquetFileReader.open(new S3InputFile(s3, f, options, null, tail),
                        ParquetOptions.readOptions())) {
                    meta = r.getFooter().getFileMetaData();
                    rows = r.getRecordCount();
                    for (BlockMetaData b : r.getFooter().getBlocks()) {
                        for (ColumnChunkMetaData c : b.getColumns()) {
                            codecs.add(c.getCodec());
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("the footer of s3://" + f.bucket() + "/" + f.key() + " could not be read: " + e, e);
        }
        Footers.Keyed keyed = null;
        if (marked) {
            try {
                keyed = Footers.keyed(meta, rows, f.bucket(), f.key());
            } catch (IOException e) {
                throw new UnknownKeys(e);
            }
        }
        MessageType schema = meta.getSchema();
        FileEncodings how = FileEncodings.of(schema, codecs);
        return new Footer(schemas.computeIfAbsent(schema, x -> x), encodings.computeIfAbsent(how, x -> x), keyed);
    }

    /**
     * The footer in {@code tail} (a file's last bytes, {@code size} in all) as parquet-format's Thrift structure, when it is
     * a plain footer (magic {@code PAR1}, its length within the bytes, every column chunk with its metadata); else null.
     * Only the Thrift is decoded: parquet-java's conversion of row groups, most of a footer's reading, is left out.
     */
    private static org.apache.parquet.format.FileMetaData thrift(byte[] tail, long size) {
        int n = tail.length;
        if (n < 8 || size < 12 || tail[n - 4] != 'P' || tail[n - 3] != 'A' || tail[n - 2] != 'R' || tail[n - 1] != '1') {
            return null;
        }
        long length = ByteBuffer.wrap(tail, n - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
        if (length + 8 > n || size - 8 - length < 4) {
            return null;
        }
        org.apache.parquet.format.FileMetaData meta;
        try {
            meta = Util.readFileMetaData(new ByteArrayInputStream(tail, (int) (n - 8 - length), (int) length));
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (meta.getRow_groups() == null) {
            return null;
        }
        for (RowGroup g : meta.getRow_groups()) {
            for (ColumnChunk c : g.getColumns()) {
                if (!c.isSetMeta_data()) {
                    return null;
                }
            }
        }
        return meta;
    }
}
