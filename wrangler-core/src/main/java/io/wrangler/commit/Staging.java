package io.wrangler.commit;

import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Staging removes one write's {@code _tmp/<writeId>/} folder: open uploads and staged files, then the manifest. */
final class Staging {
    private Staging() {
    }

    /**
     * Aborts the folder's open multipart uploads, deletes the staged files, and deletes the manifest last: as long
     * as the manifest exists, the write counts as interrupted and recovery can still finish or undo it (an append
     * is undone), so a crash anywhere before the final DELETE leaves a rerun idempotent.
     *
     * @return the keys of the aborted uploads
     */
    static List<String> remove(S3Store store, String folder, StepHook hook) {
        String manifest = folder + Manifest.FILE_NAME;
        List<String> aborted = abortUploads(store, folder);
        List<String> keys = new ArrayList<>();
        for (S3Object o : store.list(folder)) {
            if (!o.key().equals(manifest)) {
                keys.add(o.key());
            }
        }
        throwIfAny(store.delete(keys), folder);
        hook.reached(Step.STAGING_REMOVED, 1);
        throwIfAny(store.delete(List.of(manifest)), folder);
        return aborted;
    }

    /**
     * Aborts the deferred uploads ({@code CommitMethod.DEFERRED_UPLOADS}) of one write: open multipart uploads at final
     * keys of the table whose file name carries the write id. One listing of the table's open uploads.
     */
    static List<String> abortDeferred(S3Store store, io.wrangler.storage.S3Location location, String writeId) {
        List<String> aborted = new ArrayList<>();
        for (MultipartUpload u : store.openUploads(location.prefix())) {
            if (!u.key().startsWith(location.tmpPrefix()) && writeId.equals(WriteIds.ofFile(u.key()))) {
                store.abort(u.key(), u.uploadId());
                aborted.add(u.key());
            }
        }
        return aborted;
    }

    static List<String> abortUploads(S3Store store, String prefix) {
        List<String> aborted = new ArrayList<>();
        for (MultipartUpload u : store.openUploads(prefix)) {
            store.abort(u.key(), u.uploadId());
            aborted.add(u.key());
        }
        return aborted;
    }

    private static void throwIfAny(List<S3Error> errors, String folder) {
        if (!errors.isEmpty()) {
            S3Error e = errors.get(0);
            throw software.amazon.awssdk.services.s3.model.S3Exception.builder()
                    .message("cannot delete " + e.key() + " under " + folder + ": " + e.code() + " " + e.message())
                    .statusCode(200).build();
        }
    }
}
