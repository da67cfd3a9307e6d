package io.wrangler.examples;

import io.wrangler.Progress;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.Table;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The nightly orders job (the user's first scenario, the README's main job): orders for three days and three
 * countries are written as Parquet partitioned by {@code dt} and {@code country} with {@code OVERWRITE_PARTITIONS}
 * and registered in Glue as {@code analytics.orders}; then one day is rerun with corrected data. The program shows,
 * reading the table back with DuckDB, that the rerun replaced only that day's partitions and that nothing doubled,
 * and what the Glue table and its partitions look like. It ends with a DuckDB query to paste.
 *
 * <p>Runs on an embedded LocalS3 and LocalGlue, file-backed under {@code ./wrangler-data} (or the folder given as
 * the first argument); against real AWS when {@code WRANGLER_BUCKET} is set (see {@link ExampleLake}).
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
        try (ExampleLake lake = ExampleLake.open(folder)) {
            System.out.println("Lake: " + lake.describe());
            lake.database("analytics");
            GlueTable catalog = GlueCatalog.of(lake.glue()).table("analytics", "orders").description("Daily orders, one row per order");
            String table = lake.uri("marts/orders/");
            List<LocalDate> days = List.of(LocalDate.of(2024, 1, 14), LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16));
            List<String> countries = List.of("RU", "DE", "US");

            System.out.println("1. Nightly load of 3 days x 3 countries, 4 orders each, 10.00 each, to " + table);
            Tally tally = new Tally();
            WriteResult first = S3Parquet.write(orders(days, countries, 4, 1000)).partitionBy("dt", "country")
                    .mode(WriteMode.OVERWRITE_PARTITIONS).catalog(catalog).progress(tally).s3(lake.s3()).to(table);
            System.out.printf("   wrote %d rows in %d files, %d partitions%n", first.rows(), first.paths().size(), first.partitions().size());
            System.out.println("   progress reported: " + tally);
            Map<String, long[]> before = totals(lake);

            System.out.println("2. Rerun of 2024-01-15 with corrected data: 2 orders per country, 25.00 each");
            WriteResult rerun = S3Parquet.write(orders(List.of(LocalDate.of(2024, 1, 15)), countries, 2, 2500)).partitionBy("dt", "country")
                    .mode(WriteMode.OVERWRITE_PARTITIONS).catalog(catalog).s3(lake.s3()).to(table);
            rerun.partitions().forEach(p -> System.out.printf("   %s: %d rows written, %d old file(s) replaced%n",
                    p.prefix(), p.rows(), p.replacedFiles().size()));

            System.out.println("3. Rows and amount per partition, before -> after the rerun (read back with DuckDB):");
            Map<String, long[]> after = totals(lake);
            for (String partition : before.keySet()) {
                long[] b = before.get(partition);
                long[] a = after.get(partition);
                String change = b[0] == a[0] && b[1] == a[1] ? "unchanged" : "replaced";
                System.out.printf("   %-28s %2d rows %8.2f -> %2d rows %8.2f  %s%n", partition, b[0], b[1] / 100.0, a[0], a[1] / 100.0, change);
            }
            List<S3Object> objects = lake.s3().listObjectsV2(b -> b.bucket(lake.bucket()).prefix(lake.key("marts/orders/"))).contents();
            long files = objects.stream().filter(o -> o.key().endsWith(".parquet") && !o.key().contains("/_tmp/")).count();
            long staging = objects.stream().filter(o -> o.key().contains("/_tmp/")).count();
            System.out.printf("   %d data files, %d objects under _tmp/ (nothing doubled, nothing left behind)%n", files, staging);

            System.out.println("4. The Glue table analytics.orders:");
            Table t = lake.glue().getTable(b -> b.databaseName("analytics").name("orders")).table();
            System.out.println("   location " + t.storageDescriptor().location() + ", " + t.tableType() + ", serde " + t.storageDescriptor().serdeInfo().serializationLibrary());
            System.out.println("   columns " + t.storageDescriptor().columns().stream().map(c -> c.name() + " " + c.type()).toList());
            System.out.println("   partition keys " + t.partitionKeys().stream().map(Column::name).toList() + ", parameters " + new TreeMap<>(t.parameters()));
            List<Partition> partitions = new ArrayList<>();
            lake.glue().getPartitionsPaginator(b -> b.databaseName("analytics").tableName("orders")).forEach(p -> partitions.addAll(p.partitions()));
            partitions.sort(Comparator.comparing(p -> p.values().toString()));
            System.out.println("   " + partitions.size() + " partitions, e.g. " + partitions.get(0).values() + " at " + partitions.get(0).storageDescriptor().location());

            Path local = folder.resolve("orders");
            deleteRecursively(local);
            download(lake, "marts/orders/", local);
            System.out.println("5. A copy of the table is in " + local + "; read it with DuckDB:");
            System.out.println("   SELECT dt, country, count(*), sum(amountcents) FROM read_parquet('" + local
                    + "/**/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL;");
        }
    }

    /** A progress listener that keeps the last totals (a long job would log them as they come). */
    static final class Tally implements Progress {
        private final AtomicLong rows = new AtomicLong();
        private final AtomicLong files = new AtomicLong();
        private final AtomicLong bytes = new AtomicLong();
        private volatile String partitions = "0/0";

        @Override
        public void rowsEncoded(long total) {
            rows.accumulateAndGet(total, Math::max);
        }

        @Override
        public void filesStaged(int total) {
            files.accumulateAndGet(total, Math::max);
        }

        @Override
        public void bytesUploaded(long total) {
            bytes.accumulateAndGet(total, Math::max);
        }

        @Override
        public void partitionsPublished(int total, int of) {
            partitions = total + "/" + of;
        }

        @Override
        public String toString() {
            return rows + " rows encoded, " + files + " files staged, " + bytes + " bytes uploaded, " + partitions + " partitions published";
        }
    }

    /** Rows and cents per partition, as DuckDB reads the table. */
    private static Map<String, long[]> totals(ExampleLake lake) {
        Map<String, long[]> out = new TreeMap<>();
        for (List<Object> row : lake.query("marts/orders/",
                "SELECT 'dt=' || dt || '/country=' || country, count(*), sum(amountcents)::BIGINT FROM t GROUP BY ALL")) {
            out.put((String) row.get(0), new long[] {(Long) row.get(1), (Long) row.get(2)});
        }
        return out;
    }

    /** Copies the table's data files (not its hidden {@code _tmp/}) to a local folder. */
    static void download(ExampleLake lake, String table, Path target) {
        String prefix = lake.key(table);
        try {
            for (S3Object o : lake.s3().listObjectsV2Paginator(b -> b.bucket(lake.bucket()).prefix(prefix)).contents()) {
                String rel = o.key().substring(prefix.length());
                if (rel.startsWith("_")) {
                    continue;
                }
                Path file = target.resolve(rel);
                Files.createDirectories(file.getParent());
                Files.write(file, lake.s3().getObjectAsBytes(b -> b.bucket(lake.bucket()).key(o.key())).asByteArray());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteRecursively(Path path) {
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
