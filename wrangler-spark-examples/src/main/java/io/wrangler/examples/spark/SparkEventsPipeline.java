package io.wrangler.examples.spark;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import io.wrangler.WriteMode;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.spark.SparkParquet;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The events pipeline of seed 003 as the user wrote it, in Spark (local[2]), with the curated tables written through
 * wrangler-spark instead of Spark's dynamic partition overwrite: raw JSON lines land under
 * {@code raw/events/dt=YYYY-MM-DD/} with a producer's duplicate, a truncated line, a record without an event_id and a late
 * event. For one processing date the job reads with an explicit schema (PERMISSIVE, a corrupt-record column),
 * quarantines malformed records with a reason, deduplicates by event_id, aggregates per user and day, and writes
 * {@code curated/events}, {@code curated/daily_user_activity} and {@code curated/quarantine} with
 * {@code OVERWRITE_PARTITIONS} by {@code dt}, registered in Glue. It reconciles (raw = valid + quarantined; valid -
 * duplicates = curated; curated rows for the date = rows at the catalog's location for the date) and fails loudly if an
 * equation breaks, then reruns one date and shows every partition of every date as before.
 */
public final class SparkEventsPipeline {
    static final List<String> DATES = List.of("2026-10-01", "2026-10-02", "2026-10-03");
    static final StructType RAW_SCHEMA = new StructType()
            .add("event_id", DataTypes.StringType).add("user_id", DataTypes.StringType).add("event_type", DataTypes.StringType)
            .add("amount", DataTypes.createDecimalType(10, 2)).add("event_ts", DataTypes.TimestampType)
            .add("_corrupt_record", DataTypes.StringType);

    private SparkEventsPipeline() {
    }

    /** What one run of one date counted. */
    public record Counts(long raw, long valid, long duplicates, long quarantined, long curated, long catalogRows, long lateEvents) {
    }

    /** The session of seed 003: two threads, few shuffle partitions, UTC. */
    static SparkSession session() {
        SparkSession spark = SparkSession.builder().master("local[2]").appName("events-daily")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.host", "127.0.0.1")
                .getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        return spark;
    }

    /** Writes three days of raw events with deliberate problems (seed 003's); returns the raw lines per date. */
    static Map<String, Integer> landRawFiles(SparkLakeExample lake) {
        Random random = new Random(7);
        Map<String, Integer> lines = new LinkedHashMap<>();
        String[] types = {"view", "view", "view", "add_to_cart", "purchase"};
        for (String dt : DATES) {
            List<String> day = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                // drawn in the order EventsPipeline draws them (type, user, amount, time), so that both print the same figures
                String type = types[random.nextInt(types.length)];
                int user = 1 + random.nextInt(8);
                String amount = type.equals("purchase") ? BigDecimal.valueOf(500 + random.nextInt(11_500), 2).toPlainString() : "null";
                day.add(String.format("{\"event_id\": \"%s-%04d\", \"user_id\": \"u%d\", \"event_type\": \"%s\", \"amount\": %s, "
                        + "\"event_ts\": \"%sT%02d:%02d:00Z\"}", dt, i, user, type, amount, dt, random.nextInt(24), random.nextInt(60)));
            }
            day.add(day.get(3));                                     // producer retry: an exact duplicate
            day.add("{\"event_id\": \"broken\", \"user_id\": ");      // a truncated line
            day.add("{\"user_id\": \"u1\", \"event_type\": \"view\", \"event_ts\": \"" + dt + "T10:00:00Z\"}"); // no event_id
            put(lake, "raw/events/dt=" + dt + "/part-0001.json", String.join("\n", day) + "\n");
            lines.put(dt, day.size());
        }
        put(lake, "raw/events/dt=2026-10-02/part-0002.json", "{\"event_id\": \"late-1\", \"user_id\": \"u2\", \"event_type\": "
                + "\"purchase\", \"amount\": 30.0, \"event_ts\": \"2026-10-01T23:58:00Z\"}\n");
        lines.merge("2026-10-02", 1, Integer::sum);
        return lines;
    }

    private static void put(SparkLakeExample lake, String key, String content) {
        lake.s3().putObject(b -> b.bucket(lake.bucket()).key(lake.key(key)), RequestBody.fromString(content, StandardCharsets.UTF_8));
    }

    /**
     * The raw lines of one date. On a cluster the job reads {@code s3://.../raw/events/dt=.../} with the cluster's S3
     * connector; here the embedded LocalS3 is read with the SDK and the lines handed to Spark's JSON reader.
     */
    static Dataset<Row> readRaw(SparkSession spark, SparkLakeExample lake, String dt) {
        List<String> lines = new ArrayList<>();
        String folder = lake.key("raw/events/dt=" + dt + "/");
        for (S3Object o : lake.s3().listObjectsV2Paginator(b -> b.bucket(lake.bucket()).prefix(folder)).contents()) {
            lake.s3().getObjectAsBytes(b -> b.bucket(lake.bucket()).key(o.key())).asString(StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank()).forEach(lines::add);
        }
        return spark.read().schema(RAW_SCHEMA).option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", "_corrupt_record")
                .json(spark.createDataset(lines, Encoders.STRING()))
                .cache(); // Spark requires caching before filtering on the corrupt-record column
    }

    /** Runs the job for one processing date and reconciles it; throws if an equation does not hold. */
    static Counts run(SparkSession spark, SparkLakeExample lake, String dt) {
        Dataset<Row> raw = readRaw(spark, lake, dt);
        Column bad = col("_corrupt_record").isNotNull().or(col("event_id").isNull()).or(col("event_ts").isNull());
        Dataset<Row> quarantine = raw.filter(bad).select(lit(dt).alias("dt"),
                coalesce(col("_corrupt_record"), to_json(struct(col("event_id"), col("user_id"), col("event_type")))).alias("raw"),
                when(col("_corrupt_record").isNotNull(), "unparseable").otherwise("missing event_id or event_ts").alias("reason"));
        Dataset<Row> valid = raw.filter(not(bad)).drop("_corrupt_record");
        Dataset<Row> events = valid.dropDuplicates("event_id").withColumn("event_date", to_date(col("event_ts"))).withColumn("dt", lit(dt));
        Dataset<Row> activity = events.groupBy("dt", "user_id").agg(
                count(when(col("event_type").equalTo("view"), 1)).alias("views"),
                count(when(col("event_type").equalTo("add_to_cart"), 1)).alias("add_to_carts"),
                count(when(col("event_type").equalTo("purchase"), 1)).alias("purchases"),
                coalesce(sum("amount"), lit(0)).cast("decimal(12,2)").alias("revenue"));

        lake.database("curated");
        GlueCatalog glue = GlueCatalog.of(lake.glue());
        SparkParquet.write(events).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(glue.table("curated", "events"))
                .s3(lake.settings()).to(lake.uri("curated/events/"));
        SparkParquet.write(activity).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS)
                .catalog(glue.table("curated", "daily_user_activity")).s3(lake.settings()).to(lake.uri("curated/daily_user_activity/"));
        SparkParquet.write(quarantine).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).catalog(glue.table("curated", "quarantine"))
                .s3(lake.settings()).to(lake.uri("curated/quarantine/"));

        long rawLines = raw.count();
        long validLines = valid.count();
        long unique = events.count();
        long late = events.filter(col("event_date").lt(to_date(lit(dt)))).count();
        raw.unpersist();
        long curated = (Long) lake.query("curated/events/", "SELECT count(*) FROM t WHERE CAST(dt AS VARCHAR) = '" + dt + "'").get(0).get(0);
        long quarantined = (Long) lake.query("curated/quarantine/", "SELECT count(*) FROM t WHERE CAST(dt AS VARCHAR) = '" + dt + "'")
                .get(0).get(0);
        Partition p = lake.glue().getPartition(b -> b.databaseName("curated").tableName("events").partitionValues(dt)).partition();
        String locationKey = p.storageDescriptor().location().substring(("s3://" + lake.bucket() + "/").length());
        long catalogRows = (Long) lake.queryKey(locationKey, "SELECT count(*) FROM t").get(0).get(0);
        Counts c = new Counts(rawLines, validLines, validLines - unique, quarantined, curated, catalogRows, late);
        check(dt, "raw lines = valid + quarantined", c.raw(), c.valid() + c.quarantined());
        check(dt, "valid - duplicates = curated events", c.valid() - c.duplicates(), c.curated());
        check(dt, "curated rows for the date = rows at the catalog's location for the date", c.curated(), c.catalogRows());
        return c;
    }

    private static void check(String dt, String equation, long left, long right) {
        if (left != right) {
            throw new IllegalStateException("Reconciliation failed for " + dt + ": " + equation + " does not hold (" + left + " != " + right + ")");
        }
    }

    /** Rows and revenue per date of daily_user_activity, and rows per date of the other two tables. */
    static Map<String, List<Object>> totals(SparkLakeExample lake) {
        Map<String, List<Object>> out = new TreeMap<>();
        for (String table : List.of("events", "quarantine")) {
            for (List<Object> row : lake.query("curated/" + table + "/", "SELECT CAST(dt AS VARCHAR), count(*) FROM t GROUP BY ALL")) {
                out.put(table + " " + row.get(0), List.of(row.get(1)));
            }
        }
        for (List<Object> row : lake.query("curated/daily_user_activity/",
                "SELECT CAST(dt AS VARCHAR), count(*), CAST(sum(revenue) AS VARCHAR) FROM t GROUP BY ALL")) {
            out.put("daily_user_activity " + row.get(0), List.of(row.get(1), row.get(2)));
        }
        return out;
    }

    public static void main(String[] args) {
        Path folder = Path.of(args.length > 0 ? args[0] : "wrangler-data-spark").toAbsolutePath();
        SparkSession spark = session();
        try (SparkLakeExample lake = SparkLakeExample.open(folder)) {
            System.out.println("Lake: " + lake.describe());
            landRawFiles(lake).forEach((dt, n) -> System.out.println("landed " + n + " raw lines under " + lake.uri("raw/events/dt=" + dt + "/")));
            for (String dt : DATES) {
                Counts c = run(spark, lake, dt);
                System.out.printf("%s raw=%d valid=%d duplicates=%d quarantined=%d curated=%d catalog=%d late=%d (reconciled)%n",
                        dt, c.raw(), c.valid(), c.duplicates(), c.quarantined(), c.curated(), c.catalogRows(), c.lateEvents());
            }
            Map<String, List<Object>> before = totals(lake);
            System.out.println("rerun of 2026-10-02:");
            run(spark, lake, "2026-10-02");
            Map<String, List<Object>> after = totals(lake);
            Set<String> keys = new LinkedHashSet<>(before.keySet());
            keys.addAll(after.keySet());
            for (String k : keys) {
                System.out.printf("  %-32s %-18s %s%n", k, before.get(k),
                        before.get(k) != null && before.get(k).equals(after.get(k)) ? "identical" : "CHANGED " + after.get(k));
            }
            if (!before.equals(after)) {
                throw new IllegalStateException("The rerun changed the curated tables: " + before + " -> " + after);
            }
            System.out.println("rerunning 2026-10-02 left every partition of every date identical");
        } finally {
            spark.stop();
        }
    }
}
