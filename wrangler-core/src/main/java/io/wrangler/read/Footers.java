package io.wrangler.read;

import io.wrangler.encoding.CommitRuns;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.schema.PrimitiveType;
import software.amazon.awssdk.services.s3.S3Client;

/** Reads what a data file's Parquet footer records besides its schema: one GET of its tail (the whole file when small). */
public final class Footers {
    private Footers() {
    }

    /**
     * The {@link KeyRuns} of the file {@code key} ({@code size} bytes, listed with {@code eTag}, null when not known: every GET
     * carries {@code If-Match} on it, and another object put under the key since is a {@link io.wrangler.storage.Replaced}), checked against its row count: an IOException for a
     * file without them, with runs that do not add up to its rows, or that cannot be read as Parquet. S3's failures pass
     * as SdkException.
     */
    public static List<KeyRuns.Run> keyRuns(S3Client s3, RequestOptions options, String bucket, String key, long size, String eTag)
            throws IOException {
        return keyed(s3, options, bucket, key, size, eTag).runs();
    }

    /**
     * What a file with key runs records: its runs, whether it writes timestamps as INT96 (a rewrite of it keeps that), and
     * when its rows were committed if it is a rerun's rewrite ({@link KeyRuns#COMMITTED_KEY}), else null, and when each of
     * its rows was committed if it was written from rows of other files ({@link CommitRuns}), else null.
     */
    public record Keyed(List<KeyRuns.Run> runs, boolean int96, Instant committed, List<KeyRuns.Run> commits) {
        /** The commit stamp of each row, row after row, of a file whose own rows are committed as {@code own}. */
        public CommitRuns.Rows stamps(String own) {
            return new CommitRuns.Rows(own, commits);
        }
    }

    /**
     * The whole footer of the file {@code key} ({@code size} bytes, listed with {@code eTag}: see {@link #keyRuns}): its schema, row groups and their column statistics
     * (a merge prunes the files that cannot hold its keys by them). One GET of the file's last {@link S3InputFile#FOOTER_GET}
     * bytes at most (a second one for a longer footer), as a read fetches footers alone, never of the file whole: the caller reads what it needs of the
     * rest. S3's failures pass as SdkException.
     */
    public static org.apache.parquet.hadoop.metadata.ParquetMetadata footer(S3Client s3, RequestOptions options, String bucket, String key,
                                                                            long size, String eTag) throws IOException {
        S3InputFile in = new S3InputFile(s3, bucket, key, size, eTag, options);
        byte[] tail = in.fetchFooter();
        try (ParquetFileReader r = ParquetFileReader.open(in.knowing(tail), ParquetOptions.readOptions())) {
            return r.getFooter();
        }
    }

    /** What is done with an open file (its footer read; its bloom filters readable). */
    @FunctionalInterface
    public interface WithFile<T> {
        T apply(ParquetFileReader file) throws IOException;
    }

    /**
     * Opens the listed file {@code f} (every GET on the condition of its listed ETag: see {@link #keyRuns}), reading its footer
     * (one GET of its tail), and applies {@code with}.
     */
    public static <T> T withFile(S3Client s3, RequestOptions options, TableFiles.DataFile f, WithFile<T> with) throws IOException {
        try (ParquetFileReader r = ParquetFileReader.open(new S3InputFile(s3, f, options), ParquetOptions.readOptions())) {
            return with.apply(r);
        }
    }

    /** {@link #keyRuns}, with the file's timestamp encoding. */
    public static Keyed keyed(S3Client s3, RequestOptions options, String bucket, String key, long size, String eTag) throws IOException {
        try (ParquetFileReader r = ParquetFileReader.open(new S3InputFile(s3, bucket, key, size, eTag, options), ParquetOptions.readOptions())) {
            return keyed(r.getFooter().getFileMetaData(), r.getRecordCount(), bucket, key);
        }
    }

    /**
     * {@link #keyed} of a footer already read ({@code meta}, of a file of {@code rows} rows).
     *
     * @throws IOException the footer has no key runs, runs (key or commit runs) that do not add up to {@code rows}, or a
     *     commit time that is not one
     */
    public static Keyed keyed(FileMetaData meta, long rows, String bucket, String key) throws IOException {
        String value = meta.getKeyValueMetaData().get(KeyRuns.FOOTER_KEY);
        if (value == null) {
            throw new IOException("s3://" + bucket + "/" + key + " is marked as recording its rows' keys but its footer has no "
                    + KeyRuns.FOOTER_KEY);
        }
        List<KeyRuns.Run> runs = KeyRuns.parse(value);
        long counted = runs.stream().mapToLong(KeyRuns.Run::rows).sum();
        if (counted != rows) {
            throw new IOException("the key runs of s3://" + bucket + "/" + key + " count " + counted + " rows, but the file holds " + rows);
        }
        boolean int96 = meta.getSchema().getColumns().stream()
                .anyMatch(c -> c.getPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96);
        String committed = meta.getKeyValueMetaData().get(KeyRuns.COMMITTED_KEY);
        Instant at;
        try {
            at = committed == null ? null : Instant.ofEpochMilli(Long.parseLong(committed));
        } catch (NumberFormatException e) {
            throw new IOException("the footer entry " + KeyRuns.COMMITTED_KEY + " of s3://" + bucket + "/" + key + " is not a time: "
                    + committed, e);
        }
        String stamps = meta.getKeyValueMetaData().get(CommitRuns.FOOTER_KEY);
        List<KeyRuns.Run> commits = null;
        if (stamps != null) {
            commits = CommitRuns.parse(stamps);
            long stamped = commits.stream().mapToLong(KeyRuns.Run::rows).sum();
            if (stamped != rows) {
                throw new IOException("the commit runs of s3://" + bucket + "/" + key + " count " + stamped + " rows, but the file holds "
                        + rows);
            }
        }
        return new Keyed(runs, int96, at, commits);
    }
}
