package io.wrangler;

import java.util.List;

/**
 * A RecoveryResult is what recovery found under a table's {@code _tmp/} and did about it.
 *
 * @param table the table root
 * @param rolledForward ids of interrupted overwrites that had reached their commit point (their manifest) and
 *     were finished: copies completed, replaced files deleted, catalog updated when a catalog was given
 * @param rolledBack ids of interrupted writes that were undone: appends, and any write that had not written
 *     its manifest; their staged and already-published files were deleted, and the partitions an append had
 *     registered in its catalog and that are empty now were removed from it
 * @param catalogPending ids of writes whose catalog part still has to be finished (an overwrite's registration, an
 *     append's unregistration), because recovery ran without their catalog; the S3 part is done and their manifests are
 *     kept until a recovery with the catalog
 * @param abortedUploads keys of multipart uploads that were aborted
 */
public record RecoveryResult(String table, List<String> rolledForward, List<String> rolledBack,
                             List<String> catalogPending, List<String> abortedUploads) {
    public RecoveryResult {
        rolledForward = List.copyOf(rolledForward);
        rolledBack = List.copyOf(rolledBack);
        catalogPending = List.copyOf(catalogPending);
        abortedUploads = List.copyOf(abortedUploads);
    }

    /** True when there was nothing to recover. */
    public boolean isEmpty() {
        return rolledForward.isEmpty() && rolledBack.isEmpty() && catalogPending.isEmpty() && abortedUploads.isEmpty();
    }
}
