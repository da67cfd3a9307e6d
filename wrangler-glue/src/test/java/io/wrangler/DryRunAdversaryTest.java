package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.GlueFault;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.PartitionInput;

/**
 * Adversarial cases of {@link WriteBuilder#plan}: failing reads, an Arrow root planned then written by the same builder,
 * a table another tool wrote (foreign names, a deeper folder inside a partition's).
 */
class DryRunAdversaryTest {
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();
    private final String bucket = TestLakes.bucket("planadv", s3);
    private final String db = TestLakes.database(bucket);
    private final String table = "s3://" + bucket + "/sales/";

    public record Sale(String id, long cents, String dt) {
    }

    private GlueTable catalog() {
        return GlueCatalog.of(glue.client()).table(db, "sales");
    }

    private WriteBuilder write(List<Sale> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt").mode(mode).catalog(catalog()).s3(s3.client());
    }

    private Map<String, String> bucketContent() {
        Map<String, String> out = new TreeMap<>();
        s3.snapshot(bucket, "").forEach((k, v) -> out.put(k, Base64.getEncoder().encodeToString(v)));
        return out;
    }

    @Test
    void aFailingListingGetsTheStorageErrorAndChangesNothing() {
        write(List.of(new Sale("a", 1, "2024-01-15")), WriteMode.APPEND).to(table);
        WriteBuilder replace = write(List.of(new Sale("b", 2, "2024-01-15")), WriteMode.OVERWRITE_PARTITIONS);
        Map<String, String> before = bucketContent();
        s3.failWhereKeyContains("ListObjectsV2", "_tmp/", S3Fault.ACCESS_DENIED);
        Throwable tmp = catchThrowable(() -> replace.plan(table));
        assertThat(tmp).isInstanceOf(StorageException.class).hasMessageStartingWith("Cannot list the staging folder " + table
                + "_tmp/ for " + table + " (step: validate): S3 answered AccessDenied (HTTP 403), request id ")
                .hasMessageEndingWith(". Nothing was changed; rerun the plan.");
        s3.clearKeyFaults();
        s3.failWhereKeyContains("ListObjectsV2", "dt=2024-01-15", S3Fault.INTERNAL_ERROR);
        s3.clearRequests();
        Throwable part = catchThrowable(() -> replace.plan(table));
        // the listing's error in the plan's words (the write's name its publish step and tell to rerun the write)
        assertThat(part).isInstanceOf(StorageException.class).hasMessageStartingWith("Cannot list the old files for " + table
                + " (step: validate): S3 answered InternalError (HTTP 500)").hasMessageEndingWith(". Nothing was changed; rerun the plan.");
        assertThat(s3.requests()).extracting(MemoryS3.Request::operation).allMatch(o -> o.equals("HeadBucket") || o.equals("ListObjectsV2"));
        s3.clearKeyFaults();
        assertThat(bucketContent()).isEqualTo(before);
    }

