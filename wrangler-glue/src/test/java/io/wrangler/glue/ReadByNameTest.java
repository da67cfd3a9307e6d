package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.PartitionFilter;
import io.wrangler.ReadException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A table written through Glue is read back by its database and table name ({@code S3Parquet.read(catalogTable)}, as
 * awswrangler's {@code read_parquet_table}) and as the records it was written from, although Glue lowercased its column
 * names.
 */
class ReadByNameTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String uri = "s3://" + bucket + "/marts/orders/";
    private final S3Client s3 = Lake.s3().client();

    record Order(String orderId, LocalDate dt, String country, long amountCents, BigDecimal price, int year) {
    }

    private GlueTable orders() {
        return GlueCatalog.of(Lake.glue().client()).table(db, "orders");
    }

    private List<Order> write() {
        List<Order> rows = new ArrayList<>();
        int n = 0;
        for (LocalDate d : List.of(LocalDate.of(2024, 1, 14), LocalDate.of(2024, 1, 15))) {
            for (String c : List.of("DE", "RU", "US")) {
                for (int i = 0; i <= n % 3; i++) {
                    rows.add(new Order(d + "-" + c + "-" + i, d, c, 100L * ++n, new BigDecimal(n + ".50"), 2024));
                }
            }
        }
        S3Parquet.write(rows).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(orders()).s3(s3).to(uri);
        return rows;
    }

    @Test
    void aTableWrittenThroughGlueReadsBackByNameAsItsRecords() throws Exception {
        List<Order> rows = write();

        // By name: the location, partitions and types from Glue; the components take the lowercased columns.
        assertThat(S3Parquet.read(orders()).s3(s3).toList(Order.class)).containsExactlyInAnyOrderElementsOf(rows);
        // By location, without the catalog: the same records.
        assertThat(S3Parquet.read(uri).s3(s3).toList(Order.class)).containsExactlyInAnyOrderElementsOf(rows);

        assertThat(S3Parquet.read(orders()).s3(s3).count()).isEqualTo(rows.size())
                .isEqualTo(Lake.query(bucket, "marts/orders/", "SELECT count(*) FROM t").get(0).get(0));
        assertThat(S3Parquet.read(orders()).s3(s3).filter(PartitionFilter.in("dt", "2024-01-15")).count())
                .isEqualTo(rows.stream().filter(o -> o.dt().getDayOfMonth() == 15).count())
                .isEqualTo(Lake.query(bucket, "marts/orders/", "SELECT count(*) FROM t WHERE dt = DATE '2024-01-15'").get(0).get(0));

        // The batches: Glue's types (dt a date), the values DuckDB reads.
        List<List<Object>> read = new ArrayList<>();
        try (ArrowReader r = S3Parquet.read(orders()).s3(s3).columns("orderid", "amountcents", "dt").open()) {
            assertThat(r.getVectorSchemaRoot().getSchema().findField("dt").getType()).isInstanceOf(ArrowType.Date.class);
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    read.add(List.of(b.getVector("orderid").getObject(i).toString(), b.getVector("amountcents").getObject(i),
                            LocalDate.ofEpochDay(((DateDayVector) b.getVector("dt")).get(i)).toString()));
                }
            }
        }
        read.sort(Comparator.comparing(Object::toString));
        assertThat(read).hasSize(rows.size()).isEqualTo(Lake.query(bucket, "marts/orders/",
                "SELECT orderid, amountcents, CAST(dt AS VARCHAR) FROM t ORDER BY orderid"));
    }

    @Test
    void aTableTheCatalogDoesNotHaveIsAClearReadError() {
        write();
        GlueTable missing = GlueCatalog.of(Lake.glue().client()).table(db, "nope");
        String message = "Cannot read " + missing.describe() + ": the catalog has no such table. Check the database and table names, or "
                + "read the table by its S3 location with S3Parquet.read(uri).";
        assertThatThrownBy(() -> S3Parquet.read(missing).s3(s3).open()).isInstanceOf(ReadException.class).hasMessage(message);
        assertThatThrownBy(() -> S3Parquet.read(missing).s3(s3).count()).isInstanceOf(ReadException.class).hasMessage(message);
        assertThatThrownBy(() -> S3Parquet.read(missing).s3(s3).toList(Order.class)).isInstanceOf(ReadException.class).hasMessage(message);
    }
}
