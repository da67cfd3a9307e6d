package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.InvalidWriteException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.StorageDescriptor;

class GlueBucketingTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/marts/users/";
    private final GlueClient glue = Lake.glue().client();

    record User(long userId, String Country, String dt) {
    }

    private GlueTable users() {
        return GlueCatalog.of(glue).table(db, "users").createDatabase(true);
    }

    private List<User> users(String dt) {
        return List.of(new User(1, "RU", dt), new User(-7, "DE", dt), new User(1L << 40, "日本", dt));
    }

    private StorageDescriptor tableStorage() {
        return glue.getTable(b -> b.databaseName(db).name("users")).table().storageDescriptor();
    }

    @Test
    void glueGetsTheBucketColumnsAndCountOnTableAndPartitions() {
        // bucketBy takes the input's name or the sanitized one; Glue gets the sanitized one, as awswrangler registers it.
        S3Parquet.write(users("d1")).partitionBy("dt").bucketBy(List.of("userId", "country"), 4).catalog(users())
                .s3(Lake.s3().client()).to(table);

        StorageDescriptor sd = tableStorage();
        assertThat(sd.numberOfBuckets()).isEqualTo(4);
        assertThat(sd.bucketColumns()).containsExactly("userid", "country");
        List<Partition> partitions = new ArrayList<>();
        glue.getPartitionsPaginator(b -> b.databaseName(db).tableName("users")).forEach(p -> partitions.addAll(p.partitions()));
        assertThat(partitions).singleElement().satisfies(p -> {
            assertThat(p.storageDescriptor().numberOfBuckets()).isEqualTo(4);
            assertThat(p.storageDescriptor().bucketColumns()).containsExactly("userid", "country");
        });
        Map<String, byte[]> files = Lake.snapshot(bucket);
        assertThat(files.keySet()).allMatch(k -> k.matches("marts/users/dt=d1/part-00000-000-.+_bucket-0000[0-3]\\.snappy\\.parquet"));
        assertThat(Lake.query(bucket, "marts/users/", "SELECT userid, country FROM t ORDER BY userid"))
                .containsExactly(List.of(-7L, "DE"), List.of(1L, "RU"), List.of(1L << 40, "日本"));

        // The same bucketing appends; an unbucketed table stays -1 / [] (checked by GlueCatalogTest's storage assertions).
        S3Parquet.write(users("d2")).partitionBy("dt").bucketBy(List.of("userid", "country"), 4).catalog(users())
                .s3(Lake.s3().client()).to(table);
        assertThat(Lake.query(bucket, "marts/users/", "SELECT count(*) FROM t")).containsExactly(List.of(6L));
    }

    @Test
    void anAppendBucketedOtherwiseThanTheTableIsRefusedBeforeAnyIo() {
        S3Parquet.write(users("d1")).partitionBy("dt").bucketBy(List.of("userId"), 4).catalog(users()).s3(Lake.s3().client()).to(table);
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(users("d2")).partitionBy("dt").bucketBy(List.of("userId"), 8).catalog(users())
                .s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the Glue table " + db + ".users is bucketed by [userid] into 4 "
                        + "buckets, this write by [userid] into 8 (Athena reads only the files of the bucket a value hashes to, so files "
                        + "bucketed otherwise would hide rows). Call bucketBy([userid], 4), or OVERWRITE the table to redefine it.");
        assertThatThrownBy(() -> S3Parquet.write(users("d2")).partitionBy("dt").catalog(users()).s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the Glue table " + db + ".users is bucketed by [userid] into 4 "
                        + "buckets, this write is not bucketed (Athena reads only the files of the bucket a value hashes to, so files "
                        + "bucketed otherwise would hide rows). Call bucketBy([userid], 4), or OVERWRITE the table to redefine it.");
        assertThat(Lake.snapshot(bucket).keySet()).isEqualTo(before.keySet());

        // OVERWRITE redefines the table without buckets.
        S3Parquet.write(users("d2")).partitionBy("dt").mode(WriteMode.OVERWRITE).catalog(users()).s3(Lake.s3().client()).to(table);
        assertThat(tableStorage().numberOfBuckets()).isEqualTo(-1);
        assertThat(tableStorage().bucketColumns()).isEmpty();
        assertThatThrownBy(() -> S3Parquet.write(users("d3")).partitionBy("dt").bucketBy(List.of("userId"), 4).catalog(users())
                .s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the Glue table " + db + ".users is not bucketed, this write by "
                        + "[userid] into 4 (Athena reads only the files of the bucket a value hashes to, so files bucketed otherwise would "
                        + "hide rows). Write without bucketBy, or OVERWRITE the table to redefine it as bucketed.");
    }
}
