package io.wrangler.examples;

import io.wrangler.DropResult;
import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * A retention job: the days of a table partitioned by day that are older than N days are dropped, their files deleted and
 * their Glue partitions removed, in one commit under the table's lease. A plan first says which days would go. A job
 * that runs again finds nothing older left: a no-op that says so.
 *
 * <p>Runs twice in a row: the day's load (an OVERWRITE_PARTITIONS of the last 10 days, "today" fixed so that the example
 * gives the same output every time) runs before the job, as a daily pipeline would.
 */
public final class RetentionJob {
    static final String TABLE = "retention/events/";
    static final LocalDate TODAY = LocalDate.of(2026, 11, 30);
    static final int KEEP_DAYS = 7;

    private RetentionJob() {
    }

    /** One event; {@code dt} is the partition. */
    public record Event(long id, LocalDate dt) {
    }

    static GlueTable catalog(ExampleLake lake) {
        lake.database("raw");
        return GlueCatalog.of(lake.glue()).table("raw", "retention_events");
    }

    /** The day's load: three events for each of the last 10 days. */
    static void load(ExampleLake lake) {
        List<Event> rows = new ArrayList<>();
        for (int d = 0; d < 10; d++) {
            for (int i = 0; i < 3; i++) {
                rows.add(new Event(d * 10L + i, TODAY.minusDays(d)));
            }
        }
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(catalog(lake)).s3(lake.s3()).to(lake.uri(TABLE));
    }

    /** Drops the days before {@code TODAY - KEEP_DAYS}. */
    static DropResult drop(ExampleLake lake, boolean plan) {
        LocalDate cutoff = TODAY.minusDays(KEEP_DAYS);
        var b = S3Parquet.dropPartitions(lake.uri(TABLE)).filter(PartitionFilter.where(p -> LocalDate.parse(p.get("dt")).isBefore(cutoff)))
                .catalog(catalog(lake)).s3(lake.s3());
        return plan ? b.plan() : b.run();
    }

    public static void main(String[] args) {
        Path folder = Path.of(args.length > 0 ? args[0] : "wrangler-data").toAbsolutePath();
        try (ExampleLake lake = ExampleLake.open(folder)) {
            System.out.println("Lake: " + lake.describe());
            load(lake);
            System.out.println("plan: would drop " + drop(lake, true).partitions());
            DropResult r = drop(lake, false);
            System.out.println("drop: " + r.partitions().size() + " days, " + r.filesDeleted().size() + " files deleted");
            DropResult again = drop(lake, false);
            System.out.println("again: " + (again.applied() ? "dropped " + again.partitions() : "nothing older left, nothing changed"));
            int partitions = lake.glue().getPartitions(g -> g.databaseName("raw").tableName("retention_events")).partitions().size();
            List<List<Object>> days = lake.query(TABLE, "SELECT count(DISTINCT dt), CAST(min(dt) AS VARCHAR) FROM t");
            System.out.println("table: " + days.get(0) + "; Glue partitions: " + partitions);
            if (r.partitions().size() != 2 || again.applied() || partitions != KEEP_DAYS + 1 || !days.get(0).equals(List.of(8L, "2026-11-23"))) {
                throw new IllegalStateException("the retention job left " + days + " and " + partitions + " Glue partitions");
            }
        }
    }
}
