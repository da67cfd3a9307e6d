package io.wrangler.spi;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one task attempt staged, as it reports it to the driver (serializable: it crosses the wire): the partitions it
 * saw (their values, in order of first appearance) and each file. Only the driver's {@link DistributedWrite#commit}
 * makes them part of the table. Its size grows with the files (and their parts), not the rows.
 *
 * @param partitions the values of each partition the attempt saw, in order of first appearance
 * @param files the files it staged
 */
public record StagedFiles(List<List<String>> partitions, List<File> files) implements Serializable {
    private static final long serialVersionUID = 1L;

    public StagedFiles {
        List<List<String>> copy = new ArrayList<>();
        partitions.forEach(v -> copy.add(Collections.unmodifiableList(new ArrayList<>(v))));
        partitions = Collections.unmodifiableList(copy);
        files = Collections.unmodifiableList(new ArrayList<>(files));
    }

    /**
     * One staged file: its partition's folder, its staged key, its final key, its size and rows; for a deferred file
     * ({@code DEFERRED_UPLOADS}: no staged key) the id of its open upload at the final key and its parts' ETags.
     *
     * @param folder the partition's folder under the table root
     * @param stagedKey the key under {@code _tmp/<writeId>/}, or null for a deferred upload
     * @param finalKey the key it is published at
     * @param bytes its size
     * @param rows its rows
     * @param uploadId the open upload at the final key, or null
     * @param etags the ETags of the upload's parts, in order, or null
     */
    public record File(String folder, String stagedKey, String finalKey, long bytes, long rows, String uploadId, List<String> etags)
            implements Serializable {
        private static final long serialVersionUID = 1L;

        public File {
            etags = etags == null ? null : Collections.unmodifiableList(new ArrayList<>(etags));
        }
    }
}
