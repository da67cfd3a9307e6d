package io.wrangler.commit;

import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Staging removes what one write left under its {@code _tmp/<writeId>/} folder, and its deferred uploads. The manifest is
 * never touched here: only {@link WriteLog#end} deletes it.
 */
final class Staging {
    private Staging() {
    }

    /**
     * Aborts the folder's open multipart uploads and deletes every object in it but the manifest.
     *
     * @return the keys of the aborted uploads
     */
    static List<String> removeStaged(S3Store store, String folder) {
        String manifest = folder + Manifest.FILE_NAME;
        List<String> aborted = abortUploads(store, folder);
        List<String> keys = new ArrayList<>();
        for (S3Object o : store.list(folder)) {
            if (!o.key().equals(manifest)) {
                keys.add(o.key());
            }
        }
        throwIfAny(store.delete(keys), folder);
        return aborted;
    }

    /**
     * Aborts the deferred uploads ({@code CommitMethod.DEFERRED_UPLOADS}) of one write whose id this table records: open
     * multipart uploads at final keys of the table whose file name carries the write id. One listing of open uploads.
     */
    static List<String> abortDeferred(S3Store store, S3Location location, String writeId) {
        List<String> aborted = new ArrayList<>();
        for (MultipartUpload u : store.openUploads(location.prefix())) {
            if (!u.key().startsWith(location.tmpPrefix()) && writeId.equals(WriteIds.ofFile(u.key()))) {
                abortQuietly(store, u);
                aborted.add(u.key());
            }
        }
        return aborted;
    }

    static List<String> abortUploads(S3Store store, String prefix) {
        List<String> aborted = new ArrayList<>();
        for (MultipartUpload u : store.openUploads(prefix)) {
            abortQuietly(store, u);
            aborted.add(u.key());
        }
        return aborted;
    }

    /** Aborts an upload; one completed or aborted meanwhile (404) is fine. */
    static void abortQuietly(S3Store store, MultipartUpload u) {
        try {
            store.abort(u.key(), u.uploadId());
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw e;
            }
        }
    }

    private static void throwIfAny(List<S3Error> errors, String folder) {
        if (!errors.isEmpty()) {
            S3Error e = errors.get(0);
            throw S3Exception.builder()
                    .message("cannot delete " + e.key() + " under " + folder + ": " + e.code() + " " + e.message())
                    .statusCode(200).build();
        }
    }
}
