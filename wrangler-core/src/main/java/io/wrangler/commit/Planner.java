package io.wrangler.commit;

import io.wrangler.InvalidWriteException;
import io.wrangler.ReadException;
import io.wrangler.WriteMode;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableDefinition;
import io.wrangler.encoding.ArrowSchemas;
import io.wrangler.encoding.FileEncoder;
import io.wrangler.encoding.FileLayout;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.encoding.TimestampPolicy;
import io.wrangler.encoding.UnsupportedTypeException;
import io.wrangler.hive.HiveTypes;
import io.wrangler.input.BatchSource;
import io.wrangler.input.CastingSource;
import io.wrangler.input.Casts;
import io.wrangler.layout.WriteIds;
import io.wrangler.partition.Buckets;
import io.wrangler.partition.ColumnNames;
import io.wrangler.partition.PartitionKey;
import io.wrangler.partition.PartitionValues;
import io.wrangler.partition.Partitioner;
import io.wrangler.staging.Stager;
import io.wrangler.storage.Removed;
import io.wrangler.storage.Replaced;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkException;

/**

/**
 * The Planner validates a write and plans it: the validate step of package-info.java, with no I/O but reads (the
 * catalog's table and, for an input known in advance, its partitions' registered folders). It returns an immutable
 * {@link WritePlan} that the {@link Transaction} executes from the lease on.
 */
final class Planner {
    private final WriteSpec spec;
    private final S3Location location;
    private final String table;
    private final TimestampPolicy timestamps;
    /**
     * What {@link #casts} found of the table it writes into, checked only once the input itself has been checked
     * ({@link #checkTable}): a refusal of the input's own columns or values comes first, and says more.
     */
    private TableShape shape;
    /** Whether {@link #shape()} listed the table: the bucket answered the write's client (its HeadBucket is then not sent). */
    private boolean bucketListed;
    private Schema shapeSchema;
    private InvalidWriteException tableRefusal;

    Planner(WriteSpec spec, S3Location location) {
        this.spec = spec;
        this.location = location;
        this.table = location.uri();
        this.timestamps = new TimestampPolicy(spec.keepNanos(), spec.int96());
    }

    private InvalidWriteException invalid(String what, String todo) {
        return Outcomes.invalid(table, what, todo);
    }

    /**
     * Refuses a key whose file names would not give back the write id: recovery, a keyed rerun, a reader and a
     * distributed commit all read a file's write id from its name, and a key holding {@code part-<digits>-<digits>-k-}
     * makes that read find an id inside the key (a rerun would then replace none of the earlier run's files).
     */
    private void checkNames(String writeId) {
        String name = spec.filenamePrefix() + Stager.fileName(0, 0, writeId, -1, spec.compression().fileInfix() + ".parquet");
        if (!writeId.equals(WriteIds.ofFile(name))) {
            throw invalid("the file names of this write (" + name + ") hold what reads as another write id, from its "
                    + (spec.idempotencyKey() != null ? "idempotencyKey" : "filenamePrefix"), "Use a key without 'part-' followed "
                    + "by digits. Nothing was written.");
        }
    }

    /** Refuses what a distributed write does not support: dtype and a compaction's replacement. */
    static void checkDistributed(WriteSpec spec) {
        if (!spec.dtype().isEmpty() || spec.replacement() != null) {
            throw new IllegalArgumentException("a distributed write supports neither dtype nor a replacement");
        }
    }

    /**
     * The plan of a write whose files its tasks stage ({@link TaskStager#stageTask}): its columns, its ids and the
     * catalog's prepared commit. Each task plans its own staging; what the tasks report is checked at the commit.
     */
    WritePlan planTasks(Schema schema) {
        checkDistributed(spec);
        Columns columns = validateSchema(schema);
        checkTasksAgainstTable(schema);
        String keyId = spec.idempotencyKey() == null ? null : WriteIds.keyId(spec.idempotencyKey());
        String writeId = keyId == null ? WriteIds.next() : WriteIds.forKey(spec.idempotencyKey());
        checkNames(writeId);
        return new WritePlan(spec, location, schema, columns, writeId, keyId, null, null, null, null, null, null,
                prepareCatalog(columns), null, bucketListed);
    }

