package io.wrangler.commit;

import io.wrangler.spi.StepHook;
import io.wrangler.InvalidWriteException;
import io.wrangler.PlannedWrite;
import io.wrangler.PlannedWrite.ColumnChange;
import io.wrangler.PlannedWrite.Registration;
import io.wrangler.StorageException;
import io.wrangler.WriteMode;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableDefinition;
import io.wrangler.catalog.TableLayout;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.input.BatchSource;
import io.wrangler.hive.HiveTypes;
import io.wrangler.hive.HivePaths;
import io.wrangler.partition.PartitionKey;
import io.wrangler.read.Footers;
import io.wrangler.storage.Removed;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.vector.types.pojo.Field;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The dry run of a write ({@code WriteBuilder.plan}): the write's {@link Planner} (validate and plan: the input read and
 * checked, partitions and buckets assigned, the catalog's types applied, its table prepared and its partitions'
 * Locations read), the bucket's check, and the reads the write makes before its commit point (the listing of the old
 * files of the partitions it replaces, {@link Publisher#listOldFiles}; the footers of the marked files a keyed rerun
 * looks into, as {@link KeyedRewrite} reads them). Nothing else: no lease, no record under {@code _tmp/}, no staging,
 * no recovery, no catalog change. What it would do is returned as an {@link PlannedWrite}.
 *
 * <p>An input that can be read only once is refused after its schema's checks, before a batch is read: its partitions
 * are known only by reading it, and the write would then have nothing to read (see {@code WriteBuilder.plan}).
 */
public final class DryRun {
    private final WriteSpec spec;
    private final S3Location location;
    private final String table;
    /** The write's catalog, recording what the planner reads from it; null without a catalog. */
    private final Recorded catalog;

    private DryRun(WriteSpec spec, S3Location location, Recorded catalog) {
        this.spec = spec;
        this.location = location;
        this.table = location.uri();
        this.catalog = catalog;
    }

    /**
     * What the write of {@code input} (null: an input without a schema) described by {@code spec} would do now. Throws
     * what the write would throw for bad input, and refuses an input that can be read only once.
     */
    public static PlannedWrite plan(WriteSpec spec, BatchSource input) {
        if (spec.replacement() != null) {
            throw new IllegalArgumentException("a compaction's replacement has no dry run");
        }
        S3Location location = S3Location.parse(spec.uri(), WriteStep.VALIDATE);
        if (input == null) {
            Writes.runEmpty(spec); // refuses an OVERWRITE with no rows, as the write does; else there is nothing to do
            Registration registration = spec.catalog() == null ? Registration.NO_CATALOG
                    : spec.catalog().columnTypes(location.uri(), WriteMode.APPEND).isEmpty() ? Registration.NEW : Registration.REGISTERED;
            return new PlannedWrite(location.uri(), spec.mode(), spec.idempotencyKey(), 0, List.of(), List.of(), registration, List.of(),
                    false);
        }
        Recorded recorded = spec.catalog() == null ? null : new Recorded(spec.catalog());
        WriteSpec planned = new WriteSpec(spec.uri(), spec.s3(), spec.write(), recorded, StepHook.NONE, spec.tuning(),
                spec.idempotencyKey(), new io.wrangler.Progress() { }, null);
        return new DryRun(planned, location, recorded).run(input);
    }

    private PlannedWrite run(BatchSource input) {
        Planner planner = new Planner(spec, location);
        BatchSource source = planner.casts(input);
        try {
            if (!source.replayable()) {
                planner.validateSchema(source.schema());
                throw Outcomes.streamNotPlanned(table);
            }
            WritePlan plan = planner.plan(source);
            List<ColumnChange> changes = changes(input, source, plan);
            if (plan.empty()) {
                return new PlannedWrite(table, spec.mode(), spec.idempotencyKey(), 0, List.of(), List.of(), tableRegistration(),
                        changes, false);
            }
            return planned(plan, changes);
        } finally {
            if (source != input) {
                source.close(); // the widened copies only; the input is its caller's
            }
        }
    }

