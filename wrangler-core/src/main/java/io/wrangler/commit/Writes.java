package io.wrangler.commit;

import io.wrangler.CommitConflictException;
import io.wrangler.CommitStateUnknownException;
import io.wrangler.PartitionResult;
import io.wrangler.RecoveryResult;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.input.BatchSource;
import io.wrangler.layout.Manifest;
import io.wrangler.layout.WriteIds;
import io.wrangler.partition.PartitionKey;
import io.wrangler.spi.StepHook;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The commit engine's entry points for one process: a write ({@link #run}: plan, begin, stage here, commit: a
 * distributed write with one task) and a recovery. Engines that stage in several processes use {@link Transaction} and
 * {@link TaskStager} directly.
 */
public final class Writes {
    private Writes() {
    }

    /**
     * Runs the write of {@code input} described by {@code spec}: {@link Planner} (validate, no write I/O), then
     * {@link Transaction#begin} (lease, recover, record), {@link Transaction#stage} (this process is the write's one task),
     * and {@link Transaction#commit} of what it staged (the commit point and what follows).
     */
    public static WriteResult run(WriteSpec spec, BatchSource input) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.VALIDATE);
        Planner planner = new Planner(spec, location);
        BatchSource source = planner.casts(input);
        try {
            WritePlan plan = planner.plan(source);
            if (plan.empty()) {
                EmptyInput.Outcome outcome = EmptyInput.decide(plan);
                if (outcome != EmptyInput.Outcome.CREATE) {
                    return EmptyInput.warned(plan, outcome, empty(plan, null));
                }
                plan = planner.forNewTable(plan);
                if (!EmptyInput.fileOfNoRows(plan)) {
                    // nothing goes to S3: the catalog's table is all there is to create (its commit checks for a concurrent change)
                    plan.catalogCommit().commit(List.of());
                    return EmptyInput.warned(plan, EmptyInput.Outcome.CREATE, empty(plan, null));
                }
                source.rewind();
            }
            try (Transaction transaction = Transaction.begin(plan)) {
                StagedFiles staged = transaction.stage(source);
                WriteResult result = transaction.commit(List.of(staged));
                return plan.empty() ? EmptyInput.warned(plan, EmptyInput.Outcome.CREATE, result) : result;
            }
        } finally {
            if (source != input) {
                source.close(); // the widened copies only; the input is its caller's
            }
        }
    }

    /** A write of an input with no rows and no schema (an empty collection of records): nothing to do, unless it is an OVERWRITE. */
    public static WriteResult runEmpty(WriteSpec spec) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.VALIDATE);
        WriteResult result = empty(spec, location.uri(), WriteIds.next(), null);
        EmptyInput.warn(result.table(), "the input has no rows and no schema (an empty collection of records), so no table is "
                + "created and nothing is changed");
        return result;
    }

    /** The result of a write with nothing to write; {@code recovered} null when it recovered nothing (took no lease). */
    static WriteResult empty(WritePlan plan, RecoveryResult recovered) {
        return empty(plan.spec(), plan.table(), plan.writeId(), recovered);
    }

    private static WriteResult empty(WriteSpec spec, String table, String writeId, RecoveryResult recovered) {
        if (spec.mode() == WriteMode.OVERWRITE) {
            throw Outcomes.emptyOverwrite(table);
        }
        RecoveryResult none = recovered != null ? recovered : new RecoveryResult(table, List.of(), List.of(), List.of(), List.of());
        return new WriteResult(table, writeId, spec.mode(), 0, List.of(), List.of(), none);
    }

    /** The result of a committed write: its partitions, files and the files it replaced. */
    static WriteResult result(WritePlan plan, Manifest m, Publisher.Outcome outcome, RecoveryResult recovered) {
        S3Location location = plan.location();
        String table = plan.table();
        List<PartitionResult> partitions = new ArrayList<>();
        long rows = 0;
        // grouped once: a filter per partition would cost partitions x files, minutes at 50,000 partitions
        Map<String, List<String>> byFolder = new HashMap<>();
        for (StagedFile f : m.files()) {
            byFolder.computeIfAbsent(f.folder(), k -> new ArrayList<>()).add(location.uriOf(f.finalKey()));
        }
        for (Manifest.Partition p : m.partitions()) {
            List<String> files = byFolder.getOrDefault(p.folder(), List.of());
            List<String> replaced = outcome.replaced().getOrDefault(p.folder(), List.of()).stream().map(location::uriOf).toList();
            List<String> shown = new PartitionKey(p.values()).displayValues();
            partitions.add(new PartitionResult(table + p.folder(), shown, files, p.rows(), p.bytes(), replaced));
            rows += p.rows();
        }
        List<String> deleted = outcome.deleted().stream().map(location::uriOf).toList();
        return new WriteResult(table, plan.writeId(), m.mode(), rows, partitions, deleted, recovered);
    }

    /**
     * Recovers the table at {@code uri} when its {@code _tmp/} holds a write's folder and no live holder has its lease: a
     * write that crashed and that no one recovered yet. A compaction calls it before it lists the table, so that it lists
     * the table as that write's recovery leaves it (a live writer's write is left to it: the compaction waits on its lease
     * and refuses, not applied, if the write replaced a file it listed). Returns null when there was nothing to recover.
     */
    public static RecoveryResult recoverAbandoned(String uri, S3Client s3, CatalogTable catalog, WriteSpec.Tuning tuning,
                                                  RequestOptions options) {
        S3Location location = S3Location.parse(uri, WriteStep.RECOVER);
        S3Store store = new S3Store(s3, location.bucket(), options);
        if (!Recovery.hasWriteFolders(store, location) || TableLease.heldLive(store, location, tuning.clockOffset())) {
            return null;
        }
        return recover(uri, s3, catalog, tuning, options);
    }

    /** Finishes or undoes the interrupted writes of the table at {@code uri}. */
    public static RecoveryResult recover(String uri, S3Client s3, CatalogTable catalog, WriteSpec.Tuning tuning, RequestOptions options) {
        S3Location location = S3Location.parse(uri, WriteStep.RECOVER);
        String table = location.uri();
        S3Store store = new S3Store(s3, location.bucket(), options).withSingleCopyLimit(tuning.singleCopyLimit(), tuning.copyPartSize());
        ExecutorService pool = Pools.pool(tuning.threads());
        TableLease lease;
        try {
            lease = TableLease.acquire(store, location, "recover-" + WriteIds.next(), tuning.leaseTtl(), tuning.leaseTtl().plusSeconds(60),
                    tuning.clockOffset());
        } catch (SdkException e) {
            Pools.shutdown(pool);
            throw Outcomes.recoveryLeaseFailed(table, e);
        } catch (RuntimeException | Error e) {
            // a lease held by another, or refused: the pool never ran anything, and must not outlive the call
            Pools.shutdown(pool);
            throw e;
        }
        try {
            return new Recovery(new TableContext(location, store, pool, tuning, StepHook.NONE, lease::check), catalog).run();
        } catch (TableLease.Lost e) {
            throw Outcomes.recoveryLost(table, e);
        } catch (SdkException e) {
            throw Outcomes.recoveryFailed(table, e, "");
        } finally {
            Pools.shutdown(pool);
            lease.close();
        }
    }

}
