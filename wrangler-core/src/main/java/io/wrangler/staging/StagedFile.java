package io.wrangler.staging;

import java.util.List;

/**
 * A StagedFile is one data file a {@link Stager} finished: uploaded under the staging folder, or (deferred) every part of
 * it sent to a multipart upload at its final key and the upload left open. The engine's one record of a staged file: what
 * a task reports, what the write's manifest lists (its JSON fields are these components) and what recovery publishes or
 * undoes; the engine SPI's {@code spi.StagedFiles.File} (serializable, for engines that carry it between processes) is
 * converted to and from it in {@code spi.Engine} only.
 *
 * @param folder the partition's folder below the table root, with a trailing slash ({@code ""} without partitions)
 * @param stagedKey the key it was uploaded to under {@code _tmp/<writeId>/}; null for a deferred upload
 * @param finalKey the key it is published at
 * @param uploadId the open multipart upload of a deferred file, else null
 * @param etags the ETags of its parts, in order, for a deferred file, else null
 */
public record StagedFile(String folder, String stagedKey, String finalKey, long bytes, long rows, String uploadId, List<String> etags) {
    public StagedFile {
        etags = etags == null ? null : List.copyOf(etags);
    }

    /** True for a deferred upload: an open multipart upload at its final key, no staged copy. */
    public boolean deferred() {
        return uploadId != null;
    }
}
