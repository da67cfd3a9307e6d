package io.wrangler.compact;

import io.wrangler.CommitConflictException;
import io.wrangler.DeleteResult;
import io.wrangler.DropResult;
import io.wrangler.InvalidWriteException;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.read.TableFiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Removals runs a delete of rows and a drop of partitions: a compaction's path with what it removes ({@link Removal}).
 * Recovery first, then the plan (the scope listed, the files chosen: those holding a matched row, found by reading the
 * test's columns; every file of the chosen partitions for a drop), then one write of the commit protocol whose manifest
 * replaces exactly the chosen files, records their partitions (so the catalog step removes those left empty) and is
 * checked before its commit point: what it staged read back against the rows it kept, and, under the lease, the scope
 * listed again (a file that came since the plan and may hold a matched row, or one of a dropped partition, is a
 * conflict: nothing changed, run it again). A plan ({@link Removal#dryRun}) stops after the plan: reads only.
 */
public final class Removals {
    private static final System.Logger LOG = System.getLogger("io.wrangler");

    private Removals() {
    }

    /** Deletes the rows {@code spec.removal().rows()} matches in the partitions of {@code spec.choice().filter()}. */
    public static DeleteResult deleteRows(CompactionSpec spec) {
        String table = spec.table();
        boolean dry = spec.removal().dryRun();
        if (!dry) {
            Compaction.recoverFirst(spec);
        }
        CompactionPlan plan = CompactionPlan.of(spec);
        List<String> rewritten = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        long rows = 0;
        for (List<TableFiles.DataFile> unit : plan.units) {
            for (TableFiles.DataFile f : unit) {
                long[] c = plan.matched.get(f.key());
                rows += c[1];
                (c[1] == c[0] ? removed : rewritten).add(uri(f));
            }
        }
        if (plan.units.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, () -> "Delete of rows of " + table + ": " + spec.removal().rows().describe()
                    + " matches no row in the partitions it may read; nothing was changed.");
            return new DeleteResult(table, false, 0, List.of(), List.of(), List.of(), null);
        }
        if (dry) {
            return new DeleteResult(table, false, rows, rewritten, removed, plan.folders, null);
        }
        Set<String> chosen = new HashSet<>(plan.replaced());
        Compaction.Rewritten r = Compaction.rewrite(spec, plan, () -> nothingCameSince(spec, plan, chosen, false));
        return new DeleteResult(table, true, rows, rewritten, removed, plan.folders, r.write());
    }

    /** Drops the partitions {@code spec.choice().filter()} passes: every file of each, and their catalog entries. */
    public static DropResult dropPartitions(CompactionSpec spec) {
        String table = spec.table();
        boolean dry = spec.removal().dryRun();
        if (!dry) {
            Compaction.recoverFirst(spec);
        }
        CompactionPlan plan = CompactionPlan.of(spec);
        if (plan.partitionColumns.isEmpty() && !plan.units.isEmpty()) {
            throw new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot drop partitions of " + table + " (step: validate): "
                    + "the table has no partition columns. Delete its rows with deleteRows(...), or overwrite it; nothing was changed.");
        }
        List<String> files = new ArrayList<>();
        plan.units.forEach(u -> u.forEach(f -> files.add(uri(f))));
        if (plan.units.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, () -> "Drop of partitions of " + table + ": the filter matches no partition that "
                    + "holds files; nothing was changed.");
            return new DropResult(table, false, List.of(), List.of(), null);
        }
        if (dry) {
            return new DropResult(table, false, plan.folders, files, null);
        }
        Set<String> chosen = new HashSet<>(plan.replaced());
        WriteResult w = Compaction.rewrite(spec, plan, () -> nothingCameSince(spec, plan, chosen, true)).write();
        return new DropResult(table, true, plan.folders, files, w);
    }

    /**
     * The check under the lease, before the commit point: the scope listed again equals the plan's listing, but for
     * files that cannot change what the removal must remove (for a delete, files without a matched row). Otherwise a
     * write committed between the plan and the lease would keep rows the removal was asked to remove.
     */
    private static void nothingCameSince(CompactionSpec spec, CompactionPlan plan, Set<String> chosen, boolean everyRow) {
        TableFiles.Listing now = CompactionPlan.listNow(spec);
        Map<String, TableFiles.DataFile> before = new HashMap<>();
        plan.listing().files().forEach(f -> before.put(f.key(), f));
        Map<String, TableFiles.DataFile> nowKeys = new HashMap<>();
        now.files().forEach(f -> nowKeys.put(f.key(), f));
        for (String k : chosen) {
            if (!nowKeys.containsKey(k) || !before.get(k).sameObject(nowKeys.get(k))) {
                throw changed(spec, "the file " + uri(spec, k) + " it chose was replaced by another write");
            }
        }
        Set<String> droppedFolders = new HashSet<>();
        plan.units.forEach(u -> droppedFolders.add(u.get(0).folder()));
        // a file replaced under its own name (another ETag) came as a new one would: it may hold a matched row now
        List<TableFiles.DataFile> came = now.files().stream()
                .filter(f -> !before.containsKey(f.key()) || !before.get(f.key()).sameObject(f)).toList();
        if (came.isEmpty()) {
            return;
        }
        if (everyRow) {
            for (TableFiles.DataFile f : came) {
                if (droppedFolders.contains(f.folder())) {
                    throw changed(spec, "the file " + uri(f) + " came into a partition it drops");
                }
            }
            return;
        }
        Map<String, long[]> hits = RemovalScan.scan(spec, now.partitionColumns(), came, plan.partitionTypes, plan.catalogColumns,
                spec.removal().rows()).matched();
        if (!hits.isEmpty()) {
            throw changed(spec, "the file " + uri(spec, hits.keySet().iterator().next()) + " came with rows it matches");
        }
    }

    private static CommitConflictException changed(CompactionSpec spec, String what) {
        String table = spec.table();
        return new CommitConflictException(table, WriteStep.STAGE, "Cannot " + spec.verb() + " " + table + " (step: check): " + what
                + " after it listed the table and before it took the lease. Nothing was changed: its staging was removed before the "
                + "commit point; run it again.", null);
    }

    private static String uri(TableFiles.DataFile f) {
        return "s3://" + f.bucket() + "/" + f.key();
    }

    private static String uri(CompactionSpec spec, String key) {
        return spec.location().uriOf(key);
    }
}
