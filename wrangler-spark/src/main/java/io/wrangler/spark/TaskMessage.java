package io.wrangler.spark;

import io.wrangler.commit.Manifest;
import io.wrangler.commit.StagedFiles;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one committed task attempt staged, sent to the driver: the partitions it saw (values, in order of first
 * appearance) and each file's folder, staged key, final key, size and rows; for a deferred file
 * ({@code DEFERRED_UPLOADS}: no staged key) the id of its open upload at the final key and its parts' ETags. Only the
 * driver's commit makes them part of the table. Its size grows with the files (and their parts), not the rows.
 */
record TaskMessage(List<List<String>> partitions, List<StagedFile> files) implements WriterCommitMessage {
    private static final long serialVersionUID = 1L;

    record StagedFile(String folder, String stagedKey, String finalKey, long bytes, long rows, String uploadId, List<String> etags)
            implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    static TaskMessage of(StagedFiles staged) {
        List<List<String>> partitions = new ArrayList<>();
        staged.partitions().forEach(v -> partitions.add(new ArrayList<>(v)));
        List<StagedFile> files = new ArrayList<>();
        for (Manifest.File f : staged.files()) {
            files.add(new StagedFile(f.folder(), f.stagedKey(), f.finalKey(), f.bytes(), f.rows(), f.uploadId(),
                    f.etags() == null ? null : new ArrayList<>(f.etags())));
        }
        return new TaskMessage(partitions, files);
    }

    StagedFiles staged() {
        List<Manifest.File> out = new ArrayList<>();
        for (StagedFile f : files) {
            out.add(new Manifest.File(f.folder(), f.stagedKey(), f.finalKey(), f.bytes(), f.rows(), f.uploadId(), f.etags()));
        }
        return new StagedFiles(partitions, out);
    }
}