    /** After the planner: the bucket's check, the old files listed, the partitions described. */
    private PlannedWrite planned(WritePlan plan, List<ColumnChange> changes) {
        S3Store store = new S3Store(spec.s3(), location.bucket(), spec.options());
        try {
            store.checkBucket();
        } catch (SdkException e) {
            throw Outcomes.bucketFailed(table, location.bucket(), e);
        }
        boolean pending;
        try {
            pending = Recovery.hasWriteFolders(store, location); // as Writes.recoverAbandoned tells
        } catch (SdkException e) {
            throw Outcomes.storage(table, WriteStep.VALIDATE, "list the staging folder " + location.uriOf(location.tmpPrefix()), e,
                    "Nothing was changed; rerun the plan.");
        }
        Map<String, Long> old = plan.kind() == WriteKind.PLAIN_APPEND ? Map.of() : oldFiles(plan, store);
        List<PlannedWrite.File> replaced = new ArrayList<>();
        Map<String, List<PlannedWrite.File>> byFolder = new HashMap<>();
        old.forEach((key, bytes) -> {
            PlannedWrite.File f = new PlannedWrite.File(location.uriOf(key), bytes);
            replaced.add(f);
            String rel = key.substring(location.prefix().length());
            byFolder.computeIfAbsent(rel.substring(0, rel.lastIndexOf('/') + 1), k -> new ArrayList<>()).add(f);
        });
        return new PlannedWrite(table, spec.mode(), spec.idempotencyKey(), plan.prepass().rows(), partitions(plan, byFolder), replaced,
                tableRegistration(), changes, pending);
    }

    /**
     * The files the write would delete, with their sizes, in listing order: the listing of its partitions (the whole
     * table for an OVERWRITE), and for a keyed rerun the marked files whose footer records rows of its key.
     */
    private Map<String, Long> oldFiles(WritePlan plan, S3Store store) {
        Map<String, Long> sizes = new ConcurrentHashMap<>();
        ExecutorService pool = Pools.pool(spec.tuning().threads());
        Publisher.Listing listing;
        try {
            TableContext context = new TableContext(location, store, pool, spec.tuning(), StepHook.NONE, () -> { });
            listing = new Publisher(context, sizes).listOldFiles(plan.touched(), null);
        } catch (StorageException e) {
            // the listing's failure in the plan's words: the write's ones name its publish step and tell to rerun the write
            throw e.getCause() instanceof SdkException sdk ? planReadFailed("list the old files", sdk) : e;
        } finally {
            Pools.shutdown(pool);
        }
        if (!listing.nested().isEmpty()) {
            throw Outcomes.nested(table, location.uriOf(listing.nested().get(0)));
        }
        Map<String, Long> old = new LinkedHashMap<>();
        listing.old().forEach(k -> old.put(k, sizes.get(k)));
        for (Publisher.Marked m : listing.marked()) {
            if (holdsKey(m, plan.keyId())) {
                old.put(m.key(), m.size());
            }
        }
        return old;
    }

    /** Whether a marked file's footer records rows of {@code keyId}: the read {@link KeyedRewrite#run} makes. */
    private boolean holdsKey(Publisher.Marked m, String keyId) {
        try {
            return KeyRuns.totals(Footers.keyed(spec.s3(), spec.options(), location.bucket(), m.key(), m.size(), m.eTag()).runs()).containsKey(keyId);
        } catch (IOException | RuntimeException e) {
            if (Removed.by(e)) {
                throw Outcomes.removedMeanwhile(table, WriteStep.VALIDATE, "read the key runs of " + location.uriOf(m.key()), e,
                        "Nothing was changed; rerun the plan.");
            }
            if (e instanceof SdkException sdk) {
                throw planReadFailed("read the key runs of " + location.uriOf(m.key()), sdk);
            }
            // a file that cannot be what its name says: the write's own refusal, word for word, is what the plan reports
            throw new Outcomes(table, WriteKind.KEYED_APPEND).keyedRewrite(e);
        }
    }

    /** A read of the plan failed in S3: nothing was written, so the plan is simply run again. */
    private StorageException planReadFailed(String doing, SdkException e) {
        return Outcomes.storage(table, WriteStep.VALIDATE, doing, e, "Nothing was changed; rerun the plan.");
    }

    /** Every partition the input touches, in the order it first has them, with its rows and the files of its folder. */
    private List<PlannedWrite.Partition> partitions(WritePlan plan, Map<String, List<PlannedWrite.File>> byFolder) {
        List<PartitionKey> keys = plan.partitioner().keys();
        long[] rows = new long[keys.size()];
        for (int[] batch : plan.prepass().assigned()) {
            for (int id : batch) {
                rows[plan.buckets() == null ? id : plan.buckets().partitionOf(id)]++;
            }
        }
        List<PlannedWrite.Partition> out = new ArrayList<>();
        List<String> names = plan.columns().partitionNames();
        Map<List<String>, String> registered = registered(keys, names);
        for (int i = 0; i < keys.size(); i++) {
            PartitionKey key = keys.get(i);
            String folder = plan.folders().folderOf(key);
            boolean elsewhere = !folder.equals(HivePaths.folder(names, key.values()));
            Registration registration = catalog == null ? Registration.NO_CATALOG
                    : names.isEmpty() ? tableRegistration()
                    : registered.containsKey(key.values()) ? Registration.REGISTERED : Registration.NEW;
            out.add(new PlannedWrite.Partition(key.displayValues(), table + folder, elsewhere, registration, rows[i],
                    byFolder.getOrDefault(folder, List.of())));
        }
        return out;
    }

