package io.wrangler.commit;

import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.Progress;
import io.wrangler.WriteMode;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.storage.RequestOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A WriteSpec is everything a write was asked to do, fixed before it starts. Built by the public
 * {@code WriteBuilder}; internal.
 *
 * @param uri the table URI as given
 * @param s3 the client
 * @param mode the write mode
 * @param partitionBy partition columns in key order
 * @param compression the codec
 * @param maxRowsPerFile rows per file at most (Long.MAX_VALUE: no limit)
 * @param keepNanos keep nanosecond timestamps instead of narrowing them to microseconds
 * @param catalog the catalog table, or null
 * @param hook told of each step
 * @param tuning sizes and limits that tests lower
 * @param idempotencyKey the caller's name for this logical write, or null; see {@code WriteBuilder.idempotencyKey}
 * @param lease whether the write takes the table's lease (see {@code TableLease})
 * @param leaseWait how long to wait for a lease another writer holds
 * @param options what every S3 request carries: encryption, ACL, expected bucket owner, retries
 * @param targetFileSize start a new file in a partition once the current one has this many bytes (Long.MAX_VALUE: no limit)
 * @param progress told of rows encoded, files staged, bytes uploaded and partitions published
 * @param spillDirectory where a streamed input that interleaves too many partitions is kept, grouped by partition, until
 *     it is encoded
 * @param commitMethod staged copies, or deferred multipart uploads completed at publish
 * @param filenamePrefix put before every data file's name ({@code ""}: none); checked by the builder
 * @param dtype Hive types asked for, by column name (input name or the catalog's), as awswrangler's {@code dtype}
 * @param bucketBy the bucketing columns as the builder was given them (input names or the catalog's); empty: no bucketing
 * @param buckets the number of buckets (0 without bucketing)
 * @param int96 write timestamps as Parquet INT96 (Julian day and nanoseconds of the day) instead of INT64
 * @param replacement for a compaction, the exact files it replaces and its check of the staged files; else null
 */
public record WriteSpec(String uri, S3Client s3, WriteMode mode, List<String> partitionBy, Compression compression,
                        long maxRowsPerFile, boolean keepNanos, CatalogTable catalog, StepHook hook, Tuning tuning,
                        String idempotencyKey, boolean lease, Duration leaseWait, RequestOptions options,
                        long targetFileSize, Progress progress, Path spillDirectory,
                        CommitMethod commitMethod, String filenamePrefix,
                        Map<String, String> dtype, List<String> bucketBy, int buckets, boolean int96,
                        Replacement replacement) {
    public WriteSpec {
        partitionBy = List.copyOf(partitionBy);
        filenamePrefix = filenamePrefix == null ? "" : filenamePrefix;
        dtype = dtype == null ? Map.of() : Map.copyOf(dtype);
        bucketBy = bucketBy == null ? List.of() : List.copyOf(bucketBy);
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
     */
    public record Replacement(List<String> keys, Consumer<List<Manifest.File>> check) {
        public Replacement {
            keys = List.copyOf(keys);
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
     * @param leaseTtl how long a table lease lives without renewal (a crashed writer's lease expires after it)
     * @param openBytes the most bytes the open files may hold in memory together (encoded pages and unsent upload
     *     buffers); beyond it the largest open files are finished early
     * @param clockOffset added to S3's clock when the age of another holder's lease is judged: zero in production; a test
     *     clock sets it beyond the lease's time to live to take over a stalled or crashed holder's lease without waiting
     */
    public record Tuning(int threads, int partSize, int maxPendingParts, long rowGroupBytes, int pageBytes, int maxOpenFiles,
                         int deleteBatch, long singleCopyLimit, long copyPartSize, Duration leaseTtl, long openBytes,
                         Duration clockOffset) {
        /**
         * 48 requests in flight. Against S3 each request waits tens of milliseconds before its first byte, so a write of
         * many small files is bound by its request rate, about threads / latency: 48 at 30 ms is about 1,600 requests a
         * second, under S3's 3,500 PUT/COPY/DELETE and 5,500 GET per second per prefix (no throttling, with room for
         * another writer on the prefix), and 48 connections at S3's 80 to 90 MB/s each is more than most machines'
         * network. The SDK's default HTTP client pools 50 connections: 48 never wait for one, and leave room for the
         * lease's renewal.
         */
        public static final int DEFAULT_THREADS = 48;

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
                    5L * 1024 * 1024 * 1024, 512L * 1024 * 1024, Duration.ofMinutes(2),
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
