package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.wrangler.CrashRecoveryTest.SimulatedCrash;
import io.wrangler.commit.Step;
import io.wrangler.commit.WriteSpec;
import java.io.IOException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The commit log records the ETag of every file a commit adds, as S3 answered when the file was put in place, and an
 * incremental read (committedAfter) carries it as If-Match on every GET of the file (round 10, h-logetag10): a file replaced
 * under its own name after its commit is a ReadException (read again), never another object's rows. Entries written
 * before the field existed still read, without a condition.
 */
class CommitLogETagTest {
    record Ev(String user, LocalDate seen_on, String payload, long updated_at, String region) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final LocalDate D = LocalDate.of(2024, 3, 1);
    private static final String P = "eu";

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private S3Client mem() {
        return TestLake.memory().client();
    }

    private WriteResult append(S3Client s3, String at, List<Ev> rows) {
        return S3Parquet.write(rows).partitionBy("region").mode(WriteMode.APPEND).s3(s3).to(at);
    }

    /** The log's entries of the table under {@code prefix}, key to parsed JSON, by number. */
    private static Map<String, JsonNode> entries(S3Client s3, String bucket, String prefix) throws IOException {
        Map<String, JsonNode> out = new TreeMap<>();
        for (String k : TestLake.keys(bucket, prefix + "_wrangler/log/")) {
            out.put(k, JSON.readTree(s3.getObjectAsBytes(b -> b.bucket(bucket).key(k)).asByteArray()));
        }
        return out;
    }

    /** The last entry of the log: every file it adds records the ETag its object has now (HEAD), and there is one. */
    private void lastEntryRecordsEveryETag(String what) throws IOException {
        List<JsonNode> all = new ArrayList<>(entries(mem(), bucket, "t/").values());
        JsonNode last = all.get(all.size() - 1);
        assertThat(last.get("added")).as(what + ": files added").isNotEmpty();
        for (JsonNode a : last.get("added")) {
            String key = a.get("key").asText();
            String head = mem().headObject(b -> b.bucket(bucket).key(key)).eTag();
            assertThat(a.get("eTag")).as(what + ": the eTag of " + key + " in " + last).isNotNull();
            assertThat(a.get("eTag").asText()).as(what + ": " + key).isEqualTo(head);
        }
    }

