package io.wrangler.examples;

import io.wrangler.DeleteResult;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * An erasure request: every row of one user is deleted from a table partitioned by day, across all its partitions, in
 * one commit under the table's lease. Only the files that hold the user's rows are rewritten (the others are read for
 * their footers and the user column only); a day that held nothing but the user's rows loses its files and its Glue
 * partition. A plan first says what the delete will do, without changing anything. Afterwards the job checks what the
 * request is about: that no object under the table's prefix, {@code _tmp/} included, holds a row of the user.
 *
 * <p>Runs twice in a row: the table is written again (OVERWRITE) at the start of every run.
 */
public final class ErasureRequest {
    static final String TABLE = "erasure/events/";
    static final String USER = "user-0042";

    private ErasureRequest() {
    }

    /** One event; {@code dt} is the partition. */
    public record Event(String userId, long amount, LocalDate dt) {
    }

    /** Ten days of events of five users, and one day of the erased user alone. */
    static List<Event> events() {
        List<Event> out = new ArrayList<>();
        long amount = 0;
        for (int day = 0; day < 10; day++) {
            for (int u = 40; u < 45; u++) {
                out.add(new Event(String.format("user-%04d", u), amount++, LocalDate.of(2026, 11, 1).plusDays(day)));
            }
        }
        out.add(new Event(USER, amount, LocalDate.of(2026, 11, 20)));
        return out;
    }

    static GlueTable catalog(ExampleLake lake) {
        lake.database("raw");
        return GlueCatalog.of(lake.glue()).table("raw", "erasure_events");
    }

    /** Writes the table afresh, plans and runs the erasure; returns the delete's result. */
    static DeleteResult run(ExampleLake lake) {
        String table = lake.uri(TABLE);
        GlueTable catalog = catalog(lake);
        S3Parquet.write(events()).partitionBy("dt").mode(WriteMode.OVERWRITE).catalog(catalog).s3(lake.s3()).to(table);
        DeleteResult planned = S3Parquet.deleteRows(table).keys("userid", List.of(USER)).catalog(catalog).s3(lake.s3()).plan();
        System.out.println("plan:   " + planned.rowsDeleted() + " rows, " + planned.filesRewritten().size() + " files to rewrite, "
                + planned.filesRemoved().size() + " to remove");
        DeleteResult done = S3Parquet.deleteRows(table).keys("userid", List.of(USER)).catalog(catalog).s3(lake.s3()).run();
        System.out.println("delete: " + done.rowsDeleted() + " rows deleted, " + done.filesRewritten().size() + " files rewritten, "
                + done.filesRemoved().size() + " removed, in " + done.partitions().size() + " partitions");
        return done;
    }

    /** The rows of the user in every Parquet object under the table's prefix ({@code _tmp/} included). */
    static long userRowsInAnyObject(ExampleLake lake) {
        long n = 0;
        for (var o : lake.s3().listObjectsV2Paginator(b -> b.bucket(lake.bucket()).prefix(lake.key(TABLE))).contents()) {
            if (o.key().endsWith(".parquet")) {
                byte[] bytes = lake.s3().getObjectAsBytes(b -> b.bucket(lake.bucket()).key(o.key())).asByteArray();
                List<List<Object>> c = io.wrangler.testkit.DuckReader.queryFile(bytes, "SELECT count(*) FROM $file WHERE userid = '" + USER + "'");
                n += (Long) c.get(0).get(0);
            }
        }
        return n;
    }

    public static void main(String[] args) {
        Path folder = Path.of(args.length > 0 ? args[0] : "wrangler-data").toAbsolutePath();
        try (ExampleLake lake = ExampleLake.open(folder)) {
            System.out.println("Lake: " + lake.describe());
            DeleteResult r = run(lake);
            long left = userRowsInAnyObject(lake);
            System.out.println("objects holding a row of " + USER + ": " + left);
            if (r.rowsDeleted() != 11 || left != 0) {
                throw new IllegalStateException("the erasure left " + left + " rows of " + USER + " (deleted " + r.rowsDeleted() + ")");
            }
        }
    }
}
