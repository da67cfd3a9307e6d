package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.spi.StepHook;
import io.wrangler.commit.StagedFiles;
import io.wrangler.commit.TaskStager;
import io.wrangler.commit.Transaction;
import io.wrangler.commit.WriteSpec;
import io.wrangler.input.ArrowSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A distributed write with deferred uploads whose driver stalls past its lease inside its commit (a GC pause: the
 * stall is a hook on the driver's own thread, and the actor taking over uses the test clock, {@link Tunings#pastLeases}),
 * with zombie task attempts opening uploads meanwhile. No upload of an attempt that did not count may ever become
 * visible, and no abort may touch an upload a manifest lists.
 */
class DistributedDeferredStallTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(64, true))));

    private final String bucket = TestLake.memoryBucket();
    private final String uri = "s3://" + bucket + "/t/";

    private static WriteSpec spec(String uri, String prefix, boolean driver, StepHook hook) {
        WriteOptions o = WriteOptions.builder().mode(WriteMode.OVERWRITE_PARTITIONS).partitionBy("country").lease(driver)
                .leaseWait(driver ? Duration.ofSeconds(30) : Duration.ZERO).commitMethod(CommitMethod.DEFERRED_UPLOADS).filenamePrefix(prefix)
                .build();
        return new WriteSpec(uri, TestLake.memory().client(), o, null, hook, WriteSpec.Tuning.defaults().withThreads(4), null, new Progress() { },
                null);
    }

    private static void fill(VectorSchemaRoot root, String country, long n) {
        ((VarCharVector) root.getVector("country")).setSafe(0, country.getBytes(StandardCharsets.UTF_8));
        ((BigIntVector) root.getVector("n")).setSafe(0, n);
        root.setRowCount(1);
    }

    private StagedFiles task(String writeId, String prefix, String country, long n) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            fill(root, country, n);
            return TaskStager.stageTask(spec(uri, prefix, false, StepHook.NONE), SCHEMA, writeId, ArrowSource.of(root, null));
        }
    }

    private void single(String country, long n) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            fill(root, country, n);
            S3Parquet.write(root).partitionBy("country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.memory().client())
                    .tuning(Tunings.pastLeases()).to(uri);
        }
    }

    private List<String> table() {
        List<String> out = new ArrayList<>();
        TestLake.query(bucket, "t/", "SELECT country, n FROM t").forEach(r -> out.add(r.get(0) + ":" + r.get(1)));
        out.sort(null);
        return out;
    }

    /** The driver stalls at {@code at}; meanwhile {@code meanwhile} runs with the driver's write id. */
    private Throwable stallAt(Step at, java.util.function.Consumer<String> meanwhile) {
        single("RU", 1);
        String[] id = new String[1];
        AtomicBoolean once = new AtomicBoolean();
        StepHook hook = (step, count) -> {
            if (step == at && once.compareAndSet(false, true)) {
                meanwhile.accept(id[0]);
            }
        };
        Transaction w = Transaction.begin(spec(uri, "", true, hook), SCHEMA);
        id[0] = w.writeId();
        StagedFiles counted = task(w.writeId(), "t00000-a1-", "RU", 50);
        task(w.writeId(), "t00000-a0-", "RU", 666); // a failed attempt whose executor died: its upload stays open
        try {
            w.commit(List.of(counted));
            return null;
        } catch (RuntimeException e) {
            return e;
        } finally {
            w.close();
        }
    }

    @Test
    void aDriverStalledBetweenItsStrayAbortsAndItsCommitPointCommitsNothingAndAZombieStaysInvisible() {
        Throwable t = stallAt(Step.LISTED_OLD_FILES, id -> {
            single("RU", 2); // takes the table over: rolls the STARTED write back, then writes
            task(id, "t00000-a7-", "RU", 777); // a zombie attempt opens an upload now
        });
        assertThat(t).isInstanceOf(CommitConflictException.class);
        assertThat(table()).containsExactly("RU:2");
        S3Parquet.recover(uri, TestLake.memory().client());
        single("DE", 3);
        assertThat(table()).containsExactly("DE:3", "RU:2");
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("-a7-") || k.contains("-a0-") || k.contains("-a1-"));
    }

    @Test
    void aDriverStalledPastItsCommitPointIsFinishedByARecoveryAndItsResumeCompletesNothingElse() {
        List<String> seen = new ArrayList<>();
        Throwable t = stallAt(Step.MANIFEST_WRITTEN, id -> {
            Tunings.recover(uri, TestLake.memory().client()); // rolls the COMMITTED write forward
            seen.addAll(table());
            task(id, "t00000-a7-", "RU", 777); // a zombie attempt opens an upload after the write ended
            single("DE", 3);
        });
        assertThat(seen).containsExactly("RU:50");
        assertThat(t).isInstanceOfAny(WriteIncompleteException.class, CommitConflictException.class);
        assertThat(table()).containsExactly("DE:3", "RU:50");
        S3Parquet.recover(uri, TestLake.memory().client());
        assertThat(table()).containsExactly("DE:3", "RU:50");
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("-a7-") || k.contains("-a0-"));
    }

    @Test
    void aDriverStalledPastItsCommitPointWhoseFilesAreReplacedMeanwhileBringsNoneBack() {
        Throwable t = stallAt(Step.MANIFEST_WRITTEN, id -> {
            single("RU", 2); // rolls the COMMITTED write forward, then replaces its partition
        });
        assertThat(t).isInstanceOfAny(WriteIncompleteException.class, CommitConflictException.class);
        assertThat(table()).containsExactly("RU:2");
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void anOperatorsRecoveryWhileTheDriverStallsBeforeItsCommitPointLeavesTheTableAsBefore() {
        Throwable t = stallAt(Step.LISTED_OLD_FILES, id -> {
            assertThat(Tunings.recover(uri, TestLake.memory().client()).rolledBack()).containsExactly(id);
            assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
        });
        assertThat(t).isInstanceOf(CommitConflictException.class);
        assertThat(table()).containsExactly("RU:1");
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(TestLake.keys(bucket, "t/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));
    }

    @Test
    void aDriverStalledBeforeItsUploadListingFindsItsUploadsGoneAndReportsTheConflict() {
        single("RU", 1);
        Transaction w = Transaction.begin(spec(uri, "", true, StepHook.NONE), SCHEMA);
        StagedFiles counted = task(w.writeId(), "t00000-a1-", "RU", 50);
        Tunings.recover(uri, TestLake.memory().client());
        StagedFiles zombie = task(w.writeId(), "t00001-a2-", "DE", 9); // after the roll back: no record names it
        single("SE", 2);
        assertThatThrownBy(() -> w.commit(List.of(counted, zombie))).isInstanceOf(CommitConflictException.class);
        w.close();
        assertThat(table()).containsExactly("RU:1", "SE:2");
        // the stalled driver removed what carries its id, the zombie's upload included: nothing of it can ever appear
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void aTableCopiedWithTheTmpOfACommittedDeferredWriteIsRefusedThereAndTheOriginalIsFinished() {
        single("RU", 1);
        StepHook die = (step, count) -> {
            if (step == Step.MANIFEST_WRITTEN) {
                throw new OutOfMemoryError("the driver dies past its commit point");
            }
        };
        Transaction w = Transaction.begin(spec(uri, "", true, die), SCHEMA);
        StagedFiles counted = task(w.writeId(), "t00000-a1-", "RU", 50);
        task(w.writeId(), "t00000-a0-", "RU", 666);
        assertThatThrownBy(() -> w.commit(List.of(counted))).isInstanceOf(OutOfMemoryError.class);
        // an operator copies the whole prefix, _tmp/ included (open uploads are not objects: they stay behind)
        software.amazon.awssdk.services.s3.S3Client s3 = TestLake.memory().client();
        for (String k : TestLake.keys(bucket, "t/")) {
            s3.copyObject(b -> b.sourceBucket(bucket).sourceKey(k).destinationBucket(bucket).destinationKey("c/" + k.substring(2)));
        }
        java.util.Map<String, byte[]> copy = new java.util.HashMap<>(TestLake.snapshot(bucket, "c/"));
        copy.remove("c/_tmp/_lease.json");
        assertThatThrownBy(() -> S3Parquet.recover("s3://" + bucket + "/c/", s3, null, Tunings.pastLeases()))
                .isInstanceOf(CommitStateUnknownException.class).hasMessageContaining("does not belong to this table");
        java.util.Map<String, byte[]> after = new java.util.HashMap<>(TestLake.snapshot(bucket, "c/"));
        after.remove("c/_tmp/_lease.json");
        assertThat(after).containsExactlyInAnyOrderEntriesOf(copy);
        // the failed attempt's upload was aborted before the commit point; the counted one waits for publish
        assertThat(TestLake.memory().openMultipartUploads(bucket, "t/")).singleElement().asString().contains("t00000-a1-");
        // the original is rolled forward: the counted upload completed
        Tunings.recover(uri, s3);
        assertThat(table()).containsExactly("RU:50");
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
    }
}
