package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An adversary of register, merge and drop through Glue: each test tries to make them double or lose a row, or leave
 * Glue and S3 disagreeing, and asserts what DuckDB reads from the objects and what Glue registers afterwards.
 */
class CatalogOperationsAdversaryTest {
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();

    public record Named(String id, String country) {
    }

    public record Named2(String id, String country, String month) {
    }

    @Test
    void aMergeIntoARegisteredTableWhoseIntFolderIsZeroPaddedIsRefusedAtRegisterSoNoMergeDoublesTheKey() {
        String bucket = TestLakes.bucket("adv", s3);
        String db = TestLakes.database(bucket);
        S3Parquet.write(List.of(new Named("s1", "x"))).s3(s3.client()).to("s3://" + bucket + "/scratch/");
        s3.put(bucket, "m/month=01/part-00000-6f1c2d3e-0000-4000-8000-000000000000-c000.snappy.parquet", CatalogLake.only(s3, bucket, "scratch/"));
        String uri = "s3://" + bucket + "/m/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "m");
        // registered as an int, '01' is 1, which every write puts in month=1/: a merge of key s1 with month 1 left the
        // folder month=01/'s row of s1 beside the merged one (read back twice). Refused before anything changes:
        assertThatThrownBy(() -> S3Parquet.register(uri).catalog(catalog).partitionTypes(Map.of("month", "int")).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot register " + uri + " (step: validate): the folder 'month=01/' gives the partition column 'month' the "
                        + "value '01', which a write of the int 1 puts in the folder of '1': a merge, delete or overwrite of that partition "
                        + "would leave this folder's rows beside its own. Rename the folder to the value as written, or declare the column "
                        + "a string. Nothing was changed.");
        assertThat(glue.client().getTables(b -> b.databaseName(db)).tableList()).isEmpty();
        // as a string, the folder's text is the value: the merge matches the key in its folder
        S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run();
        S3Parquet.merge(List.of(new Named2("s1", "y", "01"))).on("id").catalog(catalog).s3(s3.client()).to(uri);
        assertThat(DuckReader.query(s3, bucket, "m/", "SELECT id, country, month FROM t")).containsExactly(List.of("s1", "y", "01"));
    }
    public record Ev(long id, String region) {
    }

    private List<String> gluePartitions(String db, String name) {
        List<String> out = new java.util.ArrayList<>();
        for (var p : glue.client().getPartitions(b -> b.databaseName(db).tableName(name)).partitions()) {
            out.add(p.values().get(0) + " @ " + p.storageDescriptor().location());
        }
        out.sort(null);
        return out;
    }

    @Test
    void aDropAndARepairOfPartitionsWhoseValuesNeedEscapingKeepGlueEqualToS3() {
        String bucket = TestLakes.bucket("adv", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/e/";
        String odd = "a/b=c%d é";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "e").createDatabase(true);
        S3Parquet.write(List.of(new Ev(1, odd), new Ev(2, "x"), new Ev(3, "y"))).partitionBy("region").catalog(catalog).s3(s3.client()).to(uri);
        String oddFolder = "region=a%2Fb%3Dc%25d é/";
        assertThat(gluePartitions(db, "e")).containsExactly(odd + " @ " + uri + oddFolder, "x @ " + uri + "region=x/", "y @ " + uri + "region=y/");

        // repair: the odd partition unregistered behind wrangler's back, added again with its value unescaped
        glue.client().deletePartition(b -> b.databaseName(db).tableName("e").partitionValues(odd));
        S3Parquet.repairCatalog(uri).catalog(catalog).s3(s3.client()).run();
        assertThat(gluePartitions(db, "e")).containsExactly(odd + " @ " + uri + oddFolder, "x @ " + uri + "region=x/", "y @ " + uri + "region=y/");
        assertThat(S3Parquet.read(uri).catalog(catalog).s3(s3.client()).toList(Ev.class)).containsExactlyInAnyOrder(new Ev(1, odd),
                new Ev(2, "x"), new Ev(3, "y"));

        DropResult r = S3Parquet.dropPartitions(uri).filter(PartitionFilter.in("region", odd)).catalog(catalog).s3(s3.client()).run();
        assertThat(r.applied()).isTrue();
        assertThat(gluePartitions(db, "e")).containsExactly("x @ " + uri + "region=x/", "y @ " + uri + "region=y/");
        assertThat(DuckReader.query(s3, bucket, "e/", "SELECT id, region FROM t ORDER BY id")).containsExactly(List.of(2L, "x"),
                List.of(3L, "y"));
    }
}
