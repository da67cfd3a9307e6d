package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/**
 * One name rule (docs/writing.md, "Names"): partitionBy, bucketBy and a partition filter's columns find a column spelled
 * exactly so, else the one equal to it ignoring case, as reads and record components do and as Hive, Glue and Athena
 * match names.
 */
class ColumnNamesTest {
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    record Order(String orderId, long amountCents, String dt, String Country) {
    }

    private static List<String> ids(ArrowReader r) throws Exception {
        List<String> out = new ArrayList<>();
        try (r) {
            while (r.loadNextBatch()) {
                VarCharVector v = (VarCharVector) r.getVectorSchemaRoot().getVector("orderId");
                for (int i = 0; i < v.getValueCount(); i++) {
                    out.add(v.getObject(i).toString());
                }
            }
        }
        out.sort(null);
        return out;
    }

    @Test
    void partitionByAndFiltersMatchColumnsIgnoringCase() throws Exception {
        List<Order> rows = List.of(new Order("o1", 1, "2024-01-15", "RU"), new Order("o2", 2, "2024-01-16", "DE"),
                new Order("o3", 3, "2024-01-16", "RU"));
        WriteResult r = S3Parquet.write(rows).partitionBy("DT", "country").bucketBy(List.of("ORDERID"), 2)
                .s3(TestLake.memory().client()).to(table);
        // the folders carry the input's spelling of the columns, whatever spelling partitionBy used
        assertThat(r.partitionValues()).containsOnlyKeys(table + "dt=2024-01-15/Country=RU/", table + "dt=2024-01-16/Country=DE/",
                table + "dt=2024-01-16/Country=RU/");
        assertThat(TestLake.query(bucket, "t/", "SELECT \"orderId\", CAST(dt AS VARCHAR), Country FROM t ORDER BY 1")).containsExactly(
                List.of("o1", "2024-01-15", "RU"), List.of("o2", "2024-01-16", "DE"), List.of("o3", "2024-01-16", "RU"));

        assertThat(ids(S3Parquet.read(table).filter(PartitionFilter.in("DT", "2024-01-16")).s3(TestLake.memory().client()).open()))
                .containsExactly("o2", "o3");
        assertThat(ids(S3Parquet.read(table).filter(PartitionFilter.in("dt", "2024-01-16").and(PartitionFilter.in("COUNTRY", "RU")))
                .s3(TestLake.memory().client()).open())).containsExactly("o3");
        assertThat(ids(S3Parquet.read(table).filter(PartitionFilter.where(p -> "RU".equals(p.get("country"))))
                .s3(TestLake.memory().client()).open())).containsExactly("o1", "o3");

        assertThatThrownBy(() -> ids(S3Parquet.read(table).filter(PartitionFilter.in("region", "EU")).s3(TestLake.memory().client()).open()))
                .isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): the partition filter names the column 'region', which is not a "
                        + "partition column of the table (its partition columns are [dt, Country]). Filter on partition columns only.");

        S3Parquet.write(rows).partitionBy("dt", "COUNTRY").bucketBy(List.of("orderid"), 2).s3(TestLake.memory().client()).to(table);
        CompactionResult c = S3Parquet.compact(table).filter(PartitionFilter.in("Dt", "2024-01-16")).whenMoreFilesThan(1)
                .s3(TestLake.memory().client()).run();
        assertThat(c.partitions()).containsExactlyInAnyOrder(table + "dt=2024-01-16/Country=DE/", table + "dt=2024-01-16/Country=RU/");
    }
}
