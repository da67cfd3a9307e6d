package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.CatalogOnly;
import io.wrangler.commit.WriteSpec;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/** S3Parquet.dropTable: a table removed from its catalog, and with its data under the lease. */
class DropTableTest {
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();

    public record Sale(String id, String dt) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private static List<Sale> sales(int n, String prefix) {
        List<Sale> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Sale(prefix + i, "d" + (i % 7)));
        }
        return out;
    }

    @Test
    void catalogOnlyKeepsTheDataAndWithDataEverythingUnderThePrefixGoes() {
        String bucket = TestLakes.bucket("drop", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        S3Parquet.write(sales(20, "s")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        S3Parquet.write(sales(3, "n")).partitionBy("dt").s3(s3.client()).to("s3://" + bucket + "/sales2/");
        Map<String, String> data = RegisterTableTest.objects(s3, bucket, "");

        DropTableResult planned = S3Parquet.dropTable(uri).catalog(catalog).s3(s3.client()).plan();
        assertThat(planned).isEqualTo(new DropTableResult(uri, "glue:" + db + ".sales", true, 0, 0, false));
        assertThat(CatalogLake.exists(glue, db, "sales")).isTrue();
        DropTableResult r = S3Parquet.dropTable(uri).catalog(catalog).s3(s3.client()).run();
        assertThat(r).isEqualTo(new DropTableResult(uri, "glue:" + db + ".sales", true, 0, 0, true));
        assertThat(CatalogLake.exists(glue, db, "sales")).isFalse();
        assertThat(RegisterTableTest.objects(s3, bucket, "")).as("the data kept, the lease released").isEqualTo(data);
        // Idempotent: the rerun finds nothing to drop.
        assertThat(S3Parquet.dropTable(uri).catalog(catalog).s3(s3.client()).run().catalogTable()).isFalse();

        // Registered again, then dropped with its data: a stray _tmp/ object and an open upload go too, the neighbour stays.
        S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run();
        s3.put(bucket, "sales/_tmp/20240101T000000Z-0123456789abcdef/dt=d1/x.parquet", new byte[] {1});
        s3.client().createMultipartUpload(b -> b.bucket(bucket).key("sales/dt=d1/part-00009-000-20240101T000000Z-0123456789abcdef.parquet"));
        int objects = s3.list(bucket, "sales/").size();
        DropTableResult plan = S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).s3(s3.client()).plan();
        assertThat(plan).isEqualTo(new DropTableResult(uri, "glue:" + db + ".sales", true, objects, 1, false));
        assertThat(s3.list(bucket, "sales/")).hasSize(objects);

        DropTableResult dropped = S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).s3(s3.client()).run();

        assertThat(dropped).isEqualTo(new DropTableResult(uri, "glue:" + db + ".sales", true, objects, 1, true));
        assertThat(s3.list(bucket, "sales/")).as("every object, _tmp/ and the lease included").isEmpty();
        assertThat(s3.client().listMultipartUploads(b -> b.bucket(bucket).prefix("sales/")).uploads()).isEmpty();
        assertThat(CatalogLake.exists(glue, db, "sales")).isFalse();
        assertThat(s3.list(bucket, "sales2/")).as("a prefix that only starts like the table's is another table").isNotEmpty();
    }

    @Test
    void aDropCrashedAtEachStepIsFinishedByARerun() {
        String bucket = TestLakes.bucket("drop-crash", s3);
        String db = TestLakes.database(bucket);
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults().withClockOffset(TestLakes.PAST_LEASES.engine().clockOffset());
        // delete batches of 3 objects: fence 1 DeleteTable, then one fence per batch
        S3Parquet.Tuning small = new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(),
                d.pageBytes(), d.maxOpenFiles(), 3, d.singleCopyLimit(), d.copyPartSize(), d.leaseTtl(), d.openBytes(), d.clockOffset()));
        int n = 0;
        for (Object[] at : List.of(new Object[] {CatalogOnly.Step.LEASED, 1}, new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 1},
                new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 2}, new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 3})) {
            String uri = "s3://" + bucket + "/t" + n + "/";
            String prefix = "t" + n + "/";
            GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "t" + n++);
            S3Parquet.write(sales(20, "s")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
            int before = s3.list(bucket, prefix).size();

            assertThatThrownBy(() -> S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).tuning(small).s3(s3.client())
                    .hook((step, count) -> {
                        if (step == at[0] && count == (int) at[1]) {
                            throw new Crash();
                        }
                    }).run()).isInstanceOf(Crash.class);
            assertThat(s3.list(bucket, prefix).size()).as("crashed at %s %s: part of it at most", at[0], at[1])
                    .isBetween(before - 3 * Math.max(0, (int) at[1] - 2), before);
            DropTableResult r = S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).tuning(small).s3(s3.client()).run();

            assertThat(r.applied()).isTrue();
            assertThat(s3.list(bucket, prefix)).as("crashed at %s %s", at[0], at[1]).isEmpty();
            assertThat(CatalogLake.exists(glue, db, catalog.name())).isFalse();
        }
    }

    @Test
    void aDropWaitsForAWriterThatHoldsTheLeaseAndDropsWhatItWrote() throws Exception {
        String bucket = TestLakes.bucket("drop-race", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        S3Parquet.write(sales(10, "s")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        CatalogLake.Held writer = CatalogLake.heldAt(S3Parquet.write(sales(5, "w")).partitionBy("dt").catalog(catalog).s3(s3.client()), uri, io.wrangler.commit.Step.MANIFEST_WRITTEN, 0);
        var drop = CompletableFuture.supplyAsync(() -> S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).s3(s3.client()).run());
        writer.release();
        writer.write().get(60, TimeUnit.SECONDS);
        DropTableResult r = drop.get(60, TimeUnit.SECONDS);

        assertThat(r.catalogTable()).isTrue();
        assertThat(s3.list(bucket, "sales/")).isEmpty();
        assertThat(CatalogLake.exists(glue, db, "sales")).isFalse();
    }

    @Test
    void aWriterWhoseLeaseTheDropTookOverFailsTypedAndLeavesNoHalfTable() throws Exception {
        String bucket = TestLakes.bucket("drop-stalled", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        S3Parquet.write(sales(10, "s")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        CatalogLake.Held writer = CatalogLake.heldAt(S3Parquet.write(sales(5, "w")).partitionBy("dt").catalog(catalog)
                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3.client()), uri, io.wrangler.commit.Step.LISTED_OLD_FILES, 0);
        // The drop's clock is past the stalled writer's lease: it takes the table over at once.
        DropTableResult r = S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).tuning(TestLakes.PAST_LEASES).s3(s3.client()).run();
        assertThat(r.catalogTable()).isTrue();
        writer.release();

        assertThatThrownBy(() -> writer.write().get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(WriteNotAppliedException.class).hasMessageContaining("lease");
        assertThat(s3.list(bucket, "sales/").keySet()).as("nothing of the table, nor of the writer, is left")
                .allMatch(k -> k.equals("sales/_tmp/_lease.json")).isEmpty();
        assertThat(CatalogLake.exists(glue, db, "sales")).isFalse();
    }

    @Test
    void aWriterWhoseCatalogWasPreparedBeforeTheDropFailsTypedAndLeavesNothing() throws Exception {
        String bucket = TestLakes.bucket("drop-prepared", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        S3Parquet.write(sales(10, "s")).partitionBy("dt").catalog(catalog).s3(s3.client()).to(uri);
        CountDownLatch dropHeld = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        var drop = CompletableFuture.supplyAsync(() -> S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).s3(s3.client())
                .hook((step, count) -> {
                    if (step == CatalogOnly.Step.BEFORE_CHANGE && count == 1) {
                        dropHeld.countDown();
                        CatalogLake.await(go);
                    }
                }).run());
        CatalogLake.await(dropHeld);
        // The writer prepares its catalog step against the table as it is, then waits for the drop's lease.
        CountDownLatch refused = new CountDownLatch(1);
        S3Client watched = (S3Client) Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                (proxy, method, args) -> {
                    try {
                        return method.invoke(s3.client(), args);
                    } catch (InvocationTargetException e) {
                        if (args != null && args.length > 0 && args[0] instanceof PutObjectRequest put && put.key().endsWith("_tmp/_lease.json")) {
                            refused.countDown();
                        }
                        throw e.getCause();
                    }
                });
        var writer = CompletableFuture.runAsync(() -> S3Parquet.write(sales(5, "w")).partitionBy("dt").catalog(catalog).s3(watched).to(uri));
        CatalogLake.await(refused);
        go.countDown();
        assertThat(drop.get(60, TimeUnit.SECONDS).catalogTable()).isTrue();

        assertThatThrownBy(() -> writer.get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(CatalogException.class).hasMessageContaining("(step: catalog)");
        assertThat(s3.list(bucket, "sales/")).as("the append undone: no half table").isEmpty();
        assertThat(CatalogLake.exists(glue, db, "sales")).isFalse();
    }

    @Test
    void badInputIsRefusedBeforeAnythingChanges() {
        String bucket = TestLakes.bucket("drop-bad", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/sales/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "sales");
        assertThatThrownBy(() -> S3Parquet.dropTable(uri).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot drop " + uri + " (step: validate): neither a catalog nor deleteData(true) was given, so there is nothing to "
                        + "drop. Call catalog(...) with the table to delete from the catalog, deleteData(true) to delete its objects, or both. "
                        + "Nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.dropTable("s3://" + bucket).deleteData(true).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot drop s3://" + bucket + "/ (step: validate): the table is a bucket root, and deleteData would delete every "
                        + "object of the bucket. Give the table's own prefix. Nothing was changed.");
        S3Parquet.write(sales(3, "e")).partitionBy("dt").catalog(catalog).s3(s3.client()).to("s3://" + bucket + "/elsewhere/");
        S3Parquet.write(sales(3, "s")).partitionBy("dt").s3(s3.client()).to(uri);
        Map<String, String> before = RegisterTableTest.objects(s3, bucket, "");
        assertThatThrownBy(() -> S3Parquet.dropTable(uri).catalog(catalog).deleteData(true).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot drop " + uri + " (step: validate): the catalog's table glue:" + db + ".sales is at s3://" + bucket
                        + "/elsewhere/, not at " + uri + ". Drop it with its own location. Nothing was changed.");
        assertThat(RegisterTableTest.objects(s3, bucket, "")).isEqualTo(before);
        assertThat(CatalogLake.exists(glue, db, "sales")).isTrue();
    }
}
