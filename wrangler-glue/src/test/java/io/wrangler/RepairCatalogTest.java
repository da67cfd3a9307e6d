package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.catalog.PartitionEntry;
import io.wrangler.commit.CatalogOnly;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** S3Parquet.repairCatalog: the catalog's partitions made to match the table's folders, from complete listings. */
class RepairCatalogTest {
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();

    public record Sale(String id, long cents, String dt) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private List<String> dts(String db, String name) {
        return CatalogLake.partitions(glue, db, name).stream().map(p -> p.values().get(0)).toList();
    }

    private static List<Sale> sales(String... dts) {
        List<Sale> out = new ArrayList<>();
        for (String dt : dts) {
            out.add(new Sale("s-" + dt, dt.hashCode() & 0xFFFF, dt));
        }
        return out;
    }

    @Test
    void missingPartitionsAreAddedAndGoneOnesRemovedOnlyWhenAsked() {
        String bucket = TestLakes.bucket("repair", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        S3Parquet.write(sales("1", "2", "3")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        // Outside the catalog: two partitions written without it, one folder deleted, a partition registered at another
        // prefix, and a write in flight's staging (never a partition).
        S3Parquet.write(sales("4", "5")).partitionBy("dt").s3(s3.client()).to(uri);
        CatalogLake.deleteFolder(s3, bucket, "sales/dt=1/");
        var sd = CatalogLake.partitions(glue, db, "sales").get(0).storageDescriptor().toBuilder().location("s3://" + bucket + "/archive/dt=9/").build();
        glue.client().createPartition(b -> b.databaseName(db).tableName("sales").partitionInput(p -> p.values("9").storageDescriptor(sd)));
        s3.put(bucket, "sales/_tmp/20240101T000000Z-0123456789abcdef/dt=8/part-00000-000-20240101T000000Z-0123456789abcdef.snappy.parquet",
                s3.get(bucket, s3.list(bucket, "sales/dt=2/").keySet().iterator().next()));
        Map<String, String> before = RegisterTableTest.objects(s3, bucket, "");

        RepairResult planned = S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).s3(s3.client()).plan();
        assertThat(planned.applied()).isFalse();
        assertThat(planned.added()).containsExactly(new PartitionEntry(List.of("4"), uri + "dt=4/"), new PartitionEntry(List.of("5"), uri + "dt=5/"));
        assertThat(planned.removed()).extracting(PartitionEntry::values).containsExactly(List.of("1"));
        assertThat(planned.outside()).containsExactly(new PartitionEntry(List.of("9"), "s3://" + bucket + "/archive/dt=9/"));
        assertThat(dts(db, "sales")).as("a plan changes nothing").containsExactly("1", "2", "3", "9");
        assertThat(RegisterTableTest.objects(s3, bucket, "")).isEqualTo(before);

        RepairResult kept = S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run();
        assertThat(kept.added()).extracting(PartitionEntry::values).containsExactly(List.of("4"), List.of("5"));
        assertThat(kept.removed()).isEmpty();
        assertThat(kept.missing()).extracting(PartitionEntry::values).containsExactly(List.of("1"));
        assertThat(dts(db, "sales")).containsExactly("1", "2", "3", "4", "5", "9");
        assertThat(CatalogLake.partitions(glue, db, "sales").get(3).storageDescriptor().location()).isEqualTo(uri + "dt=4/");
        assertThat(CatalogLake.partitions(glue, db, "sales").get(3).storageDescriptor().inputFormat())
                .isEqualTo("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");

        RepairResult synced = S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).s3(s3.client()).run();
        assertThat(synced.added()).isEmpty();
        assertThat(synced.removed()).extracting(PartitionEntry::values).containsExactly(List.of("1"));
        assertThat(synced.outside()).extracting(PartitionEntry::values).containsExactly(List.of("9"));
        assertThat(dts(db, "sales")).containsExactly("2", "3", "4", "5", "9");
        // The first run recovered the table under its lease: the abandoned staging (a folder named like a write id, no
        // manifest) is gone; no other object was touched, and the lease is released.
        before.keySet().removeIf(k -> k.startsWith("sales/_tmp/"));
        assertThat(RegisterTableTest.objects(s3, bucket, "")).isEqualTo(before);

        RepairResult again = S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).s3(s3.client()).run();
        assertThat(again.unchanged()).isTrue();

