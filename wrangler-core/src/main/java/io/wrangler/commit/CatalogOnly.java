package io.wrangler.commit;

import io.wrangler.CatalogException;
import io.wrangler.CommitConflictException;
import io.wrangler.RecoveryResult;
import io.wrangler.WranglerException;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.layout.WriteIds;
import io.wrangler.spi.StepHook;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The short path of the operations that change the catalog (and, for a table dropped with its data, delete the table)
 * but write no data file: register, repair and drop table. Lease, recover (unless the operation drops what a recovery
 * would finish), the change, release; no manifest, since nothing is staged and the change is idempotent: a crash at any
 * point is finished by running the operation again, whose plan is made afresh under the lease.
 *
 * <p>What a failure becomes ({@link Outcomes#catalogOpFailed}): before the first change was made, nothing changed (a
 * lost lease a conflict, S3 a storage failure, the catalog a catalog failure); once a change may have been made (a request
 * after the first, or a first one not refused by its service: {@link #refused}), the operation is partly done and a
 * rerun finishes it (a WriteIncompleteException). The lease's own failures are those of a
 * write's lease step; a recovery's lost lease or S3 failure those of {@code S3Parquet.recover}.
 */
public final class CatalogOnly {
    /** The steps a test's {@link StepHook} is told of: the lease taken, the recovery done, and each change about to be sent. */
    public enum Step {
        LEASED, RECOVERED, BEFORE_CHANGE
    }

    /** The operation's work under the lease: it sends every change after {@code fence} (which throws once the lease is lost). */
    @FunctionalInterface
    public interface Change<T> {
        T apply(Runnable fence, RecoveryResult recovered);
    }

    /**
     * What one run needs.
     *
     * @param verb what the operation does to the table, for messages ("register")
     * @param rerun the call that reruns it, for messages ("S3Parquet.register(...).run()")
     * @param recover whether interrupted writes are recovered first (with {@code catalog}): not for a drop of the data
     */
    public record Run(String verb, String rerun, S3Location location, S3Store store, CatalogTable catalog, WriteSpec.Tuning tuning,
                      Duration leaseWait, StepHook hook, boolean recover) {
    }

    private CatalogOnly() {
    }

    /**
     * Whether the failed change was refused by its service, so not applied: a 4xx answer (a lost lease stops before the
     * change is sent), except a timeout, after which the change may have been applied. Otherwise the change in flight
     * counts as made: its failure is then reported as partly done, which a rerun finishes either way.
     */
    static boolean refused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof AwsServiceException a) {
                String code = a.awsErrorDetails() == null ? null : a.awsErrorDetails().errorCode();
                return a.statusCode() >= 400 && a.statusCode() < 500 && !"OperationTimeoutException".equals(code)
                        && !"RequestTimeout".equals(code);
            }
        }
        return false;
    }

    /** The key of the table's lease: the one object a drop of the table's data deletes last, by releasing it. */
    public static String leaseKey(S3Location location) {
        return location.tmpPrefix() + TableLease.NAME;
    }

    /** Runs {@code change} under the table's lease, after the recovery; returns what it returns. */
    public static <T> T run(Run r, Change<T> change) {
        String table = r.location().uri();
        TableLease lease;
        try {
            lease = TableLease.acquire(r.store(), r.location(), r.verb().replace(' ', '-') + "-" + WriteIds.next(), r.tuning().leaseTtl(),
                    r.leaseWait(), r.tuning().clockOffset());
        } catch (SdkException e) {
            throw Outcomes.leaseFailed(table, r.location().tmpPrefix(), e);
        } catch (CommitConflictException e) {
            throw Outcomes.catalogOpLeaseHeld(r.verb(), e);
        }
        ExecutorService pool = Pools.pool(r.tuning().threads());
        AtomicInteger changes = new AtomicInteger();
        WriteStep step = WriteStep.RECOVER;
        try {
            r.hook().reached(Step.LEASED, 1);
            RecoveryResult recovered = r.recover()
                    ? new Recovery(new TableContext(r.location(), r.store(), pool, r.tuning(), StepHook.NONE, lease::check), r.catalog()).run()
                    : new RecoveryResult(table, java.util.List.of(), java.util.List.of(), java.util.List.of(), java.util.List.of());
            r.hook().reached(Step.RECOVERED, 1);
            step = WriteStep.CATALOG;
            Runnable fence = () -> {
                r.hook().reached(Step.BEFORE_CHANGE, changes.incrementAndGet());
                lease.check();
            };
            return change.apply(fence, recovered);
        } catch (TableLease.Lost | SdkException | CatalogException e) {
            int sent = changes.get();
            boolean changed = sent > 1 || sent == 1 && !(e instanceof TableLease.Lost) && !refused(e);
            throw Outcomes.catalogOpFailed(table, r.verb(), step, e, changed, r.rerun());
        } catch (WranglerException e) {
            throw e;
        } finally {
            Pools.shutdown(pool);
            lease.close();
        }
    }
}
