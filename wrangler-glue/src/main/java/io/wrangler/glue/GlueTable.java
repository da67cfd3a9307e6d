package io.wrangler.glue;

import io.wrangler.CatalogException;
import io.wrangler.CommitConflictException;
import io.wrangler.Compression;
import io.wrangler.InvalidWriteException;
import io.wrangler.RetryPolicy;
import io.wrangler.WriteMode;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.SdkRetries;
import io.wrangler.catalog.TableDefinition;
import io.wrangler.catalog.TableLayout;
import io.wrangler.hive.HivePaths;
import io.wrangler.hive.HiveTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.arrow.vector.types.pojo.Field;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.AlreadyExistsException;
import software.amazon.awssdk.services.glue.model.BatchCreatePartitionResponse;
import software.amazon.awssdk.services.glue.model.BatchDeletePartitionResponse;
import software.amazon.awssdk.services.glue.model.BatchUpdatePartitionRequestEntry;
import software.amazon.awssdk.services.glue.model.BatchUpdatePartitionResponse;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.ConcurrentModificationException;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.ErrorDetail;
import software.amazon.awssdk.services.glue.model.GetPartitionsResponse;
import software.amazon.awssdk.services.glue.model.GlueException;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.PartitionError;
import software.amazon.awssdk.services.glue.model.PartitionInput;
import software.amazon.awssdk.services.glue.model.PartitionValueList;
import software.amazon.awssdk.services.glue.model.SerDeInfo;
import software.amazon.awssdk.services.glue.model.StorageDescriptor;
import software.amazon.awssdk.services.glue.model.Table;
import software.amazon.awssdk.services.glue.model.TableInput;

/**
 * A GlueTable is one table of the Glue Data Catalog that writes register their data in. Immutable and thread-safe: each
 * option returns a new GlueTable, and one GlueTable may serve writes on several threads.
 *
 * <p>Before any S3 object is written ({@link #prepare}), it reads the table and refuses a write the table cannot
 * take: a different location, other partition keys (unless {@code OVERWRITE}), a column whose type changed, a new
 * column with schema evolution off, a missing database (unless {@code createDatabase(true)}). After the data is
 * published, it creates the table, or updates it only when something changed (with the {@code VersionId} read before
 * the write, re-reading and retrying on a concurrent change), and registers the partitions in batches of 100
 * (deleting, for {@code OVERWRITE}, those that no longer exist, in batches of 25).
 *
 * <p>Not atomic: the table update and each partition batch are separate calls; a failure in between leaves the
 * catalog partly updated, and a rerun of the write (or {@code S3Parquet.recover} with this table) completes it,
 * since every step is idempotent.
 */
public final class GlueTable implements CatalogTable {
    static final String INPUT_FORMAT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat";
    static final String OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat";
    static final String SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe";
    private static final int MAX_COMMIT_ATTEMPTS = 3;

    /** The value of the Glue table parameter {@code compressionType} for a codec, as awswrangler sets it. */
    static String compressionType(Compression c) {
        return switch (c) {
            case SNAPPY -> "snappy";
            case ZSTD -> "zstd";
            case GZIP -> "gzip";
            case LZ4_RAW -> "lz4";
            case NONE -> "none";
        };
    }

    /**
     * The options of a GlueTable. Mutable only while {@link GlueTable#with} changes a fresh copy; a GlueTable holds its
     * copy in a final field and never changes it, so a GlueTable is immutable and safely shared between threads. Each
     * option is listed once here and once in {@link #copy()}, not in every setter.
     */
    static final class Options {
        String description;
        Map<String, String> parameters = Map.of();
        Map<String, String> columnComments = Map.of();
        boolean schemaEvolution = true;
        boolean catalogVersioning;
        String catalogId;
        String tableType = "EXTERNAL_TABLE";
        boolean sanitizeNames = true;
        boolean registerPartitions = true;
        List<PartitionProjection> projections = List.of();
        boolean createDatabase;
        RetryPolicy retry = Retry.DEFAULT;

        static Options defaults() {
            return new Options();
        }

        Options copy() {
            Options c = new Options();
            c.description = description;
            c.parameters = parameters;
            c.columnComments = columnComments;
            c.schemaEvolution = schemaEvolution;
            c.catalogVersioning = catalogVersioning;
            c.catalogId = catalogId;
            c.tableType = tableType;
            c.sanitizeNames = sanitizeNames;
            c.registerPartitions = registerPartitions;
            c.projections = projections;
            c.createDatabase = createDatabase;
            c.retry = retry;
            return c;
        }
    }

    private final GlueClient glue;
    private final String database;
    private final String table;
    private final Options o;

    GlueTable(GlueClient glue, String database, String table, Options options) {
        this.glue = glue;
        this.database = Objects.requireNonNull(database, "database").toLowerCase(Locale.ROOT);
        this.table = Objects.requireNonNull(table, "table");
        this.o = options;
    }

    /** A new GlueTable whose options are a copy of these, changed by {@code change}. */
    private GlueTable with(Consumer<Options> change) {
        Options changed = o.copy();
        change.accept(changed);
        return new GlueTable(glue, database, table, changed);
    }

    /** The table's description. */
    public GlueTable description(String description) {
        return with(c -> c.description = description);
    }

