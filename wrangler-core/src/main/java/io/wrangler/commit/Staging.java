package io.wrangler.commit;

import io.wrangler.layout.Manifest;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
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
        return removeStaged(store, folder, null, List.of());
    }

    /**
     * Like {@link #removeStaged(S3Store, String)}, with the open uploads listed and aborted on {@code pool} while the
     * objects are listed and deleted on this thread (two independent chains of requests, so one round trip less), and
     * the {@code known} staged keys (the manifest's) deleted at once while the folder is listed for anything else: the
     * listing then usually finds nothing left to delete, and the removal costs one round trip. With {@code pool} null
     * everything runs on this thread, one request after the other, and the folder is listed and deleted whole.
     */
    static List<String> removeStaged(S3Store store, String folder, Executor pool, List<String> known) {
        String manifest = folder + Manifest.FILE_NAME;
        CompletableFuture<List<String>> aborting = pool == null
                ? CompletableFuture.completedFuture(abortUploads(store, folder))
                : CompletableFuture.supplyAsync(() -> abortUploads(store, folder), pool);
        try {
            if (known.isEmpty() || pool == null) {
                deleteObjects(store, folder, manifest);
            } else {
                CompletableFuture<Void> deleting =
                        CompletableFuture.runAsync(() -> throwIfAny(store.delete(known), folder), pool);
                List<String> listed = new ArrayList<>();
                try {
                    for (S3Object o : store.list(folder)) {
                        listed.add(o.key());
                    }
                } finally {
                    try {
                        deleting.join();
                    } catch (RuntimeException ignored) {
                        // rethrown just below
                    }
                }
                Outcomes.joined(deleting);
                Set<String> gone = new HashSet<>(known);
                List<String> rest = new ArrayList<>();
                for (String key : listed) {
                    if (!key.equals(manifest) && !gone.contains(key)) {
                        rest.add(key);
                    }
                }
                throwIfAny(store.delete(rest), folder);
            }
        } finally {
            try {
                aborting.join();
            } catch (RuntimeException ignored) {
                // rethrown below when there is no earlier failure
            }
        }
        return Outcomes.joined(aborting);
    }

    private static void deleteObjects(S3Store store, String folder, String manifest) {
        List<String> keys = new ArrayList<>();
        for (S3Object o : store.list(folder)) {
            if (!o.key().equals(manifest)) {
                keys.add(o.key());
            }
        }
        throwIfAny(store.delete(keys), folder);
    }

    /**
     * Aborts the deferred uploads ({@code CommitMethod.DEFERRED_UPLOADS}) of one write whose id this table records: open
     * multipart uploads at final keys of the table whose file name carries the write id. One listing of open uploads. An
     * abort that fails does not stop the others: the first failure is thrown once every upload was tried.
     */
    static List<String> abortDeferred(S3Store store, S3Location location, String writeId) {
        List<String> aborted = new ArrayList<>();
        RuntimeException failed = null;
        for (MultipartUpload u : store.openUploads(location.prefix())) {
            if (writeId.equals(Recovery.deferredWriteId(location, u))) {
                try {
                    abortQuietly(store, u);
                    aborted.add(u.key());
                } catch (RuntimeException e) {
                    if (failed == null) {
                        failed = e;
                    } else {
                        failed.addSuppressed(e);
                    }
                }
            }
        }
        if (failed != null) {
            throw failed;
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
