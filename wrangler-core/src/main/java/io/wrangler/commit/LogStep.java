package io.wrangler.commit;

import io.wrangler.CommitMark;
import io.wrangler.WriteMode;
import io.wrangler.layout.CommitLog;
import io.wrangler.layout.Manifest;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * LogStep writes a write's entry in the table's {@link CommitLog}: once per committed write, by whoever ends it (the
 * transaction in its end step, right before the manifest's deletion; a recovery that rolls it forward or runs its catalog
 * step, right before it ends it), and a {@code ROLLED_BACK} entry for a plain append a recovery or the append itself undoes
 * after it may have logged itself. Every operation passes here through the one transaction, so none logs itself.
 */
final class LogStep {
    private LogStep() {
    }

    /**
     * The entry of a write of {@code kind} whose record is {@code m} (not numbered yet), each added file with its ETag from
     * {@code eTags} (by final key, as S3 answered when the publish put it in place), or none where not known.
     */
    static CommitLog.Entry entry(S3Location location, Manifest m, String kind, boolean rowsChanged, Map<String, String> eTags) {
        List<CommitLog.Added> added = new ArrayList<>();
        for (StagedFile f : m.files()) {
            added.add(new CommitLog.Added(f.finalKey(), f.folder(), f.bytes(), f.rows(), eTags.get(f.finalKey())));
        }
        List<String> replaced = m.replaces() == null ? List.of() : m.replaces();
        return new CommitLog.Entry(CommitLog.FORMAT, location.uri(), CommitLog.NONE, 0, m.writeId(), kind, rowsChanged, added, replaced);
    }

    /** The log's name of a write's kind: a compaction is {@code COMPACTION}, a plain append {@code APPEND}, others their own. */
    static String kind(WriteKind kind) {
        return switch (kind) {
            case REPLACEMENT -> CommitLog.COMPACTION;
            case PLAIN_APPEND -> "APPEND";
            default -> kind.name();
        };
    }

    /** The kind a recovery records for a manifest (a compaction's record reads as the overwrite of partitions it is). */
    static String kind(Manifest m) {
        if (m.mode() == WriteMode.APPEND) {
            return m.keyed() ? WriteKind.KEYED_APPEND.name() : "APPEND";
        }
        return m.mode().name();
    }

    /** Appends the entry of a write the transaction ends; returns its mark. */
    static CommitMark append(S3Store store, S3Location location, CommitLog.Tail tail, CommitLog.Entry entry, Runnable fence)
            throws IOException {
        CommitLog.Entry e = CommitLog.append(store, location, tail, entry, fence);
        return CommitMark.of(e.log(), e.seq());
    }

    /**
     * A recovery's entry of a write it finishes (rolled forward, or its catalog step run): written unless the log already
     * holds an entry of the write that is not a retraction (its own process logged it before it was cut short). {@code eTags}
     * are those of the files the recovery put in place itself (empty when it found the write published).
     */
    static void finished(S3Store store, S3Location location, Manifest m, Map<String, String> eTags, Runnable fence) throws IOException {
        List<CommitLog.Name> names = CommitLog.namesOf(store, location, m.writeId());
        for (CommitLog.Name n : names) {
            if (!CommitLog.ROLLED_BACK.equals(CommitLog.read(store, location, n).kind())) {
                return;
            }
        }
        CommitLog.append(store, location, warnIfDamaged(CommitLog.tail(store, location), location.uri(), m.writeId()),
                entry(location, m, kind(m), true, eTags), fence);
    }

    /**
     * A retraction of a plain append being undone past its record: written unless one is there, whether or not the append
     * logged itself (its stalled process may still try to, under the number this retraction takes, and is then refused).
     */
    static void undone(S3Store store, S3Location location, Manifest m, Runnable fence) throws IOException {
        for (CommitLog.Name n : CommitLog.namesOf(store, location, m.writeId())) {
            if (CommitLog.ROLLED_BACK.equals(CommitLog.read(store, location, n).kind())) {
                return;
            }
        }
        CommitLog.Entry retraction = new CommitLog.Entry(CommitLog.FORMAT, location.uri(), CommitLog.NONE, 0, m.writeId(),
                CommitLog.ROLLED_BACK, true, List.of(), List.of());
        CommitLog.append(store, location, warnIfDamaged(CommitLog.tail(store, location), location.uri(), m.writeId()), retraction, fence);
    }

    /**
     * The tail a write numbers its entry after, with a WARNING when the log's last entries could not be read: the write
     * does not fail for them (its entry takes the number after the damaged one, and the log's id from the newest entry
     * that can be read, or a new id when none can), and incremental reads whose range crosses a damaged entry fail naming
     * it (never a silently wrong delta). See package-info, "The commit log".
     */
    static CommitLog.Tail warnIfDamaged(CommitLog.Tail tail, String table, String writeId) {
        if (!tail.damaged().isEmpty()) {
            Logs.COMMIT.log(System.Logger.Level.WARNING, () -> "The commit log of " + table + " holds " + tail.damaged().size()
                    + " damaged entr" + (tail.damaged().size() == 1 ? "y" : "ies") + " at its end: " + tail.damaged().get(0)
                    + ". Write " + writeId + " logs itself after it" + (tail.idUnknown() ? ", under a new log id (no entry could be read)" : "")
                    + "; incremental reads (committedAfter) whose range crosses it fail naming it. Restore the entry from a backup "
                    + "or version of the object if there is one; readers whose mark is before it read the table whole with withMark().");
        }
        return tail;
    }

    /** True for a record a retraction is written for when it is undone: a plain append with files past STARTED. */
    static boolean retractable(Manifest m) {
        return m.mode() == WriteMode.APPEND && !m.keyed() && !m.files().isEmpty() && m.state() != Manifest.State.STARTED;
    }
}
