package io.wrangler.examples;

import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.testkit.LocalS3;
import java.math.BigDecimal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nightly orders job (the user's first scenario): orders for several days and countries are written to S3
 * as Parquet partitioned by {@code dt} and {@code country} with {@code OVERWRITE_PARTITIONS}; then one day is
 * rerun with corrected data. The program shows that the rerun replaced only that day's partitions and that
 * nothing doubled. It runs on an in-process LocalS3 whose objects are kept under {@code wrangler-data/}; the
 * table is also copied there as plain files so that DuckDB can read it, with the query printed at the end.
 *
 * <p>Against real AWS, replace {@code s3.client()} by {@code S3Client.create()} (region and credentials from the
 * SDK's default chains) and the bucket by yours.
 */
public final class DailyOrders {
    private DailyOrders() {
    }

    /** One order; {@code dt} and {@code country} become the partition folders. */
    public record Order(String orderId, LocalDate dt, String country, long amountCents, BigDecimal price) {
    }

    static List<Order> orders(List<LocalDate> days, List<String> countries, int perCell, long centsEach) {
        List<Order> out = new ArrayList<>();
        for (LocalDate d : days) {
            for (String c : countries) {
                for (int i = 0; i < perCell; i++) {
                    out.add(new Order(d + "-" + c + "-" + i, d, c, centsEach, BigDecimal.valueOf(centsEach, 2)));
                }
            }
        }
        return out;
    }

    public static void main(String[] args) {
        Path folder = Path.of(args.length > 0 ? args[0] : "wrangler-data").toAbsolutePath();
        try (LocalS3 s3 = LocalS3.fileBacked(folder.resolve("s3"))) {
            s3.createBucket("lake");
            String table = "s3://lake/marts/orders/";
            List<LocalDate> days = List.of(LocalDate.of(2024, 1, 14), LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16));
            List<String> countries = List.of("RU", "DE", "US");

            System.out.println("1. Nightly load of 3 days x 3 countries, 4 orders each, 10.00 each, to " + table);
            WriteResult first = S3Parquet.write(orders(days, countries, 4, 1000)).partitionBy("dt", "country")
                    .mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3.client()).to(table);
            System.out.printf("   wrote %d rows in %d files, %d partitions%n", first.rows(), first.paths().size(), first.partitions().size());
            Map<String, long[]> before = totals(s3, folder);

            System.out.println("2. Rerun of 2024-01-15 with corrected data: 2 orders per country, 25.00 each");
            WriteResult rerun = S3Parquet.write(orders(List.of(LocalDate.of(2024, 1, 15)), countries, 2, 2500)).partitionBy("dt", "country")
                    .mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3.client()).to(table);
            rerun.partitions().forEach(p -> System.out.printf("   %s: %d rows written, %d old file(s) replaced%n",
                    p.prefix(), p.rows(), p.replacedFiles().size()));

            System.out.println("3. Rows and amount per partition, before -> after the rerun:");
            Map<String, long[]> after = totals(s3, folder);
            for (String partition : before.keySet()) {
                long[] b = before.get(partition);
                long[] a = after.get(partition);
                String change = b[0] == a[0] && b[1] == a[1] ? "unchanged" : "replaced";
                System.out.printf("   %-28s %2d rows %8.2f -> %2d rows %8.2f  %s%n", partition, b[0], b[1] / 100.0, a[0], a[1] / 100.0, change);
            }
            long files = s3.list("lake", "marts/orders/").keySet().stream().filter(k -> k.endsWith(".parquet")).count();
            System.out.printf("   %d data files, %d objects under _tmp/ (nothing doubled, nothing left behind)%n", files,
                    s3.list("lake", "marts/orders/_tmp/").size());

            deleteRecursively(folder.resolve("orders"));
            Path local = s3.download("lake", "marts/orders/", folder.resolve("orders"));
            System.out.println("4. The table is also copied to " + local + "; read it with DuckDB:");
            System.out.println("   SELECT dt, country, count(*), sum(amountCents) FROM read_parquet('" + local
                    + "/**/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL;");
        }
    }

    /** Rows and cents per partition, as DuckDB reads the table (a copy of it in {@code folder/snapshot}). */
    private static Map<String, long[]> totals(LocalS3 s3, Path folder) {
        Path copy = s3.download("lake", "marts/orders/", folder.resolve("snapshot-" + System.nanoTime()));
        Map<String, long[]> out = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 'dt=' || dt || '/country=' || country, count(*), sum(amountCents) FROM read_parquet('"
                     + copy + "/*/*/*.parquet', hive_partitioning = true) GROUP BY ALL")) {
            while (rs.next()) {
                out.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3)});
            }
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB could not read the table copy in " + copy, e);
        }
        deleteRecursively(copy);
        return out;
    }

    private static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (var walk = Files.walk(path)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
