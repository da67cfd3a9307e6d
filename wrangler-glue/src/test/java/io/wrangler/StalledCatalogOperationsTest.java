package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.CatalogOnly;
import io.wrangler.testkit.DuckReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Register, repair (removing missing partitions) and drop table (with its data, or catalog only) stall before their
 * first or second change under the lease; a writer takes the table over as after the lease expired, replaces one day and
 * commits through Glue; then the operation resumes. It must fail typed at its next fence ({@link CommitConflictException}
 * before its first change, {@link WriteIncompleteException} after one) or succeed, never delete or unregister what the
 * writer committed; once it is run again, Glue equals S3 and the table holds every row it should.
 */
class StalledCatalogOperationsTest {
    public record Sale(String id, String dt) {
    }

    enum Op { REGISTER, REPAIR, DROP_DATA, DROP_CATALOG }

    private final CatalogLake lake = new CatalogLake("stalled-ops");
    private int n;

    private static List<Sale> sales(String tag, String... days) {
        List<Sale> out = new ArrayList<>();
        for (String d : days) {
            out.add(new Sale(tag + "-" + d, d));
        }
        return out;
    }

    private Object run(Op op, String name, io.wrangler.spi.StepHook hook) {
        String uri = lake.uri(name);
        return switch (op) {
            case REGISTER -> S3Parquet.register(uri).catalog(lake.table(name)).s3(lake.s3.client()).hook(hook).run();
            case REPAIR -> S3Parquet.repairCatalog(uri).catalog(lake.table(name)).removeMissing(true).s3(lake.s3.client()).hook(hook).run();
            case DROP_DATA -> S3Parquet.dropTable(uri).catalog(lake.table(name)).deleteData(true).s3(lake.s3.client()).hook(hook).run();
            case DROP_CATALOG -> S3Parquet.dropTable(uri).catalog(lake.table(name)).s3(lake.s3.client()).hook(hook).run();
        };
    }

    private List<List<Object>> rows(String name) {
        if (lake.objects(name + "/").keySet().stream().noneMatch(k -> k.endsWith(".parquet"))) {
            return List.of();
        }
        return DuckReader.query(lake.s3, lake.bucket, name + "/", "SELECT id, dt FROM t ORDER BY ALL");
    }

    @Test
    void aStalledCatalogOperationNeverUndoesWhatTheWriterThatTookItsLeaseCommitted() throws Exception {
        for (Op op : Op.values()) {
            for (int change : List.of(1, 2)) {
                stalledAt(op, change);
            }
        }
    }

    private void stalledAt(Op op, int change) throws Exception {
        String name = "t" + n++;
        String uri = lake.uri(name);
        // the table: days 1 to 3; registered in Glue unless the operation is to register it; for the repair, day 3's folder
        // is gone behind the catalog's back and day 4 came without it
        WriteBuilder first = S3Parquet.write(sales("a", "d1", "d2", "d3")).partitionBy("dt").s3(lake.s3.client());
        (op == Op.REGISTER ? first : first.catalog(lake.table(name))).to(uri);
        if (op == Op.REPAIR) {
            lake.deleteFolder(name + "/dt=d3/");
            S3Parquet.write(sales("a", "d4")).partitionBy("dt").mode(WriteMode.APPEND).s3(lake.s3.client()).to(uri);
        }
        List<List<Object>> before = rows(name);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Object> stalled = CompletableFuture.supplyAsync(() -> {
            try {
                return run(op, name, (step, count) -> {
                    if (step == CatalogOnly.Step.BEFORE_CHANGE && count == change) {
                        reached.countDown();
                        CatalogLake.await(release);
                    }
                });
            } finally {
                reached.countDown(); // an operation with fewer changes ends without stalling
            }
        });
        String story = op + " stalled before change " + change;
        try {
            assertThat(reached.await(60, TimeUnit.SECONDS)).as(story).isTrue();
            // the writer: day 1 replaced, through Glue, its clock past the stalled operation's lease
            S3Parquet.write(sales("w", "d1")).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(lake.table(name))
                    .tuning(TestLakes.PAST_LEASES).s3(lake.s3.client()).to(uri);
        } finally {
            release.countDown();
        }
        Throwable failure = null;
        try {
            stalled.get(90, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            failure = e.getCause();
        }
        story += ", outcome " + (failure == null ? "success" : failure.getClass().getSimpleName() + ": " + failure.getMessage());
        List<List<Object>> writerRows = new ArrayList<>(before.stream().filter(r -> !r.get(1).equals("d1")).toList());
        writerRows.add(List.of("w-d1", "d1"));
        writerRows.sort((a, b) -> a.toString().compareTo(b.toString()));
        boolean dropped = (op == Op.DROP_DATA) && failure == null;
        if (!dropped) {
            assertThat(rows(name)).as("nothing the writer committed is undone: " + story).isEqualTo(writerRows);
        }
        // a drop of the catalog only has one change: it ends before a second one, the writer's table then dropped by it
        if (op == Op.DROP_CATALOG && change == 2) {
            assertThat(failure).as(story).isNull();
        } else {
            assertThat(failure).as(story).isInstanceOf(change == 1 ? CommitConflictException.class : WriteIncompleteException.class)
                    .hasMessageContaining("was taken over by another writer or a recovery");
        }

        // run again: finished, and Glue equals S3
        run(op, name, io.wrangler.spi.StepHook.NONE);
        if (op == Op.DROP_CATALOG) {
            assertThat(lake.tableExists(name)).as(story).isFalse();
        } else {
            lake.assertGlueEqualsS3(name, story);
        }
        assertThat(rows(name)).as(story).isEqualTo(op == Op.DROP_DATA ? List.of() : writerRows);
    }
}
