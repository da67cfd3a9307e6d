package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Keyed runs through Glue at a registered Location that is not the Hive folder: compacted there into a marked file, then
 * a rerun of each key through the catalog replaces exactly its rows there, read back by name and through DuckDB.
 */
class KeyedRerunThroughGlueTest {
    private static final String VALUE = "a/b c=d:e";
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/sales/";
    private final String registered = table + "country=" + VALUE + "/";
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();

    record Sale(String orderid, long amount, String country) {
    }

    private static Column col(String name, String type) {
        return Column.builder().name(name).type(type).build();
    }

    private static final List<Column> COLUMNS = List.of(col("orderid", "string"), col("amount", "bigint"));

    private GlueTable catalog() {
        return GlueCatalog.of(glue).table(db, "sales");
    }

    private List<List<Object>> rowsAt(String location) {
        String prefix = location.substring(("s3://" + bucket + "/").length());
        return Lake.query(bucket, prefix, "SELECT orderid, amount FROM t ORDER BY 1");
    }

    @Test
    void aKeyedRerunAfterACompactionUnderARegisteredLocation() {
        AwswranglerTables.create(glue, db, "sales", table, COLUMNS, List.of(col("country", "string")));
        AwswranglerTables.partition(glue, db, "sales", List.of(VALUE), registered, COLUMNS);
        S3Parquet.write(List.of(new Sale("k1a", 1, VALUE))).partitionBy("country").mode(WriteMode.APPEND).idempotencyKey("k1")
                .catalog(catalog()).s3(s3).to(table);
        S3Parquet.write(List.of(new Sale("k2a", 2, VALUE))).partitionBy("country").mode(WriteMode.APPEND).idempotencyKey("k2")
                .catalog(catalog()).s3(s3).to(table);
        S3Parquet.compact(table).catalog(catalog()).s3(s3).run();
        assertThat(Lake.list(bucket, "sales/").keySet()).singleElement().asString().startsWith("sales/country=" + VALUE + "/").endsWith("_k.snappy.parquet");
        assertThat(rowsAt(registered)).containsExactly(List.of("k1a", 1L), List.of("k2a", 2L));
        S3Parquet.write(List.of(new Sale("k1b", 3, VALUE))).partitionBy("country").mode(WriteMode.APPEND).idempotencyKey("k1")
                .catalog(catalog()).s3(s3).to(table);
        assertThat(rowsAt(registered)).containsExactly(List.of("k1b", 3L), List.of("k2a", 2L));
        assertThat(S3Parquet.read(catalog()).s3(s3).count()).isEqualTo(2);
        assertThat(S3Parquet.read(catalog()).s3(s3).toList(Sale.class)).containsExactlyInAnyOrder(new Sale("k1b", 3, VALUE), new Sale("k2a", 2, VALUE));
        // and the other key, now in the rerun's rewrite of the marked file
        S3Parquet.write(List.of(new Sale("k2b", 4, VALUE))).partitionBy("country").mode(WriteMode.APPEND).idempotencyKey("k2")
                .catalog(catalog()).s3(s3).to(table);
        assertThat(rowsAt(registered)).containsExactly(List.of("k1b", 3L), List.of("k2b", 4L));
    }
}
