package io.wrangler.examples;

import io.wrangler.MergeResult;
import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.glue.GlueCatalog;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Late events merged into a table partitioned by event date: a day's events are loaded, then a batch of late and
 * corrected events arrives, merged by {@code event_id} with the newer {@code updated_at} winning. One correction moves
 * an event to another day (its {@code event_date} was wrong): the merge's scope, the last seven days, covers the old
 * day, so the event leaves it. The table is registered in Glue, and the merge keeps Glue's partitions as S3 has them.
 * Run twice in a row, it leaves the same table: the load is an overwrite of its days, and the merge of the same batch
 * replaces the same keys with the same rows.
 */
public final class LateEvents {
    static final String TABLE = "late/events/";

    private LateEvents() {
    }

    /** One event; {@code event_date} is the partition. */
    public record Event(long event_id, String kind, long amount, long updated_at, LocalDate event_date) {
    }

    /** The day's load: 10 events on each of 2024-03-01 to 2024-03-03. */
    static List<Event> load() {
        List<Event> out = new ArrayList<>();
        for (int d = 1; d <= 3; d++) {
            for (int i = 0; i < 10; i++) {
                out.add(new Event(d * 100L + i, "view", 10, 1, LocalDate.of(2024, 3, d)));
            }
        }
        return out;
    }

    /**
     * The late batch: event 105 corrected (amount), event 203 moved from 2024-03-02 to 2024-03-03, two events new on
     * 2024-03-03, and an old copy of event 301 (updated_at 0, older than the table's: ignored).
     */
    static List<Event> late() {
        return List.of(new Event(105, "purchase", 99, 2, LocalDate.of(2024, 3, 1)), new Event(203, "view", 10, 2, LocalDate.of(2024, 3, 3)),
                new Event(310, "view", 5, 2, LocalDate.of(2024, 3, 3)), new Event(311, "purchase", 50, 2, LocalDate.of(2024, 3, 3)),
                new Event(301, "stale", 0, 0, LocalDate.of(2024, 3, 3)));
    }

    /** Loads the days, then merges the late batch; returns the merge's result. */
    static MergeResult run(ExampleLake lake) {
        lake.database("analytics");
        CatalogTable glue = GlueCatalog.of(lake.glue()).table("analytics", "late_events");
        S3Parquet.write(load()).partitionBy("event_date").mode(WriteMode.OVERWRITE).catalog(glue).s3(lake.s3()).to(lake.uri(TABLE));
        PartitionFilter lastWeek = PartitionFilter.where(p -> p.get("event_date").compareTo("2024-02-25") >= 0);
        return S3Parquet.merge(late()).on("event_id").orderBy("updated_at").scope(lastWeek).catalog(glue).s3(lake.s3())
                .to(lake.uri(TABLE));
    }

    /** Rows, distinct ids, sum of amounts, and rows per day, as DuckDB reads the table. */
    static List<List<Object>> state(ExampleLake lake) {
        return lake.query(TABLE, "SELECT CAST(event_date AS VARCHAR), count(*), count(DISTINCT event_id), CAST(sum(amount) AS BIGINT) "
                + "FROM t GROUP BY ALL ORDER BY ALL");
    }

    public static void main(String[] args) {
        Path folder = Path.of(args.length > 0 ? args[0] : "wrangler-data").toAbsolutePath();
        try (ExampleLake lake = ExampleLake.open(folder)) {
            System.out.println("Lake: " + lake.describe());
            MergeResult r = run(lake);
            System.out.println("merged the late batch: " + r.rowsInserted() + " inserted, " + r.rowsUpdated() + " updated, "
                    + r.rowsUnchanged() + " unchanged; " + r.filesRewritten().size() + " files rewritten in " + r.partitionsTouched());
            System.out.println("table by day (day, rows, ids, amount): " + state(lake));
        }
    }
}
