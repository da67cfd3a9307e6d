package io.wrangler.commit;

import io.wrangler.staging.StagedFile;
import io.wrangler.spi.StepHook;
import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.Progress;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.layout.Manifest;
import io.wrangler.storage.RequestOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A WriteSpec is everything a write was asked to do, fixed before it starts: the user's {@link WriteOptions} (the
 * table-independent options, one value shared with the public builders) and what belongs to this one write. Built by
 * the public {@code WriteBuilder}, a compaction and the Spark driver; internal. The accessors below read the options
 * under the names the commit code has always used.
 *
 * @param uri the table URI as given
 * @param s3 the client
 * @param write the write's options (mode, layout, codec, limits, lease, requests, commit method, ...)
 * @param catalog the catalog table, or null
 * @param hook told of each step
 * @param tuning sizes and limits that tests lower (its {@code threads} already set from the options' concurrency)
 * @param idempotencyKey the caller's name for this logical write, or null; see {@code WriteBuilder.idempotencyKey}
 * @param progress told of rows encoded, files staged, bytes uploaded and partitions published
 * @param replacement for a compaction, the exact files it replaces and its check of the staged files; else null
 */
public record WriteSpec(String uri, S3Client s3, WriteOptions write, CatalogTable catalog, StepHook hook, Tuning tuning,
                        String idempotencyKey, Progress progress, Replacement replacement) {
    public WriteSpec {
        Objects.requireNonNull(write, "write options");
    }

    /** The write mode. */
    public WriteMode mode() {
        return write.mode();
    }

    /** Partition columns in key order. */
    public List<String> partitionBy() {
        return write.partitionBy();
    }

    /** The codec. */
    public Compression compression() {
        return write.compression();
    }

    /** Rows per file at most (Long.MAX_VALUE: no limit). */
    public long maxRowsPerFile() {
        return write.maxRowsPerFile();
    }

    /** Keep nanosecond timestamps instead of narrowing them to microseconds (INT96 holds nanoseconds too). */
    public boolean keepNanos() {
        return write.preserveNanoseconds() || write.timestampsAsInt96();
    }

    /** Whether the write takes the table's lease (see {@code TableLease}). */
    public boolean lease() {
        return write.lease();
    }

    /** How long to wait for a lease another writer holds. */
    public Duration leaseWait() {
        return write.leaseWait();
    }

    /** What every S3 request carries: encryption, ACL, expected bucket owner, retries; the data objects' storage class and tags. */
    public RequestOptions options() {
        return RequestOptions.of(write.encryption(), write.acl().orElse(null), write.expectedBucketOwner().orElse(null),
                write.retryPolicy()).withDataObjects(write.storageClass().orElse(null), write.tags());
    }

    /** Start a new file in a partition once the current one has this many bytes (Long.MAX_VALUE: no limit). */
    public long targetFileSize() {
        return write.targetFileSize();
    }

    /** Where a streamed input that interleaves too many partitions is kept until it is encoded: the JVM's temporary folder by default. */
    public Path spillDirectory() {
        return write.spillDirectory().orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** Staged copies, or deferred multipart uploads completed at publish. */
    public CommitMethod commitMethod() {
        return write.commitMethod();
    }

    /** Put before every data file's name ({@code ""}: none). */
    public String filenamePrefix() {
        return write.filenamePrefix();
    }

    /** Hive types asked for, by column name (input name or the catalog's), as awswrangler's {@code dtype}. */
    public Map<String, String> dtype() {
        return write.dtype();
    }

    /** The bucketing columns as given (input names or the catalog's); empty: no bucketing. */
    public List<String> bucketBy() {
        return write.bucketBy();
    }

    /** The number of buckets (0 without bucketing). */
    public int buckets() {
        return write.buckets();
    }

    /** The row group size: the option's, else the tuning's (64 MiB, less on a small heap). */
    public long rowGroupBytes() {
        return write.rowGroupSize().orElse(tuning.rowGroupBytes());
    }

    /** The page size: the option's, else the tuning's (1 MiB). */
    public int pageBytes() {
        return write.pageSize().orElse(tuning.pageBytes());
    }

    /** Write timestamps as Parquet INT96 (Julian day and nanoseconds of the day) instead of INT64. */
    public boolean int96() {
        return write.timestampsAsInt96();
    }

    /**
     * What a compaction replaces: exactly the files it read, not whatever its partitions hold by its commit point (a
     * file written meanwhile by a writer without the lease, or before the compaction took the lease, stays). The write
     * must be an {@code OVERWRITE_PARTITIONS} of the partitions those files are in.
     *
     * @param keys the keys of the files read, recorded as the manifest's {@code replaces} at the commit point instead
     *     of a listing
     * @param check run on the staged files after staging and before the commit point; it throws to refuse the commit
     *     (the write then removes its staging and nothing changes)
     * @param bucketOfBatch for a table whose files carry bucket numbers ({@code _bucket-N}), the bucket of the batch the
     *     input just gave (its rows were read from files of that bucket), so that the new files keep it; else null
     * @param keyRuns the input's last column is {@code KeyRuns.COLUMN}, each row's idempotency key id ({@code ""}: none):
     *     the files record it in their footers and are marked in their names, never as a column ({@link
     *     io.wrangler.encoding.KeyRuns})
     * @param touched the partitions of the files in {@code keys}, recorded in the manifest whether or not anything is staged
     *     in them (a delete of rows may leave one empty, a drop of partitions stages nothing), so that the catalog step,
     *     the write's and a recovery's alike, removes from the catalog those left without files; empty: only the
     *     partitions staged (a compaction's)
     * @param keepsRows the new files hold exactly the rows of the files replaced (a compaction without {@code dedupBy}):
     *     the commit log records it, so that an incremental read after an earlier mark is not told its rows were replaced
     */
    public record Replacement(List<String> keys, Consumer<List<StagedFile>> check, IntSupplier bucketOfBatch, boolean keyRuns,
                              List<Manifest.Partition> touched, boolean keepsRows) {
        public Replacement {
            keys = List.copyOf(keys);
            touched = List.copyOf(touched);
        }

        /** A replacement that records only the partitions it stages and may change rows. */
        public Replacement(List<String> keys, Consumer<List<StagedFile>> check, IntSupplier bucketOfBatch, boolean keyRuns) {
            this(keys, check, bucketOfBatch, keyRuns, List.of(), false);
        }

        /** A replacement of files without bucket numbers or key runs, that may change rows. */
        public Replacement(List<String> keys, Consumer<List<StagedFile>> check) {
            this(keys, check, null, false, List.of(), false);
        }

        /**
         * The partitions of {@code files}, once each, in their order: the {@code touched} of a replacement of exactly
         * these files (a delete's, a drop's, a merge's).
         */
        public static List<Manifest.Partition> partitionsOf(List<io.wrangler.read.TableFiles.DataFile> files) {
            java.util.Map<String, Manifest.Partition> out = new java.util.LinkedHashMap<>();
            files.forEach(f -> out.putIfAbsent(f.folder(), new Manifest.Partition(f.folder(), f.values(), 0, 0)));
            return List.copyOf(out.values());
        }
    }

    /**
     * Sizes and limits of the write machinery.
     *
     * @param threads the S3 requests of the write's data path in flight at once: the threads that upload, copy, complete,
     *     list and delete (see {@link #DEFAULT_THREADS})
     * @param partSize multipart part size in bytes (at least 5 MiB)
     * @param maxPendingParts part buffers that may wait for upload at once
     * @param rowGroupBytes Parquet row group size
     * @param pageBytes Parquet page size
     * @param maxOpenFiles files open for encoding at once; the least recently used is finished beyond it
     * @param deleteBatch keys per DeleteObjects request (at most 1,000)
     * @param singleCopyLimit objects above this size are copied with UploadPartCopy (5 GB on S3)
     * @param copyPartSize part size of such copies
     * @param leaseTtl how long a table lease lives without renewal (a crashed writer's lease expires after it): 10 s by
     *     default, renewed every 2 s (see {@code TableLease})
     * @param openBytes the most bytes the open files may hold in memory together (encoded pages and unsent upload
     *     buffers); beyond it the largest open files are finished early
     * @param clockOffset added to S3's clock when the age of another holder's lease is judged: zero in production; a test
     *     clock sets it beyond the lease's time to live to take over a stalled or crashed holder's lease without waiting
     */
    public record Tuning(int threads, int partSize, int maxPendingParts, long rowGroupBytes, int pageBytes, int maxOpenFiles,
                         int deleteBatch, long singleCopyLimit, long copyPartSize, Duration leaseTtl, long openBytes,
                         Duration clockOffset) {
        /** The requests in flight of a write by default: the default of {@code WriteOptions.concurrency}, declared there. */
        public static final int DEFAULT_THREADS = WriteOptions.defaults().concurrency();

        /**
         * 10 s: a crashed writer's table is taken over 11 to 13 s after its last renewal (Last-Modified has whole seconds,
         * and the age is counted one second short), so a rerun starts within about 15 s of the crash. The holder renews
         * every 2 s, so it keeps the lease through four renewals in a row that fail or come late (a GC pause, a slow
         * request); one that stalls longer is fenced, as with any time to live: its next fence fails and it stops.
         */
        public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(10);

        /**
         * The defaults, scaled to the heap where memory is at stake: part buffers waiting for upload take at most a
         * quarter of it (16 parts of 8 MiB from a 512 MiB heap up; at least 2), open files another quarter, and a row
         * group is buffered whole before it is written, so it is at most an eighth of the heap (64 MiB from a 512 MiB
         * heap up, 8 MiB in 64 MiB).
         */
        public static Tuning defaults() {
            long heap = Runtime.getRuntime().maxMemory();
            int partSize = 8 * 1024 * 1024;
            int pendingParts = (int) Math.max(2, Math.min(16, heap / 4 / partSize));
            long rowGroup = Math.max(1L << 20, Math.min(64L << 20, heap / 8));
            return new Tuning(DEFAULT_THREADS, partSize, pendingParts, rowGroup, 1024 * 1024, 256, 1000,
                    5L * 1024 * 1024 * 1024, 512L * 1024 * 1024, DEFAULT_LEASE_TTL,
                    Math.min(512L << 20, heap / 4), Duration.ZERO);
        }

        /** These tunings with another number of requests in flight. */
        public Tuning withThreads(int n) {
            return new Tuning(n, partSize, maxPendingParts, rowGroupBytes, pageBytes, maxOpenFiles, deleteBatch, singleCopyLimit,
                    copyPartSize, leaseTtl, openBytes, clockOffset);
        }

        /** These tunings with another clock offset (see {@code clockOffset}). */
        public Tuning withClockOffset(Duration offset) {
            return new Tuning(threads, partSize, maxPendingParts, rowGroupBytes, pageBytes, maxOpenFiles, deleteBatch, singleCopyLimit,
                    copyPartSize, leaseTtl, openBytes, offset);
        }
    }
}