        // Glue now lists what the folders hold: a read by name gives what DuckDB reads by path (the partition outside,
        // whose folder is empty, adds nothing).
        List<List<Object>> byName = new ArrayList<>();
        for (Sale s : S3Parquet.read(catalog).s3(s3.client()).toList(Sale.class)) {
            byName.add(List.of(s.id(), s.cents(), s.dt()));
        }
        byName.sort(Comparator.comparing(r -> (String) r.get(0)));
        assertThat(byName).isEqualTo(DuckReader.query(s3, bucket, "sales/", "SELECT id, cents, CAST(dt AS VARCHAR) FROM t ORDER BY id"))
                .hasSize(4);
    }

    public record Place(String id, String country) {
    }

    @Test
    void aPartitionRegisteredAtAGoneFolderIsMovedToTheFolderHoldingItsValuesOnlyWithRemoveMissing() {
        String bucket = TestLakes.bucket("repair-moved", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/places/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "places");
        S3Parquet.write(List.of(new Place("p1", "RU"))).partitionBy("country").catalog(catalog).s3(s3.client()).to(uri);
        // 'a/b' registered at awswrangler's unescaped folder, which is gone; its rows now lie in the escaped Hive folder.
        S3Parquet.write(List.of(new Place("p2", "a/b"))).partitionBy("country").s3(s3.client()).to(uri);
        var sd = CatalogLake.partitions(glue, db, "places").get(0).storageDescriptor().toBuilder().location(uri + "country=a/b/").build();
        glue.client().createPartition(b -> b.databaseName(db).tableName("places").partitionInput(p -> p.values("a/b").storageDescriptor(sd)));

        RepairResult kept = S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run();
        assertThat(kept.added()).isEmpty();
        assertThat(kept.missing()).containsExactly(new PartitionEntry(List.of("a/b"), uri + "country=a/b/"));

        RepairResult moved = S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).s3(s3.client()).run();
        assertThat(moved.removed()).containsExactly(new PartitionEntry(List.of("a/b"), uri + "country=a/b/"));
        assertThat(moved.added()).containsExactly(new PartitionEntry(List.of("a/b"), uri + "country=a%2Fb/"));
        assertThat(CatalogLake.partitions(glue, db, "places")).extracting(p -> p.values().get(0), p -> p.storageDescriptor().location()).containsExactly(
                org.assertj.core.groups.Tuple.tuple("RU", uri + "country=RU/"), org.assertj.core.groups.Tuple.tuple("a/b", uri + "country=a%2Fb/"));
        assertThat(S3Parquet.read(catalog).s3(s3.client()).toList(Place.class)).containsExactlyInAnyOrder(new Place("p1", "RU"),
                new Place("p2", "a/b"));
    }

    @Test
    void decisionsComeFromEveryPageOfBothListingsAndGlueLimitsAreKept() {
        String bucket = TestLakes.bucket("repair-pages", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/wide/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "wide");
        S3Parquet.write(sales("0000")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        byte[] file = s3.get(bucket, s3.list(bucket, "wide/dt=0000/").keySet().iterator().next());
        // 1,049 partitions more, with two objects each: the table's listing runs over three pages, Glue's over two.
        for (int i = 1; i < 1050; i++) {
            String dt = String.format("%04d", i);
            s3.put(bucket, "wide/dt=" + dt + "/part-00000-000-x.snappy.parquet", file);
            s3.put(bucket, "wide/dt=" + dt + "/_SUCCESS", new byte[0]);
        }
        int creates = glue.calls("BatchCreatePartition");

        RepairResult r = S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run();

        assertThat(r.added()).hasSize(1049);
        assertThat(glue.calls("BatchCreatePartition") - creates).as("at most 100 a call").isEqualTo(11);
        assertThat(CatalogLake.partitions(glue, db, "wide")).hasSize(1050);

        // The last 30 folders, past the first page of either listing, go.
        for (int i = 1020; i < 1050; i++) {
            CatalogLake.deleteFolder(s3, bucket, "wide/dt=" + String.format("%04d", i) + "/");
        }
        int deletes = glue.calls("BatchDeletePartition");
        RepairResult synced = S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).s3(s3.client()).run();
        assertThat(synced.removed()).hasSize(30).extracting(e -> e.values().get(0)).allMatch(v -> v.compareTo("1020") >= 0);
        assertThat(synced.added()).isEmpty();
        assertThat(glue.calls("BatchDeletePartition") - deletes).as("at most 25 a call").isEqualTo(2);
        assertThat(CatalogLake.partitions(glue, db, "wide")).hasSize(1020);
    }

    @Test
    void aRepairCrashedAtEachStepIsFinishedByARerun() {
        String bucket = TestLakes.bucket("repair-crash", s3);
        String db = TestLakes.database(bucket);
        int n = 0;
        // fences: 1 and 2 BatchCreatePartition (100 + 20), 3 and 4 BatchDeletePartition (25 + 5)
        for (Object[] at : List.of(new Object[] {CatalogOnly.Step.LEASED, 1}, new Object[] {CatalogOnly.Step.RECOVERED, 1},
                new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 2}, new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 4})) {
            String uri = "s3://" + bucket + "/t" + n + "/";
            GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "t" + n++);
            List<String> old = new ArrayList<>();
            List<String> fresh = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                old.add("o" + i);
            }
            for (int i = 0; i < 120; i++) {
                fresh.add("n" + i);
            }
            S3Parquet.write(sales(old.toArray(String[]::new))).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
            S3Parquet.write(sales(fresh.toArray(String[]::new))).partitionBy("dt").s3(s3.client()).to(uri);
            old.forEach(dt -> CatalogLake.deleteFolder(s3, bucket, uri.substring(("s3://" + bucket + "/").length()) + "dt=" + dt + "/"));

            assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).s3(s3.client())
                    .hook((step, count) -> {
                        if (step == at[0] && count == (int) at[1]) {
                            throw new Crash();
                        }
                    }).run()).isInstanceOf(Crash.class);
            RepairResult r = S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).tuning(TestLakes.PAST_LEASES).s3(s3.client()).run();

            assertThat(dts(db, catalog.name())).as("crashed at %s %s", at[0], at[1]).containsExactlyInAnyOrderElementsOf(fresh);
            assertThat(r.added().size() + r.removed().size()).isPositive();
            assertThat(S3Parquet.repairCatalog(uri).catalog(catalog).removeMissing(true).s3(s3.client()).plan().unchanged()).isTrue();
        }
    }

    @Test
    void aCatalogRefusalIsTypedByWhetherAnythingChangedAndARerunFinishes() {
        String bucket = TestLakes.bucket("repair-refused", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        S3Parquet.write(sales("x")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        List<String> fresh = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            fresh.add(String.format("%03d", i));
        }
        S3Parquet.write(sales(fresh.toArray(String[]::new))).partitionBy("dt").s3(s3.client()).to(uri);
        String denied = "AccessDeniedException (User is not authorized to perform this operation)";

        glue.failNext("BatchCreatePartition", 1, io.wrangler.testkit.GlueFault.ACCESS_DENIED);
        assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(CatalogException.class)
                .hasMessage("Cannot repair the catalog of " + uri + " (step: catalog): Cannot register partitions in " + db + ".sales: Glue "
                        + "answered " + denied + ". Nothing was changed; fix the cause and run S3Parquet.repairCatalog(...).run() again.");
        assertThat(dts(db, "sales")).containsExactly("x");

        glue.failNth("BatchCreatePartition", 2, io.wrangler.testkit.GlueFault.ACCESS_DENIED);
        assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(WriteIncompleteException.class)
                .hasMessage("Cannot repair the catalog of " + uri + " (step: catalog): Cannot register partitions in " + db + ".sales: Glue "
                        + "answered " + denied + ". Part of it was done: run S3Parquet.repairCatalog(...).run() again (it is idempotent) to "
                        + "finish it.");
        assertThat(dts(db, "sales")).hasSize(101);
        glue.clearFaults();

        RepairResult r = S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run();
        assertThat(r.added()).hasSize(50);
        assertThat(dts(db, "sales")).hasSize(151);
    }

    @Test
    void aRepairRacingAWriterConflictsTypedOrSeesItsPartition() throws Exception {
        String bucket = TestLakes.bucket("repair-race", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        S3Parquet.write(sales("1")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        CatalogLake.Held writer = CatalogLake.heldAt(S3Parquet.write(sales("2")).partitionBy("dt").s3(s3.client()), uri, io.wrangler.commit.Step.MANIFEST_WRITTEN, 0);

        assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).catalog(catalog).leaseWait(Duration.ZERO).s3(s3.client()).run())
                .isInstanceOf(CommitConflictException.class).hasMessageContaining("(step: lease)");
        assertThat(dts(db, "sales")).containsExactly("1");

        var repair = CompletableFuture.supplyAsync(() -> S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run());
        writer.release();
        writer.write().get(60, TimeUnit.SECONDS);
        RepairResult r = repair.get(60, TimeUnit.SECONDS);

        assertThat(r.added()).containsExactly(new PartitionEntry(List.of("2"), uri + "dt=2/"));
        assertThat(dts(db, "sales")).containsExactly("1", "2");
    }

    @Test
    void badInputIsRefusedBeforeAnythingChanges() {
        String bucket = TestLakes.bucket("repair-bad", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot repair the catalog of " + uri + " (step: validate): the catalog has no table glue:" + db + ".sales. Register "
                        + "the dataset first with S3Parquet.register(uri).catalog(...).run(). Nothing was changed.");
        S3Parquet.write(sales("1")).partitionBy("dt").catalog(catalog).s3(s3.client()).to("s3://" + bucket + "/elsewhere/");
        assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot repair the catalog of " + uri + " (step: validate): the catalog's table glue:" + db + ".sales is at s3://"
                        + bucket + "/elsewhere/, not at " + uri + ". Repair it with its own location. Nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot repair the catalog of " + uri + " (step: validate): no catalog was given. Call catalog(...) with the table "
                        + "to repair. Nothing was changed.");
        // A stray object in the table's folders: refused, not guessed at.
        String at = "s3://" + bucket + "/elsewhere/";
        s3.put(bucket, "elsewhere/dt=1/extra/file.parquet", new byte[] {1});
        s3.put(bucket, "elsewhere/loose.parquet", new byte[] {1});
        assertThatThrownBy(() -> S3Parquet.repairCatalog(at).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot repair the catalog of " + at + " (step: validate): " + at + "loose.parquet lies in the folder '', which is not "
                        + "a partition folder of the columns [dt]. Move the stray object out of the table: a repair registers partition "
                        + "folders of the columns [dt] only. Nothing was changed.");
        assertThat(dts(db, "sales")).containsExactly("1");
    }
}
