package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.commit.DryRun;
import io.wrangler.commit.Writes;
import io.wrangler.commit.WriteSpec;
import io.wrangler.compact.Compaction;
import io.wrangler.compact.CompactionSpec;
import io.wrangler.compact.Removal;
import io.wrangler.compact.Removals;
import io.wrangler.compact.RowMatch;
import io.wrangler.input.ArrowSource;
import io.wrangler.input.BatchSource;
import io.wrangler.input.InputFailures;
import io.wrangler.input.RecordSource;
import io.wrangler.merge.Merge;
import io.wrangler.merge.MergeSpec;
import io.wrangler.read.TableRead;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.tableops.DropTable;
import io.wrangler.tableops.OpSpec;
import io.wrangler.tableops.Register;
import io.wrangler.tableops.Repair;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Parquet writes Arrow data or Java records to S3 as a Hive-partitioned Parquet dataset, through a staged,
 * recoverable commit, and registers it in a catalog when asked.
 *
 * <pre>{@code
 * WriteResult r = S3Parquet.write(table)
 *     .partitionBy("dt", "country")
 *     .mode(WriteMode.OVERWRITE_PARTITIONS)
 *     .catalog(GlueCatalog.of(glue).table("analytics", "orders"))
 *     .to("s3://bucket/marts/orders/");
 * }</pre>
 *
 * <p>A job that writes several tables shares the options they have in common as one immutable {@link WriteOptions}
 * ({@code S3Parquet.write(rows).options(daily).to(uri)}); each {@code write(...)} is used once.
 *
 * <p>What is atomic: each data file (it appears whole or not at all). What is not: the table as a whole;
 * readers listing during the publish step may briefly see old and new files of a partition side by side,
 * never a partition missing. What a crash leaves: always something {@link #recover} (or the next write)
 * resolves to exactly one clean run. See {@code io/wrangler/commit/package-info.java}.
 *
 * <p>S3Parquet is also the one bridge from the API ({@code io.wrangler}) to the internal packages: the builders collect
 * their options into immutable API values and hand them to the package-private methods below, which convert them and
 * run the engine. No other class of this package names an internal package ({@code PackageBoundaryTest}).
 */
public final class S3Parquet {
    private static volatile S3Client defaultClient;

    private S3Parquet() {
    }

    /** A write of one borrowed batch (not closed by the write). Every value is validated before any I/O. */
    public static WriteBuilder write(VectorSchemaRoot root) {
        return write(root, null);
    }

    /** A write of one borrowed batch whose dictionary-encoded columns are decoded with {@code dictionaries}. */
    public static WriteBuilder write(VectorSchemaRoot root, DictionaryProvider dictionaries) {
        Objects.requireNonNull(root, "root");
        return new WriteBuilder(() -> ArrowSource.of(root, dictionaries));
    }

    /**
     * A write of a stream of batches, consumed once and never held whole in memory (the reader is not closed).
     * Schema-level checks run before any I/O; values are checked batch by batch before each is staged, and a bad
     * value found late removes what this write staged, leaving the table unchanged. A reader that throws an IOException
     * fails the write with an {@link InputException}.
     */
    public static WriteBuilder write(ArrowReader reader) {
        Objects.requireNonNull(reader, "reader");
        return new WriteBuilder(() -> {
            try {
                return ArrowSource.of(reader);
            } catch (IOException e) {
                throw new UncheckedIOException("the ArrowReader failed while its schema was read", e);
            }
        });
    }

    /**
     * A write of Java records, one column per record component (see docs/types.md for the types). All records must be
     * of one class; every value is validated before any I/O.
     */
    public static WriteBuilder write(Collection<? extends Record> records) {
        Objects.requireNonNull(records, "records");
        // Not List.copyOf: a null record is refused by the write, with a message, not here with a bare NPE.
        List<? extends Record> copy = Collections.unmodifiableList(new ArrayList<>(records));
        // An empty collection has no record class, hence no schema: the write is a no-op (refused for OVERWRITE).
        return new WriteBuilder(() -> copy.isEmpty() ? null : new RecordsInput(copy));
    }

    /**
     * A read of the table at {@code uri} ({@code s3://bucket/prefix}): its rows as Arrow batches, streamed file by file,
     * with the partition columns restored from the folders (or the catalog); see {@link ReadBuilder}.
     */
    public static ReadBuilder read(String uri) {
        return new ReadBuilder(uri);
    }

    /**
     * A read of the table a catalog registers, by its name, as awswrangler's {@code read_parquet_table(database, table)}:
     * {@code S3Parquet.read(GlueCatalog.of(glue).table("analytics", "orders"))}. The catalog gives the table's location,
     * its partitions (each read from its Location) and their columns' types, as {@code read(location).catalog(table)}
     * would; it is read when the read is opened. A table the catalog does not have fails the read with a
     * {@link ReadException}.
     */
    public static ReadBuilder read(CatalogTable table) {
        return new ReadBuilder(table);
    }

    /**
     * A compaction of the table at {@code uri}: partitions with too many or too small files rewritten into few, under the
     * table's lease and the commit protocol; see {@link CompactBuilder}.
     */
    public static CompactBuilder compact(String uri) {
        return new CompactBuilder(uri);
    }

    /**
     * Runs the compaction {@code b} configured: the one call from the API into the compaction engine
     * ({@code io.wrangler.compact}), after what every operation checks first (the URI, Arrow's memory, the client).
     */
    static CompactionResult compact(CompactBuilder b) {
        S3Location location = S3Location.parse(b.uri, WriteStep.VALIDATE, "compact");
        String table = location.uri();
        ArrowMemory.check("compact", table);
        WriteOptions o = b.options.values().build();
        S3Client client = o.s3().orElseGet(() -> defaultClient("compact", table));
        CompactionSpec.DedupBy dedup = b.dedupKeys == null ? null : new CompactionSpec.DedupBy(b.dedupKeys, b.dedupOrder);
        return Compaction.run(new CompactionSpec(location, client, o, requests(o), b.compressionSet,
                new CompactionSpec.Choice(b.filter, b.moreFilesThan, b.smallerThan), dedup, b.catalog,
                new CompactionSpec.Seams(b.hook, b.tuning.engine(), b.batchRows, b.outputSchema), null));
    }

    /**
     * A delete of rows from the table at {@code uri}: the files holding a matched row rewritten without it, under the
     * table's lease and the commit protocol; see {@link DeleteRowsBuilder}.
     */
    public static DeleteRowsBuilder deleteRows(String uri) {
        return new DeleteRowsBuilder(uri);
    }

    /**
     * A drop of partitions of the table at {@code uri}: their files deleted and their catalog entries removed, under the
     * table's lease and the commit protocol; see {@link DropPartitionsBuilder}.
     */
    public static DropPartitionsBuilder dropPartitions(String uri) {
        return new DropPartitionsBuilder(uri);
    }

    /** Runs (or plans) the delete of rows {@code b} configured: the one call from the API into the removal engine. */
    static DeleteResult deleteRows(DeleteRowsBuilder b, boolean dryRun) {
        S3Location location = S3Location.parse(b.uri, WriteStep.VALIDATE, "delete rows of");
        String table = location.uri();
        RowMatch match = rowMatch(b, table);
        ArrowMemory.check("delete rows of", table);
        WriteOptions o = b.options.values().build();
        S3Client client = o.s3().orElseGet(() -> defaultClient("delete rows of", table));
        return Removals.deleteRows(new CompactionSpec(location, client, o, requests(o), false,
                new CompactionSpec.Choice(b.filter, -1, -1), null, b.catalog,
                new CompactionSpec.Seams(b.hook, b.tuning.engine(), b.batchRows, s -> s), Removal.deleteRows(match, dryRun)));
    }

    /** The test of a delete of rows as configured, refused before any I/O when there is none or it cannot match. */
    private static RowMatch rowMatch(DeleteRowsBuilder b, String table) {
        int given = (b.where != null ? 1 : 0) + (b.keyColumn != null ? 1 : 0) + (b.everyRow ? 1 : 0);
        String refused = null;
        if (given == 0) {
            refused = "no rows are chosen. Give where(rowFilter) or keys(column, values) for the rows to delete, or everyRow() to "
                    + "delete every row of the partitions filter(...) passes; a delete with no predicate is never assumed";
        } else if (given > 1) {
            refused = "more than one of where(...), keys(...) and everyRow() is given. Give one of them";
        } else if (b.keyColumn != null && b.keyValues.isEmpty()) {
            refused = "keys(\"" + b.keyColumn + "\", ...) has no values, so it would match no row. Give at least one value";
        } else if (b.keyColumn != null && b.keyValues.contains(null)) {
            refused = "keys(\"" + b.keyColumn + "\", ...) holds a null value, and a null matches no row. Leave nulls out, or "
                    + "delete them with where(RowFilter.isNull(...))";
        }
        if (refused != null) {
            throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot delete rows of " + table + " (step: validate): "
                    + refused + "; nothing was changed.");
        }
        if (b.everyRow) {
            return RowMatch.everyRow();
        }
        return RowMatch.of(b.where != null ? b.where : RowFilter.in(b.keyColumn, b.keyValues.toArray()));
    }

    /** Runs (or plans) the drop of partitions {@code b} configured: the one call from the API into the removal engine. */
    static DropResult dropPartitions(DropPartitionsBuilder b, boolean dryRun) {
        S3Location location = S3Location.parse(b.uri, WriteStep.VALIDATE, "drop partitions of");
        String table = location.uri();
        if (b.filter == null) {
            throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot drop partitions of " + table + " (step: validate): "
                    + "no filter(...) was given. Give the partitions to drop with filter(...), or filter(PartitionFilter.all()) to "
                    + "drop every partition; nothing was changed.");
        }
        ArrowMemory.check("drop partitions of", table);
        WriteOptions o = b.options.values().build();
        S3Client client = o.s3().orElseGet(() -> defaultClient("drop partitions of", table));
        return Removals.dropPartitions(new CompactionSpec(location, client, o, requests(o), false,
                new CompactionSpec.Choice(b.filter, -1, -1), null, b.catalog,
                new CompactionSpec.Seams(b.hook, b.tuning.engine(), 65_536, s -> s), Removal.dropPartitions(dryRun)));
    }

    /**
     * A merge by key (upsert) of one borrowed batch (not closed by the merge) into a table: each row replaces the table's
     * rows of its key, or is added; see {@link MergeBuilder}.
     */
    public static MergeBuilder merge(VectorSchemaRoot root) {
        Objects.requireNonNull(root, "root");
        return new MergeBuilder(() -> ArrowSource.of(root, null));
    }

    /** A merge by key of a stream of batches (read whole before the merge reads the table; not closed); see {@link MergeBuilder}. */
    public static MergeBuilder merge(ArrowReader reader) {
        Objects.requireNonNull(reader, "reader");
        return new MergeBuilder(() -> {
            try {
                return ArrowSource.of(reader);
            } catch (IOException e) {
                throw new UncheckedIOException("the ArrowReader failed while its schema was read", e);
            }
        });
    }

    /** A merge by key of Java records, one column per record component; an empty collection is a no-op. */
    public static MergeBuilder merge(Collection<? extends Record> records) {
        Objects.requireNonNull(records, "records");
        List<? extends Record> copy = Collections.unmodifiableList(new ArrayList<>(records));
        return new MergeBuilder(() -> copy.isEmpty() ? null : new RecordsInput(copy));
    }

    /** Runs (or, {@code dryRun}, plans) the merge {@code b} configured: the one call from the API into {@code io.wrangler.merge}. */
    static MergeResult merge(MergeBuilder b, String uri, boolean dryRun) {
        Objects.requireNonNull(uri, "uri");
        if (b.keys == null) {
            throw new IllegalStateException("Cannot merge into " + uri + ": no key columns; name them with on(...)");
        }
        S3Location location = S3Location.parse(uri, WriteStep.VALIDATE, "merge into");
        String table = location.uri();
        ArrowMemory.check("merge into", table);
        WriteOptions o = b.options.values().build();
        S3Client client = o.s3().orElseGet(() -> defaultClient("merge into", table));
        BatchSource source;
        try {
            source = b.input.open();
        } catch (IllegalArgumentException e) {
            throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot merge into " + table + " (step: validate): " + e.getMessage()
                    + ". Nothing was changed.", e);
        } catch (UncheckedIOException e) {
            throw new InputException(table, WriteStep.VALIDATE, "Cannot merge into " + table + " (step: validate): " + e.getMessage() + " ("
                    + e.getCause() + "). Nothing was changed; fix the input source and rerun.", e.getCause());
        }
        if (source == null) {
            return new MergeResult(table, 0, 0, 0, List.of(), List.of(), null); // no records: nothing to merge
        }
        if (source instanceof ArrowSource arrow) {
            arrow.keepNanos(o.preserveNanoseconds() || o.timestampsAsInt96());
        }
        try (BatchSource checked = new InputFailures(source, table, "merge into", "merge")) {
            return Merge.run(new MergeSpec(location, client, o, requests(o), checked, b.keys, b.orderBy,
                    b.whenMatched == WhenMatched.KEEP_EXISTING, b.scope, b.catalog, b.hook, b.tuning.engine()), dryRun);
        }
    }

    /**
     * The registration in a catalog of the existing Hive-layout Parquet dataset at {@code uri}, without rewriting it
     * (awswrangler's {@code store_parquet_metadata}): columns from the files' footers, partitions from the folders; see
     * {@link RegisterBuilder}.
     */
    public static RegisterBuilder register(String uri) {
        return new RegisterBuilder(uri);
    }

    /**
     * The repair of the catalog's partitions of the table at {@code uri} from its folders (Hive's {@code MSCK REPAIR
     * TABLE}); see {@link RepairBuilder}.
     */
    public static RepairBuilder repairCatalog(String uri) {
        return new RepairBuilder(uri);
    }

    /** The removal of the table at {@code uri} from its catalog, and optionally of its data; see {@link DropTableBuilder}. */
    public static DropTableBuilder dropTable(String uri) {
        return new DropTableBuilder(uri);
    }

    /** Runs (or, without {@code apply}, plans) the registration {@code b} configured. */
    static RegisterResult register(RegisterBuilder b, boolean apply) {
        OpSpec spec = opSpec(b.uri, "register", b.s3, b.catalog, b.tuning, b.leaseWait, b.hook);
        return Register.run(spec, new Register.Options(b.partitionTypes, b.partitionColumns, b.replaceTable), apply);
    }

    /** Runs (or plans) the repair {@code b} configured. */
    static RepairResult repair(RepairBuilder b, boolean apply) {
        OpSpec spec = opSpec(b.uri, "repair the catalog of", b.s3, b.catalog, b.tuning, b.leaseWait, b.hook);
        return Repair.run(spec, b.removeMissing, apply);
    }

    /** Runs (or plans) the drop {@code b} configured. */
    static DropTableResult drop(DropTableBuilder b, boolean apply) {
        OpSpec spec = opSpec(b.uri, "drop", b.s3, b.catalog, b.tuning, b.leaseWait, b.hook);
        return DropTable.run(spec, b.deleteData, apply);
    }

    private static OpSpec opSpec(String uri, String verb, S3Client s3, CatalogTable catalog, Tuning tuning, java.time.Duration wait,
                                 io.wrangler.spi.StepHook hook) {
        S3Location location = S3Location.parse(uri, WriteStep.VALIDATE, verb);
        S3Client client = s3 != null ? s3 : defaultClient(verb, location.uri());
        return new OpSpec(location, client, RequestOptions.defaults(), catalog, tuning.engine(), wait, hook);
    }

    /** Finishes or undoes the interrupted writes of the table at {@code uri}, with the default S3 client. */
    public static RecoveryResult recover(String uri) {
        return recover(uri, defaultClient("recover", uri));
    }

    /**
     * Finishes or undoes the interrupted writes of the table at {@code uri}. Overwrites that reached their manifest
     * are finished; appends and writes without a manifest are undone. A write that had a catalog keeps its manifest
     * until recovered with that catalog ({@link RecoveryResult#catalogPending()}). Idempotent.
     *
     * @throws CommitConflictException another writer or recovery holds the table's lease, or took it over while this
     *     recovery ran: what was resolved stays resolved; run it again once the other holder has finished
     * @throws CommitStateUnknownException S3 failed, or a manifest under {@code _tmp/} does not belong to this table (a
     *     table copied with its {@code _tmp/}): nothing of that write was touched; read the message, then run it again
     * @throws InvalidWriteException {@code uri} is not a table URI ({@code s3://bucket/prefix}); nothing was touched
     * @throws StorageException the endpoint does not enforce conditional requests, so no lease can be held; nothing
     *     was touched
     */
    public static RecoveryResult recover(String uri, S3Client s3) {
        return recover(uri, s3, null);
    }

    /** Like {@link #recover(String, S3Client)}, and also runs the catalog step of interrupted writes made with {@code catalog}. */
    public static RecoveryResult recover(String uri, S3Client s3, CatalogTable catalog) {
        return recover(uri, s3, catalog, Tuning.DEFAULTS);
    }

    /** Recovery with other tunings: tests use it with a clock that has moved past every lease. */
    static RecoveryResult recover(String uri, S3Client s3, CatalogTable catalog, Tuning tuning) {
        return Writes.recover(uri, Objects.requireNonNull(s3, "s3"), catalog, tuning.engine(), RequestOptions.defaults());
    }

    /**
     * The SDK's default client (default region and credentials chains), made once per JVM, as awswrangler uses boto3's
     * default session. When the SDK cannot make it (no region anywhere in its chain), the caller gets an
     * {@link InvalidWriteException} that says what to set, before any I/O: {@code verb} and {@code uri} name the
     * operation and its table.
     */
    static S3Client defaultClient(String verb, String uri) {
        S3Client c = defaultClient;
        if (c == null) {
            synchronized (S3Parquet.class) {
                c = defaultClient;
                if (c == null) {
                    try {
                        c = S3Client.create();
                    } catch (SdkClientException e) {
                        throw new InvalidWriteException(uri, WriteStep.VALIDATE, "Cannot " + verb + " " + uri + " (step: validate): no S3 "
                                + "client was given and the AWS SDK could not make its default one (" + e.getMessage() + "). Set a "
                                + "region (the AWS_REGION environment variable, the aws.region system property or a profile's region in "
                                + "~/.aws/config) and credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, or an "
                                + "instance role), or give a client with .s3(S3Client). Nothing was touched.", e);
                    }
                    defaultClient = c;
                }
            }
        }
        return c;
    }

    // ---- the bridge: what the builders of this package hand over, converted and run ----

    /**
     * The builders' test seam {@code tuning(...)} (package-private, for tests of this package): the engine's buffers,
     * limits and test clock, held by a builder without being read and unwrapped here, so that no builder names the
     * engine's types.
     */
    record Tuning(WriteSpec.Tuning engine) {
        static final Tuning DEFAULTS = new Tuning(WriteSpec.Tuning.defaults());

        Tuning {
            Objects.requireNonNull(engine, "engine");
        }
    }

    /** A write's input, made when the write runs (not before: a builder may be dropped unused). */
    @FunctionalInterface
    interface Input {
        /** The input as batches, or null for an input without a schema (no records): the write is a no-op. */
        BatchSource open();
    }

    /** The request options every S3 request of a write with these options carries. */
    static RequestOptions requests(WriteOptions o) {
        return RequestOptions.of(o.encryption(), o.acl().orElse(null), o.expectedBucketOwner().orElse(null), o.retryPolicy())
                .withDataObjects(o.storageClass().orElse(null), o.tags());
    }

    /** Runs the write {@link WriteBuilder#to} configured. */
    static WriteResult run(WriteBuilder.Request r) {
        WriteSpec spec = spec(r);
        try (BatchSource checked = openInput(r, spec)) {
            if (checked == null) {
                return Writes.runEmpty(spec);
            }
            return Writes.run(spec, checked);
        }
    }

    /** Plans the write {@link WriteBuilder#plan} configured, as {@link #run} would run it, without running it. */
    static PlannedWrite plan(WriteBuilder.Request r) {
        WriteSpec spec = spec(r);
        try (BatchSource checked = openInput(r, spec)) {
            return DryRun.plan(spec, checked);
        }
    }

    private static WriteSpec spec(WriteBuilder.Request r) {
        WriteOptions o = r.options();
        S3Client client = o.s3().orElseGet(() -> defaultClient("write", r.uri()));
        return new WriteSpec(r.uri(), client, o, r.catalog(), r.hook(), r.tuning().engine().withThreads(o.concurrency()), r.idempotencyKey(),
                r.progress(), null);
    }

    /** The request's input opened, its read failures made {@link InputException}s; null for an input without a schema. */
    private static BatchSource openInput(WriteBuilder.Request r, WriteSpec spec) {
        String uri = r.uri();
        BatchSource source;
        try {
            source = r.input().open();
        } catch (IllegalArgumentException e) {
            throw new InvalidWriteException(uri, WriteStep.VALIDATE, "Cannot write " + uri + " (step: validate): " + e.getMessage()
                    + ". Nothing was written.", e);
        } catch (UncheckedIOException e) {
            throw new InputException(uri, WriteStep.VALIDATE, "Cannot write " + uri + " (step: validate): " + e.getMessage() + " ("
                    + e.getCause() + "). Nothing was written; fix the input source and rerun the write.", e.getCause());
        }
        if (source instanceof ArrowSource arrow) {
            arrow.keepNanos(spec.keepNanos());
        }
        return source == null ? null : new InputFailures(source, uri);
    }

    /** Opens the read {@link ReadBuilder#open} configured. */
    static ArrowReader open(ReadBuilder b) {
        return tableRead(b).open();
    }

    /** Runs the read {@link ReadBuilder#toList} configured. */
    static <R extends Record> List<R> toList(ReadBuilder b, Class<R> recordType) {
        return tableRead(b).toList(recordType);
    }

    /** Runs the count {@link ReadBuilder#count} configured. */
    static long count(ReadBuilder b) {
        return tableRead(b).count();
    }

    private static TableRead tableRead(ReadBuilder b) {
        S3Client s3 = b.s3;
        if (b.after != null && (b.files != null || b.modifiedFrom != null || b.modifiedTo != null)) {
            throw new IllegalArgumentException("committedAfter(mark) reads what commits added; it cannot be combined with files(...) "
                    + "or lastModifiedBetween(...)");
        }
        TableRead.Selection selection = new TableRead.Selection(b.after, b.modifiedFrom, b.modifiedTo, b.files, b.withMark, b::lastMark);
        return new TableRead(b.uri, b.catalog, table -> s3 != null ? s3 : defaultClient("read", table), b.columns, b.filter, b.allocator,
                b.batchRows, b.retry, b.expectedBucketOwner, b.where, selection);
    }

    /** Records converted with an allocator owned by the source. */
    private static final class RecordsInput implements BatchSource {
        private final RootAllocator allocator = new RootAllocator();
        private final RecordSource source;

        RecordsInput(List<? extends Record> records) {
            RecordSource s;
            try {
                s = new RecordSource(records, allocator);
            } catch (RuntimeException e) {
                allocator.close();
                throw e;
            }
            this.source = s;
        }

        @Override
        public Schema schema() {
            return source.schema();
        }

        @Override
        public boolean next() {
            return source.next();
        }

        @Override
        public VectorSchemaRoot current() {
            return source.current();
        }

        @Override
        public boolean replayable() {
            return true;
        }

        @Override
        public void rewind() {
            source.rewind();
        }

        @Override
        public void close() {
            source.close();
            allocator.close();
        }
    }
}
