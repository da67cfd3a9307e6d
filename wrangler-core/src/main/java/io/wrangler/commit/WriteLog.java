package io.wrangler.commit;

import io.wrangler.CommitStateUnknownException;
import io.wrangler.WriteMode;
import io.wrangler.layout.Manifest;
import io.wrangler.layout.ManifestTrust;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A WriteLog owns one write's manifest and every change of its {@link Manifest.State}: the only class that writes or
 * deletes a manifest. Each change is a compare-and-swap on the manifest's ETag (a create for the first, a conditional
 * delete for the last), so that of two actors deciding one write's fate (the writer and a recovery that took the table
 * over) exactly one succeeds and the other learns it ({@link Superseded}). The CAS guards the write against every actor
 * that has read its manifest: whoever takes the table over recovers first, and so reads every manifest there is then.
 * It cannot guard against a holder that took over before the manifest existed or changed meaning, so the two changes
 * that make a write matter, its creation (STARTED) and its commit point (COMMITTED), are preceded by a fencing check of
 * the lease as well; the lease also fences every step that touches what other writes made (deleting replaced files,
 * the catalog). The state table in {@code package-info.java}
 * lists who may make which change; {@link #resolve} is its recovery half.
 */
final class WriteLog {
    /** What recovery does with an interrupted write, by the state table. */
    enum Resolution {
        /** Undo it: abort its uploads, delete what it staged and (an append) what it published, then its manifest. */
        ROLL_BACK,
        /** Finish publishing it (idempotent), record it published, then run its catalog step and end it. */
        ROLL_FORWARD,
        /** Its data is final: run only its catalog step (as the table is now), then end it. Never publish it again. */
        CATALOG_ONLY
    }

    /**
     * The recovery column of the state table. Overwrites and keyed appends are committed by their COMMITTED manifest
     * and rolled forward from there; a plain append is undone as long as its manifest exists, which is what makes its
     * rerun add the rows exactly once.
     */
    static Resolution resolve(Manifest m) {
        boolean committable = m.mode() != WriteMode.APPEND || m.keyed();
        return switch (m.state()) {
            case STARTED, ABORTING -> Resolution.ROLL_BACK;
            case COMMITTED -> committable ? Resolution.ROLL_FORWARD : Resolution.ROLL_BACK;
            case PUBLISHED -> committable ? Resolution.CATALOG_ONLY : Resolution.ROLL_BACK;
        };
    }

    /** Another actor changed or ended this write's manifest first: this actor's decision did not take effect. */
    static final class Superseded extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Superseded(String message) {
            super(message, null, false, false);
        }
    }

    private final S3Store store;
    private final S3Location location;
    private final String key;
    private Runnable fence = () -> { };
    private Manifest manifest;
    private String etag;
    /** When the manifest read was last written, on S3's clock; null for the writer's own log. */
    private final Instant readAt;

    private WriteLog(S3Store store, S3Location location, Manifest manifest, String etag, Instant readAt) {
        this.store = store;
        this.location = location;
        this.manifest = manifest;
        this.etag = etag;
        this.readAt = readAt;
        this.key = folder(location, manifest.writeId()) + Manifest.FILE_NAME;
    }

    static String folder(S3Location location, String writeId) {
        return Manifest.folder(location, writeId);
    }

    /** Records a new write (state STARTED) before its first upload: a conditional create. */
    static WriteLog start(S3Store store, S3Location location, Runnable fence, Manifest started) {
        WriteLog log = new WriteLog(store, location, started, null, null);
        log.fence = fence;
        log.swap(started);
        return log;
    }

    /**
     * The manifest of the write {@code writeId} of this table, or empty when it has none. A manifest that does not
     * belong to this table (its table or any key it names lies elsewhere: a table copied with its {@code _tmp/}) is
     * refused with a CommitStateUnknownException, and nothing is touched.
     */
    static Optional<WriteLog> read(S3Store store, S3Location location, String writeId) {
        String key = folder(location, writeId) + Manifest.FILE_NAME;
        Optional<S3Store.Versioned> got = store.getVersioned(key);
        if (got.isEmpty()) {
            return Optional.empty();
        }
        Manifest m;
        try {
            m = Manifest.fromJson(got.get().content());
        } catch (IOException e) {
            throw Outcomes.manifestUnreadable(location.uri(), location.uriOf(key), e);
        }
        String foreign = ManifestTrust.refusal(location, writeId, m);
        if (foreign != null) {
            throw Outcomes.manifestForeign(location.uri(), location.uriOf(key), foreign, location.uriOf(folder(location, writeId)));
        }
        return Optional.of(new WriteLog(store, location, m, got.get().etag(), got.get().lastModified()));
    }

    Manifest manifest() {
        return manifest;
    }

    /**
     * When the manifest, as recovery read it, was last written (S3's clock): for a COMMITTED manifest, its commit point.
     * Every file the write replaces existed then; a file written later is not this write's to replace (a table nested
     * in this one, or a writer without the lease, wrote it).
     */
    Instant lastWritten() {
        return readAt;
    }

    String folder() {
        return folder(location, manifest.writeId());
    }

    /** STARTED to COMMITTED, with every file and partition: the commit point of an overwrite and of a keyed append. */
    void commit(Manifest full) {
        fence.run();
        Manifest next = full.in(Manifest.State.COMMITTED);
        try {
            swap(next);
        } catch (Superseded e) {
            // A 412 on a retry whose first attempt S3 applied: a recovery that took over may have rolled it forward since.
            Optional<S3Store.Versioned> now;
            try {
                now = store.getVersioned(key);
            } catch (RuntimeException r) {
                e.addSuppressed(r);
                throw e;
            }
            if (rolledForward(now, false)) {
                throw new Unknown(e);
            }
            throw e;
        } catch (SdkException e) {
            // S3 may have applied it with every answer lost: then the write is committed, and removing what it staged
            // would leave a COMMITTED manifest that no recovery can finish. Look before anyone cleans up.
            Optional<S3Store.Versioned> now;
            try {
                now = store.getVersioned(key);
            } catch (RuntimeException r) {
                e.addSuppressed(r);
                throw new Unknown(e);
            }
            byte[] json = next.toJson();
            if (now.isEmpty() || !Arrays.equals(now.get().content(), json)) {
                if (rolledForward(now, true)) {
                    throw new Unknown(e);
                }
                throw e;
            }
            etag = now.get().etag();
            manifest = next;
        }
    }

    /**
     * Whether a manifest read back after a failed commit point may be this write's, committed and then finished by a
     * recovery that took the table over (PUBLISHED, COMMITTED by another hand, or, when {@code goneToo}, ended): then
     * nothing may be reported as not applied. A plain append's COMMITTED is not its commit point: a recovery only undoes it.
     */
    private boolean rolledForward(Optional<S3Store.Versioned> now, boolean goneToo) {
        if (manifest.mode() == WriteMode.APPEND && !manifest.keyed()) {
            return false;
        }
        if (now.isEmpty()) {
            return goneToo;
        }
        try {
            Manifest.State state = Manifest.fromJson(now.get().content()).state();
            return state == Manifest.State.COMMITTED || state == Manifest.State.PUBLISHED;
        } catch (IOException | RuntimeException r) {
            return true;
        }
    }

    /** The commit point's CAS failed and whether S3 applied it cannot be read back: nothing may be cleaned up. */
    static final class Unknown extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unknown(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** COMMITTED to PUBLISHED: from now on the write's data is never published again. */
    void published() {
        swap(manifest.in(Manifest.State.PUBLISHED));
    }

    /** Any state to ABORTING: this actor undoes the write; another that still acts on it fails its next change. */
    void aborting() {
        if (manifest.state() != Manifest.State.ABORTING) {
            swap(manifest.in(Manifest.State.ABORTING));
        }
    }

    /**
     * Ends the write: deletes its manifest, conditional on the ETag this actor last saw. For a plain append this is its
     * commit point: of the writer ending it and a recovery claiming it for undo, exactly one succeeds.
     */
    void end() {
        try {
            store.deleteIf(key, etag);
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409) {
                throw new Superseded("the manifest of write " + manifest.writeId() + " was changed by another actor");
            }
            if (e.statusCode() == 404) {
                throw new Superseded("the manifest of write " + manifest.writeId() + " is gone");
            }
            throw e;
        }
    }

    /** Puts {@code next} with a compare-and-swap on the last ETag (a create when there is none yet). */
    private void swap(Manifest next) {
        if (etag == null) {
            fence.run();
        }
        byte[] json = next.toJson();
        try {
            etag = store.putIf(key, json, etag);
        } catch (S3Exception e) {
            if (e.statusCode() != 412 && e.statusCode() != 409 && e.statusCode() != 404) {
                throw e;
            }
            // Our own PUT may have landed with its answer lost, and its retry then fails the condition: look.
            Optional<S3Store.Versioned> now = store.getVersioned(key);
            if (now.isPresent() && Arrays.equals(now.get().content(), json)) {
                etag = now.get().etag();
            } else {
                throw new Superseded("the manifest of write " + manifest.writeId() + " was changed or ended by another actor"
                        + now.map(v -> "").orElse(" (it is gone)"));
            }
        }
        manifest = next;
    }
}
