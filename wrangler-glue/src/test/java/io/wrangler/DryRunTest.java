package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.PlannedWrite.ColumnChange;
import io.wrangler.PlannedWrite.Registration;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.PartitionInput;

/**
 * {@link WriteBuilder#plan}: for every mode, what the plan reports is what the write run right after it does (the files
 * it deletes, the partitions it writes and their rows), and the plan itself sends S3 no request but HeadBucket, LIST and
 * GET, asks Glue nothing but reads, and leaves the bucket and the catalog as they were. Bad input gets the write's own
 * error; a stream is refused before a batch of it is read.
 */
class DryRunTest {
    private static final Set<String> S3_READS = Set.of("HeadBucket", "ListObjectsV2", "GetObject", "HeadObject");

    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();
    private final String bucket = TestLakes.bucket("plan", s3);
    private final String db = TestLakes.database(bucket);
    private final String table = "s3://" + bucket + "/sales/";

    /** A row; names are already what the catalog makes of them. */
    public record Sale(String id, long cents, String dt) {
    }

    /** A row of the evolved schema: cents narrower than the catalog's, two new columns. */
    public record Evolved(String id, int cents, String note, int qty, String dt) {
    }

    private GlueTable catalog() {
        return GlueCatalog.of(glue.client()).table(db, "sales");
    }

