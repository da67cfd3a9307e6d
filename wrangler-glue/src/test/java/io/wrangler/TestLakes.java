package io.wrangler;

import io.wrangler.commit.WriteSpec;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fixture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lake of the protocol tests in this module: one LocalS3 (and one MemoryS3) and one LocalGlue for the test JVM, a fresh bucket with a Glue
 * database of the same name (dashes as underscores) per table, and the test clock that takes every lease over at once.
 */
final class TestLakes {
    /** S3's clock read as past every lease's time to live: a stalled or crashed holder's lease is taken over at once. */
    static final S3Parquet.Tuning PAST_LEASES = new S3Parquet.Tuning(WriteSpec.Tuning.defaults()
            .withClockOffset(WriteSpec.Tuning.defaults().leaseTtl().plusMinutes(1)));
    private static final AtomicInteger N = new AtomicInteger();
    private static LocalS3 s3;
    private static LocalGlue glue;
    private static LocalGlue concurrentGlue;
    private static MemoryS3 memory;

    private TestLakes() {
    }

    static synchronized LocalS3 s3() {
        if (s3 == null) {
            s3 = LocalS3.start();
            glue = LocalGlue.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                glue.close();
                s3.close();
            }));
        }
        return s3;
    }

    /** The MemoryS3 of the test JVM (the protocol tier: the same library code, no HTTP). */
    static synchronized MemoryS3 memoryS3() {
        if (memory == null) {
            memory = MemoryS3.start();
        }
        return memory;
    }

    static LocalGlue glue() {
        s3();
        return glue;
    }

    /**
     * The LocalGlue of the classes that run beside the others ({@code @Execution(CONCURRENT)}: the Interleaving tests),
     * apart from {@link #glue()}: the other classes inject Glue faults by operation and count Glue calls on theirs, which
     * a writer running beside them would take or add to (a fault meant for a repair consumed by another class's write).
     */
    static synchronized LocalGlue concurrentGlue() {
        if (concurrentGlue == null) {
            LocalGlue started = LocalGlue.start();
            Runtime.getRuntime().addShutdownHook(new Thread(started::close));
            concurrentGlue = started;
        }
        return concurrentGlue;
    }

    /** A new bucket named {@code <prefix>-<n>-<hex>} and a Glue database named like it, with '_' for '-'. */
    static String bucket(String prefix) {
        return bucket(prefix, s3());
    }

    /** Like {@link #bucket(String)}, in {@code s3} (LocalS3 or MemoryS3). */
    static String bucket(String prefix, S3Fixture s3) {
        return bucket(prefix, s3, glue());
    }

    /** Like {@link #bucket(String, S3Fixture)}, with the database in {@code glue}. */
    static String bucket(String prefix, S3Fixture s3, LocalGlue glue) {
        String name = prefix + "-" + N.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xFFFFF);
        s3.createBucket(name);
        glue.client().createDatabase(x -> x.databaseInput(d -> d.name(database(name))));
        return name;
    }

    static String database(String bucket) {
        return bucket.replace('-', '_');
    }
}