    /**
     * The validate step: the schema, the write's id and names, every partition of an input known in advance (read once
     * here, then rewound) and where each one goes, the catalog's prepared commit. No I/O but reads.
     */
    WritePlan plan(BatchSource source) {
        Schema schema = source.schema();
        Columns columns = validateSchema(schema);
        String keyId = spec.idempotencyKey() == null ? null : WriteIds.keyId(spec.idempotencyKey());
        String writeId = keyId == null ? WriteIds.next() : WriteIds.forKey(spec.idempotencyKey());
        checkNames(writeId);
        FileEncoder.Settings settings = new FileEncoder.Settings(columns.dataOut(), spec.compression(), spec.keepNanos(), spec.int96(),
                spec.rowGroupBytes(), spec.pageBytes()).withLayout(columns.layout());
        if (keyRuns()) {
            settings = settings.withKeyRuns();
        }
        String suffix = spec.compression().fileInfix() + ".parquet";
        String stagingFolder = location.tmpPrefix() + writeId + "/";
        IntSupplier givenBuckets = spec.replacement() == null ? null : spec.replacement().bucketOfBatch();
        String longestName = spec.filenamePrefix() + Stager.fileName(9_999_999, 99_999, writeId + KeyRuns.MARK,
                givenBuckets != null ? 99_999 : columns.bucket().isEmpty() ? -1 : spec.buckets() - 1, suffix);
        boolean lookUpEach = !source.replayable();
        PartitionFolders folders = new PartitionFolders(table, spec, columns.partitionNames(), stagingFolder, longestName);
        Partitioner.NewPartition validator = key -> {
            folders.check(key);
            if (lookUpEach) {
                // an input read once: its partitions are known only as they come, so each is looked up when first seen
                folders.lookUp(List.of(key));
            }
        };
        Partitioner partitioner = new Partitioner(names(columns.partitions()), names(columns.data()));
        Buckets buckets = givenBuckets != null ? Buckets.given(givenBuckets)
                : columns.bucket().isEmpty() ? null : new Buckets(names(columns.bucket()), spec.buckets());
        WritePlan.Prepass pre = null;
        if (source.replayable()) {
            pre = prepass(source, columns, validator, partitioner, buckets);
            checkTable();
            if (pre.rows() == 0) {
                return new WritePlan(spec, location, schema, columns, writeId, keyId, settings, folders, partitioner, buckets, validator,
                        pre, null, null, bucketListed);
            }
            source.rewind();
        }
        if (pre == null) {
            checkTable();
        }
        CatalogCommit catalogCommit = prepareCatalog(columns);
        if (pre != null) {
            // after prepare, which refuses a table at another location first
            folders.lookUp(partitioner.keys());
        }
        WritePlan plan = new WritePlan(spec, location, schema, columns, writeId, keyId, settings, folders, partitioner, buckets,
                validator, pre, catalogCommit, null, bucketListed);
        return pre == null || spec.replacement() != null ? plan
                : plan.withTouched(plan.manifest(partitioner.keys(), List.of(), folders, true));
    }

    /**
     * The plan that creates the table from an input with no rows ({@link WritePlan#empty}): an APPEND (whatever the
     * write's mode: should another writer create the table meanwhile, the write adds to it a file of no rows and replaces
     * nothing) of the file of no rows an unpartitioned table gets ({@link TaskStager}), and the catalog's table.
     */
    WritePlan forNewTable(WritePlan empty) {
        WriteSpec s = spec;
        WriteSpec append = new WriteSpec(s.uri(), s.s3(), s.write().toBuilder().mode(WriteMode.APPEND).build(), s.catalog(), s.hook(),
                s.tuning(), s.idempotencyKey(), s.progress(), s.replacement());
        Planner planner = new Planner(append, location);
        return new WritePlan(append, location, empty.schema(), empty.columns(), empty.writeId(), empty.keyId(), empty.settings(),
                empty.folders(), empty.partitioner(), empty.buckets(), empty.validator(), empty.prepass(),
                planner.prepareCatalog(empty.columns()), null, empty.bucketListed());
    }

    private String outputName(String name) {
        return spec.catalog() == null ? name : spec.catalog().columnName(name);
    }

    private Field renamed(Field f) {
        String name = outputName(f.getName());
        return name.equals(f.getName()) ? f : new Field(name, f.getFieldType(), f.getChildren());
    }

