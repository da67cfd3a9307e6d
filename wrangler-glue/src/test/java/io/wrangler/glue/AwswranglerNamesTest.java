package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.InvalidWriteException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Partition;

/** Names as awswrangler 3.17.1 gives them, in a table awswrangler made and in one wrangler makes. */
class AwswranglerNamesTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/sales/";
    private final GlueClient glue = Lake.glue().client();

    record Sale(String orderId, long amountCents, String Par) {
    }

    private static Column col(String name, String type) {
        return Column.builder().name(name).type(type).build();
    }

    @Test
    void anAppendIntoAnAwswranglerTableFillsItsColumnsInsteadOfAddingSplitOnes() {
        AwswranglerTables.create(glue, db, "sales", table, List.of(col("orderid", "string"), col("amountcents", "bigint")),
                List.of(col("par", "string")));

        S3Parquet.write(List.of(new Sale("o1", 150, "a"), new Sale("o2", 250, "b"))).partitionBy("Par").mode(WriteMode.APPEND)
                .catalog(GlueCatalog.of(glue).table(db, "Sales")).s3(Lake.s3().client()).to(table);

        var t = glue.getTable(b -> b.databaseName(db).name("sales")).table();
        assertThat(t.storageDescriptor().columns()).extracting(Column::name, Column::type).containsExactly(
                org.assertj.core.groups.Tuple.tuple("orderid", "string"), org.assertj.core.groups.Tuple.tuple("amountcents", "bigint"));
        assertThat(t.partitionKeys()).extracting(Column::name).containsExactly("par");
        assertThat(Lake.list(bucket, "sales/").keySet()).allMatch(k -> k.startsWith("sales/par=a/") || k.startsWith("sales/par=b/"));
        assertThat(Lake.query(bucket, "sales/", "SELECT orderid, amountcents, par FROM t ORDER BY 1"))
                .containsExactly(List.of("o1", 150L, "a"), List.of("o2", 250L, "b"));
    }

    @Test
    void partitionByTakesTheInputNameOrItsSanitizedForm() {
        for (String given : List.of("Par", "par", "PAR")) {
            S3Parquet.write(List.of(new Sale("o-" + given, 1, "x"))).partitionBy(given).mode(WriteMode.APPEND)
                    .catalog(GlueCatalog.of(glue).table(db, "sales")).s3(Lake.s3().client()).to(table);
        }
        List<Partition> parts = glue.getPartitions(b -> b.databaseName(db).tableName("sales")).partitions();
        assertThat(parts).extracting(Partition::values).containsExactly(List.of("x"));
        assertThat(Lake.query(bucket, "sales/", "SELECT orderid, amountcents, par FROM t ORDER BY 1"))
                .containsExactly(List.of("o-PAR", 1L, "x"), List.of("o-Par", 1L, "x"), List.of("o-par", 1L, "x"));

        Map<String, byte[]> before = Lake.snapshot(bucket);
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Sale("o", 1, "x"))).partitionBy("p_a_r")
                .catalog(GlueCatalog.of(glue).table(db, "sales")).s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the partition column 'p_a_r' is not in the input, whose columns are "
                        + "[orderId, amountCents, Par]. Pass columns of the input to partitionBy(...).");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void withoutACatalogPartitionByFindsTheInputColumnIgnoringCase() {
        // one name rule with or without a catalog (docs/writing.md, "Names"): 'par' names the input column Par
        S3Parquet.write(List.of(new Sale("o", 1, "x"))).partitionBy("par").s3(Lake.s3().client()).to(table);
        assertThat(Lake.list(bucket, "sales/").keySet()).isNotEmpty().allMatch(k -> k.startsWith("sales/Par=x/"));
    }

    @Test
    void sanitizeNamesFalseKeepsTheNamesAsGiven() {
        S3Parquet.write(List.of(new Sale("o1", 150, "a"))).partitionBy("Par")
                .catalog(GlueCatalog.of(glue).table(db, "legacy_sales").sanitizeNames(false)).s3(Lake.s3().client()).to(table);

        var t = glue.getTable(b -> b.databaseName(db).name("legacy_sales")).table();
        assertThat(t.storageDescriptor().columns()).extracting(Column::name).containsExactly("orderId", "amountCents");
        assertThat(t.partitionKeys()).extracting(Column::name).containsExactly("Par");
        assertThat(Lake.list(bucket, "sales/").keySet()).allMatch(k -> k.startsWith("sales/Par=a/"));
    }
}
