package io.wrangler.tableops;

import io.wrangler.Compression;
import io.wrangler.InvalidWriteException;
import io.wrangler.ReadException;
import io.wrangler.RegisterResult;
import io.wrangler.WriteMode;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableDefinition;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.CatalogOnly;
import io.wrangler.hive.HiveTypes;
import io.wrangler.read.FileFooters;
import io.wrangler.read.FileEncodings;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableSchema;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Registers an existing Hive-layout Parquet dataset in a catalog without touching its objects (awswrangler's
 * {@code store_parquet_metadata}): the plan ({@link #plan}) reads the folders and every footer and refuses what a
 * reader would refuse; the run makes the plan again under the lease, after the recovery, and creates the table and its
 * partitions through the catalog's own commit ({@link CatalogTable#prepare}, then {@link CatalogCommit#commit}, which
 * registers partitions in batches within the catalog's limits and is idempotent).
 */
public final class Register {
    /** What the caller chose: partition types by column, the declared partition columns (or null), replacing a table. */
    public record Options(Map<String, String> partitionTypes, List<String> partitionColumns, boolean replaceTable) {
        public Options {
            partitionTypes = Map.copyOf(partitionTypes);
            partitionColumns = partitionColumns == null ? null : List.copyOf(partitionColumns);
        }
    }

    /** What an existing catalog table is to this registration. */
    enum Existing {
        NONE, SAME, REPLACED
    }

    /** The registration as planned: the definition, the partitions, and what the catalog already has. */
    record Plan(TableDefinition definition, List<PartitionEntry> partitions, Map<String, String> columns, Map<String, String> keys,
                long files, Existing existing) {
        RegisterResult result(OpSpec spec, boolean applied) {
            List<PartitionEntry> shown = definition.partitionKeys().isEmpty() ? List.of(new PartitionEntry(List.of(), spec.table())) : partitions;
            return new RegisterResult(spec.table(), spec.catalog().describe(), columns, keys, shown, files, existing == Existing.REPLACED,
                    applied);
        }
    }

    static final String VERB = "register";
    private static final String RERUN = "S3Parquet.register(...).run()";

    private Register() {
    }

    /** Plans the registration, and with {@code apply} runs it under the table's lease. */
    public static RegisterResult run(OpSpec spec, Options options, boolean apply) {
        Refusals refusals = new Refusals(spec.table(), VERB);
        if (spec.catalog() == null) {
            throw refusals.invalid("no catalog was given", "Call catalog(...) with the table to create, e.g. "
                    + "GlueCatalog.of(glue).table(\"db\", \"name\"). Nothing was changed.");
        }
        checkBucket(spec, refusals);
        if (!apply) {
            return plan(spec, options, refusals).result(spec, false);
        }
        spec.planFirst(() -> plan(spec, options, refusals));
        return CatalogOnly.run(spec.run(VERB, RERUN, true), (fence, recovered) -> {
            Plan now = plan(spec, options, refusals); // afresh: a write may have ended, or been recovered, since the first plan
            if (now.existing() == Existing.REPLACED) {
                spec.catalog().dropTable(fence);
            }
            CatalogCommit commit = prepare(spec.catalog(), now.definition(), refusals);
            commit.commit(now.partitions(), fence);
            return now.result(spec, true);
        });
    }

    static void checkBucket(OpSpec spec, Refusals refusals) {
        try {
            spec.store().checkBucket();
        } catch (SdkException e) {
            throw refusals.storage("reach the bucket", e);
        }
    }

    private static CatalogCommit prepare(CatalogTable catalog, TableDefinition def, Refusals refusals) {
        try {
            return catalog.prepare(def);
        } catch (InvalidWriteException e) {
            throw refusals.prepareRefused(e);
        }
    }

    static Plan plan(OpSpec spec, Options options, Refusals refusals) {
        S3Store store = spec.store();
        TableFolders.Scan scan = Scans.scan(store, spec, options.partitionColumns(), refusals,
                "Move the stray object out of the table, or declare the partition columns with partitionColumns(...)");
        if (scan.partitions().isEmpty()) {
            throw refusals.invalid("no data file lies under " + spec.table() + " (no table there; _tmp/ and hidden objects do not count)",
                    "Check the URI. Nothing was changed.");
        }
        for (String declared : options.partitionTypes().keySet()) {
            if (!scan.columns().contains(declared)) {
                throw refusals.invalid("partitionTypes names the column '" + declared + "', which is not a partition column of the folders "
                        + scan.columns(), "Name the columns of the folders. Nothing was changed.");
            }
        }
        List<TableFiles.DataFile> files = scan.allFiles();
        FileFooters footers = footers(spec, files, refusals);
        List<Field> data = dataColumns(spec, files, footers, refusals);
        List<Field> keys = keys(spec.catalog(), scan, options.partitionTypes(), refusals);
        checkClashes(data, keys, refusals);
        Map<String, String> columns = hiveTypes(data, refusals);
        Map<String, String> keyTypes = hiveTypes(keys, refusals);
        List<PartitionEntry> partitions = new ArrayList<>();
        Map<List<String>, TableFolders.Partition> byValues = new java.util.HashMap<>();
        for (TableFolders.Partition p : scan.partitions()) {
            TableFolders.Partition other = byValues.putIfAbsent(p.values(), p);
            if (other != null) {
                throw refusals.invalid(TableFolders.sameValues(other, p), "Move the files of one folder into the other. Nothing was "
                        + "changed.");
            }
            partitions.add(p.entry(spec.location()));
        }
        FileEncodings enc = footers.encodings();
        Compression codec = enc.single() != null ? enc.single() : enc.codecs().contains(Compression.SNAPPY) ? Compression.SNAPPY : Compression.NONE;
        TableDefinition def = new TableDefinition(spec.table(), data, keys, WriteMode.APPEND, codec);
        Existing existing = existing(spec, options, refusals, columns, keyTypes);
        if (existing != Existing.REPLACED) {
            prepare(spec.catalog(), def, refusals); // read-only: the catalog's own refusals (no database, a name it cannot take)
        }
        return new Plan(def, partitions, columns, keyTypes, scan.files(), existing);
    }

    private static FileFooters footers(OpSpec spec, List<TableFiles.DataFile> files, Refusals refusals) {
        try {
            return FileFooters.read(spec.s3(), spec.requests(), files, key -> false);
        } catch (IOException e) {
            if (e.getCause() instanceof SdkException s) {
                throw refusals.storage("read the files' footers", s);
            }
            throw refusals.invalid("a file is not a Parquet file a reader reads: " + e.getMessage(), "Every object below the table "
                    + "that is not hidden (_ or . first) must be a Parquet data file: move the others out. Nothing was changed.");
        } catch (SdkException e) {
            throw refusals.storage("read the files' footers", e);
        }
    }

    /** The data columns as a reader unites them, named as the catalog will register them. */
    private static List<Field> dataColumns(OpSpec spec, List<TableFiles.DataFile> files, FileFooters footers, Refusals refusals) {
        List<Field> united;
        try {
            united = TableSchema.ofFiles(spec.table(), files, footers.schemas(files));
        } catch (ReadException e) {
            String own = "Cannot read " + spec.table() + ": ";
            String m = e.getMessage().startsWith(own) ? e.getMessage().substring(own.length()) : e.getMessage();
            int todo = m.indexOf(". Rewrite ");
            m = todo > 0 ? m.substring(0, todo) : m; // the read's own advice, replaced by this operation's
            throw refusals.invalid("the files' footers disagree, and no reader reads them as one table: " + stripDot(m),
                    "Rewrite one of the files with the other's type, or move it out of the table. Nothing was changed.");
        }
        List<Field> out = new ArrayList<>();
        for (Field f : united) {
            out.add(named(spec.catalog(), f, refusals));
        }
        return out;
    }

    private static Field named(CatalogTable catalog, Field f, Refusals refusals) {
        String name = catalog.columnName(f.getName());
        if (!name.equalsIgnoreCase(f.getName())) {
            throw refusals.invalid("the column '" + f.getName() + "' would be registered as '" + name + "' by " + catalog.describe()
                    + ", and readers match the catalog's columns to the files' by name (case aside), so they would read it as nulls",
                    "Rewrite the files with the column named '" + name + "', or register with a catalog that keeps names "
                            + "(sanitizeNames(false)). Nothing was changed.");
        }
        return name.equals(f.getName()) ? f : new Field(name, f.getFieldType(), f.getChildren());
    }

    /** The partition columns, string unless declared, every folder's value checked against its type. */
    private static List<Field> keys(CatalogTable catalog, TableFolders.Scan scan, Map<String, String> declared, Refusals refusals) {
        List<Field> keys = new ArrayList<>();
        for (int i = 0; i < scan.columns().size(); i++) {
            String column = scan.columns().get(i);
            String type = declared.getOrDefault(column, "string").toLowerCase(Locale.ROOT).replace(" ", "");
            Field f;
            try {
                f = HiveTypes.parse(column, type);
            } catch (IllegalArgumentException e) {
                throw refusals.invalid("the partition column '" + column + "' is declared '" + type + "', which is not a Hive type wrangler "
                        + "knows (" + e.getMessage() + ")", "Declare string, tinyint, smallint, int, bigint, boolean, float, double, "
                        + "decimal(p,s), date or timestamp. Nothing was changed.");
            }
            if (!PartitionValueTypes.partitionable(type)) {
                throw refusals.invalid("the partition column '" + column + "' is declared '" + type + "', which cannot type a partition",
                        "Declare string, tinyint, smallint, int, bigint, boolean, float, double, decimal(p,s), date or timestamp. "
                                + "Nothing was changed.");
            }
            for (TableFolders.Partition p : scan.partitions()) {
                String problem = PartitionValueTypes.problem(p.folder(), column, type, p.values().get(i));
                if (problem != null) {
                    throw refusals.invalid(problem, problem.contains(": a merge")
                            ? "Rename the folder to the value as written, or declare the column a string. Nothing was changed."
                            : "Declare the column's type as the folders have it (or leave it a string). Nothing was changed.");
                }
            }
            Field named = named(catalog, f, refusals);
            keys.add(new Field(named.getName(), new FieldType(true, named.getType(), null), named.getChildren()));
        }
        return keys;
    }

    private static void checkClashes(List<Field> data, List<Field> keys, Refusals refusals) {
        Set<String> names = new HashSet<>();
        data.forEach(f -> names.add(f.getName().toLowerCase(Locale.ROOT)));
        for (Field k : keys) {
            if (names.contains(k.getName().toLowerCase(Locale.ROOT))) {
                throw refusals.invalid("the column '" + k.getName() + "' is both a column of the files and a partition folder's column",
                        "Rewrite the files without it (a Hive table keeps partition columns in the folders only). Nothing was changed.");
            }
        }
    }

    private static Map<String, String> hiveTypes(List<Field> fields, Refusals refusals) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Field f : fields) {
            try {
                out.put(f.getName(), HiveTypes.of(f));
            } catch (HiveTypes.Unsupported e) {
                throw refusals.invalid(stripDot(e.getMessage()), "The catalog cannot type it: rewrite the files with a type it can "
                        + "hold. Nothing was changed.");
            }
        }
        return out;
    }

    /** What the catalog's table, if any, is to this registration; another definition refused unless replaced. */
    private static Existing existing(OpSpec spec, Options options, Refusals refusals, Map<String, String> columns, Map<String, String> keys) {
        TableLayout layout = refusals.layout(spec.catalog());
        if (layout == null) {
            return Existing.NONE;
        }
        String what = null;
        if (!spec.table().equals(Refusals.normalized(layout.location()))) {
            what = "is at " + layout.location() + ", not at " + spec.table();
        } else {
            Map<String, String> hasKeys = new LinkedHashMap<>();
            Map<String, String> hasColumns = new LinkedHashMap<>();
            Set<String> keyNames = new HashSet<>(layout.partitionColumns());
            layout.types().forEach((n, t) -> (keyNames.contains(n) ? hasKeys : hasColumns).put(n.toLowerCase(Locale.ROOT),
                    t == null ? null : t.toLowerCase(Locale.ROOT)));
            for (String k : layout.partitionColumns()) {
                hasKeys.putIfAbsent(k.toLowerCase(Locale.ROOT), null);
            }
            Map<String, String> wantKeys = lower(keys);
            Map<String, String> wantColumns = lower(columns);
            if (!new ArrayList<>(hasKeys.entrySet()).equals(new ArrayList<>(wantKeys.entrySet()))) {
                what = "is partitioned by " + hasKeys + ", the folders by " + wantKeys;
            } else if (!hasColumns.equals(wantColumns)) {
                what = "has the columns " + hasColumns + ", the files " + wantColumns;
            }
        }
        if (what == null) {
            return Existing.SAME;
        }
        if (!options.replaceTable()) {
            throw refusals.invalid("the catalog's table " + spec.catalog().describe() + " already exists and " + what,
                    "Register under another table name, or call replaceTable(true) to replace its definition. Nothing was changed.");
        }
        return Existing.REPLACED;
    }

    private static Map<String, String> lower(Map<String, String> m) {
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k.toLowerCase(Locale.ROOT), v.toLowerCase(Locale.ROOT)));
        return out;
    }

    static String stripDot(String m) {
        return m != null && m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
    }
}
