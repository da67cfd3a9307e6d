package io.wrangler.commit;

import io.wrangler.hive.HivePaths;
import io.wrangler.layout.Manifest;
import io.wrangler.partition.PartitionKey;
import io.wrangler.staging.StagedFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * The checks a {@link Transaction} makes of the files its tasks reported ({@link StagedFiles}), before its commit point:
 * a message can make the write publish only what its tasks staged, never over another write's file or under
 * {@code _tmp/}, and only files still in place. What the transaction staged in its own process is not checked.
 */
final class TaskReports {
    private final WritePlan plan;
    private final TableContext context;
    private final Outcomes outcomes;

    TaskReports(WritePlan plan, TableContext context, Outcomes outcomes) {
        this.plan = plan;
        this.context = context;
        this.outcomes = outcomes;
    }

    /** The partitions (in order of first appearance) and files of the messages, each file once. */
    record Checked(List<PartitionKey> keys, List<StagedFile> files) {
    }

    /**
     * Each file once (a message handed twice names the same files), at exactly the final key its staged key gives,
     * carrying this write's id, in the Hive folder of a partition the messages list. Throws the InvalidWriteException of
     * an unstaged file; the caller removes the write's staging.
     */
    Checked check(List<StagedFiles> tasks) {
        Map<List<String>, PartitionKey> seen = new LinkedHashMap<>();
        Map<String, StagedFile> byStaged = new LinkedHashMap<>();
        Set<String> finals = new HashSet<>();
        for (StagedFiles t : tasks) {
            t.partitions().forEach(v -> seen.computeIfAbsent(v, PartitionKey::new));
            for (StagedFile f : t.files()) {
                boolean placed = placed(f);
                String id = placed ? (plan.deferred() ? f.finalKey() : f.stagedKey()) : null;
                StagedFile before = placed ? byStaged.get(id) : null;
                if (!placed || (before == null ? !finals.add(f.finalKey()) : !before.equals(f))) {
                    throw outcomes.unstaged("the file " + (f.stagedKey() == null ? f.finalKey() + " (upload "
                            + f.uploadId() + ")" : f.stagedKey() + " (to " + f.finalKey() + ")") + " was not staged by the write "
                            + plan.writeId() + (placed ? " as described" : f.deferred() != plan.deferred() ? ", which "
                            + (plan.deferred() ? "defers its uploads" : "stages and copies") : ""));
                }
                byStaged.put(id, f);
            }
        }
        Checked checked = new Checked(new ArrayList<>(seen.values()), new ArrayList<>(byStaged.values()));
        checkOneAttemptPerTask(checked.files());
        checkFolders(checked);
        return checked;
    }

    /** The attempt mark an engine ends an attempt's file name prefix with: {@code t<task>-a<attempt>-}, right before {@code part-}. */
    private static final Pattern ATTEMPT = Pattern.compile("t(\\d+)-a(\\d+)-part-\\d{5,}-\\d{3,}-");

    /**
     * Refuses files of two attempts of one task (names {@code ...t00001-a0-part-...} and {@code ...t00001-a1-part-...}):
     * both hold that task's rows, so publishing both would publish them twice. An engine commits exactly one attempt per
     * task (Spark's commit coordinator authorises one attempt of each partition, the driver gets one message per task);
     * two mean the messages are not the committed attempts', and no choice between them is known to be right (the loser's
     * files may already be discarded), so the write is refused before its commit point. Names without the mark (an engine
     * that names its attempts otherwise) are not grouped.
     */
    private void checkOneAttemptPerTask(List<StagedFile> files) {
        Map<String, String> attemptOf = new HashMap<>();
        Map<String, String> exampleOf = new HashMap<>();
        for (StagedFile f : files) {
            String name = f.finalKey().substring(f.finalKey().lastIndexOf('/') + 1);
            Matcher m = ATTEMPT.matcher(name);
            if (!m.find()) {
                continue;
            }
            String task = "t" + m.group(1);
            String attempt = "a" + m.group(2);
            String before = attemptOf.putIfAbsent(task, attempt);
            exampleOf.putIfAbsent(task + "-" + attempt, name);
            if (before != null && !before.equals(attempt)) {
                throw outcomes.unstaged("the task " + task + " is reported by two attempts, " + before + " (" + exampleOf.get(task + "-"
                        + before) + ") and " + attempt + " (" + name + "), whose rows would be published twice; an engine "
                        + "commits exactly one attempt of each task");
            }
        }
    }

