package io.wrangler.examples.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark pipeline counts what the single-process EventsPipeline counts, reconciles, and a rerun changes nothing; run as
 * a user runs it, twice in a row on the same folder (main stops its session; the second run makes another, on the lake
 * the first one left). Each run of a date is seven Spark jobs, and Spark jobs are most of this module's test time, so the
 * counts are read from what main prints for each date (main returns no value; it prints what {@code run} returned) rather
 * than from runs of the dates of its own: both mains' lines are asserted, the first on a new lake, the second on the same
 * lake, where every date is rerun.
 */
class SparkEventsPipelineTest {
    private static final List<String> COUNTS = List.of(
            "2026-10-01 raw=43 valid=41 duplicates=1 quarantined=2 curated=40 catalog=40 late=0 (reconciled)",
            "2026-10-02 raw=44 valid=42 duplicates=1 quarantined=2 curated=41 catalog=41 late=1 (reconciled)",
            "rerunning 2026-10-02 left every partition of every date identical");

    @Test
    void eachDateReconcilesAndARerunLeavesEveryPartitionIdentical(@TempDir Path folder) {
        List<String> first = runMain(folder);
        assertThat(first).as("the first run").containsAll(COUNTS);
        assertThat(first).filteredOn(l -> l.startsWith("landed ")).extracting(l -> l.replaceAll("^landed (\\d+) raw lines under .*dt=([0-9-]+)/$", "$2=$1"))
                .containsExactly("2026-10-01=43", "2026-10-02=44", "2026-10-03=43");
        assertThat(runMain(folder)).as("the second run, on the lake the first left").containsAll(COUNTS);
        try (SparkLakeExample lake = SparkLakeExample.open(folder)) {
            assertThat(lake.query("curated/quarantine/", "SELECT reason, count(*) FROM t "
                    + "WHERE CAST(dt AS VARCHAR) IN ('2026-10-01', '2026-10-02') GROUP BY ALL ORDER BY ALL"))
                    .containsExactly(List.of("missing event_id or event_ts", 2L), List.of("unparseable", 2L));
            assertThat(lake.query("curated/events/", "SELECT event_id, CAST(event_date AS VARCHAR), CAST(dt AS VARCHAR), "
                    + "CAST(amount AS VARCHAR) FROM t WHERE event_id = 'late-1'"))
                    .containsExactly(List.of("late-1", "2026-10-01", "2026-10-02", "30.00"));
            assertThat(lake.glue().getTable(b -> b.databaseName("curated").name("daily_user_activity")).table().storageDescriptor().columns())
                    .extracting(c -> c.name() + " " + c.type())
                    .containsExactly("user_id string", "views bigint", "add_to_carts bigint", "purchases bigint", "revenue decimal(12,2)");
            assertThat(lake.s3().listObjectsV2(b -> b.bucket("lake").prefix("curated/events/_tmp/")).contents()).isEmpty();
        }
    }

    /** Runs main on {@code folder} and returns what it printed (also passed on to the console). */
    private static List<String> runMain(Path folder) {
        PrintStream console = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            SparkEventsPipeline.main(new String[] {folder.toString()});
        } finally {
            System.setOut(console);
            console.print(printed.toString(StandardCharsets.UTF_8));
        }
        return printed.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
