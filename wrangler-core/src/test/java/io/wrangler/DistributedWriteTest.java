package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.wrangler.spi.StepHook;
import io.wrangler.commit.StagedFiles;
import io.wrangler.commit.TaskStager;
import io.wrangler.commit.Transaction;
import io.wrangler.commit.WriteSpec;
import io.wrangler.input.ArrowSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * A write whose files other processes stage (Transaction.begin, stageTask, commit): the entry point wrangler-spark's
 * driver and executors use, here with its "tasks" in this JVM. Only the task attempts handed to commit count.
 */
class DistributedWriteTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(64, true))));

    private static WriteSpec spec(String uri, WriteMode mode, String filenamePrefix) {
        return spec(uri, mode, filenamePrefix, CommitMethod.STAGE_AND_COPY);
    }

    private static WriteSpec spec(String uri, WriteMode mode, String filenamePrefix, CommitMethod method) {
        WriteOptions o = WriteOptions.builder().mode(mode).partitionBy("country").leaseWait(Duration.ofSeconds(30)).commitMethod(method)
                .filenamePrefix(filenamePrefix).build();
        return new WriteSpec(uri, TestLake.memory().client(), o, null, StepHook.NONE, WriteSpec.Tuning.defaults().withThreads(4), null,
                new Progress() { }, null);
    }

    private static StagedFiles task(String uri, WriteMode mode, String writeId, String attempt, String[] countries, long[] ns) {
        return task(spec(uri, mode, attempt), writeId, countries, ns);
    }

    private static StagedFiles task(WriteSpec spec, String writeId, String[] countries, long[] ns) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            VarCharVector c = (VarCharVector) root.getVector("country");
            BigIntVector n = (BigIntVector) root.getVector("n");
            for (int i = 0; i < countries.length; i++) {
                c.setSafe(i, countries[i].getBytes(StandardCharsets.UTF_8));
                n.setSafe(i, ns[i]);
            }
            root.setRowCount(countries.length);
            return TaskStager.stageTask(spec, SCHEMA, writeId, ArrowSource.of(root, null));
        }
    }

    @Test
    void onlyTheCommittedAttemptsFilesArePublishedAndTheStagingIsRemoved() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        WriteResult r;
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.OVERWRITE_PARTITIONS, ""), SCHEMA)) {
            StagedFiles first = task(uri, WriteMode.OVERWRITE_PARTITIONS, w.writeId(), "t00000-a0-", new String[] {"RU", "DE"}, new long[] {1, 2});
            // a failed attempt of task 1 that staged its file, then its retry
            task(uri, WriteMode.OVERWRITE_PARTITIONS, w.writeId(), "t00001-a0-", new String[] {"RU"}, new long[] {3});
            StagedFiles retry = task(uri, WriteMode.OVERWRITE_PARTITIONS, w.writeId(), "t00001-a1-", new String[] {"RU"}, new long[] {3});
            assertThat(TestLake.keys(bucket, "t/_tmp/" + w.writeId() + "/")).hasSize(5); // three attempts' four files and the manifest
            r = w.commit(List.of(first, retry));
        }
        assertThat(r.rows()).isEqualTo(3);
        assertThat(r.partitionValues()).containsOnlyKeys(uri + "country=RU/", uri + "country=DE/");
        assertThat(TestLake.query(bucket, "t/", "SELECT country, n FROM t ORDER BY n"))
                .containsExactly(List.of("RU", 1L), List.of("DE", 2L), List.of("RU", 3L));
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"))
                .allMatch(k -> k.contains("-a1-") || k.contains("t00000-a0-") || k.endsWith("_lease.json"));
        // a single-process write then replaces one of its partitions, as it would any write's
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            ((VarCharVector) root.getVector("country")).setSafe(0, "DE".getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector("n")).setSafe(0, 20);
            root.setRowCount(1);
            S3Parquet.write(root).partitionBy("country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.memory().client()).to(uri);
        }
        assertThat(TestLake.query(bucket, "t/", "SELECT country, n FROM t ORDER BY n"))
                .containsExactly(List.of("RU", 1L), List.of("RU", 3L), List.of("DE", 20L));
    }

    @Test
    void deferredUploadsOfAttemptsThatDidNotCountAreAbortedAndOnlyTheCommittedOnesCompleted() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        WriteMode mode = WriteMode.OVERWRITE_PARTITIONS;
        WriteResult r;
        String writeId;
        try (Transaction w = Transaction.begin(spec(uri, mode, "", CommitMethod.DEFERRED_UPLOADS), SCHEMA)) {
            writeId = w.writeId();
            StagedFiles first = task(spec(uri, mode, "t00000-a0-", CommitMethod.DEFERRED_UPLOADS), writeId,
                    new String[] {"RU", "DE"}, new long[] {1, 2});
            // an attempt of task 1 whose uploads outlive it (its executor was lost), then its retry
            task(spec(uri, mode, "t00001-a0-", CommitMethod.DEFERRED_UPLOADS), writeId, new String[] {"RU"}, new long[] {3});
            StagedFiles retry = task(spec(uri, mode, "t00001-a1-", CommitMethod.DEFERRED_UPLOADS), writeId,
                    new String[] {"RU"}, new long[] {3});
            assertThat(TestLake.memory().openMultipartUploads(bucket, "t/")).hasSize(4)
                    .allMatch(k -> k.contains(writeId) && !k.contains("_tmp/"));
            assertThat(TestLake.keys(bucket, "t/")).allMatch(k -> k.startsWith("t/_tmp/"));
            assertThat(first.files()).allMatch(f -> f.stagedKey() == null && f.uploadId() != null);
            r = w.commit(List.of(first, retry));
        }
        assertThat(r.rows()).isEqualTo(3);
        assertThat(TestLake.query(bucket, "t/", "SELECT country, n FROM t ORDER BY n"))
                .containsExactly(List.of("RU", 1L), List.of("DE", 2L), List.of("RU", 3L));
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"))
                .noneMatch(k -> k.contains("t00001-a0-"));

        // An attempt still running after the write ended (a zombie) opens an upload: it is never completed, so never
        // visible, and recovery leaves it alone (no record names its id any more): a lifecycle rule removes it.
        task(spec(uri, mode, "t00001-a2-", CommitMethod.DEFERRED_UPLOADS), writeId, new String[] {"RU"}, new long[] {4});
        assertThat(TestLake.memory().openMultipartUploads(bucket, "t/")).hasSize(1);
        S3Parquet.recover(uri, TestLake.memory().client());
        assertThat(TestLake.memory().openMultipartUploads(bucket, "t/")).hasSize(1);
        assertThat(TestLake.query(bucket, "t/", "SELECT country, n FROM t ORDER BY n"))
                .containsExactly(List.of("RU", 1L), List.of("DE", 2L), List.of("RU", 3L));
    }

    @Test
    void anAbortedDeferredWriteLeavesNoOpenUpload() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        Transaction w = Transaction.begin(spec(uri, WriteMode.APPEND, "", CommitMethod.DEFERRED_UPLOADS), SCHEMA);
        task(spec(uri, WriteMode.APPEND, "t00000-a0-", CommitMethod.DEFERRED_UPLOADS), w.writeId(), new String[] {"DE", "RU"},
                new long[] {8, 9});
        assertThat(TestLake.memory().openMultipartUploads(bucket, "t/")).hasSize(2);
        w.abort(new RuntimeException("the job failed"));
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
        assertThat(TestLake.keys(bucket, "t/")).isEmpty();
    }

    @Test
    void anAbortedWriteLeavesTheTableUnchangedAndNoStaging() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            ((VarCharVector) root.getVector("country")).setSafe(0, "DE".getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector("n")).setSafe(0, 7);
            root.setRowCount(1);
            S3Parquet.write(root).partitionBy("country").s3(TestLake.memory().client()).to(uri);
        }
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/country=");
        Transaction w = Transaction.begin(spec(uri, WriteMode.OVERWRITE, ""), SCHEMA);
        task(uri, WriteMode.OVERWRITE, w.writeId(), "t00000-a0-", new String[] {"DE"}, new long[] {8});
        w.abort(new RuntimeException("the job failed"));
        assertThat(TestLake.snapshot(bucket, "t/country=")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aTaskRefusesABadPartitionValueNamingTheTableAndStep() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        try (Transaction w = Transaction.begin(spec(uri, WriteMode.APPEND, ""), SCHEMA)) {
            assertThatThrownBy(() -> task(uri, WriteMode.APPEND, w.writeId(), "t00000-a0-", new String[] {"a\u0000b"}, new long[] {1}))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessageStartingWith("Cannot write " + uri + " (step: validate): the value 'a\u0000b' of partition column 'country'");
        }
        assertThat(TestLake.keys(bucket, "t/")).isEmpty();
    }

    /**
     * A distributed write's entry in the commit log records, for every file its tasks staged, the ETag S3 answered when the
     * driver's publish put it in place: by CopyObject, and by CompleteMultipartUpload with deferred uploads.
     */
    @Test
    void aDistributedWritesLogEntryRecordsTheETagOfEveryFile() throws IOException {
        for (CommitMethod method : CommitMethod.values()) {
            String bucket = TestLake.memoryBucket();
            String uri = "s3://" + bucket + "/t/";
            try (Transaction w = Transaction.begin(spec(uri, WriteMode.APPEND, "", method), SCHEMA)) {
                StagedFiles one = task(spec(uri, WriteMode.APPEND, "t00000-a0-", method), w.writeId(), new String[] {"RU", "DE"}, new long[] {1, 2});
                StagedFiles two = task(spec(uri, WriteMode.APPEND, "t00001-a0-", method), w.writeId(), new String[] {"RU"}, new long[] {3});
                w.commit(List.of(one, two));
            }
            List<String> log = TestLake.keys(bucket, "t/_wrangler/log/");
            assertThat(log).as(method.name()).hasSize(1);
            JsonNode entry = new ObjectMapper()
                    .readTree(TestLake.memory().get(bucket, log.get(0)));
            assertThat(entry.get("added")).as(method.name()).hasSize(3);
            for (JsonNode a : entry.get("added")) {
                String key = a.get("key").asText();
                assertThat(a.get("eTag")).as(method + ": " + key + " in " + entry).isNotNull();
                assertThat(a.get("eTag").asText()).as(method + ": " + key)
                        .isEqualTo(TestLake.memory().client().headObject(b -> b.bucket(bucket).key(key)).eTag());
            }
        }
    }
}
