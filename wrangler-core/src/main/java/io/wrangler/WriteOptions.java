package io.wrangler;

import io.wrangler.hive.HiveTypes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Write options are how a write lays out, encodes, encrypts and commits a table, independent of which table and which
 * input: a job builds them once and hands them to every write, on any thread.
 *
 * <pre>{@code
 * WriteOptions daily = WriteOptions.builder()
 *     .s3(s3)
 *     .partitionBy("dt")
 *     .mode(WriteMode.OVERWRITE_PARTITIONS)
 *     .encryption(Encryption.kms(keyArn))
 *     .expectedBucketOwner("123456789012")
 *     .build();
 *
 * S3Parquet.write(orders).options(daily).to("s3://lake/marts/orders/");
 * S3Parquet.write(refunds).options(daily).catalog(glue.table("marts", "refunds")).to("s3://lake/marts/refunds/");
 * S3Parquet.write(lines).options(daily.toBuilder().targetFileSize(256L << 20).build()).to("s3://lake/marts/lines/");
 * }</pre>
 *
 * <p>Immutable and thread-safe: a value, like the AWS SDK's request overrides, shared freely; {@link #toBuilder()} makes
 * a changed copy and leaves this one as it is. A write ({@link S3Parquet#write}) is the one-shot part, as a call is to an
 * okhttp client: it takes these options with {@link WriteBuilder#options}, adds what belongs to that write alone, and
 * runs once.
 *
 * <p>What is not here, and why: the catalog table, the idempotency key and the progress listener name or observe one
 * write. A catalog table names one table, so options naming it would register every table of a job as that one (Glue
 * refuses a second location only after the data is committed); an idempotency key shared by two writes makes each
 * replace the other's files; a progress listener counts one write's rows. They stay on {@link WriteBuilder}.
 *
 * <p>Each setter of the {@link Builder} checks its value alone and throws {@link IllegalArgumentException} (or {@link
 * NullPointerException}) at once; what depends on the input or the table (a bucket column that is not in the input, a
 * {@code dtype} narrowing) is checked by the write, before any I/O. Two options are equal when every option is
 * ({@link #s3()} compares the client by identity).
 */
public final class WriteOptions {
    /**
     * S3 requests in flight by default, see {@link WriteBuilder#concurrency}; declared here only (the engine's default
     * threads and wrangler-spark's option take it from {@link #defaults()}). Against S3 each request waits tens of
     * milliseconds before its first byte, so a write of many small files is bound by its request rate, about requests in
     * flight / latency: 48 at 30 ms is about 1,600 requests a second, under S3's 3,500 PUT/COPY/DELETE and 5,500 GET per
     * second per prefix (no throttling, with room for another writer on the prefix), and 48 connections at S3's 80 to
     * 90 MB/s each is more than most machines' network. The SDK's default HTTP client pools 50 connections: 48 never wait
     * for one, and leave room for the lease's renewal.
     */
    static final int DEFAULT_CONCURRENCY = 48;
    private static final WriteOptions DEFAULTS = new Builder().build();

    private final WriteMode mode;
    private final List<String> partitionBy;
    private final Compression compression;
    private final long maxRowsPerFile;
    private final long targetFileSize;
    private final Path spillDirectory;
    private final CommitMethod commitMethod;
    private final boolean preserveNanoseconds;
    private final boolean timestampsAsInt96;
    private final boolean lease;
    private final Duration leaseWait;
    private final Encryption encryption;
    private final String acl;
    private final String expectedBucketOwner;
    private final RetryPolicy retryPolicy;
    private final int concurrency;
    private final S3Client s3;
    private final Map<String, String> dtype;
    private final List<String> bucketBy;
    private final int buckets;
    private final String filenamePrefix;
    private final long rowGroupSize;
    private final int pageSize;
    private final Map<String, Boolean> dictionaryEncoding;
    private final List<String> bloomFilters;
    private final double bloomFilterFpp;
    private final List<String> sortBy;
    private final Map<String, String> fileMetadata;
    private final String storageClass;
    private final Map<String, String> tags;

    /** The storage classes a data object may be written in: those whose objects can be read at once (no restore). */
    static final Set<String> STORAGE_CLASSES = Set.of("STANDARD", "INTELLIGENT_TIERING", "STANDARD_IA", "ONEZONE_IA", "GLACIER_IR");
    /** S3's limits on object tags (PutObject's x-amz-tagging): 10 tags, keys of 128 and values of 256 characters. */
    static final int MAX_TAGS = 10;
    static final int MAX_TAG_KEY = 128;
    static final int MAX_TAG_VALUE = 256;
    private static final Pattern TAG_CHARS = Pattern.compile("[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*");

    private WriteOptions(Builder b) {
        this.mode = b.mode;
        this.partitionBy = b.partitionBy;
        this.compression = b.compression;
        this.maxRowsPerFile = b.maxRowsPerFile;
        this.targetFileSize = b.targetFileSize;
        this.spillDirectory = b.spillDirectory;
        this.commitMethod = b.commitMethod;
        this.preserveNanoseconds = b.preserveNanoseconds;
        this.timestampsAsInt96 = b.timestampsAsInt96;
        this.lease = b.lease;
        this.leaseWait = b.leaseWait;
        this.encryption = b.encryption;
        this.acl = b.acl;
        this.expectedBucketOwner = b.expectedBucketOwner;
        this.retryPolicy = b.retryPolicy;
        this.concurrency = b.concurrency;
        this.s3 = b.s3;
        this.dtype = b.dtype;
        this.bucketBy = b.bucketBy;
        this.buckets = b.buckets;
        this.filenamePrefix = b.filenamePrefix;
        this.rowGroupSize = b.rowGroupSize;
        this.pageSize = b.pageSize;
        this.dictionaryEncoding = b.dictionaryEncoding;
        this.bloomFilters = b.bloomFilters;
        this.bloomFilterFpp = b.bloomFilterFpp;
        this.sortBy = b.sortBy;
        this.fileMetadata = b.fileMetadata;
        this.storageClass = b.storageClass;
        this.tags = b.tags;
    }

    /** A builder with every option at its default. */
    public static Builder builder() {
        return new Builder();
    }

    /** The options with every option at its default: what a write uses when given none. */
    public static WriteOptions defaults() {
        return DEFAULTS;
    }

    /** A builder holding these options, to change some of them; these options stay as they are. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** What the write does to existing data; {@link WriteMode#APPEND} by default. */
    public WriteMode mode() {
        return mode;
    }

    /** The partition columns in folder order; none by default. */
    public List<String> partitionBy() {
        return partitionBy;
    }

    /** The codec of every page; {@link Compression#SNAPPY} by default. */
    public Compression compression() {
        return compression;
    }

    /** The most rows per file; {@link Long#MAX_VALUE} (no limit) by default. */
    public long maxRowsPerFile() {
        return maxRowsPerFile;
    }

    /** The size at which a file is finished; {@link Long#MAX_VALUE} (no limit) by default. */
    public long targetFileSize() {
        return targetFileSize;
    }

    /** Where a streamed input is spilled; empty: the system's temporary directory ({@code java.io.tmpdir}) when the write runs. */
    public Optional<Path> spillDirectory() {
        return Optional.ofNullable(spillDirectory);
    }

    /** How files reach their final keys; {@link CommitMethod#STAGE_AND_COPY} by default. */
    public CommitMethod commitMethod() {
        return commitMethod;
    }

    /** Whether nanosecond timestamps are kept as such; false by default (microseconds). */
    public boolean preserveNanoseconds() {
        return preserveNanoseconds;
    }

    /** Whether timestamps are written as Parquet INT96; false by default. */
    public boolean timestampsAsInt96() {
        return timestampsAsInt96;
    }

    /** Whether the write takes the table's lease; true by default. */
    public boolean lease() {
        return lease;
    }

    /** How long a write waits for a lease another writer holds; 3 minutes by default. */
    public Duration leaseWait() {
        return leaseWait;
    }

    /** How S3 encrypts the objects written; {@link Encryption#none()} by default. */
    public Encryption encryption() {
        return encryption;
    }

    /** The canned ACL of every object written; none by default. */
    public Optional<String> acl() {
        return Optional.ofNullable(acl);
    }

    /** The account that must own the bucket; none by default. */
    public Optional<String> expectedBucketOwner() {
        return Optional.ofNullable(expectedBucketOwner);
    }

    /** How S3 requests are retried; {@link RetryPolicy#defaults()} by default. */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** The S3 requests of a write's data path in flight at once; 48 by default. */
    public int concurrency() {
        return concurrency;
    }

    /** The S3 client; empty: the SDK's default client (default region and credentials chains), made once per JVM. */
    public Optional<S3Client> s3() {
        return Optional.ofNullable(s3);
    }

    /** Hive types asked for, by column name; none by default. */
    public Map<String, String> dtype() {
        return dtype;
    }

    /** The bucket columns; none (no bucketing) by default. */
    public List<String> bucketBy() {
        return bucketBy;
    }

    /** The number of buckets; 0 without bucketing. */
    public int buckets() {
        return buckets;
    }

    /** Put before every data file's name; {@code ""} by default. */
    public String filenamePrefix() {
        return filenamePrefix;
    }

    /** The bytes of a row group at which it is written; empty: 64 MiB, or an eighth of the heap when that is less. */
    public OptionalLong rowGroupSize() {
        return rowGroupSize == 0 ? OptionalLong.empty() : OptionalLong.of(rowGroupSize);
    }

    /** The bytes of a page at which it is written; empty: 1 MiB. */
    public OptionalInt pageSize() {
        return pageSize == 0 ? OptionalInt.empty() : OptionalInt.of(pageSize);
    }

    /**
     * Dictionary encoding by column: true always tries a dictionary, false never uses one; a column not named gets one
     * when a sample of its first rows repeats enough. None by default.
     */
    public Map<String, Boolean> dictionaryEncoding() {
        return dictionaryEncoding;
    }

    /** The columns whose row groups carry a Parquet bloom filter; none by default. */
    public List<String> bloomFilters() {
        return bloomFilters;
    }

    /** The false positive probability each bloom filter is sized for; 0.01 by default. */
    public double bloomFilterFpp() {
        return bloomFilterFpp;
    }

    /** The columns each file's rows are sorted by, ascending with nulls first; none (input order) by default. */
    public List<String> sortBy() {
        return sortBy;
    }

    /** Key-value metadata added to every data file's Parquet footer; none by default. */
    public Map<String, String> fileMetadata() {
        return fileMetadata;
    }

    /** The S3 storage class of every data file; empty (the bucket's default, STANDARD) by default. */
    public Optional<String> storageClass() {
        return Optional.ofNullable(storageClass);
    }

    /** The S3 object tags of every data file; none by default. */
    public Map<String, String> tags() {
        return tags;
    }

    /**
     * The options a compaction cannot honour, as a sentence for its error, or null. A compaction rewrites partitions into
     * the layout and types they have, replacing exactly the files it read, and verifies the rows read back from staged
     * files.
     */
    /** Why a merge cannot take these options (one it cannot honour is not at its default), or null. */
    String notForMerge() {
        if (mode != DEFAULTS.mode) {
            return "mode is " + mode + ", but a merge always replaces exactly the files that hold a matched key";
        }
        if (!bucketBy.isEmpty()) {
            return "bucketBy is " + bucketBy + ", but a merge does not bucket the files it writes";
        }
        if (!dtype.isEmpty()) {
            return "dtype is " + dtype + ", but a merge keeps the table's types (give the input the table's types)";
        }
        if (commitMethod == CommitMethod.DEFERRED_UPLOADS) {
            return "commitMethod is DEFERRED_UPLOADS, but a merge reads its new files back before its commit point, and a deferred "
                    + "upload cannot be read before it is completed";
        }
        return null;
    }

    String notForCompaction() {
        if (mode != DEFAULTS.mode) {
            return "mode is " + mode + ", but a compaction always replaces exactly the files it read in the partitions it rewrites";
        }
        if (!partitionBy.isEmpty()) {
            return "partitionBy is " + partitionBy + ", but a compaction keeps the table's partitions as its folders are";
        }
        if (!bucketBy.isEmpty()) {
            return "bucketBy is " + bucketBy + ", but a compaction does not bucket the files it rewrites";
        }
        if (!dtype.isEmpty()) {
            return "dtype is " + dtype + ", but a compaction keeps the types of the files it rewrites (it verifies them against what it read)";
        }
        if (commitMethod == CommitMethod.DEFERRED_UPLOADS) {
            return "commitMethod is DEFERRED_UPLOADS, but a compaction reads its new files back before its commit point, and a deferred "
                    + "upload cannot be read before it is completed";
        }
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WriteOptions w && mode == w.mode && partitionBy.equals(w.partitionBy) && compression == w.compression
                && maxRowsPerFile == w.maxRowsPerFile && targetFileSize == w.targetFileSize
                && Objects.equals(spillDirectory, w.spillDirectory) && commitMethod == w.commitMethod
                && preserveNanoseconds == w.preserveNanoseconds && timestampsAsInt96 == w.timestampsAsInt96 && lease == w.lease
                && leaseWait.equals(w.leaseWait) && encryption.equals(w.encryption) && Objects.equals(acl, w.acl)
                && Objects.equals(expectedBucketOwner, w.expectedBucketOwner) && retryPolicy.equals(w.retryPolicy)
                && concurrency == w.concurrency && s3 == w.s3 && dtype.equals(w.dtype) && bucketBy.equals(w.bucketBy)
                && buckets == w.buckets && filenamePrefix.equals(w.filenamePrefix) && rowGroupSize == w.rowGroupSize
                && pageSize == w.pageSize && dictionaryEncoding.equals(w.dictionaryEncoding) && bloomFilters.equals(w.bloomFilters)
                && Double.compare(bloomFilterFpp, w.bloomFilterFpp) == 0 && sortBy.equals(w.sortBy) && fileMetadata.equals(w.fileMetadata)
                && Objects.equals(storageClass, w.storageClass) && tags.equals(w.tags);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, partitionBy, compression, maxRowsPerFile, targetFileSize, spillDirectory, commitMethod, preserveNanoseconds,
                timestampsAsInt96, lease, leaseWait, encryption, acl, expectedBucketOwner, retryPolicy, concurrency,
                System.identityHashCode(s3), dtype, bucketBy, buckets, filenamePrefix, rowGroupSize, pageSize, dictionaryEncoding, bloomFilters,
                bloomFilterFpp, sortBy, fileMetadata, storageClass, tags);
    }

    /** Every option, the defaults too; the client by class and identity (it has no value to show). */
    @Override
    public String toString() {
        return "WriteOptions[mode=" + mode + ", partitionBy=" + partitionBy + ", compression=" + compression
                + ", maxRowsPerFile=" + (maxRowsPerFile == Long.MAX_VALUE ? "none" : maxRowsPerFile)
                + ", targetFileSize=" + (targetFileSize == Long.MAX_VALUE ? "none" : targetFileSize)
                + ", spillDirectory=" + (spillDirectory == null ? "java.io.tmpdir" : spillDirectory) + ", commitMethod=" + commitMethod
                + ", preserveNanoseconds=" + preserveNanoseconds + ", timestampsAsInt96=" + timestampsAsInt96 + ", lease=" + lease
                + ", leaseWait=" + leaseWait + ", encryption=" + encryption + ", acl=" + acl + ", expectedBucketOwner=" + expectedBucketOwner
                + ", retryPolicy=" + retryPolicy + ", concurrency=" + concurrency
                + ", s3=" + (s3 == null ? "default" : s3.getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(s3)))
                + ", dtype=" + dtype + ", bucketBy=" + bucketBy + ", buckets=" + buckets + ", filenamePrefix='" + filenamePrefix + "'"
                + ", rowGroupSize=" + (rowGroupSize == 0 ? "auto" : rowGroupSize) + ", pageSize=" + (pageSize == 0 ? "auto" : pageSize)
                + ", dictionaryEncoding=" + dictionaryEncoding + ", bloomFilters=" + bloomFilters + ", bloomFilterFpp=" + bloomFilterFpp
                + ", sortBy=" + sortBy + ", fileMetadata=" + fileMetadata + ", storageClass=" + storageClass + ", tags=" + tags + "]";
    }

    /**
     * A builder of {@link WriteOptions}: mutable and not thread-safe, as any builder; {@link #build()} may be called any
     * number of times and each result is independent of later changes. Setters are named as the options, without
     * {@code set}, and refuse a bad value at once.
     */
    public static final class Builder {
        private WriteMode mode = WriteMode.APPEND;
        private List<String> partitionBy = List.of();
        private Compression compression = Compression.SNAPPY;
        private long maxRowsPerFile = Long.MAX_VALUE;
        private long targetFileSize = Long.MAX_VALUE;
        private Path spillDirectory;
        private CommitMethod commitMethod = CommitMethod.STAGE_AND_COPY;
        private boolean preserveNanoseconds;
        private boolean timestampsAsInt96;
        private boolean lease = true;
        private Duration leaseWait = Duration.ofMinutes(3);
        private Encryption encryption = Encryption.none();
        private String acl;
        private String expectedBucketOwner;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private int concurrency = DEFAULT_CONCURRENCY;
        private S3Client s3;
        private Map<String, String> dtype = Map.of();
        private List<String> bucketBy = List.of();
        private int buckets;
        private String filenamePrefix = "";
        private long rowGroupSize;
        private int pageSize;
        private Map<String, Boolean> dictionaryEncoding = Map.of();
        private List<String> bloomFilters = List.of();
        private double bloomFilterFpp = 0.01;
        private List<String> sortBy = List.of();
        private Map<String, String> fileMetadata = Map.of();
        private String storageClass;
        private Map<String, String> tags = Map.of();

        private Builder() {
        }

        private Builder(WriteOptions o) {
            this.mode = o.mode;
            this.partitionBy = o.partitionBy;
            this.compression = o.compression;
            this.maxRowsPerFile = o.maxRowsPerFile;
            this.targetFileSize = o.targetFileSize;
            this.spillDirectory = o.spillDirectory;
            this.commitMethod = o.commitMethod;
            this.preserveNanoseconds = o.preserveNanoseconds;
            this.timestampsAsInt96 = o.timestampsAsInt96;
            this.lease = o.lease;
            this.leaseWait = o.leaseWait;
            this.encryption = o.encryption;
            this.acl = o.acl;
            this.expectedBucketOwner = o.expectedBucketOwner;
            this.retryPolicy = o.retryPolicy;
            this.concurrency = o.concurrency;
            this.s3 = o.s3;
            this.dtype = o.dtype;
            this.bucketBy = o.bucketBy;
            this.buckets = o.buckets;
            this.filenamePrefix = o.filenamePrefix;
            this.rowGroupSize = o.rowGroupSize;
            this.pageSize = o.pageSize;
            this.dictionaryEncoding = o.dictionaryEncoding;
            this.bloomFilters = o.bloomFilters;
            this.bloomFilterFpp = o.bloomFilterFpp;
            this.sortBy = o.sortBy;
            this.fileMetadata = o.fileMetadata;
            this.storageClass = o.storageClass;
            this.tags = o.tags;
        }

        /** As {@link WriteBuilder#mode}. */
        public Builder mode(WriteMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** As {@link WriteBuilder#partitionBy}; no columns: not partitioned. */
        public Builder partitionBy(String... columns) {
            for (String c : columns) {
                Objects.requireNonNull(c, "partition column");
            }
            this.partitionBy = List.of(columns);
            return this;
        }

        /** As {@link WriteBuilder#compression}. */
        public Builder compression(Compression compression) {
            this.compression = Objects.requireNonNull(compression, "compression");
            return this;
        }

        /** As {@link WriteBuilder#maxRowsPerFile}. */
        public Builder maxRowsPerFile(long rows) {
            if (rows < 1) {
                throw new IllegalArgumentException("maxRowsPerFile must be at least 1, got " + rows);
            }
            this.maxRowsPerFile = rows;
            return this;
        }

        /** As {@link WriteBuilder#targetFileSize}. */
        public Builder targetFileSize(long bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("targetFileSize must be at least 1 KiB, got " + bytes);
            }
            this.targetFileSize = bytes;
            return this;
        }

        /** As {@link WriteBuilder#spillDirectory}; null: back to the system's temporary directory. */
        public Builder spillDirectory(Path directory) {
            this.spillDirectory = directory;
            return this;
        }

        /** As {@link WriteBuilder#commitMethod}. */
        public Builder commitMethod(CommitMethod method) {
            this.commitMethod = Objects.requireNonNull(method, "method");
            return this;
        }

        /** As {@link WriteBuilder#preserveNanoseconds}. */
        public Builder preserveNanoseconds(boolean keep) {
            this.preserveNanoseconds = keep;
            return this;
        }

        /** As {@link WriteBuilder#timestampsAsInt96}. */
        public Builder timestampsAsInt96(boolean int96) {
            this.timestampsAsInt96 = int96;
            return this;
        }

        /** As {@link WriteBuilder#lease}. */
        public Builder lease(boolean enabled) {
            this.lease = enabled;
            return this;
        }

        /** As {@link WriteBuilder#leaseWait}. */
        public Builder leaseWait(Duration wait) {
            Objects.requireNonNull(wait, "wait");
            if (wait.isNegative()) {
                throw new IllegalArgumentException("leaseWait must not be negative, got " + wait);
            }
            this.leaseWait = wait;
            return this;
        }

        /** How S3 encrypts every object the write creates; {@link Encryption#none()} by default. */
        public Builder encryption(Encryption encryption) {
            this.encryption = Objects.requireNonNull(encryption, "encryption");
            return this;
        }

        /** As {@link WriteBuilder#acl}; null: none. */
        public Builder acl(String cannedAcl) {
            this.acl = cannedAcl;
            return this;
        }

        /** As {@link WriteBuilder#expectedBucketOwner}; null: none. */
        public Builder expectedBucketOwner(String accountId) {
            this.expectedBucketOwner = accountId;
            return this;
        }

        /**
         * How a request to S3 is retried after a transient failure (5xx, SlowDown, throttling, a broken or timed-out
         * connection); {@link RetryPolicy#defaults()} by default. Permanent failures (403, NoSuchBucket, missing
         * credentials) are never retried.
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** As {@link WriteBuilder#concurrency}. */
        public Builder concurrency(int requests) {
            if (requests < 1) {
                throw new IllegalArgumentException("concurrency must be at least 1, got " + requests);
            }
            this.concurrency = requests;
            return this;
        }

        /**
         * The S3 client; null: the SDK's default client. A client is thread-safe and meant to be shared: options holding
         * one keep it, and the caller closes it when the job ends.
         */
        public Builder s3(S3Client client) {
            this.s3 = client;
            return this;
        }

        /** As {@link WriteBuilder#dtype}; an empty map: no casts. */
        public Builder dtype(Map<String, String> types) {
            Objects.requireNonNull(types, "types");
            for (Map.Entry<String, String> e : types.entrySet()) {
                Objects.requireNonNull(e.getKey(), "dtype column");
                Objects.requireNonNull(e.getValue(), "type of " + e.getKey());
                try {
                    HiveTypes.parse(e.getKey(), e.getValue());
                } catch (IllegalArgumentException bad) {
                    throw new IllegalArgumentException("dtype of '" + e.getKey() + "': " + bad.getMessage(), bad);
                }
            }
            // insertion order kept for toString; equality is a map's
            this.dtype = Collections.unmodifiableMap(new LinkedHashMap<>(types));
            return this;
        }

        /** As {@link WriteBuilder#bucketBy}. */
        public Builder bucketBy(List<String> columns, int buckets) {
            Objects.requireNonNull(columns, "columns");
            for (String c : columns) {
                Objects.requireNonNull(c, "bucket column");
            }
            if (columns.isEmpty()) {
                throw new IllegalArgumentException("bucketBy needs at least one column");
            }
            if (buckets < 1) {
                throw new IllegalArgumentException("bucketBy needs at least 1 bucket, got " + buckets);
            }
            if (new HashSet<>(columns).size() != columns.size()) {
                throw new IllegalArgumentException("bucketBy names a column twice: " + columns);
            }
            this.bucketBy = List.copyOf(columns);
            this.buckets = buckets;
            return this;
        }

        /** As {@link WriteBuilder#filenamePrefix}; {@code ""}: none. */
        public Builder filenamePrefix(String prefix) {
            Objects.requireNonNull(prefix, "prefix");
            if (prefix.startsWith("_") || prefix.startsWith(".")) {
                throw new IllegalArgumentException("filenamePrefix '" + prefix + "' starts with '" + prefix.charAt(0) + "', which makes "
                        + "Hive, Spark, Athena and Trino skip the files as hidden: start it with a letter or digit");
            }
            for (int i = 0; i < prefix.length(); i++) {
                char c = prefix.charAt(i);
                if (c == '/' || c < 0x20 || c == 0x7F) {
                    throw new IllegalArgumentException("filenamePrefix '" + prefix.replaceAll("\\p{Cntrl}", "?") + "' holds "
                            + (c == '/' ? "'/', which would make a folder" : "the control character U+" + String.format("%04X", (int) c))
                            + ": use a prefix without it");
                }
            }
            this.filenamePrefix = prefix;
            return this;
        }

        /** As {@link WriteBuilder#rowGroupSize}. */
        public Builder rowGroupSize(long bytes) {
            if (bytes < 64 * 1024 || bytes > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("rowGroupSize must be from 64 KiB (65536) to 2 GiB (2147483647) bytes, got " + bytes);
            }
            this.rowGroupSize = bytes;
            return this;
        }

        /** As {@link WriteBuilder#pageSize}. */
        public Builder pageSize(int bytes) {
            if (bytes < 1024 || bytes > 512 * 1024 * 1024) {
                throw new IllegalArgumentException("pageSize must be from 1 KiB (1024) to 512 MiB (536870912) bytes, got " + bytes);
            }
            this.pageSize = bytes;
            return this;
        }

        /** As {@link WriteBuilder#dictionaryEncoding}; an empty map: wrangler decides for every column. */
        public Builder dictionaryEncoding(Map<String, Boolean> columns) {
            Objects.requireNonNull(columns, "columns");
            columns.forEach((c, on) -> {
                Objects.requireNonNull(c, "dictionaryEncoding column");
                Objects.requireNonNull(on, "dictionaryEncoding of " + c);
            });
            this.dictionaryEncoding = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
            return this;
        }

        /** As {@link WriteBuilder#bloomFilters}; no columns: none. */
        public Builder bloomFilters(String... columns) {
            this.bloomFilters = columns("bloomFilters", columns);
            return this;
        }

        /** As {@link WriteBuilder#bloomFilterFpp}. */
        public Builder bloomFilterFpp(double fpp) {
            if (!(fpp > 0 && fpp < 1)) {
                throw new IllegalArgumentException("bloomFilterFpp must be above 0 and below 1, such as 0.01, got " + fpp);
            }
            this.bloomFilterFpp = fpp;
            return this;
        }

        /** As {@link WriteBuilder#sortBy}; no columns: input order. */
        public Builder sortBy(String... columns) {
            this.sortBy = columns("sortBy", columns);
            return this;
        }

        /** As {@link WriteBuilder#fileMetadata}; an empty map: none. */
        public Builder fileMetadata(Map<String, String> metadata) {
            Objects.requireNonNull(metadata, "metadata");
            metadata.forEach((k, v) -> {
                Objects.requireNonNull(k, "fileMetadata key");
                Objects.requireNonNull(v, "fileMetadata value of " + k);
                if (k.isEmpty() || k.startsWith("wrangler.") || k.equals("writer.model.name") || k.equals("ARROW:schema")) {
                    throw new IllegalArgumentException("fileMetadata key '" + k + "' is " + (k.isEmpty() ? "empty"
                            : "one wrangler or Arrow writes itself") + ": use another key");
                }
            });
            this.fileMetadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
            return this;
        }

        /** As {@link WriteBuilder#storageClass}; null: the bucket's default. */
        public Builder storageClass(String storageClass) {
            if (storageClass != null && !STORAGE_CLASSES.contains(storageClass)) {
                throw new IllegalArgumentException("storageClass '" + storageClass + "' is not one a table's data files can be in: give "
                        + "STANDARD, INTELLIGENT_TIERING, STANDARD_IA, ONEZONE_IA or GLACIER_IR (GLACIER and DEEP_ARCHIVE objects "
                        + "cannot be read without a restore, which reads, compactions and keyed reruns need)");
            }
            this.storageClass = storageClass;
            return this;
        }

        /** As {@link WriteBuilder#tags}; an empty map: none. */
        public Builder tags(Map<String, String> tags) {
            Objects.requireNonNull(tags, "tags");
            if (tags.size() > MAX_TAGS) {
                throw new IllegalArgumentException("tags has " + tags.size() + " tags, but S3 allows at most " + MAX_TAGS + " on an object");
            }
            tags.forEach((k, v) -> {
                Objects.requireNonNull(k, "tag key");
                Objects.requireNonNull(v, "value of tag " + k);
                if (k.isEmpty() || k.length() > MAX_TAG_KEY) {
                    throw new IllegalArgumentException("tag key '" + k + "' has " + k.length() + " characters: S3 allows 1 to "
                            + MAX_TAG_KEY);
                }
                if (v.length() > MAX_TAG_VALUE) {
                    throw new IllegalArgumentException("the value of tag '" + k + "' has " + v.length() + " characters: S3 allows at most "
                            + MAX_TAG_VALUE);
                }
                if (k.startsWith("aws:")) {
                    throw new IllegalArgumentException("tag key '" + k + "' starts with 'aws:', which S3 reserves");
                }
                if (!TAG_CHARS.matcher(k).matches() || !TAG_CHARS.matcher(v).matches()) {
                    throw new IllegalArgumentException("tag '" + k + "' holds a character S3 does not allow in tags: use letters, "
                            + "digits, spaces and + - = . _ : / @");
                }
            });
            this.tags = Collections.unmodifiableMap(new LinkedHashMap<>(tags));
            return this;
        }

        private static List<String> columns(String option, String... columns) {
            for (String c : columns) {
                Objects.requireNonNull(c, option + " column");
            }
            if (new HashSet<>(List.of(columns)).size() != columns.length) {
                throw new IllegalArgumentException(option + " names a column twice: " + List.of(columns));
            }
            return List.of(columns);
        }

        /** The options as set so far. */
        public WriteOptions build() {
            if (rowGroupSize != 0 && pageSize > rowGroupSize) {
                throw new IllegalArgumentException("pageSize (" + pageSize + ") is larger than rowGroupSize (" + rowGroupSize
                        + "): a page lies within a row group");
            }
            return new WriteOptions(this);
        }
    }
}