    /**
     * A data column as the files name it: the input's spelling whenever the catalog's name for it differs only by case
     * ({@code orderId}, which Glue registers as {@code orderid}: every reader matches the two ignoring case), so that a
     * write gives the same files with and without a catalog; the catalog's name where it differs by more (a space, a
     * dash, an accent), which Athena would not find under the input's spelling.
     */
    private Field fileField(Field f) {
        return outputName(f.getName()).equalsIgnoreCase(f.getName()) ? f : renamed(f);
    }

    /** True when the input's last column is each row's key id ({@link KeyRuns}), a compaction's of keyed runs. */
    private boolean keyRuns() {
        return spec.replacement() != null && spec.replacement().keyRuns();
    }

    /**
     * The input's columns checked: names, partition and bucket columns, types; a compaction's key column of keyed runs
     * kept last among the data columns.
     */
    Columns validateSchema(Schema input) {
        Field keyColumn = keyRuns() ? keyColumn(input) : null;
        Schema schema = input;
        if (keyColumn != null) {
            List<Field> fields = new ArrayList<>(input.getFields());
            fields.remove(fields.size() - 1);
            schema = new Schema(fields);
        }
        checkColumnNames(schema);
        List<Field> parts = partitionColumns(schema);
        List<Field> data = dataColumns(schema, parts);
        try {
            new ArrowSchemas(timestamps).messageType(data);
        } catch (UnsupportedTypeException e) {
            throw invalid(e.getMessage(), "Nothing was written.");
        }
        List<Field> bucket = bucketColumns(schema, parts);
        List<Field> dataOut = data.stream().map(this::fileField).toList();
        List<Field> dataCatalog = data.stream().map(this::renamed).toList();
        if (keyColumn != null) {
            data.add(keyColumn);
        }
        Schema checked = schema;
        FileLayout layout = new LayoutColumns(table, spec.write(), name -> partitionField(checked, name), parts, this::fileField).layout();
        return new Columns(data, parts, dataOut, dataCatalog, parts.stream().map(this::renamed).toList(), bucket,
                bucket.stream().map(f -> outputName(f.getName())).toList(), layout);
    }

    /**
     * The rows' key ids: carried through partitioning, bucketing and spilling as the last data column, then recorded in
     * each file's footer by the encoder; never a column of the files or of the catalog.
     */
    private static Field keyColumn(Schema input) {
        Field keyColumn = input.getFields().get(input.getFields().size() - 1);
        if (!keyColumn.getName().equals(KeyRuns.COLUMN)) {
            throw new IllegalStateException("the input of a write with key runs must end with " + KeyRuns.COLUMN);
        }
        return keyColumn;
    }

    private void checkColumnNames(Schema schema) {
        Map<String, String> seen = new HashMap<>();
        for (Field f : schema.getFields()) {
            if (f.getName().isEmpty()) {
                throw invalid("the input has a column with an empty name", "Name every column.");
            }
            String out = outputName(f.getName());
            String before = seen.put(out.toLowerCase(Locale.ROOT), f.getName());
            if (before != null) {
                if (out.equalsIgnoreCase(f.getName()) && out.equalsIgnoreCase(before)) {
                    throw invalid("the input has the columns '" + before + "' and '" + f.getName()
                            + "', which Hive, Athena and Glue cannot tell apart (names are case-insensitive)", "Rename one of them.");
                }
                throw invalid("the input columns '" + before + "' and '" + f.getName() + "' both become '" + out
                        + "' in the catalog " + spec.catalog().describe(), "Rename one of them.");
            }
        }
    }

    private List<Field> partitionColumns(Schema schema) {
        List<Field> parts = new ArrayList<>();
        for (String name : spec.partitionBy()) {
            Field f = partitionField(schema, name);
            if (f == null) {
                throw invalid("the partition column '" + name + "' is not in the input, whose columns are "
                        + names(schema.getFields()), "Pass columns of the input to partitionBy(...).");
            }
            if (parts.contains(f)) {
                throw invalid("the partition column '" + name + "' is given twice", "Name each partition column once.");
            }
            if (!PartitionValues.allowed(f)) {
                throw invalid("the partition column '" + name + "' has the type " + f.getType()
                        + ", which cannot be a Hive partition value", "Partition by a string, integer, boolean, date, timestamp or decimal column.");
            }
            parts.add(f);
        }
        return parts;
    }

