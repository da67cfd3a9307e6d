package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.testkit.DuckReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.model.Column;

/**
 * One table's history through Glue: register, repair and drop table among writes, merges, deletes of rows and drops of
 * partitions, some of them crashed and finished by the next operation's recovery (register, repair and drop table
 * recover interrupted writes with the catalog first). After every step the rows DuckDB reads from the objects equal the
 * model, and Glue equals S3: the table registered exactly when data lies under it, its partitions' Locations exactly the
 * folders holding data, its columns the files'.
 */
class CatalogHistoryTest {
    public record Row(String id, String user_id, long v, String dt) {
    }

    public record Wide(String id, String user_id, long v, String note, String dt) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private final CatalogLake lake = new CatalogLake("history");
    private final String uri = lake.uri("h");
    /** id to its row as [user_id, v, note, dt] (note null where the row has none). */
    private final Map<String, List<Object>> model = new TreeMap<>();
    private List<String> columns = List.of("id", "user_id", "v");

    private void put(Row r) {
        model.put(r.id(), java.util.Arrays.asList(r.user_id(), r.v(), null, r.dt()));
    }

    private static io.wrangler.spi.StepHook crashAt(Step at) {
        return (step, n) -> {
            if (step == at) {
                throw new Crash();
            }
        };
    }

    private void check(String story) {
        List<List<Object>> expected = new ArrayList<>();
        model.forEach((id, r) -> expected.add(java.util.Arrays.asList(id, r.get(0), r.get(1), r.get(2), r.get(3))));
        boolean data = lake.objects("h/").keySet().stream().anyMatch(k -> k.endsWith(".parquet"));
        List<List<Object>> rows = !data ? List.of() : DuckReader.query(lake.s3, lake.bucket, "h/", "SELECT id, user_id, v, "
                + (columns.contains("note") ? "note" : "NULL") + ", dt FROM t ORDER BY id");
        assertThat(rows).as(story).isEqualTo(expected);
        lake.assertGlueEqualsS3("h", story);
        if (lake.tableExists("h")) {
            var t = lake.glue.client().getTable(b -> b.databaseName(lake.db).name("h")).table();
            assertThat(t.storageDescriptor().columns()).extracting(Column::name).as(story).isEqualTo(columns);
            assertThat(t.partitionKeys()).extracting(Column::name).as(story).containsExactly("dt");
        }
    }

    @Test
    void registerRepairAndDropTableAmongWritesMergesAndDeletesKeepGlueEqualToS3() {
        var s3 = lake.s3.client();
        List<Row> first = List.of(new Row("a1", "u1", 1, "d1"), new Row("a2", "u2", 2, "d1"), new Row("a3", "u1", 3, "d2"),
                new Row("a4", "u2", 4, "d2"));
        S3Parquet.write(first).partitionBy("dt").s3(s3).to(uri);
        first.forEach(this::put);
        S3Parquet.register(uri).catalog(lake.table("h")).s3(s3).run();
        check("registered");

        S3Parquet.write(List.of(new Row("b1", "u1", 5, "d3"))).partitionBy("dt").mode(WriteMode.APPEND).catalog(lake.table("h")).s3(s3).to(uri);
        put(new Row("b1", "u1", 5, "d3"));
        check("appended d3 through Glue");

        // a merge: a1 updated in d1, a3 moved from d2 to d4 (its day corrected), c1 new in d4
        List<Row> m = List.of(new Row("a1", "u1", 10, "d1"), new Row("a3", "u1", 30, "d4"), new Row("c1", "u3", 6, "d4"));
        S3Parquet.merge(m).on("id").partitionBy("dt").scope(PartitionFilter.all()).catalog(lake.table("h")).s3(s3).to(uri);
        m.forEach(this::put);
        check("merged");

        // written behind Glue's back, then repaired
        S3Parquet.write(List.of(new Row("e1", "u2", 7, "d5"))).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).to(uri);
        put(new Row("e1", "u2", 7, "d5"));
        assertThat(S3Parquet.repairCatalog(uri).catalog(lake.table("h")).s3(s3).run().added()).hasSize(1);
        check("repaired after a write without the catalog");

        // an erasure of u2 crashed before its catalog step (it empties d5): the repair's recovery finishes it
        assertThatThrownBy(() -> S3Parquet.deleteRows(uri).keys("user_id", List.of("u2")).catalog(lake.table("h")).s3(s3)
                .stepHook(crashAt(Step.BEFORE_CATALOG)).run()).isInstanceOf(Crash.class);
        model.values().removeIf(r -> r.get(0).equals("u2"));
        S3Parquet.repairCatalog(uri).catalog(lake.table("h")).removeMissing(true).s3(s3).tuning(TestLakes.PAST_LEASES).run();
        check("an erasure crashed before its catalog step, finished by a repair");

        // a merge that adds a column and a day, crashed past its commit point: register's recovery finishes it
        List<Wide> w = List.of(new Wide("c1", "u3", 60, "late", "d6"), new Wide("f1", "u4", 8, "new", "d6"));
        assertThatThrownBy(() -> S3Parquet.merge(w).on("id").partitionBy("dt").scope(PartitionFilter.all()).catalog(lake.table("h")).s3(s3)
                .stepHook(crashAt(Step.DELETED_BATCH)).to(uri)).isInstanceOf(Crash.class);
        S3Parquet.register(uri).catalog(lake.table("h")).s3(s3).tuning(TestLakes.PAST_LEASES).run();
        columns = List.of("id", "user_id", "v", "note");
        w.forEach(x -> model.put(x.id(), java.util.Arrays.asList(x.user_id(), x.v(), x.note(), x.dt())));
        check("a merge adding a column crashed past its commit point, finished by register");

        // a retention drop of d1, crashed before its catalog step: a drop of the catalog's table finishes it first
        assertThatThrownBy(() -> S3Parquet.dropPartitions(uri).filter(PartitionFilter.in("dt", "d1")).catalog(lake.table("h")).s3(s3)
                .stepHook(crashAt(Step.BEFORE_CATALOG)).run()).isInstanceOf(Crash.class);
        model.values().removeIf(r -> r.get(3).equals("d1"));
        S3Parquet.dropTable(uri).catalog(lake.table("h")).s3(s3).tuning(TestLakes.PAST_LEASES).run();
        assertThat(lake.tableExists("h")).isFalse();
        S3Parquet.register(uri).catalog(lake.table("h")).s3(s3).run();
        check("dropped from the catalog only, registered again");

        // a crashed append, then the table dropped with its data: nothing of either is left, nor in Glue
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Row("g1", "u5", 9, "d7"))).partitionBy("dt").mode(WriteMode.APPEND)
                .catalog(lake.table("h")).s3(s3).stepHook(crashAt(Step.MANIFEST_WRITTEN)).to(uri)).isInstanceOf(Crash.class);
        S3Parquet.dropTable(uri).catalog(lake.table("h")).deleteData(true).s3(s3).tuning(TestLakes.PAST_LEASES).run();
        model.clear();
        check("dropped with its data");
        assertThat(lake.s3.list(lake.bucket, "h/")).isEmpty();
    }
}
