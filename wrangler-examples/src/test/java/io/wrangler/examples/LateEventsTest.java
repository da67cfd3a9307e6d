package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.MergeResult;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LateEventsTest {
    private static final List<List<Object>> MERGED = List.of(List.of("2024-03-01", 10L, 10L, 189L), List.of("2024-03-02", 9L, 9L, 90L),
            List.of("2024-03-03", 13L, 13L, 165L));

    @Test
    void theLateBatchIsMergedAndTheCorrectedEventMovesDayAndTwoRunsLeaveTheSameTable(@TempDir Path folder) {
        try (ExampleLake lake = ExampleLake.open(folder)) {
            MergeResult r = LateEvents.run(lake);
            assertThat(r.rowsInserted()).isEqualTo(2);
            assertThat(r.rowsUpdated()).isEqualTo(2);
            assertThat(r.rowsUnchanged()).isEqualTo(1);
            // the files of 105 (03-01) and 203 (03-02); 03-03's file holds only the kept 301 and stays
            assertThat(r.filesRewritten()).hasSize(2);
            assertThat(LateEvents.state(lake)).isEqualTo(MERGED);
            assertThat(lake.query(LateEvents.TABLE, "SELECT CAST(event_date AS VARCHAR), kind FROM t WHERE event_id IN (203, 301) ORDER BY ALL"))
                    .containsExactly(List.of("2024-03-03", "view"), List.of("2024-03-03", "view"));
            // Glue registers exactly the days S3 holds
            assertThat(lake.glue().getPartitions(b -> b.databaseName("analytics").tableName("late_events")).partitions().stream()
                    .map(p -> p.values().get(0)).sorted().toList()).containsExactly("2024-03-01", "2024-03-02", "2024-03-03");

            LateEvents.run(lake);
            assertThat(LateEvents.state(lake)).isEqualTo(MERGED);
        }
    }

    @Test
    void theExampleRunTwiceInARowPrintsAndLeavesTheSameTable(@TempDir Path folder) {
        LateEvents.main(new String[] {folder.toString()});
        LateEvents.main(new String[] {folder.toString()});
        try (ExampleLake lake = ExampleLake.open(folder)) {
            assertThat(LateEvents.state(lake)).isEqualTo(MERGED);
        }
    }
}
