package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.MergeResult;
import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.s3.S3Client;

/** A merge through Glue: after every merge, Glue registers exactly the partitions S3 holds, with the columns the files have. */
class MergeThroughGlueTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();
    private final String table = "s3://" + bucket + "/events/";

    record Event(long id, String kind, String dt) {
    }

    record Wider(long id, String kind, String dt, String note) {
    }

    private Set<String> s3Partitions() {
        Set<String> out = new TreeSet<>();
        Lake.snapshot(bucket).keySet().stream().filter(k -> k.startsWith("events/dt=")).forEach(k -> out.add(k.split("/")[1]));
        return out;
    }

    private Set<String> gluePartitions() {
        List<Partition> partitions = new ArrayList<>();
        glue.getPartitionsPaginator(b -> b.databaseName(db).tableName("events")).forEach(p -> partitions.addAll(p.partitions()));
        Set<String> out = new TreeSet<>();
        for (Partition p : partitions) {
            assertThat(p.storageDescriptor().location()).isEqualTo(table + "dt=" + p.values().get(0) + "/");
            out.add("dt=" + p.values().get(0));
        }
        return out;
    }

    @Test
    void glueRegistersExactlyWhatS3HoldsAfterEveryMerge() {
        GlueTable events = GlueCatalog.of(glue).table(db, "events").createDatabase(true);
        S3Parquet.write(List.of(new Event(1, "a", "d1"), new Event(2, "a", "d1"), new Event(3, "a", "d2"))).partitionBy("dt")
                .catalog(events).s3(s3).to(table);
        assertThat(gluePartitions()).isEqualTo(s3Partitions()).containsExactly("dt=d1", "dt=d2");

        // an update, an insert into a new day, and id 2 moved from d1 to d2 (the scope, every day, covers its old one)
        MergeResult r = S3Parquet.merge(List.of(new Event(1, "b", "d1"), new Event(4, "new", "d3"), new Event(2, "moved", "d2")))
                .on("id").scope(PartitionFilter.all()).catalog(events).s3(s3).to(table);
        assertThat(r.rowsInserted()).isEqualTo(1);
        assertThat(r.rowsUpdated()).isEqualTo(2);
        assertThat(gluePartitions()).isEqualTo(s3Partitions()).containsExactly("dt=d1", "dt=d2", "dt=d3");
        assertThat(Lake.query(bucket, "events/", "SELECT id, kind, dt FROM t ORDER BY ALL")).containsExactly(List.of(1L, "b", "d1"),
                List.of(2L, "moved", "d2"), List.of(3L, "a", "d2"), List.of(4L, "new", "d3"));

        // a column the table lacks: Glue's table gains it, as a write's schema evolution does
        S3Parquet.merge(List.of(new Wider(5, "w", "d3", "late"))).on("id").catalog(events).s3(s3).to(table);
        List<Column> columns = glue.getTable(b -> b.databaseName(db).name("events")).table().storageDescriptor().columns();
        assertThat(columns.stream().map(Column::name).toList()).containsExactly("id", "kind", "note");
        assertThat(gluePartitions()).isEqualTo(s3Partitions());
        // id 1, the last row of d1, moved to d2: d1 is left without files and leaves the catalog with them
        MergeResult moved = S3Parquet.merge(List.of(new Event(1, "moved", "d2"))).on("id").scope(PartitionFilter.all()).catalog(events)
                .s3(s3).to(table);
        assertThat(moved.rowsUpdated()).isEqualTo(1);
        assertThat(gluePartitions()).isEqualTo(s3Partitions()).containsExactly("dt=d2", "dt=d3");
        // read by name, through Glue: the merged rows
        assertThat(S3Parquet.read(events).s3(s3).count()).isEqualTo(5);
    }
}
