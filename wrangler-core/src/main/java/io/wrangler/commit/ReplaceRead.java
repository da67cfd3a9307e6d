package io.wrangler.commit;

import io.wrangler.layout.Manifest;
import io.wrangler.staging.StagedFile;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The operation of a compaction: it replaces exactly the files it read (a file that came meanwhile is not its to
 * delete), once its check of what it staged, read back against the rows it read, passed ({@link WriteSpec.Replacement}).
 * It lists nothing.
 */
final class ReplaceRead implements Operation {
    private final WriteSpec.Replacement replacement;

    ReplaceRead(WriteSpec.Replacement replacement) {
        this.replacement = replacement;
    }

    @Override
    public WriteKind kind() {
        return WriteKind.REPLACEMENT;
    }

    @Override
    public void check(Manifest staged) {
        replacement.check().accept(staged.files());
    }

    @Override
    public boolean nothingToDo(List<StagedFile> staged) {
        return staged.isEmpty() && replacement.keys().isEmpty();
    }

    /**
     * Records the partitions of the files it replaces where it staged nothing (rows 0), beside those it staged, so that
     * the catalog step (its own and a recovery's) finds them.
     */
    @Override
    public Replacing stageMore(Replacing replacing, Env env) {
        Manifest m = replacing.manifest();
        Set<String> have = new HashSet<>();
        m.partitions().forEach(p -> have.add(p.folder()));
        List<Manifest.Partition> all = new ArrayList<>(m.partitions());
        for (Manifest.Partition p : replacement.touched()) {
            if (have.add(p.folder())) {
                all.add(new Manifest.Partition(p.folder(), p.values(), 0, 0));
            }
        }
        return all.size() == m.partitions().size() ? replacing : new Replacing(m.withPartitions(all), replacing.listing());
    }

    /**
     * The partitions it staged files in are registered; those where it staged nothing are registered when their folder
     * still holds files and removed from the catalog when it holds none, decided as a recovery decides them ({@link
     * CatalogStep#split}: a partition the catalog registers at another Location is left as it is).
     */
    @Override
    public CatalogStep.Change catalogChange(Manifest committed, Env env) {
        Set<String> staged = new HashSet<>();
        committed.files().forEach(f -> staged.add(f.folder()));
        if (committed.partitions().stream().allMatch(p -> staged.contains(p.folder()))) {
            return Operation.super.catalogChange(committed, env);
        }
        CatalogStep.Split split = CatalogStep.split(env.plan().spec().catalog(), committed, env.context().store(), env.plan().location());
        return new CatalogStep.Change(split.present(), split.empty());
    }

    @Override
    public Publisher.Listing oldFiles(Manifest staged, Env env) {
        env.context().hook().reached(Step.LISTED_OLD_FILES, 1);
        return new Publisher.Listing(replacement.keys(), List.of());
    }
}
