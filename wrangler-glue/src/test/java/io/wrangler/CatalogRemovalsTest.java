package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * A drop of partitions and a delete of rows through Glue (LocalGlue, through the AWS SDK's GlueClient): the catalog's
 * partitions equal the table's folders that hold files after the operation, and after a crash at any step followed by a
 * recovery with the catalog (or a rerun); a partition registered outside the table is refused, nothing changed.
 */
class CatalogRemovalsTest {
    private final CatalogLake lake = new CatalogLake("removals");
    private final MemoryS3 s3 = lake.s3;
    private final LocalGlue glue = lake.glue;

    /** A row; names are what the catalog makes of them. */
    public record Event(String user_id, long amount, LocalDate dt) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private static final List<LocalDate> DAYS = List.of(LocalDate.of(2024, 5, 1), LocalDate.of(2024, 5, 2), LocalDate.of(2024, 5, 3),
            LocalDate.of(2024, 5, 4));

    private final String bucket = lake.bucket;
    private final String db = lake.db;
    private final GlueTable catalog = lake.table("t");
    private final String table = lake.uri("t");

    private void fill() {
        List<Event> rows = new ArrayList<>();
        long a = 0;
        for (LocalDate d : DAYS) {
            rows.add(new Event("u-1", a++, d));
            rows.add(new Event("u-2", a++, d));
        }
        rows.add(new Event("u-2", a, LocalDate.of(2024, 5, 5))); // a day of the user alone
        S3Parquet.write(rows).partitionBy("dt").catalog(catalog).s3(s3.client()).to(table);
    }

    /** The days Glue registers, from every page. */
    private TreeSet<String> gluePartitions() {
        return new TreeSet<>(lake.firstValues("t"));
    }

    /** The days whose folder holds a data file. */
    private TreeSet<String> s3Partitions() {
        TreeSet<String> out = new TreeSet<>();
        for (String k : s3.list(bucket, "t/dt=").keySet()) {
            out.add(k.substring("t/dt=".length(), k.indexOf('/', 2)));
        }
        return out;
    }

    private static PartitionFilter before(String day) {
        LocalDate c = LocalDate.parse(day);
        return PartitionFilter.where(p -> LocalDate.parse(p.get("dt")).isBefore(c));
    }

    @Test
    void aDeleteThroughACatalogThatLacksTheTableSaysToRegisterIt() {
        S3Parquet.write(List.of(new Event("u-1", 1, DAYS.get(0)))).partitionBy("dt").s3(s3.client()).to(table);
        assertThatThrownBy(() -> S3Parquet.deleteRows(table).keys("user_id", List.of("u-1")).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(WranglerException.class)
                .hasMessage("Cannot delete rows of " + table + " through glue:" + db + ".t: the catalog has no such table. Register it "
                        + "first (S3Parquet.register), or run without catalog(...).");
    }

    @Test
    void aDropRemovesThePartitionsFromGlueAndADeleteTheOnesItEmpties() {
        fill();
        DropResult drop = S3Parquet.dropPartitions(table).filter(before("2024-05-03")).catalog(catalog).s3(s3.client()).run();
        assertThat(drop.partitions()).hasSize(2);
        assertThat(gluePartitions()).containsExactly("2024-05-03", "2024-05-04", "2024-05-05").isEqualTo(s3Partitions());
        lake.assertGlueEqualsS3("t", "after the drop");

        DeleteResult del = S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).catalog(catalog).s3(s3.client()).run();
        assertThat(del.rowsDeleted()).isEqualTo(3);
        assertThat(del.filesRemoved()).hasSize(1);
        assertThat(gluePartitions()).containsExactly("2024-05-03", "2024-05-04").isEqualTo(s3Partitions());
        lake.assertGlueEqualsS3("t", "after the delete");
        assertThat(S3Parquet.read(catalog).s3(s3.client()).count()).isEqualTo(2);
        assertThat(DuckReader.query(s3, bucket, "t/", "SELECT user_id, amount, CAST(dt AS VARCHAR) FROM t ORDER BY ALL"))
                .containsExactly(List.of("u-1", 4L, "2024-05-03"), List.of("u-1", 6L, "2024-05-04"));
    }

    static List<Arguments> crashes() {
        List<Arguments> out = new ArrayList<>();
        for (Step s : List.of(Step.STARTED, Step.LISTED_OLD_FILES, Step.MANIFEST_WRITTEN, Step.DELETED_BATCH, Step.BEFORE_CATALOG,
                Step.BEFORE_CLEANUP, Step.STAGING_REMOVED)) {
            out.add(Arguments.of(s, true));
            out.add(Arguments.of(s, false));
        }
        return out;
    }

    /** A drop cut at any step, then a recovery with the catalog or the drop again: Glue equals S3, the drop applied once. */
    @ParameterizedTest(name = "{0}, rerun {1}")
    @MethodSource("crashes")
    void aDropCutAtAnyStepLeavesGlueEqualToS3OnceRecovered(Step at, boolean rerun) {
        fill();
        assertThatThrownBy(() -> S3Parquet.dropPartitions(table).filter(before("2024-05-03")).catalog(catalog).s3(s3.client())
                .stepHook((step, n) -> {
                    if (step == at) {
                        throw new Crash();
                    }
                }).run()).isInstanceOf(Crash.class);
        boolean committed = at.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
        if (rerun) {
            DropResult r = S3Parquet.dropPartitions(table).filter(before("2024-05-03")).catalog(catalog).s3(s3.client())
                    .tuning(TestLakes.PAST_LEASES).run();
            assertThat(r.applied()).isEqualTo(!committed);
        } else {
            S3Parquet.recover(table, s3.client(), catalog, TestLakes.PAST_LEASES);
        }
        TreeSet<String> expected = committed || rerun ? new TreeSet<>(List.of("2024-05-03", "2024-05-04", "2024-05-05"))
                : new TreeSet<>(List.of("2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04", "2024-05-05"));
        assertThat(s3Partitions()).isEqualTo(expected);
        assertThat(gluePartitions()).isEqualTo(expected);
        lake.assertGlueEqualsS3("t", "crashed at " + at + (rerun ? ", rerun" : ", recovered"));
        assertThat(s3.list(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aPartitionRegisteredOutsideTheTableIsRefusedAndNothingChanges() {
        fill();
        // the day 2024-05-01 re-registered at a folder outside the table, holding a copy of its file
        String key = s3.list(bucket, "t/dt=2024-05-01/").keySet().iterator().next();
        s3.put(bucket, "elsewhere/dt=2024-05-01/" + key.substring(key.lastIndexOf('/') + 1), s3.get(bucket, key));
        var sd = glue.client().getPartition(b -> b.databaseName(db).tableName("t").partitionValues("2024-05-01")).partition()
                .storageDescriptor().toBuilder().location("s3://" + bucket + "/elsewhere/dt=2024-05-01/").build();
        glue.client().batchDeletePartition(b -> b.databaseName(db).tableName("t")
                .partitionsToDelete(v -> v.values("2024-05-01")));
        glue.client().createPartition(b -> b.databaseName(db).tableName("t")
                .partitionInput(p -> p.values("2024-05-01").storageDescriptor(sd)));
        Map<String, byte[]> before = s3.snapshot(bucket, "");
        TreeSet<String> glueBefore = gluePartitions();

        assertThatThrownBy(() -> S3Parquet.dropPartitions(table).filter(before("2024-05-03")).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot drop partitions of " + table + " (step: validate): the partition [dt=2024-05-01] is registered in "
                        + catalog.describe() + " at the Location s3://" + bucket + "/elsewhere/dt=2024-05-01/, which is outside the table "
                        + "root " + table + "; wrangler replaces files only in their partition's folder under the table, and never "
                        + "deletes elsewhere. Move the partition's files to a folder under " + table + " and set its Location to it, "
                        + "or leave the partition out with filter(...); nothing was changed.");
        assertThat(s3.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(gluePartitions()).isEqualTo(glueBefore);
    }
}