    private static List<Ev> rows(String prefix, int n) {
        List<Ev> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Ev(prefix + i, D, "old", 1, P));
        }
        return out;
    }

    /**
     * A file committed after the mark, replaced under its name by another Parquet object of the same length: the delta's
     * GET on the ETag its entry recorded answers 412, and the read stops with the ReadException that says to read again.
     * Before, the delta returned the other object's rows ({@code zz}) as the commit's.
     */
    @Test
    void anIncrementalReadOfAFileReplacedUnderItsNameAfterItsCommitIsAReadException() {
        WriteResult a = append(mem(), table, rows("a", 1));
        append(mem(), table, List.of(new Ev("b1", D, "old", 1, P), new Ev("b2", D, "old", 1, P)));
        append(mem(), "s3://" + bucket + "/other/", List.of(new Ev("b1", D, "old", 1, P), new Ev("zz", D, "old", 1, P)));
        String committed = TestLake.keys(bucket, "t/region=" + P + "/").stream()
                .filter(k -> !TestLake.queryFile(TestLake.memory().get(bucket, k), "SELECT 1 FROM $file WHERE user = 'b2'").isEmpty())
                .findFirst().orElseThrow();
        byte[] other = TestLake.memory().get(bucket, TestLake.keys(bucket, "other/region=" + P + "/").get(0));
        assertThat(other).hasSameSizeAs(TestLake.memory().get(bucket, committed)); // the length the entry records holds
        mem().putObject(b -> b.bucket(bucket).key(committed), RequestBody.fromBytes(other));

        assertThatThrownBy(() -> S3Parquet.read(table).s3(mem()).committedAfter(a.mark()).toList(Ev.class))
                .isInstanceOf(ReadException.class)
                .hasMessageContaining("Cannot read " + table)
                .hasMessageContaining("s3://" + bucket + "/" + committed + " changed since it was listed")
                .hasMessageContaining("read again (safe to retry)");
    }

    /**
     * Entries in the form written before the field existed (no {@code eTag}: written here by hand from the entries) still
     * read, and their files' GETs carry no condition; entries with it carry each file's ETag on the wire (S3Mock, HTTP).
     */
    @Test
    void entriesWithoutETagsStillReadAndEntriesWithThemPutTheETagOnTheWire() throws IOException {
        String local = TestLake.bucket();
        String uri = "s3://" + local + "/t/";
        S3Client s3 = TestLake.s3().client();
        WriteResult a = append(s3, uri, rows("a", 1));
        append(s3, uri, rows("b", 3));
        Map<String, String> heads = new TreeMap<>();
        for (String k : TestLake.keys(local, "t/region=" + P + "/")) {
            heads.put(k, s3.headObject(b -> b.bucket(local).key(k)).eTag());
        }

        ReplacedUnderItsNameTest.IfMatches wire = new ReplacedUnderItsNameTest.IfMatches();
        S3Client watched = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(wire)));
        assertThat(S3Parquet.read(uri).s3(watched).committedAfter(a.mark()).toList(Ev.class)).extracting(Ev::user)
                .containsExactlyInAnyOrder("b0", "b1", "b2");
        List<String[]> gets = wire.seen.stream().filter(g -> heads.containsKey(g[0])).toList();
        assertThat(gets).isNotEmpty();
        assertThat(gets).allSatisfy(g -> assertThat(g[1]).as(g[0]).isEqualTo(heads.get(g[0])));

        for (Map.Entry<String, JsonNode> e : entries(s3, local, "t/").entrySet()) {
            for (JsonNode added : e.getValue().get("added")) {
                assertThat(((ObjectNode) added).remove("eTag")).isNotNull();
            }
            s3.putObject(b -> b.bucket(local).key(e.getKey()), RequestBody.fromBytes(JSON.writeValueAsBytes(e.getValue())));
        }
        assertThat(new String(s3.getObjectAsBytes(b -> b.bucket(local).key(entriesKeys(s3, local).get(1))).asByteArray()))
                .doesNotContain("eTag");
        wire.seen.clear();
        assertThat(S3Parquet.read(uri).s3(watched).committedAfter(a.mark()).toList(Ev.class)).extracting(Ev::user)
                .containsExactlyInAnyOrder("b0", "b1", "b2");
        List<String[]> bare = wire.seen.stream().filter(g -> heads.containsKey(g[0])).toList();
        assertThat(bare).isNotEmpty();
        assertThat(bare).allSatisfy(g -> assertThat(g[1]).as(g[0]).isEmpty());
    }

    private static List<String> entriesKeys(S3Client s3, String bucket) {
        return TestLake.keys(bucket, "t/_wrangler/log/");
    }

    @Test
    void aStagedCopysEntryRecordsTheETagOfEachFile() throws IOException {
        append(mem(), table, rows("a", 2));
        lastEntryRecordsEveryETag("an append copied with CopyObject");
        S3Parquet.write(rows("m", 2)).partitionBy("region").mode(WriteMode.APPEND).s3(mem()).tuning(multipartCopies()).to(table);
        lastEntryRecordsEveryETag("an append copied in parts (UploadPartCopy, CompleteMultipartUpload)");
    }

    @Test
    void aDeferredUploadsEntryRecordsTheETagOfEachFile() throws IOException {
        S3Parquet.write(rows("a", 2)).partitionBy("region").commitMethod(CommitMethod.DEFERRED_UPLOADS).s3(mem()).to(table);
        lastEntryRecordsEveryETag("deferred uploads");
    }

    @Test
    void compactionMergeAndDeleteOfRowsRecordTheETagOfEachFile() throws IOException {
        append(mem(), table, rows("a", 2));
        append(mem(), table, rows("b", 2));
        S3Parquet.compact(table).s3(mem()).run();
        lastEntryRecordsEveryETag("a compaction");
        S3Parquet.merge(List.of(new Ev("a0", D, "new", 2, P))).on("user", "seen_on").s3(mem()).to(table);
        lastEntryRecordsEveryETag("a merge");
        S3Parquet.deleteRows(table).keys("user", List.of("b0")).s3(mem()).run();
        lastEntryRecordsEveryETag("a delete of rows");
        assertThat(S3Parquet.read(table).s3(mem()).toList(Ev.class)).extracting(Ev::user).containsExactlyInAnyOrder("a0", "a1", "b1");
    }

    /** A keyed append cut short at its commit point, before any file was in place, is rolled forward and logged by the recovery. */
    @Test
    void aRecoverysRollForwardRecordsTheETagOfEachFileItPutInPlace() throws IOException {
        append(mem(), table, rows("a", 1));
        assertThatThrownBy(() -> S3Parquet.write(rows("k", 2)).partitionBy("region").idempotencyKey("day").s3(mem())
                .tuning(Tunings.pastLeases()).stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        throw new SimulatedCrash(step, n);
                    }
                }).to(table)).isInstanceOf(SimulatedCrash.class);
        assertThat(entries(mem(), bucket, "t/")).hasSize(1);
        Tunings.recover(table, mem());
        assertThat(entries(mem(), bucket, "t/")).hasSize(2);
        lastEntryRecordsEveryETag("a recovery's roll forward");
    }

    /** Copies done part by part (UploadPartCopy, then CompleteMultipartUpload) for every file. */
    private static S3Parquet.Tuning multipartCopies() {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        return new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(), d.pageBytes(),
                d.maxOpenFiles(), d.deleteBatch(), 1, d.copyPartSize(), d.leaseTtl(), d.openBytes(), Duration.ZERO));
    }
}
