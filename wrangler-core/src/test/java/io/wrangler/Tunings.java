package io.wrangler;

import io.wrangler.commit.WriteSpec;
import java.time.Duration;

/**
 * Tunings that make the multipart paths run with small test data, and the test clock of the table lease: values of the
 * builders' package-private seam {@code tuning(S3Parquet.Tuning)}, each the engine's tuning wrapped.
 */
final class Tunings {
    private Tunings() {
    }

    static final int MIB = 1024 * 1024;

    /**
     * The test clock: S3's clock is read as this much later than it is, which is past every lease's time to live, so a
     * crashed or stalled writer's lease is taken over at once instead of after a real wait. Only for writes that run
     * one after another (a concurrent writer with it would take over a live lease).
     */
    static final Duration PAST_LEASES = WriteSpec.Tuning.defaults().leaseTtl().plusMinutes(1);

    /** 5 MiB parts (S3's minimum) and copies done part by part above 6 MiB. */
    static S3Parquet.Tuning smallParts() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), 5 * MIB, d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(),
                d.maxOpenFiles(), d.deleteBatch(), 6L * MIB, 5L * MIB, d.leaseTtl(), d.openBytes(), Duration.ZERO));
    }

    /** Deletes two keys per request, so that a crash can fall between delete batches; the test clock is past every lease. */
    static S3Parquet.Tuning smallDeleteBatches() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(),
                d.maxOpenFiles(), 2, d.singleCopyLimit(), d.copyPartSize(), d.leaseTtl(), d.openBytes(), PAST_LEASES));
    }

    /**
     * The defaults with a lease of 2 minutes, renewed every 24 s instead of every 2 s: for tests that fail the n-th PUT of
     * a write, so that no renewal of the lease falls among the PUTs they count.
     */
    static S3Parquet.Tuning longLease() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(),
                d.maxOpenFiles(), d.deleteBatch(), d.singleCopyLimit(), d.copyPartSize(), Duration.ofMinutes(2), d.openBytes(), Duration.ZERO));
    }

    /** The defaults with the test clock past every lease: a write or recovery after a simulated crash does not wait. */
    static S3Parquet.Tuning pastLeases() {
        return new S3Parquet.Tuning(WriteSpec.Tuning.defaults().withClockOffset(PAST_LEASES));
    }

    /** Recovery with the test clock past every lease. */
    static RecoveryResult recover(String table, software.amazon.awssdk.services.s3.S3Client s3) {
        return S3Parquet.recover(table, s3, null, pastLeases());
    }
}
