package io.wrangler;

import io.wrangler.commit.WriteSpec;

/** Tunings that make the multipart paths run with small test data. */
final class Tunings {
    private Tunings() {
    }

    static final int MIB = 1024 * 1024;

    /** 5 MiB parts (S3's minimum) and copies done part by part above 6 MiB. */
    static WriteSpec.Tuning smallParts() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new WriteSpec.Tuning(d.threads(), 5 * MIB, d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(), d.maxOpenFiles(),
                d.deleteBatch(), 6L * MIB, 5L * MIB, d.leaseTtl(), d.openBytes());
    }

    /**
     * Deletes two keys per request, so that a crash can fall between delete batches; a lease lives one second without
     * renewal, so that a rerun after a simulated crash waits for it briefly.
     */
    static WriteSpec.Tuning smallDeleteBatches() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(), d.maxOpenFiles(),
                2, d.singleCopyLimit(), d.copyPartSize(), java.time.Duration.ofSeconds(1), d.openBytes());
    }

    /** A lease that lives one second without renewal. */
    static WriteSpec.Tuning shortLease() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(), d.maxOpenFiles(),
                d.deleteBatch(), d.singleCopyLimit(), d.copyPartSize(), java.time.Duration.ofSeconds(1), d.openBytes());
    }
}
