package io.wrangler.merge;

import io.wrangler.InputException;
import io.wrangler.MergeResult;
import io.wrangler.Progress;
import io.wrangler.ReadException;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.commit.WriteSpec;
import io.wrangler.commit.Writes;
import io.wrangler.input.BatchSource;
import io.wrangler.input.InputFailures;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.Removed;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Merge runs one merge by key: the input read and checked ({@link InputRows}), recovery of a crashed writer first, the
 * {@link MergePlan} (reads only: the dry run ends there), then one write of the commit protocol that replaces exactly the
 * files that hold a matched key, fed by a {@link MergeInput} and checked before the commit point: the matched partitions
 * still hold exactly the files planned (under the lease, so no write can change them until the commit point), and the
 * staged files read back hold exactly the rows passed. See this package's comment for what a merge guarantees.
 */
public final class Merge {
    private Merge() {
    }

    /** Runs the merge {@code spec} asks for, or only plans it ({@code dryRun}: reads only, no write request). */
    public static MergeResult run(MergeSpec spec, boolean dryRun) {
        try (BufferAllocator allocator = new RootAllocator();
             InputRows input = read(spec, allocator)) {
            if (input.rows == 0) {
                return new MergeResult(spec.table(), 0, 0, 0, List.of(), List.of(), null); // an empty input: nothing to do
            }
            if (!dryRun) {
                recoverFirst(spec);
            }
            MergePlan plan = MergePlan.of(spec, input, allocator);
            if (dryRun || plan.empty()) {
                return result(plan, null);
            }
            return result(plan, written(spec, plan, allocator));
        }
    }

    private static InputRows read(MergeSpec spec, BufferAllocator allocator) {
        try {
            return InputRows.read(spec, spec.input(), allocator);
        } catch (IOException e) {
            throw new InputException(spec.table(), WriteStep.VALIDATE, spec.cannot("validate") + "the input failed while it was read ("
                    + e.getMessage() + "). Nothing was changed; fix the input source and rerun.", e);
        }
    }

    private static MergeResult result(MergePlan plan, WriteResult write) {
        String table = plan.spec.table();
        List<String> rewritten = plan.rewrite.stream().map(f -> plan.spec.location().uriOf(f.key())).toList();
        List<String> partitions = plan.touched.stream().map(f -> table + f).toList();
        return new MergeResult(table, plan.inserted, plan.updated.cardinality(), plan.unchanged, rewritten, partitions, write);
    }

    /** {@link #write}, a file listed and gone before it was read being a conflict. */
    private static WriteResult written(MergeSpec spec, MergePlan plan, BufferAllocator allocator) {
        try {
            return write(spec, plan, allocator);
        } catch (ReadException e) {
            if (Removed.by(e)) {
                throw MergeErrors.removed(spec, e);
            }
            throw e;
        }
    }

    /**
     * The merge's one write, through the commit engine: an {@code OVERWRITE_PARTITIONS} whose replacement is a commit
     * argument (exactly the files that hold a matched key are recorded as replaced), its new files checked before the
     * commit point, and the rows' key runs recorded in the new files' footers when a rewritten file holds keyed runs.
     */
    private static WriteResult write(MergeSpec spec, MergePlan plan, BufferAllocator allocator) {
        String table = spec.table();
        WriteOptions w = spec.options().toBuilder().s3(spec.s3()).mode(WriteMode.OVERWRITE_PARTITIONS)
                .partitionBy(plan.columns.partitionColumns.toArray(new String[0])).build();
        List<String> replaced = plan.rewrite.stream().map(TableFiles.DataFile::key).toList();
        try (MergeInput source = new MergeInput(plan, allocator)) {
            // The partitions of the rewritten files are recorded whether or not anything is staged in them: one that the
            // merge empties (its keys moved to another partition) is then removed from the catalog by the catalog step,
            // the write's and a recovery's alike, as a delete of rows removes one it empties.
            WriteSpec.Replacement replacement = new WriteSpec.Replacement(replaced, staged -> check(plan, source, staged, allocator), null,
                    plan.keyRuns != null, WriteSpec.Replacement.partitionsOf(plan.rewrite), false);
            WriteSpec write = new WriteSpec(table, spec.s3(), w, spec.catalog(), spec.hook(), spec.tuning().withThreads(w.concurrency()),
                    null, Progress.logging("Merge into " + table), replacement);
            try (BatchSource checked = new InputFailures(source, table, "merge into", "merge")) {
                return Writes.run(write, checked);
            }
        }
    }

