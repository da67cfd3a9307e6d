package io.wrangler;

import io.wrangler.DeleteRowsTest.Event;
import io.wrangler.commit.Step;
import io.wrangler.spi.StepHook;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.provider.Arguments;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The fixture of the tests of deletes of rows and drops of partitions ({@link DropPartitionsTest},
 * {@link DeleteResurrectionTest}; glue's {@code CatalogRemovalsTest} uses glue's {@code CatalogLake} the same way): a
 * fresh MemoryS3 bucket holding the table {@code t/}, its appends (plain and keyed) of {@link DeleteRowsTest}'s events,
 * DuckDB's view of its rows, the steps a removal is crashed at and the hook that crashes it there, and the waits of the
 * tests that race a removal with another writer on the lease.
 */
final class RemovalLake {
    final String bucket = TestLake.memoryBucket();
    final String table = "s3://" + bucket + "/t/";
    final S3Client s3 = TestLake.memory().client();

    /** Appends {@code rows}, partitioned by day. */
    void append(List<Event> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).to(table);
    }

    /** Appends {@code rows} as the run of the idempotency key {@code key}. */
    void keyed(String key, List<Event> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey(key).s3(s3).to(table);
    }

    /** The table's rows as DuckDB reads them from the objects: user, amount, day, sorted. */
    List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT user_id, amount, CAST(dt AS VARCHAR) FROM t ORDER BY ALL");
    }

    /**
     * Every step a removal passes (a drop stages nothing: no STAGED_FILE nor COPIED_FILE), each with a rerun of the
     * operation or a recovery after the crash.
     */
    static List<Arguments> crashes() {
        List<Arguments> out = new ArrayList<>();
        for (Step s : List.of(Step.STARTED, Step.LISTED_OLD_FILES, Step.MANIFEST_WRITTEN, Step.DELETED_BATCH, Step.BEFORE_CATALOG,
                Step.BEFORE_CLEANUP, Step.STAGING_REMOVED)) {
            out.add(Arguments.of(s, true));
            out.add(Arguments.of(s, false));
        }
        return out;
    }

    /** A hook that crashes the operation ({@link CrashRecoveryTest.SimulatedCrash}) the first time it reaches {@code at}. */
    static StepHook crashAt(Step at) {
        return (step, n) -> {
            if (step == at) {
                throw new CrashRecoveryTest.SimulatedCrash(step, n);
            }
        };
    }

    /** A hook that, at {@code at}, says so ({@code held}) and waits for {@code release}. */
    static StepHook holdAt(Step at, CountDownLatch held, CountDownLatch release) {
        return (step, n) -> {
            if (step == at) {
                held.countDown();
                await(release);
            }
        };
    }

    /**
     * Waits until a second actor asked for the table's lease (a conditional create of it, If-None-Match) since the
     * requests were cleared while the first holds it: the second one is waiting. Fails with {@code what} after 60 s.
     */
    void awaitSecondAcquire(String what) throws InterruptedException {
        LeaseWatch.awaitCreateAfter(TestLake.memory(), bucket, 0, what);
    }

    /** Waits for {@code latch} up to 60 s (the test's own assertions tell what did not happen). */
    static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
