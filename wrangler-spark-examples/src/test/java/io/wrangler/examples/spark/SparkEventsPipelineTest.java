package io.wrangler.examples.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark pipeline counts what the single-process EventsPipeline counts, reconciles, and a rerun changes nothing. Two
 * of the three dates (the one with the late event among them): each run of a date is seven Spark jobs.
 */
class SparkEventsPipelineTest {
    @Test
    void eachDateReconcilesAndARerunLeavesEveryPartitionIdentical(@TempDir Path folder) {
        SparkSession spark = SparkEventsPipeline.session();
        try (SparkLakeExample lake = SparkLakeExample.open(folder)) {
            assertThat(SparkEventsPipeline.landRawFiles(lake))
                    .containsExactly(Map.entry("2026-10-01", 43), Map.entry("2026-10-02", 44), Map.entry("2026-10-03", 43));
            assertThat(SparkEventsPipeline.run(spark, lake, "2026-10-01")).isEqualTo(new SparkEventsPipeline.Counts(43, 41, 1, 2, 40, 40, 0));
            assertThat(SparkEventsPipeline.run(spark, lake, "2026-10-02")).isEqualTo(new SparkEventsPipeline.Counts(44, 42, 1, 2, 41, 41, 1));
            Map<String, List<Object>> before = SparkEventsPipeline.totals(lake);
            SparkEventsPipeline.run(spark, lake, "2026-10-02");
            assertThat(SparkEventsPipeline.totals(lake)).isEqualTo(before).hasSize(6);
            assertThat(lake.query("curated/quarantine/", "SELECT reason, count(*) FROM t GROUP BY ALL ORDER BY ALL"))
                    .containsExactly(List.of("missing event_id or event_ts", 2L), List.of("unparseable", 2L));
            assertThat(lake.query("curated/events/", "SELECT event_id, CAST(event_date AS VARCHAR), CAST(dt AS VARCHAR), "
                    + "CAST(amount AS VARCHAR) FROM t WHERE event_id = 'late-1'"))
                    .containsExactly(List.of("late-1", "2026-10-01", "2026-10-02", "30.00"));
            assertThat(lake.glue().getTable(b -> b.databaseName("curated").name("daily_user_activity")).table().storageDescriptor().columns())
                    .extracting(c -> c.name() + " " + c.type())
                    .containsExactly("user_id string", "views bigint", "add_to_carts bigint", "purchases bigint", "revenue decimal(12,2)");
            assertThat(lake.s3().listObjectsV2(b -> b.bucket("lake").prefix("curated/events/_tmp/")).contents()).isEmpty();
        }
        // As a user runs it, twice in a row on the same folder (main stops the session; the second run makes another).
        SparkEventsPipeline.main(new String[] {folder.resolve("main").toString()});
        SparkEventsPipeline.main(new String[] {folder.resolve("main").toString()});
    }
}
