package io.wrangler.compact;

import io.wrangler.CommitConflictException;
import io.wrangler.CompactionResult;
import io.wrangler.Compression;
import io.wrangler.Progress;
import io.wrangler.ReadException;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.WriteSpec;
import io.wrangler.commit.Writes;
import io.wrangler.input.ArrowSource;
import io.wrangler.input.BatchSource;
import io.wrangler.input.InputFailures;
import io.wrangler.read.FileEncodings;
import io.wrangler.storage.Removed;
import io.wrangler.storage.Replaced;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Compaction runs one compaction: recovery of a crashed writer first, then the {@link CompactionPlan} (listing, choice,
 * checks, footers), then one write of the commit protocol that replaces exactly the files chosen, fed by a
 * {@link CompactInput} and checked by it before the commit point. See this package's comment for what it guarantees.
 */
public final class Compaction {
    private Compaction() {
    }

    /** Lists the table, picks the partitions to compact, and rewrites them in one commit. */
    public static CompactionResult run(CompactionSpec spec) {
        String table = spec.table();
        recoverFirst(spec);
        CompactionPlan plan = CompactionPlan.of(spec);
        if (plan.units.isEmpty()) {
            checkOptions(spec, plan); // a typo in dedupBy is refused the day there is nothing to compact too
            return new CompactionResult(table, List.of(), 0, 0, 0, 0, 0, null);
        }
        Rewritten r = rewrite(spec, plan, null);
        WriteResult result = r.write();
        int after = result.partitions().stream().mapToInt(p -> p.files().size()).sum();
        return new CompactionResult(table, plan.folders, plan.filesBefore(), after, r.rowsRead(), result.rows(), r.dropped(), result);
    }

    /** What a rewrite did: its write, the rows it read and those it dropped (duplicates, or matched rows of a delete). */
    record Rewritten(WriteResult write, long rowsRead, long dropped) {
    }

    /**
     * Rewrites the chosen units of {@code plan} in one write of the commit protocol (see {@link #write}), {@code underLease}
     * run with the check of the staged files, before the commit point: a removal's look at the table under the lease.
     */
    static Rewritten rewrite(CompactionSpec spec, CompactionPlan plan, Runnable underLease) {
        try (BufferAllocator allocator = new RootAllocator()) {
            WriteOptions o = keepEncodings(spec, plan.footers.encodings());
            CompactInput input = new CompactInput(allocator, spec, plan);
            try {
                input.readSchema(); // refuses a dedupBy of unknown columns before the write takes the lease or stages anything
                return new Rewritten(written(spec, plan, o, input, underLease), input.rowsRead, input.dropped);
            } finally {
                input.closeQuietly();
            }
        }
    }

    /**
     * Checks the options that name columns of the table when nothing is chosen, as a compaction with work checks them
     * ({@link CompactInput#checkDedup}), against the listed files' columns; a table listed without files has none to
     * check against.
     */
    private static void checkOptions(CompactionSpec spec, CompactionPlan plan) {
        if (spec.dedup() == null) {
            return;
        }
        List<String> named = new ArrayList<>(spec.dedup().keys());
        named.add(spec.dedup().order());
        Schema schema = plan.listedSchema(spec, named);
        if (schema != null) {
            CompactInput.checkDedup(spec.table(), schema, spec.dedup().keys(), spec.dedup().order());
        }
    }

    /** {@link #write}, a file listed and gone before it was read being a conflict. */
    private static WriteResult written(CompactionSpec spec, CompactionPlan plan, WriteOptions o, CompactInput input,
                                       Runnable underLease) {
        try {
            return write(spec, plan, o, input, underLease);
        } catch (ReadException e) {
            if (Removed.by(e)) {
                // Another write replaced a listed file between the listing and the lease (the write failed before its
                // commit point and removed its staging): a conflict, as for two writers, not a broken read.
                throw removed(spec, WriteStep.STAGE, e);
            }
            throw e;
        }
    }

    /**
     * A file the compaction listed was gone when it read it ({@link Removed}): another write replaced it. The same
     * conflict whichever phase met it (the plan's footers, the options' check, the input), since nothing was changed.
     */
    static CommitConflictException removed(String table, WriteStep step, Exception e) {
        Replaced replaced = Replaced.in(e);
        if (replaced != null) {
            return new CommitConflictException(table, step, "Cannot compact " + table + " (step: " + step.label() + "): " + changed(replaced)
                    + "Nothing was changed; run the compaction again.", e);
        }
        return new CommitConflictException(table, step, "Cannot compact " + table + " (step: " + step.label() + "): a file it "
                + "listed was removed by another write before the compaction could read it (" + e.getMessage() + "). "
                + "Nothing was changed; rerun the compaction.", e);
    }

    /** What a {@link Replaced} means, for a conflict's message. */
    private static String changed(Replaced replaced) {
        return "the file " + replaced.changedSinceListed() + ". ";
    }