    /**
     * The check before the commit point, under the lease: the matched partitions hold exactly the files planned (a file
     * another write added or replaced meanwhile could hold a key: the merge is refused, not applied), and the staged files
     * read back hold exactly the rows passed (count, and per column its values' count and checksum).
     */
    private static void check(MergePlan plan, MergeInput source, List<StagedFile> staged, BufferAllocator allocator) {
        MergeSpec spec = plan.spec;
        S3Store store = new S3Store(spec.s3(), spec.location().bucket(), spec.requests());
        Map<String, TableFiles.DataFile> listed = new HashMap<>();
        for (TableFiles.DataFile f : MergePlan.list(spec, store).listing().files()) {
            if (plan.scans(f)) {
                listed.put(f.key(), f);
            }
        }
        Set<String> now = listed.keySet();
        Set<String> planned = new HashSet<>(plan.scanned.stream().map(TableFiles.DataFile::key).toList());
        if (!now.equals(planned)) {
            Set<String> added = new HashSet<>(now);
            added.removeAll(planned);
            planned.removeAll(now);
            throw MergeErrors.changed(spec, added.isEmpty() ? "gone: " + spec.location().uriOf(planned.iterator().next())
                    : "new: " + spec.location().uriOf(added.iterator().next()));
        }
        // A file replaced under its own name since the plan: the plan's findings (which files hold a key, and where) are
        // of other bytes, and a file it leaves alone may now hold an updated key, whose old row would stay beside the new.
        for (TableFiles.DataFile f : plan.scanned) {
            if (!f.sameObject(listed.get(f.key()))) {
                throw MergeErrors.changed(spec, "replaced: " + spec.location().uriOf(f.key()));
            }
        }
        long rows = staged.stream().mapToLong(StagedFile::rows).sum();
        if (rows != source.kept + source.written) {
            throw MergeErrors.refused(spec, "its new files hold " + rows + " rows where " + source.kept + " were kept and "
                    + source.written + " written", null);
        }
        String diff = source.passed.difference(readBack(plan, staged, allocator));
        if (diff != null) {
            throw MergeErrors.refused(spec, "read back, its new files differ from the rows passed: " + diff, null);
        }
    }

    private static io.wrangler.compact.Digest readBack(MergePlan plan, List<StagedFile> staged, BufferAllocator allocator) {
        MergeSpec spec = plan.spec;
        List<TableFiles.DataFile> files = new ArrayList<>();
        staged.forEach(f -> files.add(new TableFiles.DataFile(spec.location().bucket(), f.stagedKey(), f.bytes(), f.folder(), List.of())));
        io.wrangler.compact.Digest back = new io.wrangler.compact.Digest();
        try (TableReader r = new TableReader(allocator, null, new TableReader.Source(spec.s3(), spec.requests(), spec.table(),
                new TableFiles.Listing(List.of(), files), java.util.Map.of()), null, 65_536).threads(MergePlan.READ_THREADS)) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                back.addAll(b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return back;
    }

    /** Finishes or undoes the interrupted writes of a crashed writer before the merge lists the table (as a compaction does). */
    private static void recoverFirst(MergeSpec spec) {
        try {
            Writes.recoverAbandoned(spec.table(), spec.s3(), spec.catalog(), spec.tuning(), spec.requests());
        } catch (SdkException e) {
            throw new ReadException(spec.table(), spec.cannot("list") + "looking for interrupted writes under its _tmp/ failed: "
                    + e.getMessage() + ". Nothing was changed; check s3:ListBucket and rerun.", e);
        }
    }
}
