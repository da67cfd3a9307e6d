package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Decimal;
import io.wrangler.InvalidWriteException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;

/** Writes into a table whose types are wider than the input's: widened to the table's types, or refused before any I/O. */
class CatalogCastsTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/facts/";
    private final GlueClient glue = Lake.glue().client();

    private static Column col(String name, String type) {
        return Column.builder().name(name).type(type).build();
    }

    record Inner(int a, float b) {
    }

    record Fact(String k, int n, float f, @Decimal(precision = 9, scale = 2) BigDecimal d, List<Integer> l, Map<String, Short> m, Inner s, int p) {
    }

    private final List<Column> wide = List.of(col("k", "string"), col("n", "bigint"), col("f", "double"), col("d", "decimal(12,2)"),
            col("l", "array<bigint>"), col("m", "map<string,int>"), col("s", "struct<a:bigint,b:double>"));

    @Test
    void anAppendWidensEveryColumnAtEveryDepthToTheTablesTypes() {
        AwswranglerTables.create(glue, db, "facts", table, wide, List.of(col("p", "bigint")));
        String versionBefore = glue.getTable(b -> b.databaseName(db).name("facts")).table().versionId();

        S3Parquet.write(List.of(
                new Fact("x", Integer.MIN_VALUE, 1.5f, new BigDecimal("1234567.89"), List.of(Integer.MAX_VALUE, -1), Map.of("a", (short) -7),
                        new Inner(Integer.MAX_VALUE, 0.25f), 3),
                new Fact("y", 7, -0.5f, new BigDecimal("-0.01"), List.of(), Map.of(), new Inner(-1, -2.5f), 3)))
                .partitionBy("p").mode(WriteMode.APPEND).catalog(GlueCatalog.of(glue).table(db, "facts")).s3(Lake.s3().client()).to(table);

        var t = glue.getTable(b -> b.databaseName(db).name("facts")).table();
        assertThat(t.storageDescriptor().columns()).extracting(Column::name, Column::type)
                .containsExactlyElementsOf(wide.stream().map(c -> org.assertj.core.groups.Tuple.tuple(c.name(), c.type())).toList());
        assertThat(t.versionId()).isEqualTo(versionBefore);
        assertThat(Lake.query(bucket, "facts/", "SELECT typeof(n), typeof(f), typeof(d), typeof(l), typeof(m), typeof(s), typeof(p) FROM t LIMIT 1"))
                .containsExactly(List.of("BIGINT", "DOUBLE", "DECIMAL(12,2)", "BIGINT[]", "MAP(VARCHAR, INTEGER)", "STRUCT(a BIGINT, b DOUBLE)",
                        "BIGINT"));
        assertThat(Lake.query(bucket, "facts/", "SELECT k, n, f, CAST(d AS VARCHAR), CAST(l AS VARCHAR), CAST(m AS VARCHAR), CAST(s AS VARCHAR) "
                + "FROM t ORDER BY k")).containsExactly(
                List.of("x", -2147483648L, 1.5, "1234567.89", "[2147483647, -1]", "{a=-7}", "{'a': 2147483647, 'b': 0.25}"),
                List.of("y", 7L, -0.5, "-0.01", "[]", "{}", "{'a': -1, 'b': -2.5}"));
    }

    record Narrow(String k, long n) {
    }

    record WideInner(long a, float b) {
    }

    record NestedNarrow(String k, WideInner s) {
    }

    @Test
    void aNarrowingIsRefusedBeforeAnyObjectIsWrittenWithTheColumnPathAndBothTypes() {
        AwswranglerTables.create(glue, db, "facts", table, List.of(col("k", "string"), col("n", "int"), col("s", "struct<a:int,b:double>")),
                List.of());
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(List.of(new Narrow("x", 1))).catalog(GlueCatalog.of(glue).table(db, "facts"))
                .s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 'n' is int in glue:" + db + ".facts but bigint in this "
                        + "write, which does not widen to int without losing values. Cast it to int before writing, or OVERWRITE the table "
                        + "to redefine it.");
        assertThatThrownBy(() -> S3Parquet.write(List.of(new NestedNarrow("x", new WideInner(1, 1f)))).catalog(GlueCatalog.of(glue).table(db, "facts"))
                .s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 's.a' is int in glue:" + db + ".facts but bigint in this "
                        + "write, which does not widen to int without losing values. Cast it to int before writing, or OVERWRITE the table "
                        + "to redefine it.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);

        // OVERWRITE redefines the table with the write's types.
        S3Parquet.write(List.of(new Narrow("x", 1L << 40))).mode(WriteMode.OVERWRITE).catalog(GlueCatalog.of(glue).table(db, "facts"))
                .s3(Lake.s3().client()).to(table);
        assertThat(glue.getTable(b -> b.databaseName(db).name("facts")).table().storageDescriptor().columns())
                .extracting(Column::name, Column::type).containsExactly(org.assertj.core.groups.Tuple.tuple("k", "string"),
                        org.assertj.core.groups.Tuple.tuple("n", "bigint"));
        assertThat(Lake.query(bucket, "facts/", "SELECT k, n FROM t")).containsExactly(List.of("x", 1L << 40));
    }

    record Priced(String k, BigDecimal price) {
    }

    @Test
    void aDecimalOfAnotherScaleIsRefusedNamingTheRecordAnnotation() {
        AwswranglerTables.create(glue, db, "facts", table, List.of(col("k", "string"), col("price", "decimal(38,2)")), List.of());
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(List.of(new Priced("x", new BigDecimal("2.125")))).catalog(GlueCatalog.of(glue).table(db, "facts"))
                .s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 'price' is decimal(38,2) in glue:" + db + ".facts but "
                        + "decimal(38,3) in this write, which does not widen to decimal(38,2) without losing values. Cast it to decimal(38,2) "
                        + "before writing (for a record's BigDecimal component: annotate it @Decimal(precision = 38, scale = 2)), or "
                        + "OVERWRITE the table to redefine it.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }
}
