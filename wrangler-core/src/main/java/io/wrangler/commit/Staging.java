package io.wrangler.commit;

import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Staging removes one write's {@code _tmp/<writeId>/} folder: manifest first, then uploads and staged files. */
final class Staging {
    private Staging() {
    }

    /**
     * Deletes the manifest (so that the write no longer counts as interrupted), aborts the folder's open
     * multipart uploads, then deletes the staged files.
     *
     * @return the keys of the aborted uploads
     */
    static List<String> remove(S3Store store, String folder, StepHook hook) {
        String manifest = folder + Manifest.FILE_NAME;
        List<S3Error> errors = new ArrayList<>(store.delete(List.of(manifest)));
        throwIfAny(errors, folder);
        hook.reached(Step.MANIFEST_DELETED, 1);
        List<String> aborted = abortUploads(store, folder);
        List<String> keys = new ArrayList<>();
        for (S3Object o : store.list(folder)) {
            keys.add(o.key());
        }
        throwIfAny(store.delete(keys), folder);
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
