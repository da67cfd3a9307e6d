package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.wrangler.CrashRecoveryTest.SimulatedCrash;
import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;

/**
 * What a table's {@code _tmp/} holds is input, not truth (issue 32): manifests left by real crashes (the step hook), then
 * edited, and leases that are not wrangler's, never make recovery, a write or a reader act beyond the table, drop its
 * rows silently, or fail with anything but a typed exception.
 */
class TmpTrustTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MemoryS3 s3 = TestLake.memory();
    private final S3Client client = s3.client();

    /** A table {@code t/} with appends A and B (3 rows each, one partition), and two tables beside it. */
    private final class Lake {
        final String bucket = TestLake.memoryBucket();
        final String table = "s3://" + bucket + "/t/";
        final String writeA;
        final String archiveFile;
        final Map<String, String> outside;

        Lake() {
            writeA = write(orders("a", 3), WriteMode.APPEND).to(table).writeId();
            write(orders("b", 3), WriteMode.APPEND).to(table);
            write(orders("archive", 2), WriteMode.APPEND).to("s3://" + bucket + "/t-archive/");
            archiveFile = TestLake.keys(bucket, "t-archive/dt=2024-01-15/country=RU/").get(0);
            s3.put(bucket, "t-archive/keep.parquet", s3.get(bucket, archiveFile));
            s3.put(bucket, "other/dt=2024-01-15/part-00000.parquet", s3.get(bucket, archiveFile));
            outside = outside();
        }

        /** Every object outside {@code t/}, with its content's digest. */
        Map<String, String> outside() {
            Map<String, String> all = new TreeMap<>();
            TestLake.snapshot(bucket, "").forEach((k, v) -> {
                if (!k.startsWith("t/")) {
                    all.put(k, v.length + ":" + java.util.Arrays.hashCode(v));
                }
            });
            return all;
        }

        String manifestKey() {
            return TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith("/_manifest.json")).findFirst().orElseThrow();
        }

        ObjectNode manifest() {
            return (ObjectNode) tree(s3.get(bucket, manifestKey()));
        }

        void edit(BiConsumer<ObjectNode, Lake> change) {
            String key = manifestKey();
            ObjectNode m = manifest();
            change.accept(m, this);
            s3.put(bucket, key, bytes(m));
        }

        List<String> read() {
            try {
                return ReadTest.readAll(S3Parquet.read(table).s3(client).open()).get("orderId").stream().sorted().toList();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        /** The rows DuckDB reads straight from the table's files, {@code _tmp/} skipped. */
        List<Object> duck() {
            return TestLake.query(bucket, "t/", "SELECT \"orderId\" FROM t ORDER BY 1").stream().map(r -> r.get(0)).toList();
        }
    }

    private static JsonNode tree(byte[] b) {
        try {
            return JSON.readTree(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(JsonNode n) {
        try {
            return JSON.writeValueAsBytes(n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Order> orders(String tag, int n) {
        return Orders.orders(tag, List.of(D15), List.of("RU"), n);
    }

    private WriteBuilder write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).s3(client).tuning(Tunings.pastLeases());
    }

    private static io.wrangler.spi.StepHook crashAt(Step at) {
        return (step, n) -> {
            if (step == at && n == 1) {
                throw new SimulatedCrash(step, n);
            }
        };
    }

    private static List<String> ids(String tag, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(tag + "-2024-01-15-RU-" + i);
        }
        return out;
    }

    private static List<String> sorted(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out.stream().sorted().toList();
    }

    private static final List<String> AB = sorted(ids("a", 3), ids("b", 3));

    // ---- item 1: roll forward never deletes outside the table ----

    @Test
    void aCompactionsReplacedFilesOutsideTheTableAreRefusedAndNothingIsDeleted() {
        Lake lake = new Lake();
        assertThatThrownBy(() -> S3Parquet.compact(lake.table).s3(client).tuning(Tunings.pastLeases())
                .stepHook(crashAt(Step.MANIFEST_WRITTEN)).run()).isInstanceOf(SimulatedCrash.class);
        lake.edit((m, l) -> ((ArrayNode) m.get("replaces")).add("other/dt=2024-01-15/part-00000.parquet").add("t-archive/keep.parquet"));
        String manifest = "s3://" + lake.bucket + "/" + lake.manifestKey();
        String folder = manifest.substring(0, manifest.length() - "_manifest.json".length());

        assertThatThrownBy(() -> Tunings.recover(lake.table, client)).isInstanceOf(CommitStateUnknownException.class)
                .hasMessage("Cannot recover " + lake.table + " (step: recover): the manifest " + manifest + " does not belong to this "
                        + "table: it lists the replaced file other/dt=2024-01-15/part-00000.parquet outside the table. Nothing was "
                        + "touched. No recovery, write or read acts on a manifest that names anything outside its own write and table. "
                        + "If the table was copied with the _tmp/ folder of the table it names (copy tables without _tmp/), recover "
                        + "that table first if it is still interrupted there; otherwise something other than wrangler wrote it. Then "
                        + "delete " + folder + " from this table by hand.");
        assertThatThrownBy(lake::read).isInstanceOf(ReadException.class).hasMessage("Cannot read " + lake.table + " (step: list): the "
                + "manifest " + manifest + " does not belong to this table: it lists the replaced file "
                + "other/dt=2024-01-15/part-00000.parquet outside the table. Readers and recovery act on no such manifest, so which "
                + "files are visible cannot be decided. Nothing was changed. Inspect it; if it is not a write of this table, delete "
                + folder + " by hand, then read again.");
        assertThat(lake.outside()).as("everything outside t/").isEqualTo(lake.outside);
        assertThat(lake.duck()).containsExactlyElementsOf(new ArrayList<>(AB));
    }

    // ---- item 4: a reader refuses what recovery refuses ----

    @Test
    void aManifestInAnotherWritesFolderFailsTheReadInsteadOfHidingThatWritesRows() {
        Lake lake = new Lake();
        assertThatThrownBy(() -> write(orders("c", 2), WriteMode.APPEND).stepHook(crashAt(Step.COPIED_FILE)).to(lake.table))
                .isInstanceOf(SimulatedCrash.class);
        lake.edit((m, l) -> m.put("writeId", l.writeA));

        assertThatThrownBy(lake::read).isInstanceOf(ReadException.class)
                .hasMessageContaining("does not belong to this table: it records the write " + lake.writeA + " in the folder of ");
        assertThatThrownBy(() -> Tunings.recover(lake.table, client)).isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("does not belong to this table: it records the write " + lake.writeA + " in the folder of ");
        assertThat(lake.outside()).isEqualTo(lake.outside);
    }

    // ---- item 5: never a partition with neither old nor new files ----

    @Test
    void aReplacedKeyThatNeverExistedDoesNotShowACommittedOverwriteAsAfterBeforeItsFilesAreInPlace() {
        Lake lake = new Lake();
        assertThatThrownBy(() -> write(orders("c", 2), WriteMode.OVERWRITE_PARTITIONS).stepHook(crashAt(Step.MANIFEST_WRITTEN))
                .to(lake.table)).isInstanceOf(SimulatedCrash.class);
        lake.edit((m, l) -> ((ArrayNode) m.get("replaces")).add("t/dt=2024-01-15/country=RU/part-00000-000-never.snappy.parquet"));

        assertThat(lake.read()).as("the table as before: the overwrite's files are not in place").isEqualTo(AB);
        RecoveryResult r = Tunings.recover(lake.table, client);
        assertThat(r.rolledForward()).hasSize(1);
        assertThat(lake.read()).isEqualTo(ids("c", 2));
        assertThat(lake.duck()).containsExactlyElementsOf(new ArrayList<>(ids("c", 2)));
        assertThat(lake.outside()).isEqualTo(lake.outside);
    }

    // ---- item 6: missing fields and unreadable leases are typed; no table blocked for ever ----

    @Test
    void aManifestWithoutAStateIsATypedRefusalForRecoveryWritesAndReaders() {
        Lake lake = new Lake();
        assertThatThrownBy(() -> write(orders("c", 2), WriteMode.OVERWRITE_PARTITIONS).stepHook(crashAt(Step.MANIFEST_WRITTEN))
                .to(lake.table)).isInstanceOf(SimulatedCrash.class);
        lake.edit((m, l) -> m.remove("state"));
        String manifest = "s3://" + lake.bucket + "/" + lake.manifestKey();

        assertThatThrownBy(() -> Tunings.recover(lake.table, client)).isInstanceOf(CommitStateUnknownException.class)
                .hasMessage("Cannot recover " + lake.table + " (step: recover): the manifest " + manifest + " cannot be read (it lacks "
                        + "the field 'state'). Nothing was touched. Do not delete it: inspect it, and upgrade wrangler if it was written by "
                        + "a newer version.");
        assertThatThrownBy(() -> write(orders("d", 1), WriteMode.APPEND).to(lake.table)).isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("cannot be read (it lacks the field 'state')");
        assertThatThrownBy(lake::read).isInstanceOf(ReadException.class).hasMessageContaining("cannot be parsed (it lacks the field 'state')");
        assertThat(lake.duck()).containsExactlyElementsOf(new ArrayList<>(AB));
    }

    @Test
    void anUnreadableLeaseIsTakenOverOnceOlderThanTheDefaultTimeToLive() {
        Lake lake = new Lake();
        for (String body : List.of("not json", "{}", "[]", "null", "{\"owner\": \"x\", \"token\": \"y\"}",
                "{\"owner\": \"x\", \"token\": \"y\", \"ttlMillis\": \"10000\"}",
                "{\"owner\": \"x\", \"token\": \"y\", \"ttlMillis\": 99999999999999999999}",
                "{\"owner\": \"x\", \"token\": \"y\", \"ttlMillis\": 1.5}", "{\"owner\": \"x\", \"ttlMillis\": 10000}",
                "{\"owner\": 5, \"token\": 7, \"ttlMillis\": 10000}", "{\"ttlMillis\": 10000, \"owner\": \"x\"")) {
            s3.put(lake.bucket, "t/_tmp/_lease.json", body.getBytes(StandardCharsets.UTF_8));
            RecoveryResult r = Tunings.recover(lake.table, client);
            assertThat(r.rolledBack()).as(body).isEmpty();
            assertThat(TestLake.keys(lake.bucket, "t/_tmp/")).as(body).isEmpty();
        }
        s3.put(lake.bucket, "t/_tmp/_lease.json", "{\"owner\": \"x\", \"token\": \"y\"}".getBytes(StandardCharsets.UTF_8));
        write(orders("c", 1), WriteMode.APPEND).to(lake.table);
        assertThat(lake.read()).isEqualTo(sorted(AB, ids("c", 1)));
    }

    @Test
    void aWriterThatStopsWaitingForAnUnreadableLeaseIsToldWhatToDo() {
        Lake lake = new Lake();
        s3.put(lake.bucket, "t/_tmp/_lease.json", "{\"owner\": \"x\", \"token\": \"y\"}".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> S3Parquet.write(orders("c", 1)).partitionBy("dt", "country").s3(client).leaseWait(Duration.ZERO)
                .to(lake.table)).isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot write " + lake.table + " (step: lease): its lease s3://" + lake.bucket + "/t/_tmp/_lease.json "
                        + "is an unreadable lease (it has no ttlMillis), not one wrangler wrote. It is taken over once its object is 10 s old "
                        + "(it is ")
                .hasMessageEndingWith("s old now), as a crashed writer's lease would be. Nothing was written; rerun then, or, if no writer "
                        + "of this table is running, remove it now with: aws s3api delete-object --bucket " + lake.bucket
                        + " --key t/_tmp/_lease.json");
        assertThat(lake.read()).isEqualTo(AB);
    }

    // ---- item 7: recovery publishes with its own request settings ----

    @Test
    void aManifestsRequestSettingsAreNeverAppliedByRecovery() {
        Lake lake = new Lake();
        assertThatThrownBy(() -> write(orders("c", 2), WriteMode.OVERWRITE_PARTITIONS).stepHook(crashAt(Step.MANIFEST_WRITTEN))
                .to(lake.table)).isInstanceOf(SimulatedCrash.class);
        lake.edit((m, l) -> m.putObject("requests").put("acl", "public-read").put("sse", "aws:kms").put("kmsKeyId", "arn:other"));
        String id = lake.manifest().get("writeId").asText();
        s3.clearRequests();

        assertThatThrownBy(() -> Tunings.recover(lake.table, client)).isInstanceOf(CommitStateUnknownException.class)
                .hasMessage("Cannot recover " + lake.table + " (step: recover): the committed write " + id + " records the request "
                        + "settings (sse aws:kms, kmsKeyId arn:other, acl public-read, expectedBucketOwner null), and this recovery runs "
                        + "with (sse null, kmsKeyId null, acl null, expectedBucketOwner null); recovery publishes only with the settings "
                        + "of the job that recovers, never a manifest's. Nothing was touched. Rerun the write (or a compaction) with the "
                        + "encryption, ACL and expected bucket owner the write had: it recovers first, with them.");
        assertThat(s3.requests()).extracting(MemoryS3.Request::request).noneMatch(r -> r instanceof CopyObjectRequest);
        assertThat(lake.read()).isEqualTo(AB);
    }

    // ---- every field of every manifest kind, forged in turn ----

    /** A kind of interrupted write, made by a real crash. */
    private enum Kind {
        APPEND, KEYED, OVERWRITE, COMPACTION, DEFERRED, PUBLISHED
    }

    private List<String> crash(Lake lake, Kind kind) {
        Runnable run = switch (kind) {
            case APPEND -> () -> write(orders("c", 2), WriteMode.APPEND).stepHook(crashAt(Step.COPIED_FILE)).to(lake.table);
            case KEYED -> () -> write(orders("c", 2), WriteMode.APPEND).idempotencyKey("k1").stepHook(crashAt(Step.MANIFEST_WRITTEN))
                    .to(lake.table);
            case OVERWRITE -> () -> write(orders("c", 2), WriteMode.OVERWRITE_PARTITIONS).stepHook(crashAt(Step.MANIFEST_WRITTEN))
                    .to(lake.table);
            case COMPACTION -> () -> S3Parquet.compact(lake.table).s3(client).tuning(Tunings.pastLeases())
                    .stepHook(crashAt(Step.MANIFEST_WRITTEN)).run();
            case DEFERRED -> () -> write(orders("c", 2), WriteMode.OVERWRITE_PARTITIONS).commitMethod(CommitMethod.DEFERRED_UPLOADS)
                    .stepHook(crashAt(Step.MANIFEST_WRITTEN)).to(lake.table);
            case PUBLISHED -> () -> write(orders("c", 2), WriteMode.OVERWRITE_PARTITIONS).stepHook(crashAt(Step.BEFORE_CATALOG))
                    .to(lake.table);
        };
        assertThatThrownBy(run::run).isInstanceOf(SimulatedCrash.class);
        return switch (kind) {
            case APPEND, COMPACTION -> AB;
            case KEYED -> sorted(AB, ids("c", 2));
            case OVERWRITE, DEFERRED, PUBLISHED -> ids("c", 2);
        };
    }

    /** Forgeries of one manifest: by name, the edit, and whether every reader of it must refuse it. */
    private static Map<String, Forgery> forgeries(Lake lake, ObjectNode m) {
        Map<String, Forgery> out = new LinkedHashMap<>();
        String b = lake.bucket;
        String id = m.get("writeId").asText();
        String finalKey = m.get("files").get(0).get("finalKey").asText();
        String name = finalKey.substring(finalKey.lastIndexOf('/') + 1);
        // A's file, as A named it (a published overwrite has deleted it since)
        String fileA = "t/dt=2024-01-15/country=RU/part-00000-000-" + lake.writeA + ".snappy.parquet";
        for (String t : List.of("s3://" + b + "/t-archive/", "s3://" + b + "/other/", "s3://" + b + "/t/../t-archive/", "s3://" + b + "/t",
                "s3://" + b + "/t/x/", "s3://" + b + "/T/")) {
            out.put("table=" + t, new Forgery((n, l) -> n.put("table", t), true));
        }
        out.put("table missing", new Forgery((n, l) -> n.remove("table"), true));
        out.put("table a number", new Forgery((n, l) -> n.put("table", 5), true));
        out.put("writeId of another write", new Forgery((n, l) -> n.put("writeId", l.writeA), true));
        out.put("writeId ..", new Forgery((n, l) -> n.put("writeId", ".."), true));
        out.put("writeId missing", new Forgery((n, l) -> n.remove("writeId"), true));
        out.put("writeId an object", new Forgery((n, l) -> n.putObject("writeId"), true));
        out.put("state missing", new Forgery((n, l) -> n.remove("state"), true));
        out.put("state a number", new Forgery((n, l) -> n.put("state", 1), true));
        out.put("state lower case", new Forgery((n, l) -> n.put("state", "committed"), true));
        out.put("mode missing", new Forgery((n, l) -> n.remove("mode"), true));
        out.put("mode a number", new Forgery((n, l) -> n.put("mode", 2), true));
        out.put("format missing", new Forgery((n, l) -> n.remove("format"), true));
        out.put("format text", new Forgery((n, l) -> n.put("format", "two"), true));
        out.put("format 3", new Forgery((n, l) -> n.put("format", 3), true));
        out.put("keyId not carried", new Forgery((n, l) -> n.put("keyId", "k-other-0123456789abcdef"), true));
        out.put("partitionColumns missing", new Forgery((n, l) -> n.remove("partitionColumns"), true));
        out.put("partitionColumns a string", new Forgery((n, l) -> n.put("partitionColumns", "dt"), true));
        out.put("partitionColumns one short", new Forgery((n, l) -> ((ArrayNode) n.get("partitionColumns")).remove(1), true));
        for (String f : List.of("../t-archive/dt=2024-01-15/country=RU/", "_tmp/x/../../../t-archive/dt=2024-01-15/country=RU/",
                "dt=2024-01-15/country=%2e%2e/", "dt=2024-01-15/%2E/", "dt=2024-01-15//country=RU/", "/dt=2024-01-15/country=RU/", "",
                "dt=2024-01-15/country=RU", "dt=2024-01-15/_tmp/", "dt=2024-01-15\\country=RU/", "dt=2024-01-15/..%2F..%2Ft-archive/")) {
            out.put("partition folder " + f, new Forgery((n, l) -> ((ObjectNode) n.get("partitions").get(0)).put("folder", f), true));
        }
        out.put("partition folder missing", new Forgery((n, l) -> ((ObjectNode) n.get("partitions").get(0)).remove("folder"), true));
        out.put("partition folder a number", new Forgery((n, l) -> ((ObjectNode) n.get("partitions").get(0)).put("folder", 5), true));
        out.put("partition values missing", new Forgery((n, l) -> ((ObjectNode) n.get("partitions").get(0)).remove("values"), true));
        out.put("partition values a string", new Forgery((n, l) -> ((ObjectNode) n.get("partitions").get(0)).put("values", "RU"), true));
        out.put("partition values one more", new Forgery((n, l) -> ((ArrayNode) n.get("partitions").get(0).get("values")).add("x"), true));
        out.put("partitions null element", new Forgery((n, l) -> ((ArrayNode) n.get("partitions")).addNull(), true));
        for (String k : List.of("t-archive/keep.parquet", lake.archiveFile, "other/dt=2024-01-15/part-00000.parquet", fileA,
                "t/dt=2024-01-15/country=RU/../../../t-archive/dt=2024-01-15/country=RU/" + name, "t/_tmp/" + id + "/" + name,
                "t/dt=2024-01-15/country=%2e%2e/" + name, "t/other/" + name, "t/dt=2024-01-15/country=RU/", "t-archive/dt=2024-01-15/country=RU/" + name)) {
            out.put("finalKey " + k, new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).put("finalKey", k), true));
        }
        out.put("finalKey missing", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).remove("finalKey"), true));
        out.put("finalKey a number", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).put("finalKey", 5), true));
        out.put("file folder of another partition", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0))
                .put("folder", "dt=2024-01-16/country=RU/"), true));
        out.put("files a string", new Forgery((n, l) -> n.put("files", "x"), true));
        out.put("file rows text", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).put("rows", "many"), true));
        out.put("file bytes null", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).putNull("bytes"), true));
        if (m.get("files").get(0).hasNonNull("stagedKey")) {
            for (String k : List.of(lake.archiveFile, "t-archive/keep.parquet", fileA, "t/_tmp/" + lake.writeA + "/" + name,
                    "t/_tmp/" + id + "/../../../t-archive/keep.parquet", "t/_tmp/" + id + "/_manifest.json", "t/_tmp/" + id + "/",
                    "t/_tmp/" + id + "/%2e%2e/%2e%2e/t-archive/keep.parquet")) {
                out.put("stagedKey " + k, new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).put("stagedKey", k), true));
            }
            out.put("stagedKey missing", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).remove("stagedKey"), true));
            out.put("uploadId without parts", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).put("uploadId", "u"), true));
        } else {
            out.put("etags missing", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).remove("etags"), true));
            out.put("uploadId of nothing", new Forgery((n, l) -> ((ObjectNode) n.get("files").get(0)).put("uploadId", "nothing"), false));
        }
        for (String k : List.of("other/dt=2024-01-15/part-00000.parquet", "t-archive/keep.parquet", lake.archiveFile,
                "t/../t-archive/keep.parquet", "t/%2e%2e/t-archive/keep.parquet", "t/_tmp/x/y.parquet", finalKey, "t/dt=2024-01-15/",
                "s3://" + b + "/t-archive/keep.parquet")) {
            out.put("replaces + " + k, new Forgery((n, l) -> replaces(n).add(k), true));
        }
        out.put("replaces + a number", new Forgery((n, l) -> replaces(n).add(5), true));
        out.put("replaces a string", new Forgery((n, l) -> n.put("replaces", "t/x"), true));
        out.put("replaces + a key that never existed", new Forgery((n, l) -> replaces(n)
                .add("t/dt=2024-01-15/country=RU/part-00000-000-never.snappy.parquet"), false));
        out.put("catalog with an unreadable schema", new Forgery((n, l) -> n.put("catalog", "glue:x.y").put("schema", "{"), true));
        out.put("catalog without a schema", new Forgery((n, l) -> n.put("catalog", "glue:x.y").remove("schema"), true));
        out.put("another catalog", new Forgery((n, l) -> n.put("catalog", "glue:x.y"), false));
        out.put("createdAt a number", new Forgery((n, l) -> n.put("createdAt", 5), false));
        return out;
    }

    private static ArrayNode replaces(ObjectNode m) {
        return m.get("replaces") instanceof ArrayNode a ? a : m.putArray("replaces");
    }

    private record Forgery(BiConsumer<ObjectNode, Lake> edit, boolean refused) {
    }

    /**
     * Each kind's crash is made once, by a real crash, and its bucket put back as the crash left it before each forgery
     * ({@link MemoryS3#restore}): every case starts from the same objects, ETags, Last-Modified and open uploads, as if
     * the lake had been built and crashed afresh, for a fraction of the CPU.
     */
    @Test
    void everyForgedFieldOfEveryManifestKindIsRefusedOrHarmless() {
        List<String> failures = new ArrayList<>();
        int cases = 0;
        for (Kind kind : Kind.values()) {
            Lake lake = new Lake();
            List<String> after = crash(lake, kind);
            List<String> crashed = lake.duck().stream().map(Object::toString).toList();
            MemoryS3.Checkpoint crash = s3.checkpoint(lake.bucket);
            List<Map.Entry<String, Forgery>> forgeries = new ArrayList<>(forgeries(lake, lake.manifest()).entrySet());
            for (int i = 0; i < forgeries.size(); i++) {
                cases++;
                String what = kind + ", forgery " + i + " (" + forgeries.get(i).getKey() + ")";
                s3.restore(crash);
                try {
                    check(lake, after, crashed, forgeries.get(i).getValue(), what, failures);
                } catch (AssertionError | RuntimeException e) {
                    failures.add(what + ": " + e);
                }
            }
        }
        assertThat(failures).as(cases + " forged manifests").isEmpty();
    }

    /** Applies {@code forgery} to the lake's crashed manifest, then reads, recovers and reads again. */
    private void check(Lake lake, List<String> after, List<String> crashed, Forgery forgery, String what, List<String> failures) {
        Set<List<String>> allowed = new java.util.HashSet<>(List.of(AB, after));
        lake.edit(forgery.edit());
        Throwable read = readOutcome(lake, allowed, what, failures);
        Throwable recovered = null;
        try {
            Tunings.recover(lake.table, client);
        } catch (RuntimeException e) {
            recovered = e;
            if (!(e instanceof WranglerException)) {
                failures.add(what + ": recover threw an untyped " + e);
            }
        }
        if (forgery.refused()) {
            if (!(recovered instanceof CommitStateUnknownException)) {
                failures.add(what + ": recover was not refused: " + recovered);
            }
            if (!(read instanceof ReadException)) {
                failures.add(what + ": the read was not refused: " + read);
            }
        }
        if (!lake.outside().equals(lake.outside)) {
            failures.add(what + ": objects outside the table changed");
        }
        readOutcome(lake, allowed, what + " (after recover)", failures);
        List<Object> duck = lake.duck();
        List<String> files = duck.stream().map(Object::toString).toList();
        if (!allowed.contains(files) && !files.equals(crashed)) {
            failures.add(what + ": the table's files hold " + duck);
        }
    }

    private static Throwable readOutcome(Lake lake, Set<List<String>> allowed, String what, List<String> failures) {
        try {
            List<String> rows = lake.read();
            if (!allowed.contains(rows)) {
                failures.add(what + ": the reader returned " + rows);
            }
            return null;
        } catch (RuntimeException e) {
            if (!(e instanceof WranglerException)) {
                failures.add(what + ": the reader threw an untyped " + e);
            }
            return e;
        }
    }
}
