package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tables partitioned by more columns than the partitioner packs into one key (three): year, month, day and hour, as
 * many awswrangler tables are. Every row must land in its own partition. Until this test, a batch's rows all went to
 * its first row's partition once the codes of a row no longer fitted one long (four or more partition columns, or a
 * column with over 2^21 distinct values in one write): rows were silently written under another partition's values.
 */
class ManyPartitionColumnsTest {
    record Reading(long id, int year, int month, int day, int hour, String site, double value) {
    }

    private static Reading reading(long id) {
        return new Reading(id, 2024 + (int) (id % 2), 1 + (int) (id % 3), 1 + (int) (id % 5), (int) (id % 4), "site-" + id % 6, id / 8.0);
    }

    @Test
    void everyRowLandsInItsOwnPartitionWithFivePartitionColumns() throws Exception {
        String bucket = TestLake.memoryBucket();
        List<Reading> rows = new ArrayList<>();
        for (long id = 0; id < 2_000; id++) {
            rows.add(reading(id));
        }
        String[][] layouts = {{"year", "month", "day", "hour", "site"}};
        for (int l = 0; l < layouts.length; l++) {
            String table = "readings" + layouts[l].length + "/";
            WriteResult r = S3Parquet.write(rows).partitionBy(layouts[l]).s3(TestLake.memory().client()).to("s3://" + bucket + "/" + table);
            // lcm(2, 3, 5, 4, 6) = 60 combinations
            assertThat(r.partitions()).hasSize(60);
            // DuckDB reads the partition values from the folder names: each must be the one the row's id gives.
            List<List<Object>> wrong = TestLake.query(bucket, table, "SELECT id, year, month, day, hour FROM t WHERE year <> 2024 + id % 2 "
                    + "OR month <> 1 + id % 3 OR day <> 1 + id % 5 OR hour <> id % 4" + (layouts[l].length == 5 ? " OR site <> 'site-' || (id % 6)" : "")
                    + " LIMIT 5");
            assertThat(wrong).as("rows under another partition's folder, " + String.join("/", layouts[l])).isEmpty();
            List<List<Object>> counts = TestLake.query(bucket, table, "SELECT count(*), count(DISTINCT id), sum(value) FROM t");
            assertThat(counts.get(0)).containsExactly(2_000L, 2_000L, rows.stream().mapToDouble(Reading::value).sum());
        }
    }
}
