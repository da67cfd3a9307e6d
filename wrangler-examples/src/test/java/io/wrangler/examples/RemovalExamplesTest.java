package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The erasure request and the retention job, each run twice in a row on the same folder, with their values checked. */
class RemovalExamplesTest {
    @Test
    void theErasureRequestRunTwiceLeavesNoRowOfTheUserInAnyObject(@TempDir Path folder) {
        ErasureRequest.main(new String[] {folder.toString()});
        ErasureRequest.main(new String[] {folder.toString()});
        try (ExampleLake lake = ExampleLake.open(folder)) {
            assertThat(ErasureRequest.userRowsInAnyObject(lake)).isZero();
            assertThat(lake.query(ErasureRequest.TABLE, "SELECT count(*), count(DISTINCT userid), CAST(sum(amount) AS BIGINT) FROM t"))
                    .containsExactly(List.of(40L, 4L, 49L * 50 / 2 - (2 + 7 + 12 + 17 + 22 + 27 + 32 + 37 + 42 + 47)));
            assertThat(lake.glue().getPartitions(g -> g.databaseName("raw").tableName("erasure_events")).partitions()).hasSize(10);
        }
    }

    @Test
    void theRetentionJobRunTwiceKeepsTheLastDays(@TempDir Path folder) {
        RetentionJob.main(new String[] {folder.toString()});
        RetentionJob.main(new String[] {folder.toString()});
        try (ExampleLake lake = ExampleLake.open(folder)) {
            assertThat(lake.query(RetentionJob.TABLE, "SELECT CAST(dt AS VARCHAR), count(*) FROM t GROUP BY ALL ORDER BY 1").get(0))
                    .isEqualTo(List.of("2026-11-23", 3L));
            assertThat(lake.glue().getPartitions(g -> g.databaseName("raw").tableName("retention_events")).partitions())
                    .extracting(p -> p.values().get(0)).doesNotContain("2026-11-21", "2026-11-22").hasSize(8);
        }
    }
}
