package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Recovery of writes made with a Glue catalog, at the steps where the catalog and S3 part ways. */
class CatalogRecoveryTest {
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();

    /** A row; names are what the catalog makes of them. */
    public record Row(String id, LocalDate dt) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    @Test
    void anAppendCrashedBeforeItsTableWasRegisteredIsUndoneByTheNextWrite() {
        String bucket = TestLakes.bucket("first-append", s3);
        String db = TestLakes.database(bucket);
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "t");
        String table = "s3://" + bucket + "/t/";
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Row("a", LocalDate.of(2024, 5, 1)))).partitionBy("dt").catalog(catalog)
                .s3(s3.client()).stepHook((step, n) -> {
                    if (step == Step.BEFORE_CATALOG) {
                        throw new Crash();
                    }
                }).to(table)).isInstanceOf(Crash.class);

        // The next write undoes the crashed append; the Glue table it never created has no partitions to remove.
        WriteResult r = S3Parquet.write(List.of(new Row("b", LocalDate.of(2024, 5, 2)))).partitionBy("dt").catalog(catalog)
                .tuning(TestLakes.PAST_LEASES).s3(s3.client()).to(table);

        assertThat(r.recovered().rolledBack()).hasSize(1);
        assertThat(DuckReader.query(s3, bucket, "t/", "SELECT id, CAST(dt AS VARCHAR) FROM t"))
                .containsExactly(List.of("b", "2024-05-02"));
        assertThat(glue.client().getPartitions(b -> b.databaseName(db).tableName("t")).partitions())
                .extracting(p -> p.values()).containsExactly(List.of("2024-05-02"));
    }

    /** A row of a table partitioned by a string. */
    public record Sale(String id, String country) {
    }

    @Test
    void anOverwriteCutAtItsCommitPointIsFinishedUnderTheRegisteredLocation() {
        s3.createBucket("registered-at");
        glue.client().createDatabase(b -> b.databaseInput(d -> d.name("registered_at")));
        GlueTable catalog = GlueCatalog.of(glue.client()).table("registered_at", "t");
        String table = "s3://registered-at/t/";
        S3Parquet.write(List.of(new Sale("z1", "z"))).partitionBy("country").catalog(catalog).s3(s3.client()).to(table);
        // The partition 'a/b' as awswrangler puts and registers it: at its unescaped folder, with a file of its own.
        String key = s3.list("registered-at", "t/country=z/").keySet().iterator().next();
        String old = "t/country=a/b/" + key.substring(key.lastIndexOf('/') + 1);
        s3.put("registered-at", old, s3.get("registered-at", key));
        var sd = glue.client().getPartition(b -> b.databaseName("registered_at").tableName("t").partitionValues("z")).partition()
                .storageDescriptor().toBuilder().location(table + "country=a/b/").build();
        glue.client().createPartition(b -> b.databaseName("registered_at").tableName("t")
                .partitionInput(p -> p.values("a/b").storageDescriptor(sd)));

        assertThatThrownBy(() -> S3Parquet.write(List.of(new Sale("n1", "a/b"))).partitionBy("country").catalog(catalog)
                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3.client()).stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        throw new Crash();
                    }
                }).to(table)).isInstanceOf(Crash.class);

        // The next write finishes the committed overwrite from its manifest, which recorded the registered folder.
        WriteResult r = S3Parquet.write(List.of(new Sale("z2", "z"))).partitionBy("country").catalog(catalog).tuning(TestLakes.PAST_LEASES)
                .s3(s3.client()).to(table);

        assertThat(r.recovered().rolledForward()).hasSize(1);
        assertThat(s3.list("registered-at", "t/").keySet()).doesNotContain(old)
                .noneMatch(k -> k.startsWith("t/country=a%2Fb/"))
                .filteredOn(k -> k.startsWith("t/country=a/b/")).hasSize(1);
        assertThat(DuckReader.query(s3, "registered-at", "t/country=a/b/", "SELECT id FROM t")).containsExactly(List.of("n1"));
        assertThat(glue.client().getPartition(b -> b.databaseName("registered_at").tableName("t").partitionValues("a/b")).partition()
                .storageDescriptor().location()).isEqualTo(table + "country=a/b/");
    }
}