    /** Extra table parameters, added to (and winning over) the standard ones. */
    public GlueTable parameters(Map<String, String> parameters) {
        Map<String, String> copy = Map.copyOf(parameters);
        return with(c -> c.parameters = copy);
    }

    /** Column comments, by column name (as the catalog names it). */
    public GlueTable columnComments(Map<String, String> comments) {
        Map<String, String> copy = Map.copyOf(comments);
        return with(c -> c.columnComments = copy);
    }

    /** Whether a write may add columns to the table (default true); off, a new column is refused before any I/O. */
    public GlueTable schemaEvolution(boolean enabled) {
        return with(c -> c.schemaEvolution = enabled);
    }

    /** Whether Glue keeps a table version per update (default false: {@code SkipArchive=true}, as versions have a quota). */
    public GlueTable catalogVersioning(boolean enabled) {
        return with(c -> c.catalogVersioning = enabled);
    }

    /** The catalog (AWS account) id, for a catalog shared from another account; default the caller's. */
    public GlueTable catalogId(String catalogId) {
        return with(c -> c.catalogId = catalogId);
    }

    /** The type of a table this write creates (default {@code EXTERNAL_TABLE}); an existing table keeps its own. */
    public GlueTable tableType(String tableType) {
        Objects.requireNonNull(tableType);
        return with(c -> c.tableType = tableType);
    }

    /** Whether table and top-level column names are sanitized as awswrangler 3.x does (default true): accents dropped, runs of other characters than {@code [A-Za-z0-9_]} to {@code _}, lower case. */
    public GlueTable sanitizeNames(boolean enabled) {
        return with(c -> c.sanitizeNames = enabled);
    }

    /** Whether written partitions are registered (default true); off, only the table is, for Athena's partition projection. */
    public GlueTable registerPartitions(boolean enabled) {
        return with(c -> c.registerPartitions = enabled);
    }

    /** Turns on Athena's partition projection with these column projections ({@code projection.enabled=true}, a location template). */
    public GlueTable projection(PartitionProjection... projections) {
        List<PartitionProjection> copy = List.of(projections);
        return with(c -> c.projections = copy);
    }

    /** Whether a missing database is created (default false: a missing database is an error before any I/O). */
    public GlueTable createDatabase(boolean enabled) {
        return with(c -> c.createDatabase = enabled);
    }

    /**
     * How a Glue call is retried after a transient failure (ThrottlingException, OperationTimeoutException,
     * InternalServiceException, ConcurrentRunsExceededException, ResourceNotReadyException, HTTP 5xx, a broken or
     * timed-out connection); anything else fails at once. The same {@link io.wrangler.RetryPolicy} type as S3's ({@code
     * WriteOptions.retryPolicy}), so a job may give both one policy. Default: 8 attempts, 100 ms, 5 s, more patient than
     * S3's default, since Glue throttles an account at a few calls a second and a write makes only a handful of them.
     * The SDK carries it out as each call's retry strategy, in place of the Glue client's own retries (not on top).
     */
    public GlueTable retryPolicy(RetryPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        return with(c -> c.retry = policy);
    }

    /** Short for {@code retryPolicy(RetryPolicy.of(attempts, base, cap))}. */
    public GlueTable retry(int attempts, Duration base, Duration cap) {
        return retryPolicy(RetryPolicy.of(attempts, base, cap));
    }

    /** For tests in this package: the options as set. */
    Options options() {
        return o;
    }

    /** The database name, lower case. */
    public String database() {
        return database;
    }

    /** The table name as looked up and registered (sanitized unless {@code sanitizeNames(false)}). */
    public String name() {
        return o.sanitizeNames ? GlueNames.sanitize(table) : table.toLowerCase(Locale.ROOT);
    }

    @Override
    public String describe() {
        return "glue:" + (o.catalogId == null ? "" : o.catalogId + ":") + database + "." + name();
    }

    @Override
    public String columnName(String inputName) {
        return o.sanitizeNames ? GlueNames.sanitize(inputName) : inputName;
    }

    // ---- prepare ----

