package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventsPipelineTest {
    @Test
    void eachDateReconcilesAndARerunLeavesEveryPartitionIdentical(@TempDir Path folder) {
        try (ExampleLake lake = ExampleLake.open(folder)) {
            Map<String, Integer> landed = EventsPipeline.landRawFiles(lake);
            assertThat(landed).containsExactly(Map.entry("2026-10-01", 43), Map.entry("2026-10-02", 44), Map.entry("2026-10-03", 43));
            assertThat(EventsPipeline.run(lake, "2026-10-01")).isEqualTo(new EventsPipeline.Counts(43, 41, 1, 2, 40, 40, 0));
            assertThat(EventsPipeline.run(lake, "2026-10-02")).isEqualTo(new EventsPipeline.Counts(44, 42, 1, 2, 41, 41, 1));
            assertThat(EventsPipeline.run(lake, "2026-10-03")).isEqualTo(new EventsPipeline.Counts(43, 41, 1, 2, 40, 40, 0));
            Map<String, List<Object>> before = EventsPipeline.totals(lake);
            EventsPipeline.run(lake, "2026-10-02");
            assertThat(EventsPipeline.totals(lake)).isEqualTo(before).hasSize(9);

            assertThat(lake.query("curated/quarantine/", "SELECT reason, count(*) FROM t GROUP BY ALL ORDER BY ALL"))
                    .containsExactly(List.of("missing event_id or event_ts", 3L), List.of("unparseable", 3L));
            assertThat(lake.query("curated/events/", "SELECT eventid, CAST(eventdate AS VARCHAR), CAST(dt AS VARCHAR), CAST(amount AS VARCHAR) FROM t WHERE eventid = 'late-1'"))
                    .containsExactly(List.of("late-1", "2026-10-01", "2026-10-02", "30.00"));
            assertThat(lake.glue().getTable(b -> b.databaseName("curated").name("daily_user_activity")).table().storageDescriptor().columns())
                    .extracting(c -> c.name() + " " + c.type())
                    .containsExactly("userid string", "views bigint", "addtocarts bigint", "purchases bigint", "revenue decimal(12,2)");
        }
        // as a user runs it, twice in a row on the same folder
        EventsPipeline.main(new String[] {folder.resolve("main").toString()});
        EventsPipeline.main(new String[] {folder.resolve("main").toString()});
    }

    @Test
    void parsingQuarantinesWithAReason() throws Exception {
        assertThat(EventsPipeline.parse("{\"event_id\":\"e\",\"user_id\":\"u\",\"event_type\":\"purchase\",\"amount\":19.99,"
                + "\"event_ts\":\"2026-10-05T12:00:00Z\"}", "2026-10-05").amount()).isEqualTo(new BigDecimal("19.99"));
        assertThatThrownBy(() -> EventsPipeline.parse("{\"bad json", "d")).hasMessage("unparseable");
        assertThatThrownBy(() -> EventsPipeline.parse("{\"user_id\":\"u2\",\"event_ts\":\"2026-10-05T11:00:00Z\"}", "d"))
                .hasMessage("missing event_id or event_ts");
        assertThatThrownBy(() -> EventsPipeline.parse("{\"event_id\":\"e\",\"event_ts\":\"yesterday\"}", "d"))
                .hasMessage("event_ts is not an ISO-8601 instant");
        assertThatThrownBy(() -> EventsPipeline.parse("{\"event_id\":\"e\",\"event_ts\":\"2026-10-05T11:00:00Z\",\"amount\":\"ten\"}", "d"))
                .hasMessage("amount is not a number");
    }
}
