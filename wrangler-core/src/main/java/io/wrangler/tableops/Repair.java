package io.wrangler.tableops;

import io.wrangler.RepairResult;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.CatalogOnly;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Repairs a catalog table's partitions from its folders (Hive's {@code MSCK REPAIR TABLE}, with {@code removeMissing}
 * its {@code SYNC PARTITIONS}), deciding from complete listings only: every page of the table's objects
 * ({@link TableFolders}) and every page of the catalog's partitions ({@link io.wrangler.catalog.CatalogTable#layout}).
 * A registered partition is present when its folder holds a data file; one whose Location lies outside the table's
 * folder is never touched, only reported.
 */
public final class Repair {
    static final String VERB = "repair the catalog of";
    private static final String RERUN = "S3Parquet.repairCatalog(...).run()";

    /** The repair as planned. */
    record Plan(List<PartitionEntry> add, List<PartitionEntry> missing, List<PartitionEntry> outside) {
    }

    private Repair() {
    }

    /** Plans the repair, and with {@code apply} runs it under the table's lease (planned again there, after the recovery). */
    public static RepairResult run(OpSpec spec, boolean removeMissing, boolean apply) {
        Refusals refusals = new Refusals(spec.table(), VERB);
        if (spec.catalog() == null) {
            throw refusals.invalid("no catalog was given", "Call catalog(...) with the table to repair. Nothing was changed.");
        }
        Register.checkBucket(spec, refusals);
        if (!apply) {
            return result(spec, plan(spec, refusals, removeMissing), removeMissing, false);
        }
        spec.planFirst(() -> plan(spec, refusals, removeMissing));
        return CatalogOnly.run(spec.run(VERB, RERUN, true), (fence, recovered) -> {
            Plan now = plan(spec, refusals, removeMissing);
            if (removeMissing) {
                // first: a folder whose values were registered at a gone folder is then added at its own
                spec.catalog().removePartitions(now.missing(), fence);
            }
            spec.catalog().addPartitions(now.add(), fence);
            return result(spec, now, removeMissing, true);
        });
    }

    /**
     * Refuses to register a folder whose value is not of its column's type in the catalog, or not as a write writes it
     * ({@link PartitionValueTypes#problem}). Types a partition folder cannot be checked against (Glue's {@code varchar(n)},
     * say) are taken as strings.
     */
    private static void checkValues(OpSpec spec, TableLayout layout, TableFolders.Partition p, Refusals refusals) {
        for (int i = 0; i < layout.partitionColumns().size(); i++) {
            String column = layout.partitionColumns().get(i);
            String type = layout.types().get(column);
            type = type == null ? "string" : type.toLowerCase(Locale.ROOT).replace(" ", "");
            if (!PartitionValueTypes.partitionable(type)) {
                continue;
            }
            String problem = PartitionValueTypes.problem(p.folder(), column, type, p.values().get(i));
            if (problem != null) {
                throw refusals.invalid(problem + " (" + column + " is " + type + " in " + spec.catalog().describe() + ")",
                        problem.contains(": a merge")
                                ? "Rename the folder to the value as written. Nothing was changed."
                                : "Move the folder's files out of the table, or rename the folder to a " + type + " value: registered, the "
                                        + "value fails the readers that parse it (Athena: HIVE_INVALID_PARTITION_VALUE). Nothing was changed.");
            }
        }
    }

    private static RepairResult result(OpSpec spec, Plan p, boolean removeMissing, boolean applied) {
        return new RepairResult(spec.table(), spec.catalog().describe(), p.add(), removeMissing ? p.missing() : List.of(),
                removeMissing ? List.of() : p.missing(), p.outside(), applied);
    }

    /**
     * The repair as the table and the catalog are now. A folder holding data whose values the catalog registers only at
     * missing folders is added when those are removed ({@code removeMissing}), else left (its values are registered).
     */
    static Plan plan(OpSpec spec, Refusals refusals, boolean removeMissing) {
        TableLayout layout = refusals.layout(spec.catalog());
        if (layout == null) {
            throw refusals.invalid("the catalog has no table " + spec.catalog().describe(), "Register the dataset first with "
                    + "S3Parquet.register(uri).catalog(...).run(). Nothing was changed.");
        }
        if (!spec.table().equals(Refusals.normalized(layout.location()))) {
            throw refusals.invalid("the catalog's table " + spec.catalog().describe() + " is at " + layout.location() + ", not at "
                    + spec.table(), "Repair it with its own location. Nothing was changed.");
        }
        if (layout.partitionColumns().isEmpty()) {
            return new Plan(List.of(), List.of(), List.of()); // no partitions to repair
        }
        TableFolders.Scan scan = Scans.scan(spec.store(), spec, layout.partitionColumns(), refusals,
                "Move the stray object out of the table: a repair registers partition folders of the columns "
                        + layout.partitionColumns() + " only");
        Set<String> holding = new HashSet<>();
        for (TableFolders.Partition p : scan.partitions()) {
            holding.add(spec.table() + p.folder());
        }
        Set<List<String>> registered = new HashSet<>();
        List<PartitionEntry> missing = new ArrayList<>();
        List<PartitionEntry> outside = new ArrayList<>();
        for (PartitionEntry e : layout.partitions()) {
            String at = Refusals.normalized(e.location());
            if (at == null || !at.startsWith(spec.table()) || at.startsWith(spec.location().uriOf(spec.location().tmpPrefix()))) {
                outside.add(e);
                registered.add(e.values());
            } else if (!holding.contains(at)) {
                missing.add(e);
                if (!removeMissing) {
                    registered.add(e.values());
                }
            } else {
                registered.add(e.values());
            }
        }
        List<PartitionEntry> add = new ArrayList<>();
        Map<List<String>, TableFolders.Partition> adding = new HashMap<>();
        for (TableFolders.Partition p : scan.partitions()) {
            if (registered.contains(p.values())) {
                continue;
            }
            TableFolders.Partition other = adding.putIfAbsent(p.values(), p);
            if (other != null) {
                throw refusals.invalid(TableFolders.sameValues(other, p), "Move the files of one folder into the other. Nothing was changed.");
            }
            checkValues(spec, layout, p, refusals);
            add.add(p.entry(spec.location()));
        }
        return new Plan(add, missing, outside);
    }
}