    @Override
    public Map<String, String> columnTypes(String location, WriteMode mode) {
        if (mode == WriteMode.OVERWRITE) {
            return Map.of(); // an overwrite redefines the table with the write's types
        }
        TableDefinition def = new TableDefinition(location, List.of(), List.of(), mode, Compression.NONE);
        Table existing = read(def, () -> {
            try {
                return glue.getTable(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId).databaseName(database).name(name())).table();
            } catch (EntityNotFoundException e) {
                return null; // no table, or no database: prepare says which
            }
        });
        Map<String, String> types = new LinkedHashMap<>();
        if (existing != null) {
            if (existing.storageDescriptor() != null && existing.storageDescriptor().columns() != null) {
                existing.storageDescriptor().columns().forEach(c -> types.put(c.name(), c.type()));
            }
            if (existing.partitionKeys() != null) {
                existing.partitionKeys().forEach(c -> types.put(c.name(), c.type()));
            }
        }
        return types;
    }

    /**
     * Reads the partitions' registered Locations with BatchGetPartition, at most 1,000 partitions a call (keys Glue
     * leaves unprocessed are asked again). Nothing for {@code OVERWRITE}, which replaces every partition, when the
     * database or table does not exist yet, or with {@code registerPartitions(false)}, which makes no partition call.
     */
    @Override
    public Map<List<String>, String> partitionLocations(String location, WriteMode mode, List<List<String>> values) {
        Map<List<String>, String> out = new HashMap<>();
        if (mode == WriteMode.OVERWRITE || values.isEmpty() || !o.registerPartitions) {
            return out;
        }
        TableDefinition def = new TableDefinition(location, List.of(), List.of(), mode, Compression.NONE);
        Map<List<String>, List<String>> asked = new LinkedHashMap<>();
        for (List<String> v : values) {
            asked.put(v.stream().map(x -> x == null || x.isEmpty() ? PartitionEntry.DEFAULT_PARTITION : x).toList(), v);
        }
        List<List<String>> glueValues = new ArrayList<>(asked.keySet());
        for (int from = 0; from < glueValues.size(); from += 1000) {
            List<PartitionValueList> pending = glueValues.subList(from, Math.min(glueValues.size(), from + 1000)).stream()
                    .map(v -> PartitionValueList.builder().values(v).build()).toList();
            for (int round = 0; !pending.isEmpty(); round++) {
                List<PartitionValueList> ask = pending;
                var r = readPartitions(def, () -> {
                    try {
                        return glue.batchGetPartition(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId).databaseName(database).tableName(name())
                                .partitionsToGet(ask));
                    } catch (EntityNotFoundException e) {
                        return null; // no table or no database yet: no partition is registered
                    }
                });
                if (r == null) {
                    return out;
                }
                for (Partition p : r.partitions()) {
                    List<String> input = asked.get(p.values());
                    if (input != null && p.storageDescriptor() != null && p.storageDescriptor().location() != null) {
                        out.put(input, p.storageDescriptor().location());
                    }
                }
                pending = r.hasUnprocessedKeys() ? r.unprocessedKeys() : List.of();
                if (!pending.isEmpty() && round >= 10) {
                    throw new CatalogException(location, WriteStep.VALIDATE, "Cannot read the partitions of the Glue table " + qualified()
                            + " for " + location + " (step: validate): Glue left " + pending.size() + " of them unprocessed ten times. "
                            + "Rerun the write; nothing was written.", null);
                }
            }
        }
        return out;
    }

    private <T> T readPartitions(TableDefinition def, Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkException e) {
            throw new CatalogException(def.location(), WriteStep.VALIDATE, "Cannot read the partitions of the Glue table " + qualified()
                    + " for " + def.location() + " (step: validate): " + glueError(e) + ". Check the IAM permissions "
                    + "(glue:BatchGetPartition) and the client's region; nothing was written.", e);
        }
    }

    /**
     * The Glue table's location, column types and partitions (GetTable, then GetPartitions page by page), for reading
     * through the catalog; null when the table or its database does not exist. A partition whose Location is empty is
     * taken to be at the table's location followed by its Hive folder.
     */
    @Override
    public TableLayout layout() {
        Table t = lookup(() -> {
            try {
                return glue.getTable(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId).databaseName(database).name(name())).table();
            } catch (EntityNotFoundException e) {
                return null;
            }
        });
        if (t == null) {
            return null;
        }
        String location = t.storageDescriptor() == null ? null : t.storageDescriptor().location();
        if (location != null && !location.endsWith("/")) {
            location = location + "/";
        }
        Map<String, String> types = new LinkedHashMap<>();
        if (t.storageDescriptor() != null && t.storageDescriptor().columns() != null) {
            t.storageDescriptor().columns().forEach(c -> types.put(c.name(), c.type()));
        }
        List<String> keys = new ArrayList<>();
        if (t.partitionKeys() != null) {
            t.partitionKeys().forEach(c -> {
                types.put(c.name(), c.type());
                keys.add(c.name());
            });
        }
        List<PartitionEntry> partitions = new ArrayList<>();
        if (!keys.isEmpty()) {
            String token = null;
            do {
                final String tk = token;
                GetPartitionsResponse page = lookup(() -> glue.getPartitions(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId).databaseName(database)
                        .tableName(name()).maxResults(1000).nextToken(tk)));
                for (Partition p : page.partitions()) {
                    List<String> values = new ArrayList<>();
                    for (String v : p.values()) {
                        values.add(PartitionEntry.DEFAULT_PARTITION.equals(v) ? null : v);
                    }
                    String at = p.storageDescriptor() == null ? null : p.storageDescriptor().location();
                    if (at == null || at.isEmpty()) {
                        at = location + HivePaths.folder(keys, values);
                    } else if (!at.endsWith("/")) {
                        at = at + "/";
                    }
                    partitions.add(new PartitionEntry(values, at));
                }
                token = page.nextToken();
            } while (token != null);
        }
        StorageDescriptor sd = t.storageDescriptor();
        int buckets = sd == null || sd.numberOfBuckets() == null || sd.numberOfBuckets() <= 0 ? 0 : sd.numberOfBuckets();
        List<String> bucketColumns = buckets == 0 || sd.bucketColumns() == null ? List.of() : sd.bucketColumns();
        return new TableLayout(location, keys, types, partitions, bucketColumns, buckets);
    }

    private <T> T lookup(Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkException e) {
            throw new CatalogException(null, null, "Cannot read the Glue table " + qualified() + ": " + glueError(e) + ". Check the IAM "
                    + "permissions (glue:GetTable, glue:GetPartitions) and the client's region.", e);
        }
    }

    // ---- register, repair and drop table: catalog changes outside a write ----

    private GlueTableOps ops() {
        return new GlueTableOps(glue, o.catalogId, database, name(), o.retry);
    }

    /** Registers partitions with the table's storage definition: BatchCreatePartition, at most 100 a call. */
    @Override
    public void addPartitions(List<PartitionEntry> partitions, Runnable fence) {
        ops().addPartitions(partitions, fence);
    }

    /** Removes partitions: BatchDeletePartition, at most 25 a call; one already gone is fine. */
    @Override
    public void removePartitions(List<PartitionEntry> partitions, Runnable fence) {
        ops().removePartitions(partitions, fence);
    }

    /** DeleteTable (Glue deletes the table's partitions with it); false when there was no such table. */
    @Override
    public boolean dropTable(Runnable fence) {
        return ops().dropTable(fence);
    }

    @Override
    public CatalogCommit prepare(TableDefinition def) {
        if (name().isEmpty() || name().length() > 255) {
            throw invalid(def, "the table name '" + table + "' becomes '" + name() + "', which Glue does not accept (1 to 255 characters)",
                    "Choose another table name.");
        }
        List<Column> columns = columns(def, def.columns());
        List<Column> keys = columns(def, def.partitionKeys());
        Set<String> keyNames = new LinkedHashSet<>();
        keys.forEach(k -> keyNames.add(k.name()));
        for (PartitionProjection p : o.projections) {
            if (!keyNames.contains(columnName(p.column()))) {
                throw invalid(def, "the partition projection names the column '" + p.column() + "', which is not a partition column of this write "
                        + keyNames, "Project only partition columns.");
            }
        }
        boolean databaseExists = read(def, () -> {
            try {
                glue.getDatabase(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId).name(database));
                return true;
            } catch (EntityNotFoundException e) {
                return false;
            }
        });
        if (!databaseExists && !o.createDatabase) {
            throw invalid(def, "the Glue database '" + database + "' does not exist", "Create it, or call createDatabase(true) on the Glue table.");
        }
        Table existing = databaseExists ? readTable(def) : null;
        TableInput desired = desired(def, existing, columns, keys);
        return new Commit(def, existing == null, databaseExists, existing == null ? null : existing.versionId(),
                existing != null && Shape.of(existing).equals(Shape.of(desired)), desired);
    }

    private Table readTable(TableDefinition def) {
        return read(def, () -> {
            try {
                return glue.getTable(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId).databaseName(database).name(name())).table();
            } catch (EntityNotFoundException e) {
                return null;
            }
        });
    }

    private List<Column> columns(TableDefinition def, List<Field> fields) {
        List<Column> out = new ArrayList<>();
        for (Field f : fields) {
            String type;
            try {
                type = HiveTypes.of(f);
            } catch (HiveTypes.Unsupported e) {
                throw invalid(def, e.getMessage(), "Nothing was written.");
            }
            Column.Builder c = Column.builder().name(f.getName()).type(type);
            String comment = o.columnComments.get(f.getName());
            if (comment != null) {
                c.comment(comment);
            }
            out.add(c.build());
        }
        return out;
    }

    /** The table as this write wants it, from the existing one (if any); refuses what the existing table cannot take. */
    private TableInput desired(TableDefinition def, Table existing, List<Column> columns, List<Column> keys) {
        List<Column> merged = columns;
        List<Column> partitionKeys = keys;
        Map<String, String> parameters = new LinkedHashMap<>();
        String tableType = o.tableType;
        String description = o.description;
        Map<String, String> sdParameters = new LinkedHashMap<>();
        if (existing != null) {
            StorageDescriptor sd = existing.storageDescriptor();
            String location = sd == null ? null : sd.location();
            if (location == null || !withSlash(location).equals(def.location())) {
                throw invalid(def, "the Glue table " + qualified() + " is at " + location + ", not at " + def.location(),
                        "Write to the table's location, or register the data under another table name.");
            }
            if (!sameColumns(existing.partitionKeys(), keys) && def.mode() != WriteMode.OVERWRITE) {
                throw invalid(def, "the Glue table " + qualified() + " is partitioned by " + describe(existing.partitionKeys())
                        + ", this write by " + describe(keys), "Partition the write as the table is, or OVERWRITE the table to redefine it.");
            }
            if (def.mode() != WriteMode.OVERWRITE) {
                merged = merge(def, sd.columns(), columns);
                checkBucketing(def, sd);
            }
            if (existing.parameters() != null) {
                parameters.putAll(existing.parameters());
            }
            if (def.mode() != WriteMode.OVERWRITE && sd.parameters() != null) {
                // Kept as found (awswrangler's CrawlerSchemaDeserializerVersion, a crawler's own keys); ours win.
                sdParameters.putAll(sd.parameters());
            }
            if (existing.tableType() != null) {
                tableType = existing.tableType();
            }
            if (description == null) {
                description = existing.description();
            }
        }
        parameters.putAll(standardParameters(def));
        if (!o.projections.isEmpty()) {
            parameters.put("projection.enabled", "true");
            StringBuilder template = new StringBuilder(def.location());
            for (Column k : keys) {
                template.append(k.name()).append("=${").append(k.name()).append("}/");
            }
            parameters.put("storage.location.template", template.toString());
            for (PartitionProjection p : o.projections) {
                parameters.putAll(p.parameters(columnName(p.column())));
            }
        }
        parameters.putAll(o.parameters);
        return TableInput.builder().name(name()).description(description).tableType(tableType).parameters(parameters)
                .partitionKeys(partitionKeys).storageDescriptor(storage(def, merged, def.location(), sdParameters)).build();
    }

    /**
     * Refuses to add files bucketed otherwise than the table says: Athena reads only the files of the bucket a value
     * hashes to, so a file of another bucketing (or none) would hide its rows from such queries.
     */
    private void checkBucketing(TableDefinition def, StorageDescriptor sd) {
        int found = sd.numberOfBuckets() == null || sd.numberOfBuckets() <= 0 ? 0 : sd.numberOfBuckets();
        List<String> foundColumns = found == 0 || sd.bucketColumns() == null ? List.of() : sd.bucketColumns();
        if (found == def.buckets() && foundColumns.equals(def.bucketColumns())) {
            return;
        }
        String table = found == 0 ? "is not bucketed" : "is bucketed by " + foundColumns + " into " + found + " buckets";
        String write = def.bucketed() ? "this write by " + def.bucketColumns() + " into " + def.buckets() : "this write is not bucketed";
        throw invalid(def, "the Glue table " + qualified() + " " + table + ", " + write + " (Athena reads only the files of "
                + "the bucket a value hashes to, so files bucketed otherwise would hide rows)", found == 0
                ? "Write without bucketBy, or OVERWRITE the table to redefine it as bucketed."
                : "Call bucketBy(" + foundColumns + ", " + found + "), or OVERWRITE the table to redefine it.");
    }

    private List<Column> merge(TableDefinition def, List<Column> existing, List<Column> incoming) {
        Map<String, Column> byName = new LinkedHashMap<>();
        for (Column c : existing) {
            byName.put(c.name(), c);
        }
        List<Column> added = new ArrayList<>();
        for (Column c : incoming) {
            Column old = byName.get(c.name());
            if (old == null) {
                if (!o.schemaEvolution) {
                    throw invalid(def, "the column '" + c.name() + "' is not in the Glue table " + qualified() + " and schema evolution is off",
                            "Drop the column, or allow it with schemaEvolution(true).");
                }
                added.add(c);
            } else if (!old.type().equalsIgnoreCase(c.type())) {
                throw invalid(def, "the column '" + c.name() + "' is " + old.type() + " in the Glue table " + qualified() + " but " + c.type()
                        + " in this write", "Cast the column to " + old.type() + ", or OVERWRITE the table to redefine it.");
            } else if (c.comment() != null && !c.comment().equals(old.comment())) {
                byName.put(c.name(), old.toBuilder().comment(c.comment()).build());
            }
        }
        List<Column> out = new ArrayList<>(byName.values());
        out.addAll(added);
        return out;
    }

    private Map<String, String> standardParameters(TableDefinition def) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("classification", "parquet");
        p.put("compressionType", compressionType(def.compression()));
        p.put("typeOfData", "file");
        return p;
    }

    private StorageDescriptor storage(TableDefinition def, List<Column> columns, String location) {
        return storage(def, columns, location, Map.of());
    }

    private StorageDescriptor storage(TableDefinition def, List<Column> columns, String location, Map<String, String> found) {
        Map<String, String> sdParameters = new LinkedHashMap<>(found);
        sdParameters.putAll(standardParameters(def));
        return StorageDescriptor.builder().columns(columns).location(location).inputFormat(INPUT_FORMAT).outputFormat(OUTPUT_FORMAT)
                .compressed(def.compression() != Compression.NONE)
                .numberOfBuckets(def.bucketed() ? def.buckets() : -1).bucketColumns(def.bucketColumns())
                .serdeInfo(SerDeInfo.builder().serializationLibrary(SERDE).parameters(Map.of("serialization.format", "1")).build())
                .storedAsSubDirectories(false).sortColumns(List.of()).parameters(sdParameters).build();
    }

    private static boolean sameColumns(List<Column> a, List<Column> b) {
        if (a == null || a.size() != b.size()) {
            return a == null && b.isEmpty();
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).name().equals(b.get(i).name()) || !a.get(i).type().equalsIgnoreCase(b.get(i).type())) {
                return false;
            }
        }
        return true;
    }

    private static String describe(List<Column> keys) {
        return keys == null ? "[]" : keys.stream().map(k -> k.name() + ":" + k.type()).toList().toString();
    }

    private static String withSlash(String location) {
        String l = location.startsWith("s3a://") || location.startsWith("s3n://") ? "s3://" + location.substring(6) : location;
        return l.endsWith("/") ? l : l + "/";
    }

    private String qualified() {
        return database + "." + name();
    }

    /** A request's override configuration: the SDK retries it as this table's retry policy says ({@link Retry}). */
    private AwsRequestOverrideConfiguration retried() {
        return SdkRetries.override(Retry.strategy(o.retry));
    }

    private InvalidWriteException invalid(TableDefinition def, String what, String todo) {
        return new InvalidWriteException(def.location(), WriteStep.VALIDATE, "Cannot write " + def.location() + " (step: validate): " + what + ". " + todo);
    }

    private <T> T read(TableDefinition def, Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkException e) {
            throw new CatalogException(def.location(), WriteStep.VALIDATE, "Cannot read the Glue table " + qualified() + " for " + def.location()
                    + " (step: validate): " + glueError(e) + ". Check the IAM permissions (glue:GetDatabase, glue:GetTable) and the "
                    + "client's region; nothing was written.", e);
        }
    }

    static String glueError(SdkException e) {
        if (e instanceof GlueException g && g.awsErrorDetails() != null) {
            return "Glue answered " + g.awsErrorDetails().errorCode() + " (" + g.awsErrorDetails().errorMessage() + ")";
        }
        return "the call failed (" + e.getMessage() + ")";
    }

    /** The parts of a table definition that a write sets; two definitions with equal shapes need no update. */
    record Shape(String description, String tableType, Map<String, String> parameters, List<List<String>> keys, List<List<String>> columns,
                 String location, String inputFormat, String outputFormat, String serde, Map<String, String> serdeParameters,
                 Boolean compressed, Map<String, String> sdParameters, int buckets, List<String> bucketColumns) {
        static Shape of(Table t) {
            return of(t.description(), t.tableType(), t.parameters(), t.partitionKeys(), t.storageDescriptor());
        }

        static Shape of(TableInput t) {
            return of(t.description(), t.tableType(), t.parameters(), t.partitionKeys(), t.storageDescriptor());
        }

        static Shape of(String description, String type, Map<String, String> parameters, List<Column> keys, StorageDescriptor sd) {
            return new Shape(description, type, parameters == null ? Map.of() : Map.copyOf(parameters), columnsOf(keys), columnsOf(sd.columns()),
                    sd.location(), sd.inputFormat(), sd.outputFormat(), sd.serdeInfo() == null ? null : sd.serdeInfo().serializationLibrary(),
                    sd.serdeInfo() == null || sd.serdeInfo().parameters() == null ? Map.of() : Map.copyOf(sd.serdeInfo().parameters()),
                    sd.compressed(), sd.parameters() == null ? Map.of() : Map.copyOf(sd.parameters()),
                    sd.numberOfBuckets() == null || sd.numberOfBuckets() <= 0 ? -1 : sd.numberOfBuckets(),
                    sd.numberOfBuckets() == null || sd.numberOfBuckets() <= 0 || sd.bucketColumns() == null ? List.of() : List.copyOf(sd.bucketColumns()));
        }

        static List<List<String>> columnsOf(List<Column> columns) {
            List<List<String>> out = new ArrayList<>();
            if (columns != null) {
                for (Column c : columns) {
                    out.add(Arrays.asList(c.name(), c.type().toLowerCase(Locale.ROOT), c.comment()));
                }
            }
            return out;
        }
    }

    // ---- commit ----

    private final class Commit implements CatalogCommit {
        private final TableDefinition def;
        private final boolean create;
        private final boolean databaseExists;
        private final String versionId;
        private final boolean unchanged;
        private final TableInput desired;

        Commit(TableDefinition def, boolean create, boolean databaseExists, String versionId, boolean unchanged, TableInput desired) {
            this.def = def;
            this.create = create;
            this.databaseExists = databaseExists;
            this.versionId = versionId;
            this.unchanged = unchanged;
            this.desired = desired;
        }

        /** Run before every call that changes the catalog; set for the duration of one commit or unregister. */
        private Runnable fence = () -> { };

        @Override
        public void commit(List<PartitionEntry> written, Runnable fence) {
            this.fence = fence;
            try {
                commit(written);
            } finally {
                this.fence = () -> { };
            }
        }

        @Override
        public void unregister(List<PartitionEntry> partitions, Runnable fence) {
            this.fence = fence;
            try {
                unregister(partitions);
            } finally {
                this.fence = () -> { };
            }
        }

        @Override
        public void commit(List<PartitionEntry> written) {
            TableInput table = create ? createTable() : updateTable();
            if (!o.registerPartitions || def.partitionKeys().isEmpty()) {
                return;
            }
            List<PartitionInput> inputs = new ArrayList<>();
            for (PartitionEntry e : written) {
                List<String> values = e.values().stream().map(v -> v == null ? PartitionEntry.DEFAULT_PARTITION : v).toList();
                inputs.add(PartitionInput.builder().values(values).storageDescriptor(storage(def, table.storageDescriptor().columns(), e.location()))
                        .parameters(Map.of()).build());
            }
            registerPartitions(inputs);
            if (def.mode() == WriteMode.OVERWRITE) {
                removeOtherPartitions(inputs);
            }
        }

        private TableInput createTable() {
            if (!databaseExists) {
                change("create the Glue database " + database, () -> {
                    try {
                        return glue.createDatabase(b -> b.overrideConfiguration(SdkRetries.once()).catalogId(o.catalogId).databaseInput(d -> d.name(database)));
                    } catch (AlreadyExistsException e) {
                        return null; // created meanwhile, or by a retried call that was applied
                    }
                });
            }
            try {
                change("create the Glue table " + qualified(), () -> glue.createTable(b -> b.overrideConfiguration(SdkRetries.once()).catalogId(o.catalogId).databaseName(database).tableInput(desired)));
                return desired;
            } catch (CatalogException e) {
                if (!(e.getCause() instanceof AlreadyExistsException)) {
                    throw e;
                }
                // Created by another writer, or by our own call whose answer was lost: update it like an existing table.
                return retryUpdate(0);
            }
        }

        private TableInput updateTable() {
            if (unchanged) {
                return desired;
            }
            try {
                change("update the Glue table " + qualified(), () -> glue.updateTable(b -> b.overrideConfiguration(SdkRetries.once()).catalogId(o.catalogId).databaseName(database)
                        .tableInput(desired).skipArchive(!o.catalogVersioning).versionId(versionId)));
                return desired;
            } catch (CatalogException e) {
                if (!(e.getCause() instanceof ConcurrentModificationException)) {
                    throw e;
                }
                return retryUpdate(1);
            }
        }

        /** Re-reads the table, re-validates this write against it, and updates it with the fresh VersionId. */
        private TableInput retryUpdate(int attemptsSoFar) {
            for (int attempt = attemptsSoFar + 1; ; attempt++) {
                Table fresh = readTable(def);
                if (fresh == null) {
                    throw conflict("the table disappeared while this write was registering it", null);
                }
                TableInput want;
                try {
                    want = desired(def, fresh, columns(def, def.columns()), columns(def, def.partitionKeys()));
                } catch (InvalidWriteException e) {
                    String why = e.getMessage().endsWith(".") ? e.getMessage().substring(0, e.getMessage().length() - 1) : e.getMessage();
                    throw conflict("another writer changed it so that this write no longer fits: " + why, e);
                }
                if (Shape.of(fresh).equals(Shape.of(want))) {
                    return want;
                }
                try {
                    change("update the Glue table " + qualified(), () -> glue.updateTable(b -> b.overrideConfiguration(SdkRetries.once()).catalogId(o.catalogId).databaseName(database)
                            .tableInput(want).skipArchive(!o.catalogVersioning).versionId(fresh.versionId())));
                    return want;
                } catch (CatalogException e) {
                    if (!(e.getCause() instanceof ConcurrentModificationException) || attempt >= MAX_COMMIT_ATTEMPTS) {
                        if (e.getCause() instanceof ConcurrentModificationException) {
                            throw conflict("another writer kept changing it (ConcurrentModificationException " + attempt + " times)", e.getCause());
                        }
                        throw e;
                    }
                }
            }
        }

        private CommitConflictException conflict(String why, Throwable cause) {
            return new CommitConflictException(def.location(), WriteStep.CATALOG, "Cannot update the Glue table " + qualified() + " for "
                    + def.location() + " (step: catalog): " + why + ". The data is published and the write's manifest kept: rerunning "
                    + "the write is safe and registers it.", cause);
        }

        private void registerPartitions(List<PartitionInput> inputs) {
            List<PartitionInput> existing = new ArrayList<>();
            for (int from = 0; from < inputs.size(); from += 100) {
                List<PartitionInput> chunk = inputs.subList(from, Math.min(inputs.size(), from + 100));
                BatchCreatePartitionResponse r = change("register partitions in " + qualified(), () -> glue.batchCreatePartition(b -> b.overrideConfiguration(SdkRetries.once())
                        .catalogId(o.catalogId).databaseName(database).tableName(name()).partitionInputList(chunk)));
                for (PartitionError e : r.errors()) {
                    if ("AlreadyExistsException".equals(code(e.errorDetail()))) {
                        chunk.stream().filter(p -> p.values().equals(e.partitionValues())).findFirst().ifPresent(existing::add);
                    } else {
                        throw partitionError("register", e.partitionValues(), e.errorDetail());
                    }
                }
            }
            List<BatchUpdatePartitionRequestEntry> updates = new ArrayList<>();
            for (int from = 0; from < existing.size(); from += 1000) {
                List<PartitionInput> chunk = existing.subList(from, Math.min(existing.size(), from + 1000));
                List<Partition> found = call("read partitions of " + qualified(), () -> glue.batchGetPartition(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId)
                        .databaseName(database).tableName(name())
                        .partitionsToGet(chunk.stream().map(p -> PartitionValueList.builder().values(p.values()).build()).toList()))).partitions();
                for (PartitionInput wanted : chunk) {
                    Partition have = found.stream().filter(p -> p.values().equals(wanted.values())).findFirst().orElse(null);
                    PartitionInput want = keepLocation(wanted, have);
                    if (have == null || !Shape.of(null, null, null, null, have.storageDescriptor())
                            .equals(Shape.of(null, null, null, null, want.storageDescriptor()))) {
                        updates.add(BatchUpdatePartitionRequestEntry.builder().partitionValueList(want.values()).partitionInput(want).build());
                    }
                }
            }
            for (int from = 0; from < updates.size(); from += 100) {
                List<BatchUpdatePartitionRequestEntry> chunk = updates.subList(from, Math.min(updates.size(), from + 100));
                BatchUpdatePartitionResponse r = change("update partitions of " + qualified(), () -> glue.batchUpdatePartition(b -> b.overrideConfiguration(SdkRetries.once())
                        .catalogId(o.catalogId).databaseName(database).tableName(name()).entries(chunk)));
                if (r.hasErrors() && !r.errors().isEmpty()) {
                    throw partitionError("update", r.errors().get(0).partitionValueList(), r.errors().get(0).errorDetail());
                }
            }
        }

        /**
         * The partition as wanted, at the Location it is registered at when that names the same folder ({@code s3a://},
         * no trailing slash): the write put its files there, and the registered Location is kept as it is.
         */
        private PartitionInput keepLocation(PartitionInput want, Partition have) {
            String at = have == null || have.storageDescriptor() == null ? null : have.storageDescriptor().location();
            String wanted = want.storageDescriptor().location();
            if (at == null || at.equals(wanted) || !withSlash(at).equals(withSlash(wanted))) {
                return want;
            }
            return want.toBuilder().storageDescriptor(want.storageDescriptor().toBuilder().location(at).build()).build();
        }

        @Override
        public void unregister(List<PartitionEntry> partitions) {
            if (!o.registerPartitions || def.partitionKeys().isEmpty()) {
                return;
            }
            List<PartitionValueList> remove = partitions.stream()
                    .map(e -> PartitionValueList.builder().values(e.values().stream().map(v -> v == null ? PartitionEntry.DEFAULT_PARTITION : v).toList()).build())
                    .toList();
            try {
                deletePartitions(remove);
            } catch (CatalogException e) {
                // The undone write was the table's first and never reached the catalog: nothing is registered to remove.
                if (!(e.getCause() instanceof EntityNotFoundException)) {
                    throw e;
                }
            }
        }

        private void removeOtherPartitions(List<PartitionInput> written) {
            Set<List<String>> keep = new HashSet<>();
            written.forEach(p -> keep.add(p.values()));
            List<PartitionValueList> remove = new ArrayList<>();
            String token = null;
            do {
                final String t = token;
                GetPartitionsResponse page = call("list partitions of " + qualified(), () -> glue.getPartitions(b -> b.overrideConfiguration(retried()).catalogId(o.catalogId)
                        .databaseName(database).tableName(name()).maxResults(1000).nextToken(t)));
                for (Partition p : page.partitions()) {
                    if (!keep.contains(p.values())) {
                        remove.add(PartitionValueList.builder().values(p.values()).build());
                    }
                }
                token = page.nextToken();
            } while (token != null);
            deletePartitions(remove);
        }

        /** BatchDeletePartition in chunks of 25; a partition already gone is fine. */
        private void deletePartitions(List<PartitionValueList> remove) {
            for (int from = 0; from < remove.size(); from += 25) {
                List<PartitionValueList> chunk = remove.subList(from, Math.min(remove.size(), from + 25));
                BatchDeletePartitionResponse r = change("delete replaced partitions of " + qualified(), () -> glue.batchDeletePartition(b -> b.overrideConfiguration(SdkRetries.once())
                        .catalogId(o.catalogId).databaseName(database).tableName(name()).partitionsToDelete(chunk)));
                for (PartitionError e : r.errors()) {
                    if (!"EntityNotFoundException".equals(code(e.errorDetail()))) {
                        throw partitionError("delete", e.partitionValues(), e.errorDetail());
                    }
                }
            }
        }

        private String code(ErrorDetail d) {
            return d == null ? null : d.errorCode();
        }

        private CatalogException partitionError(String verb, List<String> values, ErrorDetail d) {
            return new CatalogException(def.location(), WriteStep.CATALOG, "Cannot " + verb + " the partition " + values + " of the Glue table "
                    + qualified() + " for " + def.location() + " (step: catalog): Glue answered " + code(d) + " (" + (d == null ? "" : d.errorMessage())
                    + "). The data is published and the write's manifest kept: fix the cause and rerun the write, or run S3Parquet.recover with "
                    + "this Glue table.", null);
        }

        /**
         * A call that changes the catalog, fenced right before every attempt (retries included), so a writer that lost
         * the table's lease, also while an attempt failed or waited out its backoff, changes nothing more. The SDK has
         * no hook that may stop an attempt from being sent, so {@code call} sends its request with the SDK's retries off
         * ({@code SdkRetries.once()}) and {@link SdkRetries#fenced} retries it with this table's strategy (the same
         * classifier and backoff as every other Glue call). What the fence throws is passed on as it is, never retried
         * here: its own S3 requests were retried by the SDK already (the same rule as a copy's completion in S3Store).
         */
        private <T> T change(String doing, Supplier<T> call) {
            Runnable fenced = () -> {
                try {
                    fence.run();
                } catch (SdkException e) {
                    throw new FenceFailed(e); // S3's failure, not Glue's: not made a catalog failure
                }
            };
            try {
                return call(doing, () -> SdkRetries.fenced(Retry.strategy(o.retry), fenced, call));
            } catch (FenceFailed e) {
                throw e.cause;
            }
        }

        /** Carries a fence's own S3 failure out of a Glue call's failure handling. */
        private static final class FenceFailed extends RuntimeException {
            final SdkException cause;

            FenceFailed(SdkException cause) {
                super(null, cause, false, false);
                this.cause = cause;
            }
        }

        private <T> T call(String doing, Supplier<T> call) {
            try {
                return call.get();
            } catch (SdkException e) {
                throw new CatalogException(def.location(), WriteStep.CATALOG, "Cannot " + doing + " for " + def.location() + " (step: catalog): "
                        + glueError(e) + ". The data is published and the write's manifest kept: fix the cause and rerun the write, or run "
                        + "S3Parquet.recover with this Glue table.", e);
            }
        }
    }

}
