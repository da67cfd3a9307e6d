package io.wrangler.read;

import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.io.InterruptedIOException;
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
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * FileFooters is what a compaction needs of the footers of the files it reads, each footer fetched and parsed once
 * (one GET of its tail, the whole file when small; up to 8 at once): every file's schema, for the read's schema
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
        ParquetMetadata footer;
        long rows;
        try {
            byte[] tail = new S3InputFile(s3, f.bucket(), f.key(), f.size(), options).fetchFooter();
            try (ParquetFileReader r = ParquetFileReader.open(new S3InputFile(s3, f.bucket(), f.key(), f.size(), options, null, tail),
                    TableReader.readOptions())) {
                footer = r.getFooter();
                rows = r.getRecordCount();
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("the footer of s3://" + f.bucket() + "/" + f.key() + " could not be read: " + e, e);
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
        FileEncodings how = FileEncodings.of(footer);
        return new Footer(schemas.computeIfAbsent(schema, s -> s), encodings.computeIfAbsent(how, h -> h), keyed);
    }
}