    /**
     * True when {@code f} lies where this write stages: a deferred file is an open upload at its final key, which
     * carries this write's id exactly as recovery reads it (so that a recovery finds it by that id) and lies outside
     * every {@code _tmp/}; a staged file is under this write's staging folder, its final key the same relative path.
     */
    private boolean placed(StagedFile f) {
        String writeId = plan.writeId();
        String prefix = plan.location().prefix();
        String stagingFolder = plan.stagingFolder();
        String name = f.finalKey() == null ? "" : f.finalKey().substring(f.finalKey().lastIndexOf('/') + 1);
        return plan.deferred()
                ? f.stagedKey() == null && f.uploadId() != null && f.etags() != null && !f.etags().isEmpty()
                        && f.finalKey() != null && f.finalKey().startsWith(prefix)
                        && writeId.equals(Recovery.deferredWriteId(plan.location(), f.finalKey()))
                : f.stagedKey() != null && f.uploadId() == null && f.finalKey() != null
                        && f.stagedKey().startsWith(stagingFolder)
                        && f.finalKey().equals(prefix + f.stagedKey().substring(stagingFolder.length()))
                        && !f.finalKey().startsWith(plan.location().tmpPrefix()) && name.contains(writeId);
    }

    /**
     * Each file in the Hive folder of a partition the messages list: a file outside them would be published without its
     * partition being replaced (an overwrite's old rows kept beside the new).
     */
    private void checkFolders(Checked checked) {
        List<String> names = plan.columns().partitionNames();
        Set<String> folders = new HashSet<>();
        for (PartitionKey k : checked.keys()) {
            if (k.values().size() != names.size()) {
                throw outcomes.unstaged("the partition " + k.values() + " does not have the write's " + names.size()
                        + " partition values");
            }
            folders.add(HivePaths.folder(names, k.values()));
        }
        for (StagedFile f : checked.files()) {
            String name = f.finalKey().substring(f.finalKey().lastIndexOf('/') + 1);
            if (f.folder() == null || !folders.contains(f.folder())
                    || !f.finalKey().equals(plan.location().prefix() + f.folder() + name)) {
                throw outcomes.unstaged("the file " + f.stagedKey() + " lies in the folder " + f.folder()
                        + ", not in a partition its task attempt reported");
            }
        }
    }

    /**
     * Checks that every staged file is in place with its size before the commit point: past it, an overwrite whose
     * staged file is gone could be neither finished nor undone (recovery would fail on it every time).
     */
    void checkStaged(List<StagedFile> files) {
        Map<String, Long> staged = new HashMap<>();
        try {
            context.store().list(plan.stagingFolder()).forEach(o -> staged.put(o.key(), o.size()));
        } catch (SdkException e) {
            throw outcomes.checkFailed("list the staged files of the write " + plan.writeId(), e);
        }
        for (StagedFile f : files) {
            if (!Long.valueOf(f.bytes()).equals(staged.get(f.stagedKey()))) {
                fence();
                throw outcomes.stagedGone("staged file " + f.stagedKey() + " that a task attempt reported "
                        + (staged.containsKey(f.stagedKey()) ? "holds " + staged.get(f.stagedKey()) + " bytes, not " + f.bytes()
                        : "is gone"));
            }
        }
    }

    /**
     * Checks that every deferred file is an open upload at its final key (one listing of the table's open uploads),
     * for the same reason as {@link #checkStaged}, and returns the open uploads carrying this write's id that the
     * files do not name: those of attempts that did not count.
     */
    List<MultipartUpload> checkUploads(List<StagedFile> files) {
        Map<String, String> open = new HashMap<>();
        List<MultipartUpload> own = new ArrayList<>();
        for (MultipartUpload u : context.store().openUploads(plan.location().prefix())) {
            if (plan.writeId().equals(Recovery.deferredWriteId(plan.location(), u))) {
                own.add(u);
                open.put(u.uploadId(), u.key());
            }
        }
        for (StagedFile f : files) {
            if (!f.finalKey().equals(open.get(f.uploadId()))) {
                fence();
                throw outcomes.uploadGone(f.finalKey());
            }
        }
        return own;
    }

    /** A holder that took the table over rolled this write back: a conflict, not a missing file. */
    private void fence() {
        try {
            context.fence().run();
        } catch (TableLease.Lost lost) {
            throw outcomes.lost(Manifest.State.STARTED, io.wrangler.WriteStep.COMMIT, lost);
        }
    }

    /**
     * The partitions' folders: a partition the catalog registers elsewhere than its Hive folder has its files staged at
     * the Hive folder (tasks cannot ask the catalog), so the write is refused, before its commit point.
     */
    PartitionFolders registered(List<PartitionKey> keys) {
        WriteSpec spec = plan.spec();
        PartitionFolders registered = new PartitionFolders(plan.table(), spec, plan.columns().partitionNames(), plan.stagingFolder(), "");
        registered.lookUp(keys);
        if (registered.anyRegisteredElsewhere().isPresent()) {
            throw outcomes.invalid("the partition folder " + registered.anyRegisteredElsewhere().get() + " is registered in "
                    + spec.catalog().describe() + " at a Location other than its Hive folder, which a distributed write "
                    + "does not support yet", "Write it with S3Parquet (one process), or move the partition to its "
                    + "Hive folder. Nothing of the table was changed.");
        }
        return registered;
    }
}
