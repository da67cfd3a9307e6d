package io.wrangler.commit;

import io.wrangler.WriteMode;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A Visibility is what a reader must leave out of a table's listing so that it sees each write whole: the files of
 * writes in flight, found by their manifests under {@code _tmp/}. See "Readers" in {@code package-info.java}.
 *
 * <p>Built from one listing of {@code _tmp/} and one GET per manifest, before the data files are listed. A write that
 * changes state between that and the listing of its files may still show half (a reader holds no lease).
 */
public final class Visibility {
    private final Set<String> hiddenWrites;
    private final List<Manifest> committed;
    private final String tmp;

    private Visibility(Set<String> hiddenWrites, List<Manifest> committed, String tmp) {
        this.hiddenWrites = hiddenWrites;
        this.committed = committed;
        this.tmp = tmp;
    }

    /** The writes in flight in the table at {@code location}. A manifest that cannot be parsed hides nothing. */
    public static Visibility of(S3Store store, S3Location location) {
        Set<String> hidden = new HashSet<>();
        List<Manifest> committed = new ArrayList<>();
        for (S3Object o : store.list(location.tmpPrefix())) {
            String rel = o.key().substring(location.tmpPrefix().length());
            int slash = rel.indexOf('/');
            if (slash < 0 || !rel.substring(slash + 1).equals(Manifest.FILE_NAME) || !WriteIds.isWriteId(rel.substring(0, slash))) {
                continue;
            }
            Manifest m;
            try {
                m = store.get(o.key()).map(b -> {
                    try {
                        return Manifest.fromJson(b);
                    } catch (IOException e) {
                        return null;
                    }
                }).orElse(null);
            } catch (RuntimeException e) {
                m = null;
            }
            if (m == null) {
                continue;
            }
            boolean committable = m.mode() != WriteMode.APPEND || m.keyed();
            if (!committable || m.state() == Manifest.State.STARTED || m.state() == Manifest.State.ABORTING) {
                // A plain append commits when its manifest is deleted; anything before a commit point may be undone.
                hidden.add(m.writeId());
            } else if (m.state() == Manifest.State.COMMITTED) {
                committed.add(m);
            }
        }
        return new Visibility(hidden, committed, location.tmpPrefix());
    }

    /**
     * The keys of {@code listed} (data files of the listed folders {@code folders}, full keys ending in {@code /}) that a
     * reader sees. A committed overwrite (or keyed append, or compaction) being published shows as before while every
     * file it replaces in these folders is still there (its new files are left out), and as after once one is gone (its
     * copies are all in place before its first delete): the rest of what it replaces is left out.
     */
    public List<S3Object> visible(List<S3Object> listed, Set<String> folders) {
        Set<String> keys = new HashSet<>();
        listed.forEach(o -> keys.add(o.key()));
        Set<String> hiddenWritesHere = new HashSet<>(hiddenWrites);
        Set<String> hiddenKeys = new HashSet<>();
        for (Manifest m : committed) {
            List<String> replaces = m.replaces() == null ? List.of() : m.replaces();
            boolean anyGone = false;
            for (String r : replaces) {
                if (inFolders(r, folders) && !keys.contains(r)) {
                    anyGone = true;
                    break;
                }
            }
            if (anyGone) {
                hiddenKeys.addAll(replaces);
            } else {
                hiddenWritesHere.add(m.writeId());
            }
        }
        List<S3Object> out = new ArrayList<>();
        for (S3Object o : listed) {
            if (o.key().startsWith(tmp) || hiddenKeys.contains(o.key())) {
                continue;
            }
            String id = WriteIds.ofFile(o.key());
            if (id != null && hiddenWritesHere.contains(id)) {
                continue;
            }
            out.add(o);
        }
        return out;
    }

    private static boolean inFolders(String key, Set<String> folders) {
        return folders.contains(key.substring(0, key.lastIndexOf('/') + 1));
    }
}
