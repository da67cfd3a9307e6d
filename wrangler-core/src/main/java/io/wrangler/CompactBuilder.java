package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.KeyedFiles;
import io.wrangler.commit.Manifest;
import io.wrangler.commit.StepHook;
import io.wrangler.commit.TableWrite;
import io.wrangler.commit.WriteSpec;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.input.HiveTypes;
import io.wrangler.read.FileEncodings;
import io.wrangler.read.FileFooters;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * A CompactBuilder is a compaction of one table, being configured; {@link #run()} rewrites each partition that has too
 * many or too small files into as few files as the target size allows, optionally keeping one row per key.
 *
 * <pre>{@code
 * CompactionResult r = S3Parquet.compact("s3://bucket/events/")
 *     .filter(PartitionFilter.in("year", "2024"))
 *     .whenMoreFilesThan(4)
 *     .dedupBy(List.of("id"), "created_at")
 *     .targetFileSize(256L << 20)
 *     .run();
 * }</pre>
 *
 * <p>A compaction is a write of the commit protocol like any other: it takes the table's lease, stages the new files,
 * reads them back and checks them against what it read (rows, and per column the count of values and a checksum of
 * them, less the dropped duplicates), then commits an {@code OVERWRITE_PARTITIONS} whose manifest records as replaced
 * exactly the files it read: a file that came into a partition after the compaction listed it stays. A crash at any step
 * leaves the table as before (before the commit point: recovery removes the staging) or as after (from it: recovery
 * finishes publishing), never rows lost or doubled. The new files have the union of the chosen files' columns (as a
 * read has it: names matched case-insensitively, the catalog's first through {@link #catalog}), and the check digests
 * every column of every file read (a column a file lacks reads as nulls and adds nothing). Its exceptions are those of {@link WriteBuilder#to}, plus
 * {@link ReadException} for the listing and a {@link VerificationException} when the check fails (nothing changed).
 *
 * <p>It keeps the table as its writes made it, and checks so before it takes the lease or writes anything
 * ({@code CompactionChecks}): every chosen file lies in its partition's folder in the table (a partition registered
 * outside the table root is refused, an {@link InvalidWriteException}); files named {@code _bucket-N} are compacted
 * bucket by bucket into files of the same number, so rows keep their buckets (partitions where that cannot hold are
 * refused); the files' INT96 or nanosecond timestamps and, unless {@link #compression} is set, their codec are kept,
 * read from their footers.
 * <p>Keyed runs stay keyed: when a partition holds rows of {@code idempotencyKey} writes, the new files record in their
 * footers which rows came from which key ({@link KeyedInput}), so that a later rerun of any of those keys replaces
 * exactly its own rows (see the README, "Compaction").
 *
 * <p>Memory: batches stream from the files read to the files written; {@code dedupBy} also keeps, per partition, each
 * distinct key and the order value of its last row, and reads the partition twice. Keys are deduplicated within a
 * partition. Not thread-safe; each {@code run()} is a new compaction. A job's shared {@link WriteOptions} apply with
 * {@link #options}, as to its writes, less the options a compaction cannot honour.
 */
public final class CompactBuilder {
    private final String uri;
    private final SettableOptions options = new SettableOptions("compaction");
    private PartitionFilter filter = PartitionFilter.all();
    private int moreFilesThan = -1;
    private long smallerThan = -1;
    private List<String> dedupKeys;
    private String dedupOrder;
    private CatalogTable catalog;
    private StepHook hook;
    private WriteSpec.Tuning tuning;
    private int batchRows = 65_536;
    /** Whether the caller chose the codec (else the files' own is kept). */
    private boolean compressionSet;

    CompactBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /**
     * Takes the options of {@code options} that a compaction uses: the S3 client, encryption, ACL, expected bucket owner,
     * retries (for its reads too), concurrency, compression, file sizes, file name prefix, timestamps, spill directory and
     * lease. It must come before the setters, as {@link WriteBuilder#options}. A job may give its compactions the same
     * value as its writes, as long as that value leaves at their defaults the options a compaction cannot honour.
     *
     * @throws IllegalArgumentException the options set {@code mode}, {@code partitionBy}, {@code bucketBy} or {@code dtype},
     *     or {@code commitMethod(DEFERRED_UPLOADS)}: a compaction rewrites partitions as they are and replaces exactly the
     *     files it read, and it reads its new files back before its commit point, which a deferred upload does not allow
     * @throws IllegalStateException an option was set on this builder before, or options were given already
     */
    public CompactBuilder options(WriteOptions options) {
        Objects.requireNonNull(options, "options");
        String refused = options.notForCompaction();
        if (refused != null) {
            throw new IllegalArgumentException("Cannot compact " + uri + " with these WriteOptions: " + refused + ". Give compact(...) "
                    + "options that leave it at its default.");
        }
        this.options.give(options);
        compressionSet = options.compression() != WriteOptions.builder().build().compression();
        return this;
    }


    /** The S3 client to use; by default the SDK's default client. */
    public CompactBuilder s3(S3Client client) {
        options.values().s3(Objects.requireNonNull(client, "client"));
        options.noteSet("s3");
        return this;
    }

    /**
     * Compacts only the partitions that pass {@code filter}; nothing of the others is listed or opened. A filter on a
     * column that is not a partition column, and a prefix that holds no table, are refused with an
     * {@link InvalidReadException} before anything is opened or changed (as for a read).
     */
    public CompactBuilder filter(PartitionFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /** Compacts a partition when it has more than {@code n} files (by default, when no threshold is set: more than 1). */
    public CompactBuilder whenMoreFilesThan(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("whenMoreFilesThan must be at least 1, got " + n);
        }
        this.moreFilesThan = n;
        return this;
    }

    /** Compacts a partition when it has at least two files and one of them is smaller than {@code bytes}. */
    public CompactBuilder whenFilesSmallerThan(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("whenFilesSmallerThan must be at least 1 byte, got " + bytes);
        }
        this.smallerThan = bytes;
        return this;
    }

    /**
     * Keeps one row per value of {@code keys} in each partition (in a bucketed table: each bucket of a partition): the
     * one with the greatest {@code orderBy}, nulls lowest; among rows with equal order values, the one committed last
     * (the file of the later write by the files' LastModified, then their write ids' times; within a file, the later
     * row). Keys are equal by value, as SQL's {@code PARTITION BY} groups them: strings and binary by content, unsigned
     * integers by their unsigned value, decimals by numeric value; null keys are one key. The others are dropped and
     * counted in {@link CompactionResult#duplicatesDropped()}. The exact rule is {@code Dedup}'s, stated in the README.
     */
    public CompactBuilder dedupBy(List<String> keys, String orderBy) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("dedupBy needs at least one key column");
        }
        keys.forEach(k -> Objects.requireNonNull(k, "key column"));
        this.dedupKeys = List.copyOf(keys);
        this.dedupOrder = Objects.requireNonNull(orderBy, "orderBy");
        return this;
    }

    /**
     * The codec of the new files. By default the codec of the files read, when they all have one and it compresses
     * (read from their footers), else {@link Compression#SNAPPY}: uncompressed files are compacted into SNAPPY unless
     * this asks for {@link Compression#NONE}, since writing uncompressed pages takes more heap.
     */
    public CompactBuilder compression(Compression compression) {
        options.values().compression(compression);
        options.noteSet("compression");
        compressionSet = true;
        return this;
    }

    /** Starts a new file in a partition once the current one holds about this many bytes; one file per partition by default. */
    public CompactBuilder targetFileSize(long bytes) {
        options.values().targetFileSize(bytes);
        options.noteSet("targetFileSize");
        return this;
    }

    /** Reads the partitions and their types from this catalog table, and registers the result in it. */
    public CompactBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** As {@link WriteBuilder#lease(boolean)}. */
    public CompactBuilder lease(boolean enabled) {
        options.values().lease(enabled);
        options.noteSet("lease");
        return this;
    }

    /** As {@link WriteBuilder#leaseWait}. */
    public CompactBuilder leaseWait(Duration wait) {
        options.values().leaseWait(wait);
        options.noteSet("leaseWait");
        return this;
    }

    /** Encrypts the new files with SSE-S3. */
    public CompactBuilder sseS3() {
        options.values().encryption(Encryption.sseS3());
        options.noteSet("sseS3");
        return this;
    }

    /** Encrypts the new files with SSE-KMS under {@code keyId} (null: the bucket's default key). */
    public CompactBuilder sseKms(String keyId) {
        options.values().encryption(keyId == null ? Encryption.kms() : Encryption.kms(keyId));
        options.noteSet("sseKms");
        return this;
    }

    /** As {@link WriteBuilder#retry}. */
    public CompactBuilder retry(int attempts, Duration base, Duration cap) {
        options.values().retryPolicy(RetryPolicy.of(attempts, base, cap));
        options.noteSet("retry");
        return this;
    }

    /** For tests in this package: told at each step of the commit protocol. */
    CompactBuilder stepHook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook);
        return this;
    }

    /** For tests in this package. */
    CompactBuilder tuning(WriteSpec.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning);
        return this;
    }

    /** For tests in this package: changes the schema the new files are written with (the check must catch it). */
    CompactBuilder outputSchema(UnaryOperator<Schema> change) {
        this.outputSchema = Objects.requireNonNull(change);
        return this;
    }

    private UnaryOperator<Schema> outputSchema = s -> s;

    /** For tests in this package: smaller batches. */
    CompactBuilder batchRows(int rows) {
        this.batchRows = rows;
        return this;
    }

    /** Lists the table, picks the partitions to compact, and rewrites them in one commit. */
    public CompactionResult run() {
        S3Location location = S3Location.parse(uri, WriteStep.VALIDATE, "compact");
        String table = location.uri();
        ArrowMemory.check("compact", table);
        WriteOptions o = options.values().build();
        S3Client client = o.s3().orElseGet(() -> S3Parquet.defaultClient("compact", table));
        // The reads carry the write's expected bucket owner and retries too: one table, one set of requests.
        RequestOptions requests = S3Parquet.requests(o);
        S3Store store = new S3Store(client, location.bucket(), requests);
        recoverFirst(location, client, requests);
        TableFiles.Listing listing;
        TableLayout layout = null;
        Map<String, Field> partitionTypes = new HashMap<>();
        Map<String, Field> catalogColumns = null;
        try {
            if (catalog != null) {
                layout = catalog.layout();
                if (layout == null) {
                    throw new ReadException(table, "Cannot compact " + table + " through " + catalog.describe() + ": the catalog has "
                            + "no such table. Compact it without catalog(...).", null);
                }
                listing = new TableFiles(store, location).verb("compact").list(layout, filter, b -> {
                    if (!b.equals(location.bucket())) {
                        throw new ReadException(table, "Cannot compact " + table + ": a partition of " + catalog.describe() + " lies in "
                                + "the bucket " + b + ", outside the table; compaction rewrites partitions in place only.", null);
                    }
                    return store;
                });
                catalogColumns = ReadBuilder.dataColumns(layout);
                for (String c : layout.partitionColumns()) {
                    try {
                        partitionTypes.put(c, HiveTypes.parse(c, layout.types().get(c)));
                    } catch (RuntimeException unknown) {
                        // inferred below as text
                    }
                }
            } else {
                listing = new TableFiles(store, location).verb("compact").list(filter);
            }
        } catch (SdkException e) {
            throw new ReadException(table, "Cannot compact " + table + ": listing the table failed: " + e.getMessage()
                    + ". Nothing was changed; check s3:ListBucket and rerun.", e);
        }
        // Without a catalog the partition values are kept as their folder text, so that every new file lands in the very
        // folder it came from (a value typed from its text could render otherwise: "007" as 7).
        for (String c : listing.partitionColumns()) {
            partitionTypes.putIfAbsent(c, new Field(c, FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
        }
        // What is compacted, and every check of it, before anything is written or the lease is taken: the units (a
        // partition, or a bucket of a partition), that their files lie in the table, and the files' encodings.
        CompactionChecks checks = new CompactionChecks(table, location, listing.partitionColumns(), layout,
                catalog == null ? null : catalog.describe());
        List<List<TableFiles.DataFile>> chosen = new ArrayList<>();
        List<Integer> bucketOfUnit = new ArrayList<>();
        for (List<TableFiles.DataFile> files : listing.byFolder().values()) {
            Map<Integer, List<TableFiles.DataFile>> byBucket = checks.buckets(files);
            if (byBucket.size() > 1 && byBucket.containsKey(-1) && wanted(files)) {
                checks.bucketed(files, byBucket.keySet()); // refuses files with and without bucket numbers side by side
            }
            boolean any = false;
            for (Map.Entry<Integer, List<TableFiles.DataFile>> e : byBucket.entrySet()) {
                if (wanted(e.getValue())) {
                    // read in commit order (KeyedInput.commitOrder sorts it once the footers are read), so that the rows of
                    // the new files keep it (dedup's tie rule after a compaction)
                    chosen.add(new ArrayList<>(e.getValue()));
                    bucketOfUnit.add(e.getKey());
                    any = true;
                }
            }
            if (any) {
                checks.inTable(files);
                checks.bucketed(files, byBucket.keySet());
            }
        }
        List<String> folders = chosen.stream().map(fs -> checks.uri(fs.get(0))).distinct().toList();
        int before = chosen.stream().mapToInt(List::size).sum();
        if (chosen.isEmpty()) {
            return new CompactionResult(table, List.of(), 0, 0, 0, 0, 0, null);
        }
        boolean bucketed = bucketOfUnit.stream().anyMatch(b -> b >= 0);
        // Every chosen file's footer, fetched and parsed once (before the lease; nothing is written yet): the files' schemas
        // for the new files' schema, their encodings to keep, and the key runs of the marked ones.
        FileFooters footers = footers(client, requests, table, chosen);
        // Keyed runs stay keyed: when a chosen file holds rows of an idempotency key, every new file records its rows' keys.
        KeyedInput.commitOrder(chosen, footers);
        Map<String, List<KeyRuns.Run>> keyRuns = KeyedInput.runsOf(chosen, footers);
        try (BufferAllocator allocator = new RootAllocator()) {
            o = keepEncodings(o, footers.encodings());
            Input input = new Input(allocator, client, requests, table, listing.partitionColumns(), chosen, partitionTypes, bucketOfUnit,
                    catalogColumns, keyRuns, footers);
            input.readSchema(); // refuses a dedupBy of unknown columns before the write takes the lease or stages anything
            List<String> keys = new ArrayList<>();
            chosen.forEach(fs -> fs.forEach(f -> keys.add(f.key())));
            Map<String, List<String>> valuesByFolder = new HashMap<>();
            chosen.forEach(fs -> valuesByFolder.put(fs.get(0).folder(), fs.get(0).values()));
            WriteBuilder w = S3Parquet.write(input).options(o).s3(client).mode(WriteMode.OVERWRITE_PARTITIONS)
                    .partitionBy(listing.partitionColumns().toArray(new String[0]))
                    .replacing(new WriteSpec.Replacement(keys, staged -> input.verify(staged, valuesByFolder, location),
                            bucketed ? input::batchBucket : null, keyRuns != null));
            if (catalog != null) {
                w.catalog(catalog);
                if (layout.buckets() > 0) {
                    // the catalog's bucketing, so that it sees the write as the table is; the rows keep their files' buckets
                    w.bucketBy(layout.bucketColumns(), layout.buckets());
                }
            }
            if (hook != null) {
                w.stepHook(hook);
            }
            if (tuning != null) {
                w.tuning(tuning);
            }
            WriteResult result;
            try {
                result = w.to(table);
            } catch (ReadException e) {
                NoSuchKeyException gone = cause(e, NoSuchKeyException.class);
                if (gone != null) {
                    // Another write replaced a listed file between the listing and the lease (the write failed before its
                    // commit point and removed its staging): a conflict, as for two writers, not a broken read.
                    throw new CommitConflictException(table, WriteStep.STAGE, "Cannot compact " + table + " (step: stage): a file it "
                            + "listed was removed by another write before the compaction could read it (" + e.getMessage() + "). "
                            + "Nothing was changed; rerun the compaction.", e);
                }
                throw e;
            } finally {
                input.closeQuietly();
            }
            int after = result.partitions().stream().mapToInt(p -> p.files().size()).sum();
            return new CompactionResult(table, folders, before, after, input.rowsRead, result.rows(), input.dropped, result);
        }
    }

    /**
     * Finishes or undoes the interrupted writes of a crashed writer (under the table's lease, as {@code S3Parquet.recover}
     * does) before the compaction lists the table. Otherwise the recovery the compaction's own write runs once it holds the
     * lease would come after the listing: rolling a crashed overwrite forward deletes files the compaction listed (it
     * failed, reading them), rolling an append back deletes rows it would keep.
     */
    private void recoverFirst(S3Location location, S3Client client, RequestOptions requests) {
        try {
            TableWrite.recoverAbandoned(location.uri(), client, catalog, tuning != null ? tuning : WriteSpec.Tuning.defaults(), requests);
        } catch (SdkException e) {
            throw new ReadException(location.uri(), "Cannot compact " + location.uri() + " (step: list): looking for interrupted writes "
                    + "under its _tmp/ failed: " + e.getMessage() + ". Nothing was changed; check s3:ListBucket and rerun.", e);
        }
    }

    /** The footers of the chosen files, each fetched and parsed once ({@link FileFooters}). */
    private static FileFooters footers(S3Client client, RequestOptions requests, String table, List<List<TableFiles.DataFile>> chosen) {
        try {
            return FileFooters.read(client, requests, chosen.stream().flatMap(List::stream).toList(), KeyedFiles::marked);
        } catch (FileFooters.UnknownKeys e) {
            throw new ReadException(table, "Cannot compact " + table + " (step: validate): " + e.getMessage() + ", so whose rows it holds "
                    + "is not known. Nothing was changed; leave its partition out (filter) and report it.", e);
        } catch (IOException e) {
            throw new ReadException(table, "Cannot compact " + table + " (step: validate): " + e.getMessage() + ". Nothing was changed; "
                    + "fix the cause and rerun.", e);
        }
    }

    /**
     * The options with the encodings of the files read kept: INT96 timestamps stay INT96 and nanosecond ones stay
     * nanoseconds (as the footers say, whatever the options), and, unless the caller chose a codec, the files' codec
     * when they all have one other than NONE.
     */
    private WriteOptions keepEncodings(WriteOptions o, FileEncodings found) {
        WriteOptions.Builder b = o.toBuilder();
        if (found.int96()) {
            b.timestampsAsInt96(true);
        }
        if (found.nanos()) {
            b.preserveNanoseconds(true);
        }
        // Not NONE: uncompressed pages take more heap than the write's memory bounds allow for (CompactionMemoryTest's
        // 64 MiB heap runs out compacting its uncompressed table into uncompressed files); compression(NONE) still can.
        if (!compressionSet && found.single() != null && found.single() != Compression.NONE) {
            b.compression(found.single());
        }
        return b.build();
    }

    private boolean wanted(List<TableFiles.DataFile> files) {
        if (moreFilesThan < 0 && smallerThan < 0) {
            return files.size() > 1;
        }
        if (moreFilesThan >= 0 && files.size() > moreFilesThan) {
            return true;
        }
        return smallerThan >= 0 && files.size() > 1 && files.stream().anyMatch(f -> f.size() < smallerThan);
    }

    /**
     * The compaction's input: the chosen units (partitions, or buckets of partitions) one after another, every file through
     * one reader whose schema is made from the footers already read (with dedup, each unit is read once more before, to
     * find each key's last row), with a digest of every row passed on.
     */
    private final class Input extends ArrowReader {
        private final S3Client client;
        private final RequestOptions options;
        private final String table;
        private final List<String> partitionColumns;
        private final List<List<TableFiles.DataFile>> partitions;
        private final Map<String, Field> partitionTypes;
        private final Map<String, Field> catalogColumns;
        private final BufferAllocator allocator;
        /** The bucket number of each unit's files, -1 for none. */
        private final List<Integer> bucketOfUnit;
        /** The bucket of the batch last handed to the write (read on the write's thread). */
        private int batchBucket = -1;
        /** The rows' keys, when the partitions hold keyed rows; else null. */
        private final KeyedInput keyed;
        /** The chosen files' footers, read once before the compaction began. */
        private final FileFooters footers;
        /** The unit of each chosen file, by its key. */
        private final Map<String, Integer> unitOf = new HashMap<>();
        private Schema schema;
        /** The columns of the files read: {@link #schema} without the key column. */
        private Schema read;
        private int partition = -1;
        private TableReader current;
        private BitSet keep;
        private long ordinal;
        long rowsRead;
        long dropped;
        final Digest passed = new Digest();

        Input(BufferAllocator allocator, S3Client client, RequestOptions options, String table, List<String> partitionColumns,
              List<List<TableFiles.DataFile>> partitions, Map<String, Field> partitionTypes, List<Integer> bucketOfUnit,
              Map<String, Field> catalogColumns, Map<String, List<KeyRuns.Run>> keyRuns, FileFooters footers) {
            super(allocator);
            this.footers = footers;
            for (int u = 0; u < partitions.size(); u++) {
                for (TableFiles.DataFile f : partitions.get(u)) {
                    unitOf.put(f.key(), u);
                }
            }
            this.bucketOfUnit = bucketOfUnit;
            this.keyed = keyRuns == null ? null : new KeyedInput(keyRuns);
            if (keyed != null) {
                passed.skipped = KeyRuns.COLUMN;
            }
            this.allocator = allocator;
            this.client = client;
            this.options = options;
            this.table = table;
            this.partitionColumns = partitionColumns;
            this.partitions = partitions;
            this.partitionTypes = partitionTypes;
            this.catalogColumns = catalogColumns;
        }

        private TableReader reader(List<TableFiles.DataFile> files) {
            return new TableReader(allocator, null, client, options, table, new TableFiles.Listing(partitionColumns, files), partitionTypes,
                    null, batchRows);
        }

        /** A reader of chosen files, its schema made from their footers read before (no footer fetched for it). */
        private TableReader chosen(List<TableFiles.DataFile> files) {
            return reader(files).knownSchemas(footers.schemas(files));
        }

        /**
         * The schema of the new files: the union by name of every chosen file's columns (or the catalog's columns, then
         * the files' others), as a read has it, so that no column of any file is dropped; one for all partitions.
         */
        @Override
        protected Schema readSchema() {
            if (schema == null) {
                List<TableFiles.DataFile> all = new ArrayList<>();
                partitions.forEach(all::addAll);
                // the reader of every chosen file in unit order, whose batches the producer takes (closeQuietly closes it)
                current = chosen(all);
                if (catalogColumns != null) {
                    current.catalogColumns(catalogColumns);
                }
                read = outputSchema.apply(current.schema());
                schema = keyed == null ? read : keyed.schema(table, read);
                if (dedupKeys != null) {
                    for (String c : append(dedupKeys, dedupOrder)) {
                        if (schema.getFields().stream().noneMatch(f -> f.getName().equalsIgnoreCase(c))) {
                            throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot compact " + table + " (step: validate): "
                                    + "dedupBy names the column '" + c + "', which the table does not have; its columns are "
                                    + schema.getFields().stream().map(Field::getName).toList() + ". Name columns of the table in dedupBy; "
                                    + "nothing was changed.");
                        }
                    }
                    String unordered = Dedup.unordered(schema.findField(dedupOrder));
                    if (unordered != null) {
                        throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot compact " + table + " (step: validate): "
                                + "dedupBy orders by the column '" + dedupOrder + "' of the type " + unordered + ", whose values have no "
                                + "order. Order by a number, string, binary, boolean, decimal, date, time or timestamp column; nothing "
                                + "was changed.");
                    }
                }
            }
            return schema;
        }

        /**
         * The next batch, read, deduplicated and added to the digest on a reader thread of its own while this thread
         * (the write's) encodes the one before: at most {@link #AHEAD} batches wait between the two.
         */
        @Override
        public boolean loadNextBatch() throws IOException {
            prepareLoadNextBatch();
            VectorSchemaRoot out = getVectorSchemaRoot();
            if (producer == null) {
                startProducer();
            }
            Object next;
            try {
                next = ready.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading the partitions to compact");
            }
            if (next instanceof Produced p) {
                room.release();
                batchBucket = p.bucket();
                try (VectorSchemaRoot b = p.batch()) {
                    for (int c = 0; c < b.getFieldVectors().size(); c++) {
                        b.getVector(c).makeTransferPair(out.getVector(c)).transfer();
                    }
                    out.setRowCount(b.getRowCount());
                }
                return true;
            }
            ready.add(next); // the end or the failure stays for any later call
            out.setRowCount(0);
            if (next instanceof IOException e) {
                throw e;
            }
            if (next instanceof RuntimeException e) {
                throw e;
            }
            if (next instanceof Error e) {
                throw e;
            }
            return false;
        }

        /** The bucket of the batch the write read last: every row of a batch is of one unit, so of one bucket. */
        int batchBucket() {
            return batchBucket;
        }

        /** A batch read ahead, and the bucket of the files it was read from (-1: none). */
        private record Produced(VectorSchemaRoot batch, int bucket) {
        }

        private static final int AHEAD = 2;
        /** Batches read ahead, then the end (or the reader's failure); unbounded, so that the last entry always goes in. */
        private final BlockingQueue<Object> ready = new LinkedBlockingQueue<>();
        /** Batches the reader may read ahead: taken before it reads one, given back when this thread takes one. */
        private final Semaphore room = new Semaphore(AHEAD);
        private static final Object END = new Object();
        private volatile boolean stopped;
        private Thread producer;

        private void startProducer() {
            Schema s = readSchema();
            producer = new Thread(() -> {
                Object last = END;
                try {
                    while (true) {
                        room.acquire();
                        if (stopped) {
                            return;
                        }
                        VectorSchemaRoot b = VectorSchemaRoot.create(s, allocator);
                        boolean more;
                        try {
                            more = produce(b);
                        } catch (Throwable t) {
                            b.close();
                            throw t;
                        }
                        if (!more) {
                            b.close();
                            break;
                        }
                        ready.add(new Produced(b, bucketOfUnit.get(partition)));
                    }
                } catch (InterruptedException e) {
                    return; // stopped by closeQuietly
                } catch (Throwable t) {
                    last = t;
                } finally {
                    if (current != null) {
                        try {
                            current.close();
                        } catch (IOException | RuntimeException e) {
                            // the read's outcome is what the write needs
                        }
                        current = null;
                    }
                }
                ready.add(last);
            }, "wrangler-compact-reader");
            producer.setDaemon(true);
            producer.start();
        }

        /**
         * Reads the next batch into {@code out} (the reader thread's own root): false at the end of the last unit. The
         * batches come in the read's schema (the union of the files' columns, a file's missing columns as nulls) and are
         * added to the digest so before they are put into the new files' schema: the check compares the new files with
         * every column of every file read, not with the schema they were written with.
         */
        private boolean produce(VectorSchemaRoot out) throws IOException {
            if (!current.loadNextBatch()) {
                out.setRowCount(0);
                return false;
            }
            VectorSchemaRoot in = current.getVectorSchemaRoot();
            int n = in.getRowCount();
            TableFiles.DataFile file = current.currentFile(); // one reading thread: a batch is of one file, and it is known
            int unit = unitOf.get(file.key());
            if (unit != partition) {
                partition = unit; // the units are read one after another, in order
                keep = dedupKeys == null ? null : winners(partitions.get(partition));
                ordinal = 0;
            }
            rowsRead += n;
            List<FieldVector> from = new ArrayList<>();
            for (Field f : read.getFields()) {
                FieldVector v = vector(in, f.getName());
                if (v != null && !new Field(f.getName(), v.getField().getFieldType(), v.getField().getChildren()).equals(f)) {
                    throw new IOException("the column '" + f.getName() + "' of " + file.key() + " is " + v.getField() + ", not " + f
                            + " as when the compaction began");
                }
                from.add(v);
            }
            String[] keys = keyed == null ? null : keyed.keysOf(file, n);
            if (keep == null) {
                passed.add(in, i -> true);
                for (int c = 0; c < from.size(); c++) {
                    if (from.get(c) != null) {
                        from.get(c).makeTransferPair(out.getVector(c)).transfer();
                    } else {
                        out.getVector(c).allocateNew(); // a column the files do not have: nulls
                    }
                }
                if (keys != null) {
                    for (int i = 0; i < n; i++) {
                        keyed.pass(out, i, keys[i]);
                    }
                }
                out.setRowCount(n);
            } else {
                long first = ordinal;
                passed.add(in, i -> keep.get((int) (first + i)));
                out.allocateNew();
                int k = 0;
                for (int i = 0; i < n; i++) {
                    if (keep.get((int) (ordinal + i))) {
                        for (int c = 0; c < from.size(); c++) {
                            if (from.get(c) != null) {
                                out.getVector(c).copyFromSafe(i, k, from.get(c));
                            }
                        }
                        if (keys != null) {
                            keyed.pass(out, k, keys[i]);
                        }
                        k++;
                    }
                }
                ordinal += n;
                dropped += n - k;
                out.setRowCount(k);
            }
            return true;
        }

        /** The vector of {@code root} that holds the column {@code name}, matched case-insensitively; null if none. */
        private static FieldVector vector(VectorSchemaRoot root, String name) {
            FieldVector v = root.getVector(name);
            if (v != null) {
                return v;
            }
            for (FieldVector x : root.getFieldVectors()) {
                if (x.getName().equalsIgnoreCase(name)) {
                    return x;
                }
            }
            return null;
        }

        /**
         * The ordinals of the rows to keep: for each key ({@link Dedup}'s equality), the row with the greatest order value,
         * and among those the one committed last ({@link Dedup#COMMIT_ORDER} of the files, then the later row of a file).
         * The files are read in the order the second pass reads them, through one reader that says each batch's file.
         */
        private BitSet winners(List<TableFiles.DataFile> files) throws IOException {
            List<TableFiles.DataFile> byCommit = new ArrayList<>(files);
            Dedup.sortByCommit(byCommit);
            Map<String, Integer> rankOf = new HashMap<>();
            for (int i = 0; i < byCommit.size(); i++) {
                rankOf.put(byCommit.get(i).key(), i);
            }
            Map<List<Object>, long[]> best = new HashMap<>(); // {ordinal, commit rank of its file}
            Map<List<Object>, Comparable<Object>> bestOrder = new HashMap<>();
            long at = 0;
            try (TableReader r = chosen(files)) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot b = r.getVectorSchemaRoot();
                    long rank = rankOf.get(r.currentFile().key());
                    List<FieldVector> keys = dedupKeys.stream().map(c -> vector(b, c)).toList();
                    FieldVector order = vector(b, dedupOrder);
                    for (int i = 0; i < b.getRowCount(); i++, at++) {
                        List<Object> key = new ArrayList<>(keys.size());
                        for (FieldVector k : keys) {
                            key.add(k == null ? null : Dedup.key(k, i)); // no file of the unit has the column: null
                        }
                        Comparable<Object> o = order == null ? null : Dedup.order(order, i);
                        long[] was = best.get(key);
                        int c = was == null ? 1 : Dedup.compare(o, bestOrder.get(key));
                        // equal order values: the later commit wins; in one file (same rank), the later row, read later
                        if (c > 0 || c == 0 && rank >= was[1]) {
                            best.put(key, new long[] {at, rank});
                            bestOrder.put(key, o);
                        }
                    }
                }
            }
            if (at > Integer.MAX_VALUE) {
                throw new IOException("a partition of more than 2^31 rows cannot be deduplicated");
            }
            BitSet keep = new BitSet((int) at);
            best.values().forEach(v -> keep.set((int) v[0]));
            return keep;
        }

        /** Checks the staged files: read back, they must hold exactly the rows passed on. */
        void verify(List<Manifest.File> staged, Map<String, List<String>> valuesByFolder, S3Location location) {
            long rows = staged.stream().mapToLong(Manifest.File::rows).sum();
            long expected = rowsRead - dropped;
            if (rows != expected) {
                throw refused("its new files hold " + rows + " rows where " + expected + " were read"
                        + (dropped > 0 ? " and kept (" + dropped + " duplicates dropped)" : ""));
            }
            List<TableFiles.DataFile> files = new ArrayList<>();
            for (Manifest.File f : staged) {
                List<String> values = valuesByFolder.get(f.folder());
                if (values == null || f.stagedKey() == null) {
                    throw refused("it staged " + f.finalKey() + ", outside the partitions it read");
                }
                files.add(new TableFiles.DataFile(location.bucket(), f.stagedKey(), f.bytes(), f.folder(), values));
            }
            Digest back = new Digest();
            try (TableReader r = reader(files)) {
                while (r.loadNextBatch()) {
                    back.add(r.getVectorSchemaRoot(), i -> true);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (ReadException e) {
                if (causedBy(e, SdkException.class)) {
                    throw e; // S3 failed: nothing is known about the files
                }
                // A staged file that does not decode (a failed page checksum, another size than staged) differs from the rows read.
                throw refused("read back, its new files could not be read (" + e.getCause() + ")", e);
            }
            String type = passed.typeDifference(back);
            if (type != null) {
                throw new VerificationException(table, "Cannot compact " + table + " (step: commit): read back, " + type + ", a type "
                        + "this compaction cannot keep for the table's files. Nothing was changed: the new files were removed before the "
                        + "commit point; the table is as before. Leave these partitions uncompacted (filter), or rewrite them with a "
                        + "write that sets the type (dtype).", null);
            }
            String diff = passed.difference(back);
            if (diff != null) {
                throw refused("read back, its new files differ from the rows read: " + diff);
            }
            if (keyed != null) {
                String keys;
                try {
                    keys = keyed.difference(staged, client, options, location.bucket());
                } catch (IOException e) {
                    throw refused("its new files' key runs could not be read (" + e.getMessage() + ")", e);
                }
                if (keys != null) {
                    throw refused("its new files' key runs differ from the rows read: " + keys);
                }
            }
        }

        private VerificationException refused(String what) {
            return refused(what, null);
        }

        private VerificationException refused(String what, Throwable cause) {
            return new VerificationException(table, "Cannot compact " + table + " (step: commit): " + what + ". Nothing was changed: "
                    + "the new files were removed before the commit point. Report this with the message; the table is as before.", cause);
        }

        void closeQuietly() {
            try {
                if (producer != null) {
                    stopped = true;
                    producer.interrupt();
                    room.release(AHEAD);
                    producer.join();
                    for (Object o; (o = ready.poll()) != null; ) {
                        if (o instanceof Produced p) {
                            p.batch().close();
                        }
                    }
                }
                if (current != null) {
                    current.close(); // no batch was asked for: the reader the schema was read from
                    current = null;
                }
                close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException | RuntimeException ignored) {
                // the write's outcome is what the caller needs
            }
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
        }
    }

    private static <T extends Throwable> T cause(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> append(List<String> list, String last) {
        List<String> out = new ArrayList<>(list);
        out.add(last);
        return out;
    }

    /**
     * Per column, the count of non-null values and a checksum of them that does not depend on row order: the sum of a
     * 64-bit hash of each value (nulls add nothing). Columns are told apart by name case-insensitively (as a read matches
     * them), so the files read and the new files read back are digested alike. Both sides of a check are read by the same
     * reader into the same Arrow types, so a flat value is hashed by its bytes in the vector (fixed width: its slot;
     * variable width: its bytes), a nested one by its text.
     */
    static final class Digest {
        private final Map<String, long[]> columns = new LinkedHashMap<>();
        private final Map<String, Field> types = new LinkedHashMap<>();
        private final Map<String, String> names = new HashMap<>();
        private long rows;
        /** A column left out, or null. */
        String skipped;

        /** Adds the rows of {@code b} that {@code row} takes. */
        void add(VectorSchemaRoot b, IntPredicate row) {
            int n = b.getRowCount();
            for (int i = 0; i < n; i++) {
                if (row.test(i)) {
                    rows++;
                }
            }
            for (FieldVector v : b.getFieldVectors()) {
                if (v.getName().equals(skipped)) {
                    continue; // the rows' key ids, recorded in the footers and checked there (KeyedInput)
                }
                String name = v.getName().toLowerCase(Locale.ROOT);
                names.putIfAbsent(name, v.getName());
                types.putIfAbsent(name, v.getField());
                long[] d = columns.computeIfAbsent(name, k -> new long[2]);
                if (v instanceof BitVector bits) {
                    for (int i = 0; i < n; i++) {
                        if (!bits.isNull(i) && row.test(i)) {
                            d[0]++;
                            d[1] += mix(bits.get(i) + 1);
                        }
                    }
                } else if (v instanceof BaseFixedWidthVector f) {
                    ArrowBuf data = f.getDataBuffer();
                    int width = f.getTypeWidth();
                    for (int i = 0; i < n; i++) {
                        if (!f.isNull(i) && row.test(i)) {
                            d[0]++;
                            d[1] += bytes(data, (long) i * width, width);
                        }
                    }
                } else if (v instanceof BaseVariableWidthVector w) {
                    ArrowBuf data = w.getDataBuffer();
                    ArrowBuf offsets = w.getOffsetBuffer();
                    for (int i = 0; i < n; i++) {
                        if (!w.isNull(i) && row.test(i)) {
                            d[0]++;
                            int from = offsets.getInt((long) i * 4);
                            d[1] += bytes(data, from, offsets.getInt((long) (i + 1) * 4) - from);
                        }
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        if (!v.isNull(i) && row.test(i)) {
                            d[0]++;
                            d[1] += hash(text(v.getObject(i)));
                        }
                    }
                }
            }
        }

        /** A hash of {@code length} bytes at {@code at}, eight at a time. */
        private static long bytes(ArrowBuf data, long at, int length) {
            long h = 0x9E3779B97F4A7C15L ^ length;
            int i = 0;
            for (; i + 8 <= length; i += 8) {
                h = mix(h ^ data.getLong(at + i));
            }
            long last = 0;
            for (; i < length; i++) {
                last = last << 8 | (data.getByte(at + i) & 0xFF);
            }
            return mix(h ^ last);
        }

        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        private static String text(Object o) {
            return o instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(o);
        }

        private static long hash(String s) {
            long h = 0xcbf29ce484222325L;
            for (int i = 0; i < s.length(); i++) {
                h ^= s.charAt(i);
                h *= 0x100000001b3L;
            }
            h ^= h >>> 33;
            h *= 0xff51afd7ed558ccdL;
            return h ^ (h >>> 33);
        }

        /**
         * The column whose type differs between the rows read and {@code other} (read back), as a sentence, or null: a type
         * the write could not keep, which is a limit of the compaction, not a changed file.
         */
        String typeDifference(Digest other) {
            for (Map.Entry<String, Field> e : types.entrySet()) {
                Field back = other.types.get(e.getKey());
                if (back != null && !back.getType().equals(e.getValue().getType())) {
                    return "the column '" + names.get(e.getKey()) + "' was read as " + e.getValue().getType() + " and its new files give it "
                            + back.getType();
                }
            }
            return null;
        }

        /** What differs, or null. */
        String difference(Digest other) {
            if (rows != other.rows) {
                return rows + " rows read, " + other.rows + " written";
            }
            for (Map.Entry<String, long[]> e : columns.entrySet()) {
                long[] o = other.columns.get(e.getKey());
                String name = names.get(e.getKey());
                if (o == null) {
                    if (e.getValue()[0] == 0) {
                        continue; // no value to keep
                    }
                    return "the column '" + name + "' is missing";
                }
                if (o[0] != e.getValue()[0]) {
                    return "the column '" + name + "' has " + e.getValue()[0] + " values read, " + o[0] + " written";
                }
                if (o[1] != e.getValue()[1]) {
                    return "the values of the column '" + name + "' differ (checksum)";
                }
            }
            for (Map.Entry<String, long[]> e : other.columns.entrySet()) {
                if (!columns.containsKey(e.getKey()) && e.getValue()[0] > 0) {
                    return "the column '" + other.names.get(e.getKey()) + "' has 0 values read, " + e.getValue()[0] + " written";
                }
            }
            return null;
        }
    }
}