    @Test
    void anArrowRootPlannedThenWrittenByTheSameBuilderWritesItsValues() {
        write(List.of(new Sale("a", 1, "2024-01-15")), WriteMode.APPEND).to(table);
        Schema schema = new Schema(List.of(Field.nullable("id", ArrowType.Utf8.INSTANCE), Field.nullable("cents", new ArrowType.Int(32, true)),
                Field.nullable("dt", ArrowType.Utf8.INSTANCE)));
        try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            for (int i = 0; i < 3; i++) {
                ((VarCharVector) root.getVector("id")).setSafe(i, ("r" + i).getBytes(StandardCharsets.UTF_8));
                ((IntVector) root.getVector("cents")).setSafe(i, 10 * (i + 1));
                ((VarCharVector) root.getVector("dt")).setSafe(i, (i == 2 ? "2024-01-16" : "2024-01-15").getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(3);
            WriteBuilder w = S3Parquet.write(root).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(catalog()).s3(s3.client());
            PlannedWrite p = w.plan(table);
            assertThat(p.rows()).isEqualTo(3);
            assertThat(p.columnChanges()).containsExactly(new PlannedWrite.ColumnChange("cents", PlannedWrite.ColumnChange.Kind.WIDENED, "int", "bigint"));
            PlannedWrite again = w.plan(table);
            assertThat(again).isEqualTo(p);
            WriteResult r = w.to(table);
            assertThat(r.rows()).isEqualTo(3);
            assertThat(root.getRowCount()).isEqualTo(3);
            assertThat(((IntVector) root.getVector("cents")).get(2)).isEqualTo(30);
        }
        assertThat(DuckReader.query(s3, bucket, "sales/", "SELECT id, cents, CAST(dt AS VARCHAR) FROM t ORDER BY id")).containsExactly(
                List.of("r0", 10L, "2024-01-15"), List.of("r1", 20L, "2024-01-15"), List.of("r2", 30L, "2024-01-16"));
    }

    @Test
    void aForeignTablesFilesArePlannedAndADeeperFolderIsLeftAsTheWriteLeavesIt() {
        write(List.of(new Sale("a", 1, "2024-01-15")), WriteMode.APPEND).to(table);
        String ours = s3.list(bucket, "sales/dt=2024-01-15/").keySet().iterator().next();
        byte[] parquet = s3.get(bucket, ours);
        s3.put(bucket, "sales/dt=2024-01-15/4f1c0e2a9b7d4c1e8a3f6b5d2c9e7a10.snappy.parquet", parquet); // awswrangler's naming
        s3.put(bucket, "sales/dt=2024-01-15/b c=d:e/part.snappy.parquet", parquet); // awswrangler registers such folders inside
        s3.put(bucket, "sales/dt=2024-01-15X/other.snappy.parquet", parquet);
        WriteBuilder replace = write(List.of(new Sale("b", 2, "2024-01-15")), WriteMode.OVERWRITE_PARTITIONS);
        PlannedWrite p = replace.plan(table);
        assertThat(p.filesToReplace()).extracting(PlannedWrite.File::uri).containsExactlyInAnyOrder("s3://" + bucket + "/" + ours,
                table + "dt=2024-01-15/4f1c0e2a9b7d4c1e8a3f6b5d2c9e7a10.snappy.parquet");
        assertThat(p.partitions()).singleElement().satisfies(x -> assertThat(x.replaces()).hasSize(2));
        WriteResult r = replace.to(table);
        assertThat(r.deletedFiles()).containsExactlyInAnyOrderElementsOf(p.filesToReplace().stream().map(PlannedWrite.File::uri).toList());
        assertThat(s3.list(bucket, "sales/").keySet()).contains("sales/dt=2024-01-15/b c=d:e/part.snappy.parquet",
                "sales/dt=2024-01-15X/other.snappy.parquet");
    }

    @Test
    void aKeyedRerunWhoseMarkedFilesFooterCannotBeReadFailsThePlanInItsOwnWords() {
        write(List.of(new Sale("k1", 1, "2024-01-15")), WriteMode.APPEND).idempotencyKey("k1").to(table);
        write(List.of(new Sale("k2", 2, "2024-01-15")), WriteMode.APPEND).idempotencyKey("k2").to(table);
        S3Parquet.compact(table).catalog(catalog()).s3(s3.client()).run();
        assertThat(s3.list(bucket, "sales/dt=2024-01-15/").keySet()).singleElement().asString().endsWith("_k.snappy.parquet");
        WriteBuilder rerun = write(List.of(new Sale("k1b", 3, "2024-01-15")), WriteMode.APPEND).idempotencyKey("k1");
        Map<String, String> before = bucketContent();
        s3.failWhereKeyContains("GetObject", "_k.snappy.parquet", S3Fault.ACCESS_DENIED);
        s3.clearRequests();
        Throwable planned = catchThrowable(() -> rerun.plan(table));
        assertThat(s3.requests()).extracting(MemoryS3.Request::operation).allMatch(o -> List.of("HeadBucket", "ListObjectsV2", "GetObject",
                "HeadObject").contains(o));
        assertThat(bucketContent()).isEqualTo(before);
        Throwable written = catchThrowable(() -> rerun.to(table));
        s3.clearKeyFaults();
        // the plan's failed read in its own words; the write's in the write's, the request id aside
        assertThat(planned).isInstanceOf(StorageException.class).hasMessageStartingWith("Cannot read the key runs of " + table
                + "dt=2024-01-15/").hasMessageContaining("_k.snappy.parquet for " + table + " (step: validate): S3 answered "
                + "AccessDenied (HTTP 403), request id ").hasMessageEndingWith(". Nothing was changed; rerun the plan.");
        String rest = ". Nothing of the table was changed; this write's staged files were removed. Rerun the write.";
        String start = "Cannot rewrite the files that hold rows of this key for " + table + " (step: stage): S3 answered AccessDenied "
                + "(HTTP 403), request id ";
        assertThat(written).isInstanceOf(StorageException.class).hasMessageStartingWith(start).hasMessageEndingWith(rest);
        assertThat(bucketContent().keySet().stream().filter(k -> !k.endsWith("_lease.json")).toList())
                .isEqualTo(before.keySet().stream().filter(k -> !k.endsWith("_lease.json")).toList());
    }

    @Test
    void aFailingCatalogReadGetsTheWritesErrorAndChangesNothing() {
        write(List.of(new Sale("a", 1, "2024-01-15")), WriteMode.APPEND).to(table);
        WriteBuilder replace = write(List.of(new Sale("b", 2, "2024-01-15")), WriteMode.OVERWRITE_PARTITIONS);
        Map<String, String> before = bucketContent();
        glue.failNext("GetTable", 100, GlueFault.ACCESS_DENIED);
        Throwable planned;
        Throwable written;
        try {
            planned = catchThrowable(() -> replace.plan(table));
            written = catchThrowable(() -> replace.to(table));
        } finally {
            glue.clearFaults(); // the faults not met would fail the next test's Glue reads (the LocalGlue is shared)
        }
        assertThat(planned).isInstanceOf(CatalogException.class).hasMessage(written.getMessage()).hasMessage("Cannot read the Glue table "
                + db + ".sales for " + table + " (step: validate): Glue answered AccessDeniedException (User is not authorized to "
                + "perform this operation). Check the IAM permissions (glue:GetDatabase, glue:GetTable) and the client's region; "
                + "nothing was written.");
        assertThat(bucketContent()).isEqualTo(before);
    }

    @Test
    void aPartitionRegisteredOutsideTheTableGetsTheWritesErrorFromThePlan() {
        write(List.of(new Sale("a", 1, "2024-01-15")), WriteMode.APPEND).to(table);
        s3.put(bucket, "elsewhere/dt=2024-01-15/keep.parquet", new byte[] {1});
        moveOutside();
        for (WriteMode mode : List.of(WriteMode.APPEND, WriteMode.OVERWRITE_PARTITIONS, WriteMode.OVERWRITE)) {
            WriteBuilder w = write(List.of(new Sale("b", 2, "2024-01-15")), mode);
            Map<String, String> before = bucketContent();
            s3.clearRequests();
            Throwable planned = catchThrowable(() -> w.plan(table));
            assertThat(s3.requests()).extracting(MemoryS3.Request::operation).allMatch(o -> List.of("HeadBucket", "ListObjectsV2",
                    "GetObject", "HeadObject").contains(o));
            assertThat(bucketContent()).isEqualTo(before);
            Throwable written = catchThrowable(() -> w.to(table));
            if (mode != WriteMode.OVERWRITE) {
                assertThat(planned).as(mode.name()).isInstanceOf(InvalidWriteException.class).hasMessage(written.getMessage())
                        .hasMessageContaining("which is outside the table root " + table);
                continue;
            }
            // OVERWRITE redefines the table: the plan says the partition goes to its Hive folder, and the write does that
            assertThat(planned).isNull();
            assertThat(written).isNull();
            assertThat(glue.client().getPartition(g -> g.databaseName(db).tableName("sales").partitionValues("2024-01-15")).partition()
                    .storageDescriptor().location()).isEqualTo(table + "dt=2024-01-15/");
        }
        assertThat(s3.list(bucket, "elsewhere/").keySet()).containsExactly("elsewhere/dt=2024-01-15/keep.parquet");
        WriteBuilder redefine = write(List.of(new Sale("c", 3, "2024-01-15")), WriteMode.OVERWRITE);
        moveOutside();
        PlannedWrite p = redefine.plan(table);
        assertThat(p.partitions()).singleElement().satisfies(x -> {
            assertThat(x.location()).isEqualTo(table + "dt=2024-01-15/");
            assertThat(x.registeredElsewhere()).isFalse();
            assertThat(x.registration()).isEqualTo(PlannedWrite.Registration.REGISTERED);
        });
        WriteResult r = redefine.to(table);
        assertThat(r.deletedFiles()).containsExactlyInAnyOrderElementsOf(p.filesToReplace().stream().map(PlannedWrite.File::uri).toList());
        assertThat(s3.list(bucket, "elsewhere/").keySet()).containsExactly("elsewhere/dt=2024-01-15/keep.parquet");
    }

    @Test
    void aFileNamedAsMarkedWithoutKeyRunsGetsTheWritesErrorFromAKeyedRerunsPlan() {
        write(List.of(new Sale("a", 1, "2024-01-15")), WriteMode.APPEND).to(table);
        String plain = s3.list(bucket, "sales/dt=2024-01-15/").keySet().iterator().next();
        String writeId = plain.substring(plain.indexOf("-000-") + 5, plain.indexOf(".snappy"));
        s3.put(bucket, "sales/dt=2024-01-15/part-00000-000-" + writeId + "_k.snappy.parquet", s3.get(bucket, plain));
        WriteBuilder rerun = write(List.of(new Sale("k", 2, "2024-01-15")), WriteMode.APPEND).idempotencyKey("k1");
        Map<String, String> before = bucketContent();
        Throwable planned = catchThrowable(() -> rerun.plan(table));
        assertThat(bucketContent()).isEqualTo(before);
        Throwable written = catchThrowable(() -> rerun.to(table));
        assertThat(written).isInstanceOf(InvalidWriteException.class).hasMessageContaining("is marked as recording its rows' keys but "
                + "its footer has no wrangler.keys");
        assertThat(planned).isInstanceOf(InvalidWriteException.class).hasMessage(written.getMessage());
    }

    @Test
    void aBucketedKeyedRerunAfterACompactionPlansTheMarkedBucketFilesItRewrites() {
        for (String k : List.of("k1", "k2")) {
            write(List.of(new Sale(k + "-a", 1, "2024-01-15"), new Sale(k + "-b", 2, "2024-01-15"), new Sale(k + "-c", 3, "2024-01-15")),
                    WriteMode.APPEND).bucketBy(List.of("id"), 2).idempotencyKey(k).to(table);
        }
        S3Parquet.compact(table).catalog(catalog()).s3(s3.client()).run();
        List<String> marked = s3.list(bucket, "sales/dt=2024-01-15/").keySet().stream().toList();
        assertThat(marked).isNotEmpty().allMatch(k -> k.contains("_k_bucket-"));
        WriteBuilder rerun = write(List.of(new Sale("k1-z", 9, "2024-01-15")), WriteMode.APPEND).bucketBy(List.of("id"), 2)
                .idempotencyKey("k1");
        s3.clearRequests();
        Map<String, String> before = bucketContent();
        PlannedWrite p = rerun.plan(table);
        assertThat(bucketContent()).isEqualTo(before);
        assertThat(s3.requests()).extracting(MemoryS3.Request::operation).allMatch(o -> List.of("HeadBucket", "ListObjectsV2", "GetObject",
                "HeadObject").contains(o));
        WriteResult r = rerun.to(table);
        assertThat(r.deletedFiles()).isNotEmpty()
                .containsExactlyInAnyOrderElementsOf(p.filesToReplace().stream().map(PlannedWrite.File::uri).toList());
        assertThat(DuckReader.query(s3, bucket, "sales/", "SELECT id, cents FROM t ORDER BY id")).containsExactly(
                List.of("k1-z", 9L), List.of("k2-a", 1L), List.of("k2-b", 2L), List.of("k2-c", 3L));
    }

    @Test
    void aPlanWhileAnotherWriteHoldsTheLeaseNeitherWaitsNorTouchesTheLease() throws Exception {
        write(List.of(new Sale("a", 1, "2024-01-15")), WriteMode.APPEND).to(table);
        MemoryS3.Hold copies = s3.holdWhereKeyContains("CopyObject", "dt=2024-01-15/");
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<WriteResult> running = other.submit(
                    () -> write(List.of(new Sale("b", 2, "2024-01-15")), WriteMode.OVERWRITE_PARTITIONS).to(table));
            assertThat(copies.awaitHeld(java.time.Duration.ofSeconds(60))).as("the other write reached its publish step").isTrue();
            Map<String, String> before = bucketContent();
            s3.clearRequests();
            PlannedWrite p = write(List.of(new Sale("c", 3, "2024-01-16")), WriteMode.OVERWRITE_PARTITIONS).plan(table);
            assertThat(p.recoveryPending()).isTrue();
            assertThat(p.filesToReplace()).isEmpty();
            assertThat(s3.requests()).noneMatch(r -> r.key() != null && r.key().contains("_lease"))
                    .extracting(MemoryS3.Request::operation).allMatch(o -> List.of("HeadBucket", "ListObjectsV2", "GetObject",
                            "HeadObject").contains(o));
            assertThat(bucketContent()).isEqualTo(before);
            copies.release();
            assertThat(running.get(60, java.util.concurrent.TimeUnit.SECONDS).rows()).isEqualTo(1);
        } finally {
            copies.release();
            other.shutdownNow();
        }
        assertThat(DuckReader.query(s3, bucket, "sales/", "SELECT id FROM t")).containsExactly(List.of("b"));
    }

    /** Registers dt=2024-01-15 at a Location outside the table, as another tool may. */
    private void moveOutside() {
        Partition old = glue.client().getPartition(g -> g.databaseName(db).tableName("sales").partitionValues("2024-01-15")).partition();
        glue.client().deletePartition(d -> d.databaseName(db).tableName("sales").partitionValues("2024-01-15"));
        glue.client().createPartition(c -> c.databaseName(db).tableName("sales").partitionInput(PartitionInput.builder().values("2024-01-15")
                .storageDescriptor(old.storageDescriptor().toBuilder().location("s3://" + bucket + "/elsewhere/dt=2024-01-15/").build())
                .build()));
    }
}