    private static List<Sale> sales(String run, String dt, int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> new Sale(run + "-" + dt + "-" + i, 100L * (i + 1), dt)).toList();
    }

    private WriteBuilder write(List<?> rows, WriteMode mode) {
        @SuppressWarnings("unchecked")
        List<? extends Record> records = (List<? extends Record>) rows;
        return S3Parquet.write(records).partitionBy("dt").mode(mode).catalog(catalog()).s3(s3.client());
    }

    private Map<String, String> bucketContent() {
        Map<String, String> out = new TreeMap<>();
        s3.snapshot(bucket, "").forEach((k, v) -> out.put(k, Base64.getEncoder().encodeToString(v)));
        return out;
    }

    /** Runs the plan and checks that it sent only reads to S3 and Glue and changed nothing. */
    private PlannedWrite plan(WriteBuilder w) {
        return plan(w, table);
    }

    private PlannedWrite plan(WriteBuilder w, String uri) {
        Map<String, String> before = bucketContent();
        int glueCalls = glue.callLog().size();
        s3.clearRequests();
        PlannedWrite p = w.plan(uri);
        assertThat(s3.requests()).extracting(MemoryS3.Request::operation).isNotEmpty().allMatch(S3_READS::contains);
        assertThat(s3.requests()).noneMatch(r -> r.key() != null && r.key().contains("_tmp/") && !r.operation().equals("ListObjectsV2"));
        assertThat(glue.callLog().subList(glueCalls, glue.callLog().size())).allMatch(c -> c.startsWith("Get") || c.startsWith("BatchGet"));
        assertThat(bucketContent()).isEqualTo(before);
        assertThat(s3.openMultipartUploads(bucket, "")).isEmpty();
        return p;
    }

    /** The write did what the plan said: the same deleted files, partitions, rows, and files replaced in each partition. */
    private static void assertDid(PlannedWrite p, WriteResult r) {
        assertThat(r.deletedFiles()).containsExactlyInAnyOrderElementsOf(p.filesToReplace().stream().map(PlannedWrite.File::uri).toList());
        assertThat(r.rows()).isEqualTo(p.rows());
        assertThat(p.partitions()).extracting(PlannedWrite.Partition::location)
                .containsExactlyInAnyOrderElementsOf(r.partitions().stream().map(PartitionResult::prefix).toList());
        for (PartitionResult done : r.partitions()) {
            PlannedWrite.Partition planned = p.partitions().stream().filter(x -> x.location().equals(done.prefix())).findFirst().orElseThrow();
            assertThat(planned.values()).isEqualTo(done.values());
            assertThat(planned.rows()).isEqualTo(done.rows());
            assertThat(planned.replaces()).extracting(PlannedWrite.File::uri).containsExactlyInAnyOrderElementsOf(done.replacedFiles());
        }
    }

    private long size(String uri) {
        return s3.list(bucket, uri.substring(("s3://" + bucket + "/").length())).values().iterator().next();
    }

    /** Moves the files of a registered partition under {@code folder} and registers it there, as another tool may. */
    private void moveRegistered(String dt, String folder) {
        for (String key : s3.list(bucket, "sales/dt=" + dt + "/").keySet()) {
            s3.put(bucket, "sales/" + folder + key.substring(key.lastIndexOf('/') + 1), s3.get(bucket, key));
            s3.client().deleteObject(d -> d.bucket(bucket).key(key));
        }
        Partition p = glue.client().getPartition(g -> g.databaseName(db).tableName("sales").partitionValues(dt)).partition();
        glue.client().deletePartition(d -> d.databaseName(db).tableName("sales").partitionValues(dt));
        glue.client().createPartition(c -> c.databaseName(db).tableName("sales").partitionInput(PartitionInput.builder()
                .values(dt).storageDescriptor(p.storageDescriptor().toBuilder().location(table + folder).build()).build()));
    }

    @Test
    void overwritePartitionsPlansTheFilesOfEachTouchedPartitionAtItsRegisteredLocation() {
        write(sales("a", "2024-01-15", 2), WriteMode.APPEND).to(table);
        write(sales("a", "2024-01-16", 3), WriteMode.APPEND).to(table);
        moveRegistered("2024-01-16", "moved/16/");
        String moved = table + "moved/16/" + s3.list(bucket, "sales/moved/16/").keySet().iterator().next().substring("sales/moved/16/".length());
        List<Sale> tonight = new java.util.ArrayList<>(sales("b", "2024-01-16", 4));
        tonight.addAll(sales("b", "2024-01-17", 1));
        WriteBuilder nightly = write(tonight, WriteMode.OVERWRITE_PARTITIONS);

        PlannedWrite p = plan(nightly);

        assertThat(p.table()).isEqualTo(table);
        assertThat(p.mode()).isEqualTo(WriteMode.OVERWRITE_PARTITIONS);
        assertThat(p.rows()).isEqualTo(5);
        assertThat(p.tableRegistration()).isEqualTo(Registration.REGISTERED);
        assertThat(p.columnChanges()).isEmpty();
        assertThat(p.recoveryPending()).isFalse();
        assertThat(p.filesToReplace()).containsExactly(new PlannedWrite.File(moved, size(moved)));
        assertThat(p.partitions()).containsExactly(
                new PlannedWrite.Partition(List.of("2024-01-16"), table + "moved/16/", true, Registration.REGISTERED, 4,
                        List.of(new PlannedWrite.File(moved, size(moved)))),
                new PlannedWrite.Partition(List.of("2024-01-17"), table + "dt=2024-01-17/", false, Registration.NEW, 1, List.of()));
        assertThat(p.describe()).isEqualTo(String.format(Locale.ROOT, """
                plan of OVERWRITE_PARTITIONS to %1$s (table registered): 5 rows in 2 partitions, replaces 1 file (%2$,d bytes)
                  [moved/16] %1$smoved/16/ (registered Location): 4 rows, replaces 1 file (%2$,d bytes)
                  [dt=2024-01-17] %1$sdt=2024-01-17/ (new): 1 row, replaces nothing""", table, size(moved)));
        assertThat(p).hasToString(p.describe());

        WriteResult r = nightly.to(table); // the same builder: a plan does not use it up
        assertDid(p, r);
        assertThat(s3.list(bucket, "sales/").keySet()).noneMatch(k -> k.equals(moved.substring(("s3://" + bucket + "/").length())));
    }

    @Test
    void overwritePlansEveryFileOfTheTableAndThePlainAppendNone() {
        write(sales("a", "2024-01-15", 2), WriteMode.APPEND).to(table);
        write(sales("a", "2024-01-16", 2), WriteMode.APPEND).to(table);
        s3.put(bucket, "sales/stray.txt", "not ours".getBytes(StandardCharsets.UTF_8));

        WriteBuilder append = write(sales("b", "2024-01-16", 1), WriteMode.APPEND);
        PlannedWrite planned = plan(append);
        assertThat(planned.filesToReplace()).isEmpty();
        assertThat(planned.partitions()).singleElement().satisfies(x -> {
            assertThat(x.registration()).isEqualTo(Registration.REGISTERED);
            assertThat(x.replaces()).isEmpty();
        });
        assertDid(planned, append.to(table));

        WriteBuilder overwrite = write(sales("c", "2024-01-17", 2), WriteMode.OVERWRITE);
        PlannedWrite p = plan(overwrite);
        assertThat(p.filesToReplace()).hasSize(4).extracting(PlannedWrite.File::uri).contains(table + "stray.txt");
        assertThat(p.filesToReplace()).filteredOn(f -> f.uri().endsWith("stray.txt")).singleElement()
                .extracting(PlannedWrite.File::bytes).isEqualTo(8L);
        // every object of the table but its commit log (_wrangler/), which an overwrite keeps
        assertThat(p.bytesToReplace()).isEqualTo(s3.list(bucket, "sales/").entrySet().stream().filter(e -> !e.getKey().startsWith("sales/_wrangler/"))
                .mapToLong(e -> e.getValue()).sum());
        assertThat(p.partitions()).singleElement().satisfies(x -> assertThat(x.replaces()).isEmpty());
        assertDid(p, overwrite.to(table));
    }

    @Test
    void withoutACatalogThePlanSaysSoAndAsksGlueNothing() {
        String plain = "s3://" + bucket + "/plain/";
        S3Parquet.write(sales("a", "2024-01-15", 2)).partitionBy("dt").s3(s3.client()).to(plain);
        WriteBuilder replace = S3Parquet.write(sales("b", "2024-01-15", 1)).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS)
                .s3(s3.client());
        int glueCalls = glue.callLog().size();
        PlannedWrite p = plan(replace, plain);
        assertThat(glue.callLog()).hasSize(glueCalls);
        assertThat(p.tableRegistration()).isEqualTo(Registration.NO_CATALOG);
        assertThat(p.partitions()).singleElement().satisfies(x -> {
            assertThat(x.registration()).isEqualTo(Registration.NO_CATALOG);
            assertThat(x.location()).isEqualTo(plain + "dt=2024-01-15/");
            assertThat(x.replaces()).hasSize(1);
        });
        assertThat(p.describe()).startsWith("plan of OVERWRITE_PARTITIONS to " + plain + " (no catalog): 1 row in 1 partition, replaces 1 file");
        assertDid(p, replace.to(plain));
    }

    @Test
    void aKeyedRerunPlansItsKeysEarlierFilesAndTheMarkedFilesHoldingRowsOfItsKey() {
        write(sales("k1", "2024-01-15", 2), WriteMode.APPEND).idempotencyKey("k1").to(table);
        write(sales("k2", "2024-01-15", 1), WriteMode.APPEND).idempotencyKey("k2").to(table);
        write(sales("k3", "2024-01-16", 1), WriteMode.APPEND).idempotencyKey("k3").to(table);
        String k1File = table + s3.list(bucket, "sales/dt=2024-01-15/").keySet().stream().filter(k -> k.contains("-k-k1"))
                .findFirst().orElseThrow().substring("sales/".length());

        WriteBuilder rerun = write(sales("k1b", "2024-01-15", 3), WriteMode.APPEND).idempotencyKey("k1");
        PlannedWrite p = plan(rerun);
        assertThat(p.idempotencyKey()).isEqualTo("k1");
        assertThat(p.filesToReplace()).containsExactly(new PlannedWrite.File(k1File, size(k1File)));
        assertDid(p, rerun.to(table));

        S3Parquet.compact(table).catalog(catalog()).s3(s3.client()).run();
        String marked = table + s3.list(bucket, "sales/dt=2024-01-15/").keySet().iterator().next().substring("sales/".length());
        assertThat(marked).endsWith("_k.snappy.parquet");
        WriteBuilder again = write(sales("k2b", "2024-01-15", 1), WriteMode.APPEND).idempotencyKey("k2");
        PlannedWrite q = plan(again);
        assertThat(q.filesToReplace()).containsExactly(new PlannedWrite.File(marked, size(marked)));
        assertDid(q, again.to(table));
        // the rewrite of the marked file holds rows of k1 only: a rerun of another key reads its footer and replaces nothing
        assertThat(s3.list(bucket, "sales/dt=2024-01-15/").keySet()).anyMatch(k -> k.endsWith("_k.snappy.parquet"));
        WriteBuilder other = write(sales("k9", "2024-01-15", 1), WriteMode.APPEND).idempotencyKey("k9");
        PlannedWrite none = plan(other);
        assertThat(s3.requests()).extracting(MemoryS3.Request::operation).contains("GetObject");
        assertThat(none.filesToReplace()).isEmpty();
        assertDid(none, other.to(table));
    }

    @Test
    void aBucketedOverwriteOfPartitionsPlansEachPartitionsRowsAndFiles() {
        WriteBuilder first = write(sales("a", "2024-01-15", 8), WriteMode.APPEND).bucketBy(List.of("id"), 4);
        first.to(table);
        List<Sale> rows = new java.util.ArrayList<>(sales("b", "2024-01-15", 6));
        rows.addAll(sales("b", "2024-01-16", 3));
        WriteBuilder replace = write(rows, WriteMode.OVERWRITE_PARTITIONS).bucketBy(List.of("id"), 4);
        PlannedWrite p = plan(replace);
        assertThat(p.partitions()).extracting(PlannedWrite.Partition::rows).containsExactly(6L, 3L);
        assertThat(p.filesToReplace()).hasSize(s3.list(bucket, "sales/dt=2024-01-15/").size()).hasSizeGreaterThan(1);
        assertDid(p, replace.to(table));
    }

    @Test
    void thePlanReportsTheSchemaChangeAgainstTheCatalogsTable() {
        write(sales("a", "2024-01-15", 1), WriteMode.APPEND).to(table);
        WriteBuilder evolved = write(List.of(new Evolved("e", 5, "n", 2, "2024-01-16")), WriteMode.APPEND).dtype(Map.of("qty", "bigint"));
        PlannedWrite p = plan(evolved);
        assertThat(p.columnChanges()).containsExactly(
                new ColumnChange("cents", ColumnChange.Kind.WIDENED, "int", "bigint"),
                new ColumnChange("qty", ColumnChange.Kind.CAST, "int", "bigint"),
                new ColumnChange("note", ColumnChange.Kind.ADDED, null, "string"),
                new ColumnChange("qty", ColumnChange.Kind.ADDED, null, "bigint"));
        assertDid(p, evolved.to(table));

        WriteBuilder redefine = S3Parquet.write(List.of(new Sale("x", 1, "2024-01-16"), new Sale("y", 2, "2024-01-17")))
                .partitionBy("dt").mode(WriteMode.OVERWRITE).catalog(catalog()).s3(s3.client());
        PlannedWrite q = plan(redefine);
        assertThat(q.tableRegistration()).isEqualTo(Registration.REGISTERED);
        assertThat(q.partitions()).extracting(PlannedWrite.Partition::registration).containsExactly(Registration.REGISTERED, Registration.NEW);
        assertThat(q.columnChanges()).containsExactlyInAnyOrder(
                new ColumnChange("note", ColumnChange.Kind.DROPPED, "string", null),
                new ColumnChange("qty", ColumnChange.Kind.DROPPED, "bigint", null));
        assertDid(q, redefine.to(table));

        String fresh = "s3://" + bucket + "/fresh/";
        PlannedWrite n = S3Parquet.write(sales("a", "2024-01-15", 1)).partitionBy("dt").s3(s3.client())
                .catalog(GlueCatalog.of(glue.client()).table(db, "fresh")).plan(fresh);
        assertThat(n.tableRegistration()).isEqualTo(Registration.NEW);
        assertThat(n.partitions()).singleElement().extracting(PlannedWrite.Partition::registration).isEqualTo(Registration.NEW);
        assertThat(glue.client().getTables(t -> t.databaseName(db)).tableList()).extracting(t -> t.name()).containsExactly("sales");
    }

    @Test
    void aPlanSaysWhenTheTableHoldsAnInterruptedWriteThatTheWriteRecoversFirst() {
        write(sales("a", "2024-01-15", 1), WriteMode.APPEND).to(table);
        // a folder named like a write id (one that is not, another tool's, is left alone by recovery and not counted)
        s3.put(bucket, "sales/_tmp/20240115T000000Z-0123456789abcdef/manifest.json", "{}".getBytes(StandardCharsets.UTF_8));
        PlannedWrite p = plan(write(sales("b", "2024-01-15", 1), WriteMode.OVERWRITE_PARTITIONS));
        assertThat(p.recoveryPending()).isTrue();
        assertThat(p.describe().lines().findFirst().orElseThrow()).endsWith("replaces 1 file (" + String.format(Locale.ROOT, "%,d",
                p.bytesToReplace()) + " bytes); _tmp/ holds a running or interrupted write, which the write waits for or recovers first");
    }

    @Test
    void aTableNestedInsideIsRefusedAsTheWriteRefusesIt() {
        write(sales("a", "2024-01-15", 1), WriteMode.APPEND).to(table);
        s3.put(bucket, "sales/inner/_tmp/w1/manifest.json", "{}".getBytes(StandardCharsets.UTF_8));
        String expected = "Cannot write " + table + " (step: validate): another table lies inside this one: " + table
                + "inner/_tmp/w1/manifest.json is the staging of a write to a table under " + table + ", and tables must not nest "
                + "(this write would replace that table's files). Give each table a prefix of its own. Nothing of either table was changed.";
        WriteBuilder overwrite = write(sales("b", "2024-01-16", 1), WriteMode.OVERWRITE);
        Map<String, String> before = bucketContent();
        assertThatThrownBy(() -> overwrite.plan(table)).isInstanceOf(InvalidWriteException.class).hasMessage(expected);
        assertThat(bucketContent()).isEqualTo(before);
        assertThatThrownBy(() -> overwrite.to(table)).isInstanceOf(InvalidWriteException.class).hasMessage(expected);
    }

    @Test
    void badInputGetsTheWritesOwnError() {
        write(sales("a", "2024-01-15", 1), WriteMode.APPEND).to(table);
        String expected = "Cannot write " + table + " (step: validate): the partition column 'nope' is not in the input, whose columns "
                + "are [id, cents, dt]. Pass columns of the input to partitionBy(...).";
        WriteBuilder bad = write(sales("b", "2024-01-15", 1), WriteMode.OVERWRITE_PARTITIONS).partitionBy("nope");
        Map<String, String> before = bucketContent();
        assertThatThrownBy(() -> bad.plan(table)).isInstanceOf(InvalidWriteException.class).hasMessage(expected);
        assertThatThrownBy(() -> bad.to(table)).isInstanceOf(InvalidWriteException.class).hasMessage(expected);

        WriteBuilder narrowing = S3Parquet.write(List.of(new Evolved("e", 5, "n", 2, "2024-01-16"))).partitionBy("dt")
                .dtype(Map.of("id", "int")).catalog(catalog()).s3(s3.client());
        Throwable planned = org.assertj.core.api.Assertions.catchThrowable(() -> narrowing.plan(table));
        Throwable written = org.assertj.core.api.Assertions.catchThrowable(() -> narrowing.to(table));
        assertThat(planned).isInstanceOf(InvalidWriteException.class).hasMessage(written.getMessage())
                .hasMessageStartingWith("Cannot write " + table + " (step: validate): dtype asks for the column 'id' as int");

        assertThatThrownBy(() -> write(List.of(), WriteMode.OVERWRITE).plan(table)).isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the input has no rows, and OVERWRITE with no rows would "
                        + "delete the whole table. If the table should really be emptied, delete its objects explicitly; otherwise "
                        + "check the job's input.");
        assertThat(bucketContent()).isEqualTo(before);
        PlannedWrite nothing = write(List.of(), WriteMode.APPEND).plan(table);
        assertThat(nothing).isEqualTo(new PlannedWrite(table, WriteMode.APPEND, null, 0, List.of(), List.of(), Registration.REGISTERED,
                List.of(), false));
    }

    @Test
    void aStreamIsRefusedBeforeABatchOfItIsReadAndTheSameBuilderStillWritesIt() throws IOException {
        Schema schema = new Schema(List.of(Field.nullable("id", ArrowType.Utf8.INSTANCE), Field.nullable("cents", new ArrowType.Int(64, true)),
                new Field("dt", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
             ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
            writer.start();
            ((VarCharVector) root.getVector("id")).setSafe(0, "s".getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector("cents")).setSafe(0, 7);
            ((VarCharVector) root.getVector("dt")).setSafe(0, "2024-01-15".getBytes(StandardCharsets.UTF_8));
            root.setRowCount(1);
            writer.writeBatch();
            writer.end();
        }
        try (BufferAllocator allocator = new RootAllocator();
             ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator)) {
            WriteBuilder stream = S3Parquet.write(reader).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(catalog()).s3(s3.client());
            Map<String, String> before = bucketContent();
            s3.clearRequests();
            assertThatThrownBy(() -> stream.plan(table)).isInstanceOf(InvalidWriteException.class).hasMessage("Cannot plan " + table
                    + " (step: validate): the input is a stream (S3Parquet.write(ArrowReader)), which can be read only once: its "
                    + "partitions, and the files the write would replace, are known only by reading it, and the write would then have "
                    + "nothing left to read. Load the stream into a VectorSchemaRoot (or records), then plan and write that; nothing "
                    + "was read or written.");
            assertThat(s3.requests()).isEmpty();
            assertThat(bucketContent()).isEqualTo(before);
            WriteResult r = stream.to(table);
            assertThat(r.rows()).isEqualTo(1);
        }
        // a stream whose schema the write refuses gets the write's error, not the refusal of streams
        try (BufferAllocator allocator = new RootAllocator();
             ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator)) {
            assertThatThrownBy(() -> S3Parquet.write(reader).partitionBy("nope").s3(s3.client()).plan(table))
                    .isInstanceOf(InvalidWriteException.class).hasMessage("Cannot write " + table + " (step: validate): the partition "
                            + "column 'nope' is not in the input, whose columns are [id, cents, dt]. Pass columns of the input to "
                            + "partitionBy(...).");
        }
    }
}
