package io.wrangler.commit;

import io.wrangler.staging.StagedFile;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one task of a write staged ({@link TaskStager}): the partitions it saw (values, in order of first appearance) and
 * its files, every one under the write's {@code _tmp/<writeId>/} (or, with deferred uploads, open uploads at their final
 * keys). What a task reports to the process that commits ({@link Transaction#commit}); a single-process write is one
 * such task. Engines carry it between processes in their own messages (wrangler-spark's {@code TaskMessage}).
 */
public record StagedFiles(List<List<String>> partitions, List<StagedFile> files) {
    public StagedFiles {
        List<List<String>> copy = new ArrayList<>();
        partitions.forEach(v -> copy.add(Collections.unmodifiableList(new ArrayList<>(v))));
        partitions = Collections.unmodifiableList(copy);
        files = List.copyOf(files);
    }
}