    private List<Field> dataColumns(Schema schema, List<Field> parts) {
        List<Field> data = new ArrayList<>();
        for (Field f : schema.getFields()) {
            if (!parts.contains(f)) {
                data.add(f);
            }
        }
        if (data.isEmpty()) {
            throw invalid("every column is a partition column, so the files would have no columns",
                    "Keep at least one column out of partitionBy(...).");
        }
        if ((spec.mode() != WriteMode.APPEND || spec.idempotencyKey() != null) && location.isBucketRoot()) {
            // An unpartitioned OVERWRITE_PARTITIONS replaces its one partition, the table root: it is an OVERWRITE. A keyed
            // append deletes its key's earlier files, which at a bucket root could be any table's files with that key.
            throw invalid((spec.idempotencyKey() != null ? "a keyed APPEND (idempotencyKey)" : spec.mode().toString())
                    + " at the root of a bucket could delete objects of the whole bucket"
                    + (spec.mode() == WriteMode.OVERWRITE_PARTITIONS && spec.partitionBy().isEmpty()
                            ? " (without partition columns it replaces the whole table, which is the bucket)" : "")
                    + "; wrangler never deletes at a bucket root", "Write the table under a prefix, s3://" + location.bucket() + "/<table>/.");
        }
        return data;
    }

    private List<Field> bucketColumns(Schema schema, List<Field> parts) {
        List<Field> bucket = new ArrayList<>();
        for (String name : spec.bucketBy()) {
            Field f = partitionField(schema, name);
            if (f == null) {
                throw invalid("the bucket column '" + name + "' is not in the input, whose columns are " + names(schema.getFields()),
                        "Pass columns of the input to bucketBy(...).");
            }
            if (parts.contains(f)) {
                throw invalid("the bucket column '" + name + "' is a partition column, which is not in the files (every row of a "
                        + "partition would hash to one bucket)", "Bucket by columns that stay in the files.");
            }
            if (bucket.contains(f)) {
                throw invalid("the bucket column '" + name + "' is given twice", "Name each bucket column once.");
            }
            if (!Buckets.hashable(f)) {
                throw invalid("the bucket column '" + name + "' has the type " + f.getType() + ", which awswrangler's bucket hash "
                        + "does not cover", "Bucket by integer (at most signed 64-bit), string or boolean columns.");
            }
            bucket.add(f);
        }
        return bucket;
    }

    /**
     * The input column that {@code partitionBy} (or {@code bucketBy}) names, by {@link ColumnNames}' rule: by its input
     * name, exactly or else ignoring case ({@code partitionBy("DT")} for an input column {@code dt}); or else by the name
     * the catalog gives it ({@code partitionBy("par")} for an input column {@code Par}, as awswrangler accepts its
     * sanitized partition columns).
     */
    private Field partitionField(Schema schema, String name) {
        String found = ColumnNames.find(names(schema.getFields()), name);
        for (Field f : schema.getFields()) {
            if (f.getName().equals(found)) {
                return f;
            }
        }
        if (spec.catalog() != null) {
            String out = outputName(name);
            for (Field f : schema.getFields()) {
                if (outputName(f.getName()).equals(out)) {
                    return f;
                }
            }
        }
        return null;
    }

    /**
     * The input with its columns widened to the types {@code dtype} asks for, or else the types the catalog's table has
     * ({@link io.wrangler.input.Casts}); a cast that would lose values is refused here, before any I/O.
     */
    BatchSource casts(BatchSource source) {
        checkDtypeNames(source.schema());
        Map<String, String> catalogTypes = new HashMap<>();
        String typedBy = tableTypes(source.schema(), catalogTypes);
        if (spec.dtype().isEmpty() && catalogTypes.isEmpty()) {
            return source;
        }
        Map<String, Field> targets = new LinkedHashMap<>();
        for (Field f : source.schema().getFields()) {
            String out = outputName(f.getName());
            String asked = spec.dtype().containsKey(f.getName()) ? spec.dtype().get(f.getName()) : spec.dtype().get(out);
            String want = asked != null ? asked : catalogTypes.get(out.toLowerCase(Locale.ROOT));
            if (want == null) {
                continue;
            }
            Field template;
            try {
                template = HiveTypes.parse(f.getName(), want);
            } catch (HiveTypes.Unknown e) {
                continue; // a catalog type wrangler does not write (varchar(10)): the catalog's own check decides
            }
            try {
                Field target = Casts.plan(f, template, asked != null ? f.getName() : out);
                if (target != null) {
                    targets.put(f.getName(), target);
                }
            } catch (Casts.Refused r) {
                if (asked != null) {
                    throw invalid("dtype asks for the column '" + f.getName() + "' as " + asked + ", but '" + r.path + "' is " + r.from
                            + " in this write, which does not widen to " + r.to + " without losing values",
                            "Only widenings are applied (a narrower integer to a wider one or to a decimal with as many digits before its "
                            + "point, float16 to float, float to double, a decimal to a wider one of the same scale): cast the column "
                            + "before writing.");
                }
                InvalidWriteException refused = invalid("the column '" + r.path + "' is " + r.to + " in " + typedBy + " but " + r.from
                        + " in this write, which does not widen to " + r.to + " without losing values",
                        "Cast it to " + r.to + " before writing" + recordFix(r.to) + ", or OVERWRITE the table to redefine it.");
                if (spec.catalog() != null) {
                    throw refused;
                }
                tableRefusal = tableRefusal == null ? refused : tableRefusal; // the table's own files: after the input's checks
            }
        }
        return targets.isEmpty() ? source : new CastingSource(source, targets);
    }

