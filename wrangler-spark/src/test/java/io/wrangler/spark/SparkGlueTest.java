package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.testkit.LocalGlue;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.Table;

/** The catalog step of a Spark write, against LocalGlue: the same table definition a single-process write of the same values registers. */
class SparkGlueTest {
    private static LocalGlue glue;

    @BeforeAll
    static void start() {
        glue = LocalGlue.start();
    }

    @AfterAll
    static void stop() {
        glue.close();
    }

    private static Table table(String db, String name) {
        return glue.client().getTable(b -> b.databaseName(db).name(name)).table();
    }

    /** What must be equal: columns and types, partition keys, formats, serde, and the parameters that are not about the location. */
    private static List<String> definition(Table t) {
        List<String> out = new ArrayList<>();
        t.storageDescriptor().columns().forEach(c -> out.add("column " + c.name() + " " + c.type()));
        t.partitionKeys().forEach(c -> out.add("partition key " + c.name() + " " + c.type()));
        out.add("input " + t.storageDescriptor().inputFormat());
        out.add("output " + t.storageDescriptor().outputFormat());
        out.add("serde " + t.storageDescriptor().serdeInfo().serializationLibrary() + " " + t.storageDescriptor().serdeInfo().parameters());
        out.add("compressed " + t.storageDescriptor().compressed());
        out.add("table type " + t.tableType());
        out.add("parameters " + new TreeMap<>(t.parameters()));
        return out;
    }

    @Test
    void aSparkWriteRegistersTheDefinitionASingleProcessWriteRegisters() {
        String bucket = SparkLake.bucket();
        GlueClient client = glue.client();
        SparkParquet.write(SparkLake.spark().sql("SELECT b, s, i, l, f, d, bo, d9, d18, d38, str, bin, dt, ts, ntz, arr, st, m, nested, part "
                        + "FROM (" + SparkTypesTestValues.SQL + ")"))
                .partitionBy("part").mode(WriteMode.OVERWRITE_PARTITIONS)
                .catalog(GlueCatalog.of(client).table("analytics", "from_spark").createDatabase(true))
                .s3(SparkLake.settings()).to("s3://" + bucket + "/from_spark/");
        S3Parquet.write(List.of(SparkTypesTestValues.record())).partitionBy("part").mode(WriteMode.OVERWRITE_PARTITIONS)
                .catalog(GlueCatalog.of(client).table("analytics", "from_jvm").createDatabase(true))
                .s3(SparkLake.s3().client()).to("s3://" + bucket + "/from_jvm/");
        List<String> spark = definition(table("analytics", "from_spark"));
        assertThat(spark).contains("column ts timestamp", "column d38 decimal(38,10)", "column m map<string,double>",
                "column nested array<struct<x:array<string>>>", "partition key part string");
        assertThat(spark).isEqualTo(definition(table("analytics", "from_jvm")));
        List<Partition> parts = client.getPartitions(b -> b.databaseName("analytics").tableName("from_spark")).partitions();
        assertThat(parts).extracting(p -> p.values() + " " + p.storageDescriptor().location())
                .containsExactly("[p1] s3://" + bucket + "/from_spark/part=p1/");
    }

    @Test
    void theDataSourceFormTakesTheGlueTableFromOptions() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/daily/";
        SparkLake.spark().sql("SELECT id AS User_Id, CAST(id AS BIGINT) AS Views, '2026-10-01' AS dt FROM range(0, 3, 1, 2)").write()
                .format("wrangler").partitionBy("dt").mode("overwrite").option("partitionOverwriteMode", "dynamic")
                .options(SparkLake.options())
                .option("glue.endpoint", glue.endpoint().toString()).option("glue.database", "curated").option("glue.table", "daily")
                .option("glue.createDatabase", "true").option("glue.description", "daily user activity")
                .option("glue.parameter.owner", "analytics-team").option("glue.columnComment.views", "views that day")
                .save(uri);
        Table t = table("curated", "daily");
        assertThat(t.description()).isEqualTo("daily user activity");
        assertThat(t.parameters()).containsEntry("owner", "analytics-team");
        assertThat(t.storageDescriptor().columns()).extracting(c -> c.name() + " " + c.type() + " " + c.comment())
                .containsExactly("user_id bigint null", "views bigint views that day");
        assertThat(t.storageDescriptor().location()).isEqualTo(uri);
        // the files carry the catalog's (sanitized) names
        assertThat(SparkLake.query(bucket, "daily/", "SELECT user_id, views FROM t ORDER BY user_id"))
                .containsExactly(List.of(0L, 0L), List.of(1L, 1L), List.of(2L, 2L));
    }
}
