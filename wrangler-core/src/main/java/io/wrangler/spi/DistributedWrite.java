package io.wrangler.spi;

import io.wrangler.WriteResult;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A write of wrangler's commit protocol whose files other processes stage (the tasks of a Spark job): begun on the
 * driver, staged by the tasks, committed or aborted by the driver. See the package's documentation for the walk.
 *
 * <p>The write holds the table's lease from {@link #begin} until {@link #commit} or {@link #abort} returns, renewing it;
 * exactly one of them is called, once, on the process that began it. If that process dies, the next recovery rolls the
 * write back (or forward, past its commit point). The errors are those of {@code WriteBuilder.to}.
 */
public interface DistributedWrite extends AutoCloseable {
    /**
     * Begins a write on the driver: validate, lease, recover, record (STARTED). Not supported here (refused): {@code
     * dtype}. With {@code DEFERRED_UPLOADS} or bucketing, every task's options must say the same.
     *
     * @param schema the schema of every task's batches
     */
    static DistributedWrite begin(WriteTarget target, Schema schema) {
        return Engine.begin(target, schema, StepHook.NONE, Duration.ZERO);
    }

    /**
     * As {@link #begin(WriteTarget, Schema)}, for an engine's tests: {@code hook} is told of each step on the driver, and
     * {@code clockOffset} is added to S3's clock when the age of another holder's lease is judged (zero in production; a
     * test sets it past the lease's time to live to take over a killed driver's lease at once).
     */
    static DistributedWrite begin(WriteTarget target, Schema schema, StepHook hook, Duration clockOffset) {
        return Engine.begin(target, schema, hook, clockOffset);
    }

    /**
     * Stages one task attempt's rows under the write's staging folder (with {@code DEFERRED_UPLOADS}: as open uploads at
     * their final keys), with the same checks, encoder and Hive folders as a single-process write; runs where the task
     * runs. The files' names start with the options' {@code filenamePrefix}, which the engine makes unique per attempt.
     * On failure the attempt's open uploads are aborted; what it finished stays until the write ends (or {@link
     * #discardAttempt}).
     *
     * @param task the table and the task's options (no lease; its own prefix and concurrency)
     * @param writeId the id {@link #writeId()} gave on the driver
     * @param slots the tasks this JVM runs at once: the write's memory budgets (upload parts pending, open files, a row
     *     group) are shares of the heap, and each task gets its share
     */
    static StagedFiles stage(WriteTarget task, String writeId, int slots, TaskBatches batches) {
        return Engine.stage(task, writeId, slots, batches);
    }

    /**
     * Removes what one task attempt that does not count staged (failed, cancelled, the loser of a speculative pair): the
     * files in the write's staging folder whose names begin with {@code attemptPrefix}, and with {@code
     * DEFERRED_UPLOADS} its uploads still open at final keys (names beginning with the prefix and carrying the write id).
     * Best effort: what stays is removed with the staging folder by the write's end or by the next recovery.
     */
    static void discardAttempt(WriteTarget task, String writeId, String attemptPrefix) {
        Engine.discardAttempt(task, writeId, attemptPrefix);
    }

    /** The write's id: each task stages with it. */
    String writeId();

    /** The table root, {@code s3://bucket/prefix/}. */
    String table();

    /**
     * Commits the files of {@code tasks}, the attempts that counted (one per task): the manifest with exactly these files
     * (the commit point), publish, catalog, cleanup; the staging folder is then removed whole, with what failed or
     * duplicate attempts left there. The same message twice adds nothing; files of two attempts of one task (names whose
     * attempt prefix ends {@code t<task>-a<attempt>-}, as wrangler-spark names them: {@code t00001-a0-} and {@code
     * t00001-a1-}) are refused with an {@code InvalidWriteException} before the commit point, nothing applied, as both
     * hold that task's rows: hand exactly one attempt per task, the one the engine committed.
     */
    WriteResult commit(List<StagedFiles> tasks);

    /** Ends the write without applying it: its staging and record are removed, the table is unchanged. */
    void abort(Throwable cause);

    /** Aborts the write unless it was committed or aborted. */
    @Override
    void close();
}