    /** Refuses a {@code dtype} of a column the write does not have: a misspelt column would keep its input type without a word. */
    private void checkDtypeNames(Schema schema) {
        Set<String> named = new HashSet<>();
        for (Field f : schema.getFields()) {
            named.add(f.getName());
            named.add(outputName(f.getName()));
        }
        for (String c : new TreeSet<>(spec.dtype().keySet())) {
            if (!named.contains(c)) {
                throw invalid("dtype names the column '" + c + "', which this write does not have; its columns are "
                        + schema.getFields().stream().map(Field::getName).toList(),
                        "Name the input's columns (or their names in the catalog) in dtype; nothing was written.");
            }
        }
    }

    /**
     * Puts the Hive types of the table's columns into {@code types}, by lower-case name: the catalog's, or without one
     * those of the table's own files ({@link TableShape}, after its partition columns and timestamps are checked); says
     * where they come from, for messages, or null when nothing says. A write whose partition columns are not all among
     * its columns is left to the schema's check, which refuses it without I/O.
     */
    private String tableTypes(Schema schema, Map<String, String> types) {
        if (spec.catalog() != null) {
            spec.catalog().columnTypes(table, spec.mode()).forEach((k, v) -> types.put(k.toLowerCase(Locale.ROOT), v));
            return spec.catalog().describe();
        }
        boolean named = spec.partitionBy().stream()
                .allMatch(c -> schema.getFields().stream().anyMatch(f -> f.getName().equalsIgnoreCase(c)));
        TableShape shape = named ? shape() : null;
        if (shape == null) {
            return null;
        }
        this.shape = shape;
        this.shapeSchema = schema;
        types.putAll(shape.hiveTypes());
        return "the table's files (" + shape.file() + ")";
    }

