package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wrangler.spi.DistributedWrite;
import io.wrangler.spi.StagedFiles;
import io.wrangler.spi.WriteTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A caller of the engine SPI forging what it hands {@link DistributedWrite#commit}: a message naming a partition its
 * tasks staged nothing in, no message at all for an OVERWRITE. The public SPI only, as wrangler-spark calls it.
 */
class SpiAdversaryTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(64, true))));

    private static CommitMethod method = CommitMethod.STAGE_AND_COPY;

    private static WriteOptions options(WriteMode mode, String prefix, boolean lease) {
        return WriteOptions.builder().mode(mode).partitionBy("country").leaseWait(Duration.ofSeconds(30))
                .lease(lease).concurrency(4).filenamePrefix(prefix).commitMethod(method).build();
    }

    private static StagedFiles stage(String uri, WriteMode mode, String writeId, String attempt, String[] countries, long[] ns) {
        return EngineSpiTest.stage(new WriteTarget(uri, TestLake.s3().client(), options(mode, attempt, false), null, null), writeId,
                countries, ns);
    }

    private static StagedFiles roundTrip(StagedFiles staged) {
        return EngineSpiTest.roundTrip(staged);
    }

    private static List<String> duck(String bucket) {
        List<String> out = new ArrayList<>();
        TestLake.query(bucket, "t/", "SELECT country, n FROM t").forEach(r -> out.add(r.get(0) + ":" + r.get(1)));
        out.sort(null);
        return out;
    }

    private static void seed(String uri) {
        WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options(WriteMode.APPEND, "", true), null, null);
        try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
            w.commit(List.of(stage(uri, WriteMode.APPEND, w.writeId(), "t00000-a0-", new String[] {"RU", "DE"}, new long[] {1, 2})));
        }
    }

    @Test
    void aMessageNamingAPartitionWithNoStagedFileCannotEmptyThatPartition() {
        String bucket = TestLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        seed(uri);
        WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options(WriteMode.OVERWRITE_PARTITIONS, "", true), null, null);
        Throwable refused;
        try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
            StagedFiles ru = stage(uri, WriteMode.OVERWRITE_PARTITIONS, w.writeId(), "t00000-a0-", new String[] {"RU"}, new long[] {10});
            StagedFiles forged = new StagedFiles(List.of(List.of("DE")), List.of());
            refused = catchThrowable(() -> w.commit(List.of(ru, forged)));
        }
        // the partitions replaced are those of the files: a partition named with no file is not emptied
        assertThat(refused).isNull();
        assertThat(duck(bucket)).containsExactly("DE:2", "RU:10");
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"));
    }

    @Test
    void anOverwriteCommittedWithNoMessageDoesNotEmptyTheTable() {
        String bucket = TestLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        seed(uri);
        WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options(WriteMode.OVERWRITE, "", true), null, null);
        Throwable refused;
        try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
            refused = catchThrowable(() -> w.commit(List.of()));
        }
        assertThat(refused).isInstanceOf(InvalidWriteException.class).hasMessage("Cannot write " + uri + " (step: validate): the input "
                + "has no rows, and OVERWRITE with no rows would delete the whole table. If the table should really be emptied, delete "
                + "its objects explicitly; otherwise check the job's input.");
        assertThat(duck(bucket)).containsExactly("DE:2", "RU:1");
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"));
    }

    @Test
    void aForgedRowCountPublishesOnlyTheBytesTheTaskStaged() {
        String bucket = TestLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options(WriteMode.APPEND, "", true), null, null);
        Throwable refused;
        try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
            StagedFiles real = stage(uri, WriteMode.APPEND, w.writeId(), "t00000-a0-", new String[] {"RU"}, new long[] {1});
            StagedFiles.File f = real.files().get(0);
            StagedFiles forged = new StagedFiles(real.partitions(), List.of(new StagedFiles.File(f.folder(), f.stagedKey(), f.finalKey(),
                    f.bytes(), 1000, f.uploadId(), f.etags())));
            refused = catchThrowable(() -> w.commit(List.of(forged)));
        }
        // the bytes are checked against the staging listing; the row count is the task's word (not read back: see the report)
        assertThat(refused).isNull();
        assertThat(duck(bucket)).containsExactly("RU:1");
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"));
    }

    @Test
    void deferredMessagesSurviveSerializationAndADuplicatedOneAddsItsRowsOnce() {
        method = CommitMethod.DEFERRED_UPLOADS;
        try {
            String bucket = TestLake.bucket();
            String uri = "s3://" + bucket + "/t/";
            seed(uri);
            WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options(WriteMode.OVERWRITE_PARTITIONS, "", true), null, null);
            try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
                StagedFiles ru = stage(uri, WriteMode.OVERWRITE_PARTITIONS, w.writeId(), "t00000-a0-", new String[] {"RU"}, new long[] {10});
                assertThat(ru.files()).singleElement().satisfies(f -> {
                    assertThat(f.stagedKey()).isNull();
                    assertThat(f.uploadId()).isNotNull();
                    assertThat(f.etags()).isNotEmpty();
                });
                assertThat(roundTrip(ru)).isEqualTo(ru);
                // a forged message: the same upload named with other part ETags is refused, nothing applied
                StagedFiles.File f = ru.files().get(0);
                StagedFiles forged = new StagedFiles(ru.partitions(), List.of(new StagedFiles.File(f.folder(), null, f.finalKey(), f.bytes(),
                        f.rows(), f.uploadId(), List.of("\"forged\""))));
                Throwable refused = catchThrowable(() -> w.commit(List.of(ru, forged)));
                assertThat(refused).isInstanceOf(InvalidWriteException.class).hasMessageContaining("was not staged by the write "
                        + w.writeId() + " as described");
            }
            assertThat(duck(bucket)).containsExactly("DE:2", "RU:1");
            assertThat(TestLake.s3().client().listMultipartUploads(b -> b.bucket(bucket)).uploads()).isEmpty();
            assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"));
            try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
                StagedFiles ru = stage(uri, WriteMode.OVERWRITE_PARTITIONS, w.writeId(), "t00000-a0-", new String[] {"RU"}, new long[] {10});
                WriteResult r = w.commit(List.of(ru, roundTrip(ru)));
                assertThat(r.rows()).isEqualTo(1);
            }
            assertThat(duck(bucket)).containsExactly("DE:2", "RU:10");
        } finally {
            method = CommitMethod.STAGE_AND_COPY;
        }
    }

    @Test
    void aSecondCommitOrAnAbortAfterTheCommitDoesNotDoubleOrRemoveRows() {
        String bucket = TestLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options(WriteMode.APPEND, "", true), null, null);
        Throwable again;
        Throwable aborted;
        try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
            StagedFiles ru = stage(uri, WriteMode.APPEND, w.writeId(), "t00000-a0-", new String[] {"RU"}, new long[] {1});
            assertThat(w.commit(List.of(ru)).rows()).isEqualTo(1);
            again = catchThrowable(() -> w.commit(List.of(ru)));
            aborted = catchThrowable(() -> w.abort(new RuntimeException("late")));
        }
        assertThat(again).isInstanceOf(IllegalStateException.class).hasMessageEndingWith(" has ended");
        assertThat(aborted).as("an abort after the commit changes nothing").isNull();
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"));
        assertThat(duck(bucket)).containsExactly("RU:1");
    }

    /**
     * Two attempts of one task (a retried task whose first attempt also reported, a speculative pair) handed to commit
     * together: refused before the commit point, nothing of either published, the staging removed; a task reported by
     * its second attempt alone (the first failed) and another task's first attempt commit as usual.
     */
    @Test
    void twoAttemptsOfOneTaskAreRefusedAndARetriedTaskAloneCommits() {
        for (CommitMethod m : CommitMethod.values()) {
            method = m;
            try {
                String bucket = TestLake.bucket();
                String uri = "s3://" + bucket + "/t/";
                seed(uri);
                WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options(WriteMode.APPEND, "", true), null, null);
                try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
                    StagedFiles a0 = stage(uri, WriteMode.APPEND, w.writeId(), "t00001-a0-", new String[] {"RU"}, new long[] {5});
                    StagedFiles a1 = stage(uri, WriteMode.APPEND, w.writeId(), "t00001-a1-", new String[] {"RU"}, new long[] {5});
                    String n0 = name(a0);
                    String n1 = name(a1);
                    Throwable refused = catchThrowable(() -> w.commit(List.of(a0, a1)));
                    assertThat(refused).as(m.name()).isInstanceOf(InvalidWriteException.class).hasMessage("Cannot write " + uri
                            + " (step: commit): the task t00001 is reported by two attempts, a0 (" + n0 + ") and a1 (" + n1 + "), whose "
                            + "rows would be published twice; an engine commits exactly one attempt of each task. Nothing of the table "
                            + "was changed. The messages given to commit must be exactly those stageTask returned for this write's "
                            + "committed task attempts; rerun the write.");
                }
                assertThat(duck(bucket)).as(m.name()).containsExactly("DE:2", "RU:1");
                assertThat(TestLake.s3().client().listMultipartUploads(b -> b.bucket(bucket)).uploads()).isEmpty();
                assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"));
                try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA)) {
                    StagedFiles retried = stage(uri, WriteMode.APPEND, w.writeId(), "t00001-a1-", new String[] {"RU"}, new long[] {5});
                    StagedFiles other = stage(uri, WriteMode.APPEND, w.writeId(), "t00002-a0-", new String[] {"DE"}, new long[] {6});
                    assertThat(w.commit(List.of(retried, other, roundTrip(retried))).rows()).isEqualTo(2);
                }
                assertThat(duck(bucket)).as(m.name()).containsExactly("DE:2", "DE:6", "RU:1", "RU:5");
            } finally {
                method = CommitMethod.STAGE_AND_COPY;
            }
        }
    }

    private static String name(StagedFiles staged) {
        String key = staged.files().get(0).finalKey();
        return key.substring(key.lastIndexOf('/') + 1);
    }
}