    /**
     * The partitions of {@code keys} the catalog holds now: those the planner looked up, or for an OVERWRITE (which looks
     * none up, since it redefines the table and writes every partition at its Hive folder) one more read of them.
     */
    private Map<List<String>, String> registered(List<PartitionKey> keys, List<String> names) {
        if (catalog == null || names.isEmpty() || spec.mode() != WriteMode.OVERWRITE) {
            return catalog == null ? Map.of() : catalog.locations;
        }
        List<List<String>> values = new ArrayList<>();
        keys.forEach(k -> values.add(new ArrayList<>(k.values())));
        return catalog.delegate.partitionLocations(table, WriteMode.APPEND, values);
    }

    /**
     * Whether the catalog has the table: the types the write read from it (for an OVERWRITE, which reads none since it
     * redefines the table, one more read of them).
     */
    private Registration tableRegistration() {
        if (catalog == null) {
            return Registration.NO_CATALOG;
        }
        return catalogTypes().isEmpty() ? Registration.NEW : Registration.REGISTERED;
    }

    private Map<String, String> catalogTypes() {
        if (spec.mode() != WriteMode.OVERWRITE) {
            return catalog.types == null ? Map.of() : catalog.types;
        }
        if (catalog.overwriteTypes == null) {
            catalog.overwriteTypes = catalog.delegate.columnTypes(table, WriteMode.APPEND);
        }
        return catalog.overwriteTypes;
    }

    /**
     * The input's casts (dtype's and the catalog's widenings), then how the write's columns differ from the catalog's
     * table: added ones, and for an OVERWRITE the dropped and retyped ones.
     */
    private List<ColumnChange> changes(BatchSource input, BatchSource cast, WritePlan plan) {
        List<ColumnChange> out = new ArrayList<>();
        List<Field> before = input.schema().getFields();
        List<Field> after = cast.schema().getFields();
        for (int i = 0; i < before.size(); i++) {
            if (!before.get(i).equals(after.get(i))) {
                String name = before.get(i).getName();
                ColumnChange.Kind kind = spec.dtype().containsKey(name) || spec.dtype().containsKey(outputName(name))
                        ? ColumnChange.Kind.CAST : ColumnChange.Kind.WIDENED;
                out.add(new ColumnChange(outputName(name), kind, HiveTypes.of(before.get(i)), HiveTypes.of(after.get(i))));
            }
        }
        if (catalog == null) {
            return out;
        }
        Map<String, String> existing = new LinkedHashMap<>();
        catalogTypes().forEach((k, v) -> existing.put(k.toLowerCase(Locale.ROOT), v));
        if (existing.isEmpty()) {
            return out;
        }
        List<Field> columns = new ArrayList<>(plan.columns().dataCatalog());
        columns.addAll(plan.columns().partitionsOut());
        for (Field f : columns) {
            String was = existing.remove(f.getName().toLowerCase(Locale.ROOT));
            String type = HiveTypes.of(f);
            if (was == null) {
                out.add(new ColumnChange(f.getName(), ColumnChange.Kind.ADDED, null, type));
            } else if (spec.mode() == WriteMode.OVERWRITE && !was.equalsIgnoreCase(type)) {
                out.add(new ColumnChange(f.getName(), ColumnChange.Kind.RETYPED, was, type));
            }
        }
        if (spec.mode() == WriteMode.OVERWRITE) {
            existing.forEach((name, type) -> out.add(new ColumnChange(name, ColumnChange.Kind.DROPPED, type, null)));
        }
        return out;
    }

    private String outputName(String name) {
        return catalog == null ? name : catalog.columnName(name);
    }

    /** The write's catalog table, keeping what the planner reads from it: its types, its partitions' Locations. */
    private static final class Recorded implements CatalogTable {
        private final CatalogTable delegate;
        private final Map<List<String>, String> locations = new ConcurrentHashMap<>();
        private volatile Map<String, String> types;
        private volatile Map<String, String> overwriteTypes;

        Recorded(CatalogTable delegate) {
            this.delegate = delegate;
        }

        @Override
        public String describe() {
            return delegate.describe();
        }

        @Override
        public String columnName(String inputName) {
            return delegate.columnName(inputName);
        }

        @Override
        public Map<String, String> columnTypes(String location, WriteMode mode) {
            Map<String, String> found = delegate.columnTypes(location, mode);
            types = found;
            return found;
        }

        @Override
        public Map<List<String>, String> partitionLocations(String location, WriteMode mode, List<List<String>> values) {
            Map<List<String>, String> found = delegate.partitionLocations(location, mode, values);
            locations.putAll(found);
            return found;
        }

        @Override
        public CatalogCommit prepare(TableDefinition definition) {
            return delegate.prepare(definition);
        }

        @Override
        public TableLayout layout() {
            return delegate.layout();
        }
    }
}