    /**
     * For a decimal: how a record declares it (a record's {@code BigDecimal} component without {@code @Decimal} is
     * {@code decimal(38, s)} with s the largest scale of the run, so two runs can differ).
     */
    private static String recordFix(String hiveType) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("decimal\\((\\d+),\\s*(\\d+)\\)").matcher(hiveType);
        return m.matches() ? " (for a record's BigDecimal component: annotate it @Decimal(precision = " + m.group(1) + ", scale = "
                + m.group(2) + "))" : "";
    }

    /**
     * The table's shape from its own files, for a write without a catalog that keeps the table's layout: an APPEND,
     * OVERWRITE_PARTITIONS or keyed write (an OVERWRITE redefines the table; a compaction keeps its files' own types).
     */
    private TableShape shape() {
        if (spec.mode() == WriteMode.OVERWRITE || spec.replacement() != null) {
            return null;
        }
        try {
            TableShape found = TableShape.of(new S3Store(spec.s3(), location.bucket(), spec.options()), location);
            bucketListed = true;
            return found;
        } catch (SdkException e) {
            // the first request of the write: the listing's failure in the words of the bucket's check, which comes next
            throw Outcomes.bucketFailed(table, location.bucket(), e);
        } catch (IOException e) {
            if (Replaced.by(e)) {
                throw Outcomes.removedMeanwhile(table, WriteStep.VALIDATE, "read the table's layout from its files", e,
                        "Nothing was written; rerun the write.");
            }
            bucketListed = true; // listed, and its first file read
            return null; // a file that is not Parquet wrangler reads: the check guards the table, it does not judge other tools' files
        } catch (ReadException e) {
            if (Removed.by(e)) {
                throw Outcomes.removedMeanwhile(table, WriteStep.VALIDATE, "read the table's layout from its files", e,
                        "Nothing was written; rerun the write.");
            }
            if (e.getCause() instanceof SdkException sdk) {
                throw Outcomes.storage(table, WriteStep.VALIDATE, "read the table's layout from its files", sdk, "Nothing was written; "
                        + "rerun the write.");
            }
            bucketListed = true; // listed, and its first file read
            return null;
        }
    }

    /**
     * Refuses a timestamp column that a read would get otherwise than the table's files have it (another unit, with or
     * without UTC): one Hive type, {@code timestamp}, but two Arrow types, which the read refuses. A write's seconds
     * read back as milliseconds and its nanoseconds as microseconds (unless kept); INT96 timestamps are not compared.
     */
    private void checkTimestamps(TableShape shape, Schema schema) {
        if (spec.int96()) {
            return;
        }
        for (Field f : schema.getFields()) {
            Field has = shape.columns().get(f.getName().toLowerCase(Locale.ROOT));
            if (has != null && f.getType() instanceof ArrowType.Timestamp mine && has.getType() instanceof ArrowType.Timestamp theirs) {
                TimeUnit unit = switch (mine.getUnit()) {
                    case SECOND -> TimeUnit.MILLISECOND;
                    case NANOSECOND -> spec.keepNanos() ? TimeUnit.NANOSECOND : TimeUnit.MICROSECOND;
                    default -> mine.getUnit();
                };
                boolean utc = mine.getTimezone() != null;
                if (unit != theirs.getUnit() || utc != (theirs.getTimezone() != null)) {
                    String as = "timestamp(" + unit + (utc ? ", UTC" : "") + ")";
                    String theirsAs = "timestamp(" + theirs.getUnit() + (theirs.getTimezone() != null ? ", UTC" : "") + ")";
                    throw invalid("the column '" + f.getName() + "' is " + theirsAs + " in the table's files (" + shape.file() + ") but would be "
                            + as + " in this write's files, and a read refuses a column of two types",
                            "Write it as the table has it (a record's Instant is a UTC timestamp in microseconds, a LocalDateTime one without "
                            + "zone), or OVERWRITE the table to redefine it; nothing was written.");
                }
            }
        }
    }

    /**
     * A distributed write without a catalog checked against the table's own files, as a single-process write is
     * ({@link #casts}, {@link #checkTable}): its partition columns and timestamps, and every column's type. Its tasks
     * encode their rows as they come, so where a single-process write would widen a column to the table's type, this
     * write refuses it: files of two types for one column leave a table that a read refuses.
     */
    private void checkTasksAgainstTable(Schema schema) {
        if (spec.catalog() != null) {
            return;
        }
        Map<String, String> types = new HashMap<>();
        String typedBy = tableTypes(schema, types);
        if (typedBy == null) {
            return;
        }
        checkTable();
        for (Field f : schema.getFields()) {
            String want = types.get(f.getName().toLowerCase(Locale.ROOT));
            if (want == null || spec.partitionBy().stream().anyMatch(c -> c.equalsIgnoreCase(f.getName()))) {
                continue;
            }
            Field template;
            try {
                template = HiveTypes.parse(f.getName(), want);
            } catch (HiveTypes.Unknown e) {
                continue;
            }
            try {
                if (Casts.plan(f, template, f.getName()) == null) {
                    continue;
                }
            } catch (Casts.Refused r) {
                // not even a widening: refused below all the same
            }
            throw invalid("the column '" + f.getName() + "' is " + want + " in " + typedBy + " but " + HiveTypes.describe(f)
                    + " in this write, and a distributed write keeps its tasks' types as they are (a read refuses a column of two types)",
                    "Cast the column to " + want + " before writing (in Spark: col(\"" + f.getName() + "\").cast(\"" + want
                    + "\")), or OVERWRITE the table to redefine it; nothing was written.");
        }
    }

    /**
     * Refuses a write that would leave the table unreadable by its own files' layout and types ({@link #casts} found
     * them): run after the input's own columns and values are checked, before anything is written.
     */
    private void checkTable() {
        if (shape != null) {
            checkPartitions(shape);
            checkTimestamps(shape, shapeSchema);
        }
        if (tableRefusal != null) {
            throw tableRefusal;
        }
    }

    /** Refuses partition columns other than those of the table's folders: the read would refuse the table. */
    private void checkPartitions(TableShape shape) {
        List<String> mine = spec.partitionBy();
        if (!lower(mine).equals(lower(shape.partitionColumns()))) {
            throw invalid("it partitions by " + mine + " but the table's files lie in folders of " + shape.partitionColumns() + " (such as "
                    + shape.file() + "), and a read refuses a table whose files lie in folders of different columns",
                    "Write with partitionBy(" + String.join(", ", shape.partitionColumns().stream().map(c -> "\"" + c + "\"").toList())
                    + "), or OVERWRITE the table to redefine it; nothing was written.");
        }
    }

    private static List<String> lower(List<String> names) {
        return names.stream().map(n -> n.toLowerCase(Locale.ROOT)).toList();
    }

    /** What the validation pass found: the rows, and each batch's partition ids, which staging reuses. */

    /** Reads a replayable input once without I/O: every partition value and timestamp is checked before anything is written. */
    private WritePlan.Prepass prepass(BatchSource source, Columns columns, Partitioner.NewPartition validator, Partitioner partitioner,
                            Buckets buckets) {
        long rows = 0;
        List<int[]> assigned = new ArrayList<>();
        try {
            while (source.next()) {
                VectorSchemaRoot batch = source.current();
                int[] ids = partitioner.assign(batch, validator);
                assigned.add(buckets == null ? ids : buckets.assign(batch, ids, rows));
                checkNanos(batch, columns.data());
                rows += batch.getRowCount();
            }
        } catch (IOException e) {
            throw invalid("the input could not be read (" + e.getMessage() + ")", "Check the input.");
        } catch (InvalidWriteException e) {
            throw e;
        } catch (Buckets.NullValue e) {
            throw invalid(e.getMessage(), "Fill the column, or bucket by columns without nulls; nothing was written.");
        } catch (IllegalArgumentException e) {
            // A value the input conversion refuses (a record's decimal that needs rounding, an instant finer than microseconds).
            throw invalid(e.getMessage(), "Nothing was written.");
        }
        if (rows == 0 && spec.mode() == WriteMode.OVERWRITE) {
            throw Outcomes.emptyOverwrite(table);
        }
        if (rows > 0) {
            checkNotAllNull(spec, table, partitioner.keys(), () -> { });
        }
        return new WritePlan.Prepass(rows, assigned);
    }

    private void checkNanos(VectorSchemaRoot batch, List<Field> data) {
        for (Field f : data) {
            if (timestamps.narrows(f.getType())) {
                TimeStampVector v = (TimeStampVector) batch.getVector(f.getName());
                for (int r = 0; r < batch.getRowCount(); r++) {
                    if (!v.isNull(r) && !TimestampPolicy.wholeMicros(v.get(r))) {
                        String todo = TimestampPolicy.LOSSY_NANOS_TODO;
                        throw invalid(TimestampPolicy.lossyNanos(f.getName(), v.get(r), r),
                                Character.toUpperCase(todo.charAt(0)) + todo.substring(1) + ".");
                    }
                }
            }
        }
    }

    /**
     * Refuses partitions whose column is null in every row (all rows would go to the default partition): a rule for the
     * user's input. A compaction's rows are the table's own, and its default partition is compacted like any other.
     */
    static void checkNotAllNull(WriteSpec spec, String table, List<PartitionKey> keys, Runnable cleanup) {
        if (spec.replacement() != null) {
            return;
        }
        for (int c = 0; c < spec.partitionBy().size(); c++) {
            final int col = c;
            if (!keys.isEmpty() && keys.stream().allMatch(k -> k.values().get(col) == null)) {
                cleanup.run();
                throw Outcomes.invalid(table, "the partition column '" + spec.partitionBy().get(c) + "' is null or empty in every row, which would put "
                        + "all rows in " + PartitionEntry.DEFAULT_PARTITION, "Fill the column, or partition by another column.");
            }
        }
    }

    private CatalogCommit prepareCatalog(Columns columns) {
        CatalogTable catalog = spec.catalog();
        if (catalog == null) {
            return null;
        }
        return catalog.prepare(new TableDefinition(table, columns.dataCatalog(), columns.partitionsOut(), spec.mode(), spec.compression(),
                columns.bucketOut(), columns.bucket().isEmpty() ? 0 : spec.buckets()));
    }

    private static List<String> names(List<Field> fields) {
        return fields.stream().map(Field::getName).toList();
    }
}
