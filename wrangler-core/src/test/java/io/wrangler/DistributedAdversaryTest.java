package io.wrangler;

import io.wrangler.staging.StagedFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A distributed write against the actors it does not control: zombie task attempts, duplicate or stale commit messages,
 * a driver that stalls past its lease or crashes, and the writers and recoveries that take the table over meanwhile.
 * The "driver" and "tasks" run in this JVM; a stall is the test clock of the taking-over actor ({@link Tunings#pastLeases}).
 */
class DistributedAdversaryTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(64, true))));

    private static WriteSpec spec(String uri, WriteMode mode, String filenamePrefix, String key) {
        WriteOptions o = WriteOptions.builder().mode(mode).partitionBy("country").leaseWait(Duration.ofSeconds(30))
                .filenamePrefix(filenamePrefix).build();
        return new WriteSpec(uri, TestLake.memory().client(), o, null, StepHook.NONE, WriteSpec.Tuning.defaults().withThreads(4), key,
                new Progress() { }, null);
    }

    private static StagedFiles task(String uri, WriteMode mode, String key, String writeId, String attempt, String[] countries,
                                              long[] ns) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            fill(root, countries, ns);
            // an executor's task: no lease, no catalog (as TaskSettings.taskSpec)
            WriteSpec s = spec(uri, mode, attempt, key);
            WriteSpec taskSpec = new WriteSpec(s.uri(), s.s3(), s.write().toBuilder().lease(false).leaseWait(Duration.ZERO).build(), null,
                    StepHook.NONE, s.tuning(), key, new Progress() { }, null);
            return TaskStager.stageTask(taskSpec, SCHEMA, writeId, ArrowSource.of(root, null));
        }
    }

    private static void fill(VectorSchemaRoot root, String[] countries, long[] ns) {
        VarCharVector c = (VarCharVector) root.getVector("country");
        BigIntVector n = (BigIntVector) root.getVector("n");
        for (int i = 0; i < countries.length; i++) {
            c.setSafe(i, countries[i].getBytes(StandardCharsets.UTF_8));
            n.setSafe(i, ns[i]);
        }
        root.setRowCount(countries.length);
    }

    /** A single-process write with the test clock: it takes over any lease at once. */
    private static WriteResult single(String uri, WriteMode mode, String key, String[] countries, long[] ns) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            fill(root, countries, ns);
            WriteBuilder b = S3Parquet.write(root).partitionBy("country").mode(mode).s3(TestLake.memory().client()).tuning(Tunings.pastLeases());
            if (key != null) {
                b.idempotencyKey(key);
            }
            return b.to(uri);
        }
    }

    /** The table as wrangler's reader shows it (hiding unpublished files by their manifests): "country:n", sorted. */
    private static List<String> read(String uri) {
        List<String> out = new ArrayList<>();
        try (ArrowReader r = S3Parquet.read(uri).s3(TestLake.memory().client()).columns("country", "n").open()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot root = r.getVectorSchemaRoot();
                for (int i = 0; i < root.getRowCount(); i++) {
                    out.add(root.getVector("country").getObject(i) + ":" + root.getVector("n").getObject(i));
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        out.sort(null);
        return out;
    }

    /** DuckDB, which hides nothing but {@code _tmp/}: what any Hive reader sees. */
    private static List<String> duck(String bucket) {
        List<String> out = new ArrayList<>();
        TestLake.query(bucket, "t/", "SELECT country, n FROM t").forEach(r -> out.add(r.get(0) + ":" + r.get(1)));
        out.sort(null);
        return out;
    }

    private static List<String> tmp(String bucket) {
        return TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> !k.endsWith("_lease.json")).toList();
    }

    // ---- 1. zombie task attempts ----

    @Test
    void aZombieAttemptStagingAfterTheCommitReachesNoReaderAndIsRemovedByTheNextRecovery() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        String id;
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.OVERWRITE_PARTITIONS, "", null), SCHEMA)) {
            id = w.writeId();
            StagedFiles a1 = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, id, "t00000-a1-", new String[] {"RU"}, new long[] {1});
            w.commit(List.of(a1));
        }
        // the attempt Spark gave up on finishes now, after the write ended
        task(uri, WriteMode.OVERWRITE_PARTITIONS, null, id, "t00000-a0-", new String[] {"RU", "DE"}, new long[] {100, 200});
        assertThat(read(uri)).containsExactly("RU:1");
        assertThat(duck(bucket)).containsExactly("RU:1");
        assertThat(tmp(bucket)).isNotEmpty().allMatch(k -> k.startsWith("t/_tmp/" + id + "/"));
        // a later write recovers first: the orphan staging goes, nothing of it is published
        single(uri, WriteMode.APPEND, null, new String[] {"DE"}, new long[] {2});
        assertThat(read(uri)).containsExactly("DE:2", "RU:1");
        assertThat(duck(bucket)).containsExactly("DE:2", "RU:1");
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void aZombieAttemptOfACrashedWriteStagingDuringAndAfterALaterWriteChangesNothing() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.OVERWRITE, null, new String[] {"RU"}, new long[] {1});
        // 4. the driver begins, a task stages, the driver dies (no commit, no abort; its lease left to expire)
        Transaction crashed = Transaction.begin(spec(uri, WriteMode.OVERWRITE, "", null), SCHEMA);
        String id = crashed.writeId();
        StagedFiles counted = task(uri, WriteMode.OVERWRITE, null, id, "t00000-a0-", new String[] {"RU"}, new long[] {50});
        // a single-process overwrite: recovers first (rolls the STARTED write back), then writes its rows
        WriteResult r = single(uri, WriteMode.OVERWRITE, null, new String[] {"DE", "FR"}, new long[] {2, 3});
        assertThat(r.recovered().rolledBack()).contains(id);
        // the dead driver's zombie task finishes now
        task(uri, WriteMode.OVERWRITE, null, id, "t00001-a0-", new String[] {"RU", "SE"}, new long[] {60, 70});
        assertThat(read(uri)).containsExactly("DE:2", "FR:3");
        assertThat(duck(bucket)).containsExactly("DE:2", "FR:3");
        // an explicit recovery publishes nothing of it and removes it
        Tunings.recover(uri, TestLake.memory().client());
        assertThat(read(uri)).containsExactly("DE:2", "FR:3");
        assertThat(tmp(bucket)).isEmpty();
        // the "driver" was not dead after all: it resumes and commits what it had
        assertThatThrownBy(() -> crashed.commit(List.of(counted))).isInstanceOf(WriteNotAppliedException.class);
        crashed.close();
        assertThat(read(uri)).containsExactly("DE:2", "FR:3");
        assertThat(duck(bucket)).containsExactly("DE:2", "FR:3");
        assertThat(tmp(bucket)).isEmpty();
    }

    // ---- 2. commit messages ----

    @Test
    void aDuplicatedCommitMessageAddsItsRowsOnce() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        WriteResult r;
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.APPEND, "", null), SCHEMA)) {
            StagedFiles a = task(uri, WriteMode.APPEND, null, w.writeId(), "t00000-a0-", new String[] {"RU", "DE"}, new long[] {1, 2});
            r = w.commit(List.of(a, a));
        }
        assertThat(read(uri)).containsExactly("DE:2", "RU:1");
        assertThat(duck(bucket)).containsExactly("DE:2", "RU:1");
        assertThat(r.rows()).isEqualTo(2);
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void aCommitMessageNamingAStagedFileThatIsGoneIsRefusedBeforeTheCommitPointAndLeavesTheTableWritable() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.OVERWRITE, null, new String[] {"RU"}, new long[] {1});
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.OVERWRITE_PARTITIONS, "", null), SCHEMA)) {
            StagedFiles a = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, w.writeId(), "t00000-a0-", new String[] {"RU"}, new long[] {9});
            TestLake.memory().client().deleteObject(d -> d.bucket(bucket).key(a.files().get(0).stagedKey()));
            assertThatThrownBy(() -> w.commit(List.of(a))).isInstanceOf(WriteNotAppliedException.class);
        }
        assertThat(read(uri)).containsExactly("RU:1");
        // the table is not wedged: the next write (which recovers first) succeeds
        single(uri, WriteMode.APPEND, null, new String[] {"DE"}, new long[] {2});
        assertThat(read(uri)).containsExactly("DE:2", "RU:1");
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void aCommitMessageWhoseFinalKeyIsNotItsStagedFilesPlaceIsRefusedAndDeletesNothing() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.APPEND, null, new String[] {"RU"}, new long[] {1});
        String existing = TestLake.keys(bucket, "t/country=RU/").get(0);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/country=");
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.APPEND, "", null), SCHEMA)) {
            StagedFiles a = task(uri, WriteMode.APPEND, null, w.writeId(), "t00000-a0-", new String[] {"RU"}, new long[] {9});
            StagedFile f = a.files().get(0);
            // a corrupt or forged message: its final key is another write's published file
            StagedFiles forged = new StagedFiles(a.partitions(), List.of(new StagedFile(
                    f.folder(), f.stagedKey(), existing, f.bytes(), f.rows(), null, null)));
            assertThatThrownBy(() -> w.commit(List.of(forged))).isInstanceOf(InvalidWriteException.class);
        }
        assertThat(TestLake.snapshot(bucket, "t/country=")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(read(uri)).containsExactly("RU:1");
    }

    // ---- 3. a driver that stalls past its lease ----

    @Test
    void aStalledDriverRolledBackByARecoveryCommitsNothing() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.OVERWRITE, null, new String[] {"RU"}, new long[] {1});
        Transaction w = Transaction.begin(spec(uri, WriteMode.OVERWRITE, "", null), SCHEMA);
        StagedFiles a = task(uri, WriteMode.OVERWRITE, null, w.writeId(), "t00000-a0-", new String[] {"DE"}, new long[] {9});
        // the driver stalls: a recovery takes the table over and rolls the STARTED write back
        RecoveryResult rec = Tunings.recover(uri, TestLake.memory().client());
        assertThat(rec.rolledBack()).contains(w.writeId());
        // then a task still running stages, and another writer writes
        StagedFiles late = task(uri, WriteMode.OVERWRITE, null, w.writeId(), "t00001-a0-", new String[] {"SE"}, new long[] {8});
        single(uri, WriteMode.OVERWRITE_PARTITIONS, null, new String[] {"FR"}, new long[] {3});
        // the driver resumes and commits
        assertThatThrownBy(() -> w.commit(List.of(a, late))).isInstanceOf(CommitConflictException.class);
        w.close();
        assertThat(read(uri)).containsExactly("FR:3", "RU:1");
        assertThat(duck(bucket)).containsExactly("FR:3", "RU:1");
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void aStalledDriverThatAbortsWhileAnotherWriteHoldsTheTableTouchesOnlyItsOwnStaging() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.OVERWRITE, null, new String[] {"RU"}, new long[] {1});
        Transaction stalled = Transaction.begin(spec(uri, WriteMode.OVERWRITE, "", null), SCHEMA);
        task(uri, WriteMode.OVERWRITE, null, stalled.writeId(), "t00000-a0-", new String[] {"DE"}, new long[] {9});
        // a second distributed write takes the table over (its own driver with the test clock) and is mid-way
        WriteSpec s = spec(uri, WriteMode.OVERWRITE_PARTITIONS, "", null);
        WriteSpec taker = new WriteSpec(s.uri(), s.s3(), s.write(), null, StepHook.NONE, Tunings.pastLeases().engine(), null, new Progress() { },
                null);
        try (Transaction second = Transaction.begin(taker, SCHEMA)) {
            StagedFiles b = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, second.writeId(), "t00000-a0-", new String[] {"FR"},
                    new long[] {3});
            // the first driver wakes up and its job fails: it aborts
            stalled.abort(new RuntimeException("job failed"));
            second.commit(List.of(b));
        }
        assertThat(read(uri)).containsExactly("FR:3", "RU:1");
        assertThat(tmp(bucket)).isEmpty();
    }

    // ---- 6. keyed appends and partition overwrites ----

    @Test
    void aKeyedDistributedAppendRerunAddsItsRowsOnceAlsoAfterASingleProcessRunWithTheKey() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.APPEND, null, new String[] {"RU"}, new long[] {1});
        for (int run = 0; run < 2; run++) {
            try (Transaction w = Transaction.begin(spec(uri, WriteMode.APPEND, "", "load-7"), SCHEMA)) {
                StagedFiles a = task(uri, WriteMode.APPEND, "load-7", w.writeId(), "t00000-a" + run + "-", new String[] {"RU", "DE"},
                        new long[] {10, 20});
                StagedFiles b = task(uri, WriteMode.APPEND, "load-7", w.writeId(), "t00001-a" + run + "-", new String[] {"DE"},
                        new long[] {21});
                w.commit(List.of(a, b));
            }
            assertThat(read(uri)).containsExactly("DE:20", "DE:21", "RU:1", "RU:10");
        }
        single(uri, WriteMode.APPEND, "load-7", new String[] {"RU", "DE"}, new long[] {10, 20});
        assertThat(read(uri)).containsExactly("DE:20", "RU:1", "RU:10");
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.APPEND, "", "load-7"), SCHEMA)) {
            StagedFiles a = task(uri, WriteMode.APPEND, "load-7", w.writeId(), "t00000-a9-", new String[] {"RU", "DE"},
                    new long[] {10, 20});
            w.commit(List.of(a));
        }
        assertThat(read(uri)).containsExactly("DE:20", "RU:1", "RU:10");
        assertThat(duck(bucket)).containsExactly("DE:20", "RU:1", "RU:10");
    }

    @Test
    void aDistributedPartitionOverwriteReplacesOnlyTheTouchedPartitions() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.APPEND, null, new String[] {"RU", "DE", "FR", "R"}, new long[] {1, 2, 3, 4});
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.OVERWRITE_PARTITIONS, "", null), SCHEMA)) {
            StagedFiles a = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, w.writeId(), "t00000-a0-", new String[] {"RU"},
                    new long[] {10});
            StagedFiles b = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, w.writeId(), "t00001-a0-", new String[] {"DE", "RU"},
                    new long[] {20, 11});
            w.commit(List.of(a, b));
        }
        assertThat(read(uri)).containsExactly("DE:20", "FR:3", "R:4", "RU:10", "RU:11");
        assertThat(duck(bucket)).containsExactly("DE:20", "FR:3", "R:4", "RU:10", "RU:11");
    }

    private static WriteSpec hooked(String uri, WriteMode mode, StepHook hook) {
        WriteSpec s = spec(uri, mode, "", null);
        return new WriteSpec(s.uri(), s.s3(), s.write(), null, hook, s.tuning(), null, new Progress() { }, null);
    }

    @Test
    void aZombieAttemptStagingBetweenTheCommitPointAndCleanupIsNotPublished() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.OVERWRITE, null, new String[] {"RU"}, new long[] {1});
        String[] id = new String[1];
        StepHook hook = (step, count) -> {
            if (step == io.wrangler.commit.Step.MANIFEST_WRITTEN || step == io.wrangler.commit.Step.BEFORE_CATALOG) {
                task(uri, WriteMode.OVERWRITE, null, id[0], "t00009-a" + step.ordinal() + "-", new String[] {"RU", "SE"}, new long[] {90, 91});
            }
        };
        try (Transaction w = Transaction.begin(hooked(uri, WriteMode.OVERWRITE, hook), SCHEMA)) {
            id[0] = w.writeId();
            StagedFiles a = task(uri, WriteMode.OVERWRITE, null, id[0], "t00000-a0-", new String[] {"DE"}, new long[] {2});
            w.commit(List.of(a));
        }
        assertThat(read(uri)).containsExactly("DE:2");
        assertThat(duck(bucket)).containsExactly("DE:2");
        Tunings.recover(uri, TestLake.memory().client());
        assertThat(read(uri)).containsExactly("DE:2");
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void aDriverStalledPastItsCommitPointIsFinishedByTheRecoveryAndAZombieAddsNothing() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.OVERWRITE, null, new String[] {"RU", "FR"}, new long[] {1, 3});
        String[] id = new String[1];
        StepHook hook = (step, count) -> {
            if (step == io.wrangler.commit.Step.MANIFEST_WRITTEN) {
                // the driver stalls right after its commit point: a recovery takes over and finishes the write
                Tunings.recover(uri, TestLake.memory().client());
                task(uri, WriteMode.OVERWRITE_PARTITIONS, null, id[0], "t00009-a1-", new String[] {"FR", "SE"}, new long[] {90, 91});
            }
        };
        try (Transaction w = Transaction.begin(hooked(uri, WriteMode.OVERWRITE_PARTITIONS, hook), SCHEMA)) {
            id[0] = w.writeId();
            StagedFiles a = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, id[0], "t00000-a0-", new String[] {"RU"}, new long[] {10});
            assertThatThrownBy(() -> w.commit(List.of(a))).isInstanceOf(WriteIncompleteException.class);
        }
        assertThat(read(uri)).containsExactly("FR:3", "RU:10");
        assertThat(duck(bucket)).containsExactly("FR:3", "RU:10");
        Tunings.recover(uri, TestLake.memory().client());
        assertThat(read(uri)).containsExactly("FR:3", "RU:10");
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void aCommitMessageWhoseFilesLieOutsideItsListedPartitionsIsRefused() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.APPEND, null, new String[] {"RU", "DE"}, new long[] {1, 2});
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.OVERWRITE_PARTITIONS, "", null), SCHEMA)) {
            StagedFiles a = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, w.writeId(), "t00000-a0-", new String[] {"RU", "DE"},
                    new long[] {10, 20});
            // a message that lost a partition from its list (its file still named): that partition's old files would stay
            StagedFiles partial = new StagedFiles(List.of(List.of("RU")), a.files());
            assertThatThrownBy(() -> w.commit(List.of(partial))).isInstanceOf(InvalidWriteException.class);
        }
        assertThat(read(uri)).containsExactly("DE:2", "RU:1");
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void anUnpartitionedDistributedOverwritePassesTheChecksOfItsMessages() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        Schema one = new Schema(List.of(Field.nullable("n", new ArrowType.Int(64, true))));
        WriteSpec s = spec(uri, WriteMode.OVERWRITE, "", null);
        java.util.function.Function<String, WriteSpec> flat = prefix -> new WriteSpec(s.uri(), s.s3(), s.write().toBuilder()
                .mode(WriteMode.OVERWRITE).partitionBy().lease(prefix.isEmpty()).filenamePrefix(prefix).build(), null, StepHook.NONE,
                s.tuning(), null, new Progress() { }, null);
        for (long v : new long[] {1, 2}) {
            try (Transaction w = Transaction.begin(flat.apply(""), one)) {
                List<StagedFiles> staged = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(one, a)) {
                        ((BigIntVector) root.getVector("n")).setSafe(0, v * 10 + t);
                        root.setRowCount(1);
                        staged.add(TaskStager.stageTask(flat.apply("t0000" + t + "-a0-"), one, w.writeId(), ArrowSource.of(root, null)));
                    }
                }
                w.commit(staged);
            }
        }
        List<String> out = new ArrayList<>();
        TestLake.query(bucket, "t/", "SELECT n FROM t ORDER BY n").forEach(r -> out.add(String.valueOf(r.get(0))));
        assertThat(out).containsExactly("20", "21");
        assertThat(tmp(bucket)).isEmpty();
    }

    @Test
    void aDriverKilledPastItsCommitPointIsRolledForwardWithoutTheZombieFilesStagedMeanwhile() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        single(uri, WriteMode.OVERWRITE, null, new String[] {"RU", "FR"}, new long[] {1, 3});
        StepHook crash = (step, count) -> {
            if (step == io.wrangler.commit.Step.MANIFEST_WRITTEN) {
                throw new AssertionError("killed after the commit point");
            }
        };
        String id;
        Transaction w = Transaction.begin(hooked(uri, WriteMode.OVERWRITE_PARTITIONS, crash), SCHEMA);
        id = w.writeId();
        StagedFiles a = task(uri, WriteMode.OVERWRITE_PARTITIONS, null, id, "t00000-a0-", new String[] {"RU"}, new long[] {10});
        assertThatThrownBy(() -> w.commit(List.of(a))).isInstanceOf(AssertionError.class);
        // a zombie attempt stages into the committed write's folder before anyone recovers it
        task(uri, WriteMode.OVERWRITE_PARTITIONS, null, id, "t00001-a0-", new String[] {"FR", "SE"}, new long[] {90, 91});
        assertThat(read(uri)).containsExactly("FR:3", "RU:1");
        RecoveryResult rec = Tunings.recover(uri, TestLake.memory().client());
        assertThat(rec.rolledForward()).containsExactly(id);
        assertThat(read(uri)).containsExactly("FR:3", "RU:10");
        assertThat(duck(bucket)).containsExactly("FR:3", "RU:10");
        Tunings.recover(uri, TestLake.memory().client());
        assertThat(tmp(bucket)).isEmpty();
    }
}