    /** {@link #removed(String, WriteStep, Exception)} for the operation of {@code spec}. */
    static CommitConflictException removed(CompactionSpec spec, WriteStep step, Exception e) {
        if (spec.removal() == null) {
            return removed(spec.table(), step, e);
        }
        Replaced replaced = Replaced.in(e);
        if (replaced != null) {
            return new CommitConflictException(spec.table(), step, "Cannot " + spec.verb() + " " + spec.table() + " (step: " + step.label()
                    + "): " + changed(replaced) + "Nothing was changed; run it again.", e);
        }
        return new CommitConflictException(spec.table(), step, "Cannot " + spec.verb() + " " + spec.table() + " (step: " + step.label()
                + "): a file it listed was removed by another write before it could read it (" + e.getMessage() + "). "
                + "Nothing was changed; run it again.", e);
    }

    /**
     * The compaction's one write, through the commit engine: an {@code OVERWRITE_PARTITIONS} of the chosen partitions
     * whose replacement is a commit argument: exactly the chosen files are recorded as replaced, the staged files are
     * checked against what was read before the commit point, every batch's bucket is kept, and the rows' key runs are
     * recorded in the new files' footers.
     */
    private static WriteResult write(CompactionSpec spec, CompactionPlan plan, WriteOptions o, CompactInput input, Runnable underLease) {
        String table = spec.table();
        WriteOptions.Builder b = o.toBuilder().s3(spec.s3()).mode(WriteMode.OVERWRITE_PARTITIONS)
                .partitionBy(plan.partitionColumns.toArray(new String[0]));
        TableLayout layout = plan.layout;
        if (spec.catalog() != null && layout.buckets() > 0) {
            // the catalog's bucketing, so that it sees the write as the table is; the rows keep their files' buckets
            b.bucketBy(layout.bucketColumns(), layout.buckets());
        }
        WriteOptions w = b.build();
        WriteSpec.Replacement replacement = new WriteSpec.Replacement(plan.replaced(), staged -> {
            input.verify(staged, plan.valuesByFolder(), spec.location());
            if (underLease != null) {
                underLease.run();
            }
        }, plan.bucketed() ? input::batchBucket : null, plan.keyRuns != null, spec.removal() == null ? List.of() : plan.touched(),
                spec.removal() == null && spec.dedup() == null);
        String what = spec.removal() == null ? "Compaction of " : spec.removal().everyRow() ? "Drop of partitions of " : "Delete of rows of ";
        WriteSpec write = new WriteSpec(table, spec.s3(), w, spec.catalog(), spec.seams().hook(),
                spec.seams().tuning().withThreads(w.concurrency()), null, Progress.logging(what + table), replacement);
        ArrowSource source;
        try {
            source = ArrowSource.of(input);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // never: the schema was read above
        }
        source.keepNanos(write.keepNanos());
        try (BatchSource checked = new InputFailures(source, table, "compact", "compaction")) {
            return Writes.run(write, checked);
        }
    }

    /**
     * Finishes or undoes the interrupted writes of a crashed writer (under the table's lease, as {@code S3Parquet.recover}
     * does) before the compaction lists the table. Otherwise the recovery the compaction's own write runs once it holds the
     * lease would come after the listing: rolling a crashed overwrite forward deletes files the compaction listed (it
     * failed, reading them), rolling an append back deletes rows it would keep.
     */
    static void recoverFirst(CompactionSpec spec) {
        String table = spec.table();
        try {
            Writes.recoverAbandoned(table, spec.s3(), spec.catalog(), spec.seams().tuning(), spec.requests());
        } catch (SdkException e) {
            throw new ReadException(table, "Cannot " + spec.verb() + " " + table + " (step: list): looking for interrupted writes "
                    + "under its _tmp/ failed: " + e.getMessage() + ". Nothing was changed; check s3:ListBucket and rerun.", e);
        }
    }

    /**
     * The options with the encodings of the files read kept: INT96 timestamps stay INT96 and nanosecond ones stay
     * nanoseconds (as the footers say, whatever the options), and, unless the caller chose a codec, the files' codec
     * when they all have one other than NONE.
     */
    private static WriteOptions keepEncodings(CompactionSpec spec, FileEncodings found) {
        WriteOptions.Builder b = spec.options().toBuilder();
        if (found.int96()) {
            b.timestampsAsInt96(true);
        }
        if (found.nanos()) {
            b.preserveNanoseconds(true);
        }
        // Not NONE: uncompressed pages take more heap than the write's memory bounds allow for (CompactionMemoryTest's
        // 64 MiB heap runs out compacting its uncompressed table into uncompressed files); compression(NONE) still can.
        if (!spec.codecChosen() && found.single() != null && found.single() != Compression.NONE) {
            b.compression(found.single());
        }
        return b.build();
    }
}
