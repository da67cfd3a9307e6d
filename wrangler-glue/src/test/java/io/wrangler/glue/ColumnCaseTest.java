package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.CompactionResult;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.testkit.DuckReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A table first written without a catalog, then appended through Glue (whose names are lower case: it registers
 * {@code orderid}); both writes' files keep {@code orderId}, and a compaction through the catalog writes the catalog's
 * names: the columns are one, matched case-insensitively as Hive, Glue and Athena match them, and every row's values are
 * read, as DuckDB's {@code union_by_name} reads them.
 */
class ColumnCaseTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/orders/";
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();

    record Order(String orderId, long amountCents, String region) {
    }

    record Extra(String orderId, long amountCents, long extra, String region) {
    }

    private GlueTable catalog() {
        return GlueCatalog.of(glue).table(db, "orders");
    }

    /** Every row, its values by position (the names depend on the read), ordered by their text. */
    private static List<List<Object>> rows(ArrowReader r, List<String> names) throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (r) {
            assertThat(r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList()).isEqualTo(names);
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    List<Object> row = new ArrayList<>();
                    for (FieldVector v : b.getFieldVectors()) {
                        Object o = v.getObject(i);
                        row.add(o instanceof Text t ? t.toString() : o);
                    }
                    out.add(row);
                }
            }
        }
        out.sort(Comparator.comparing(List::toString));
        return out;
    }

    @Test
    void columnsWrittenWithAndWithoutTheCatalogAreOneColumnWithEveryValue() throws Exception {
        S3Parquet.write(List.of(new Order("o1", 100, "EU"), new Order("o2", 200, "EU"))).partitionBy("region").filenamePrefix("a")
                .s3(s3).to(table);
        S3Parquet.write(List.of(new Order("o3", 300, "EU"))).partitionBy("region").filenamePrefix("b").mode(WriteMode.APPEND)
                .catalog(catalog()).s3(s3).to(table);
        byte[] appended = Lake.s3().get(bucket, Lake.list(bucket, "orders/region=EU/b").keySet().iterator().next());
        assertThat(DuckReader.queryFile(appended, "SELECT name FROM parquet_schema($file) WHERE name LIKE '%order%'"))
                .as("the append through Glue keeps the input's spelling in its files, as a write without it does")
                .isEqualTo(List.of(List.of("orderId")));

        List<List<Object>> expected = List.of(List.of("o1", 100L, "EU"), List.of("o2", 200L, "EU"), List.of("o3", 300L, "EU"));
        assertThat(Lake.query(bucket, "orders/", "SELECT orderid, amountcents, region FROM t ORDER BY orderid")).isEqualTo(expected);
        // Without the catalog the names are the first file's; through it, the catalog's.
        assertThat(rows(S3Parquet.read(table).s3(s3).open(), List.of("orderId", "amountCents", "region"))).isEqualTo(expected);
        assertThat(rows(S3Parquet.read(table).catalog(catalog()).s3(s3).open(), List.of("orderid", "amountcents", "region")))
                .isEqualTo(expected);
        assertThat(rows(S3Parquet.read(table).columns("ORDERID", "amountcents").s3(s3).open(), List.of("orderId", "amountCents")))
                .isEqualTo(List.of(List.of("o1", 100L), List.of("o2", 200L), List.of("o3", 300L)));

        // A compaction through the catalog keeps every value, in files of the catalog's names.
        CompactionResult r = S3Parquet.compact(table).catalog(catalog()).s3(s3).run();
        assertThat(r.filesBefore()).isEqualTo(2);
        assertThat(r.filesAfter()).isEqualTo(1);
        assertThat(Lake.query(bucket, "orders/", "SELECT orderid, amountcents, region FROM t ORDER BY orderid")).isEqualTo(expected);
        byte[] compacted = Lake.s3().get(bucket, Lake.list(bucket, "orders/region=EU/").keySet().iterator().next());
        assertThat(DuckReader.queryFile(compacted, "SELECT name FROM parquet_schema($file) WHERE name LIKE '%o%'"))
                .isEqualTo(List.of(List.of("orderid"), List.of("amountcents")));
        assertThat(rows(S3Parquet.read(table).catalog(catalog()).s3(s3).open(), List.of("orderid", "amountcents", "region")))
                .isEqualTo(expected);
    }

    record Named(String orderId, long amountCents, String ship_to, String DT) {
    }

    @Test
    void aWriteGivesTheSameFileSchemaWithAndWithoutTheCatalogAndPartitionByMatchesIgnoringCase() {
        String plain = "s3://" + bucket + "/plain/";
        List<Named> rows = List.of(new Named("o1", 100, "x", "2024-01-15"));
        S3Parquet.write(rows).partitionBy("dt").s3(s3).to(plain);
        S3Parquet.write(rows).partitionBy("dt").catalog(catalog()).s3(s3).to(table);
        String sql = "SELECT name, type FROM parquet_schema($file) WHERE name <> 'schema' ORDER BY name";
        byte[] without = Lake.s3().get(bucket, Lake.list(bucket, "plain/DT=2024-01-15/").keySet().iterator().next());
        byte[] with = Lake.s3().get(bucket, Lake.list(bucket, "orders/dt=2024-01-15/").keySet().iterator().next());
        assertThat(DuckReader.queryFile(with, sql)).isEqualTo(DuckReader.queryFile(without, sql))
                .isEqualTo(List.of(List.of("amountCents", "INT64"), List.of("orderId", "BYTE_ARRAY"), List.of("ship_to", "BYTE_ARRAY")));
        assertThat(glue.getTable(b -> b.databaseName(db).name("orders")).table().storageDescriptor().columns()).extracting(Column::name)
                .containsExactly("orderid", "amountcents", "ship_to");
        assertThat(Lake.query(bucket, "orders/", "SELECT orderid, amountcents, ship_to, CAST(dt AS VARCHAR) FROM t"))
                .isEqualTo(List.of(List.of("o1", 100L, "x", "2024-01-15")));
    }

    @Test
    void throughTheCatalogItsColumnsComeFirstThenThoseOnlyTheFilesHoldAndOneOnlyItDeclaresIsNulls() throws Exception {
        AwswranglerTables.create(glue, db, "orders", table, List.of(Column.builder().name("note").type("string").build()),
                List.of(Column.builder().name("region").type("string").build()));
        S3Parquet.write(List.of(new Order("o1", 100, "EU"))).partitionBy("region").mode(WriteMode.APPEND).catalog(catalog())
                .s3(s3).to(table);
        // Another writer's file in the registered partition, with a column the catalog does not know.
        S3Parquet.write(List.of(new Extra("o2", 200, 7, "EU"))).partitionBy("region").s3(s3).to(table);

        assertThat(rows(S3Parquet.read(table).catalog(catalog()).s3(s3).open(),
                List.of("note", "orderid", "amountcents", "extra", "region")))
                .isEqualTo(List.of(Arrays.asList(null, "o1", 100L, null, "EU"), Arrays.asList(null, "o2", 200L, 7L, "EU")));
    }
}
