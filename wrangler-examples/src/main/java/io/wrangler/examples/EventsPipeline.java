package io.wrangler.examples;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.wrangler.Decimal;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.testkit.DuckReader;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The events pipeline (the user's second scenario): raw JSON lines land under {@code raw/events/dt=YYYY-MM-DD/} with
 * the usual problems (an exact duplicate from a producer retry, a truncated line, a record without an event_id, a late
 * event delivered in the next day's folder). For one processing date the job parses with an explicit schema,
 * quarantines malformed records with a reason, deduplicates by event_id, aggregates activity per user and day, and
 * writes {@code curated/events}, {@code curated/daily_user_activity} and {@code curated/quarantine}, partitioned by
 * {@code dt} with {@code OVERWRITE_PARTITIONS} and registered in Glue. It then reconciles, and fails loudly if an
 * equation breaks: raw lines = valid + quarantined; valid - duplicates = curated events; curated rows for the date =
 * the rows found at the location the catalog registers for the date. Finally it reruns one date and shows that every
 * partition of every date is as before.
 */
public final class EventsPipeline {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> DATES = List.of("2026-10-01", "2026-10-02", "2026-10-03");

    private EventsPipeline() {
    }

    /** A curated event; {@code dt} is the processing date (the partition), {@code eventDate} the day it happened. */
    public record Event(String eventId, String userId, String eventType, @Decimal(precision = 10, scale = 2) BigDecimal amount,
                        Instant eventTs, LocalDate eventDate, String dt) {
    }

    /** Activity of one user on one processing date. */
    public record DailyUserActivity(String dt, String userId, long views, long addToCarts, long purchases,
                                    @Decimal(precision = 12, scale = 2) BigDecimal revenue) {
    }

    /** A raw line that could not become an event, and why. */
    public record Quarantined(String dt, String raw, String reason) {
    }

    /** What one run of one date counted. */
    public record Counts(long raw, long valid, long duplicates, long quarantined, long curated, long catalogRows, long lateEvents) {
    }

    /** Writes three days of raw events with deliberate problems; returns the number of raw lines per date. */
    static Map<String, Integer> landRawFiles(ExampleLake lake) {
        Random random = new Random(7);
        Map<String, Integer> lines = new LinkedHashMap<>();
        String[] types = {"view", "view", "view", "add_to_cart", "purchase"};
        for (String dt : DATES) {
            List<String> day = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String type = types[random.nextInt(types.length)];
                ObjectNode e = JSON.createObjectNode();
                e.put("event_id", dt + "-" + String.format("%04d", i));
                e.put("user_id", "u" + (1 + random.nextInt(8)));
                e.put("event_type", type);
                if (type.equals("purchase")) {
                    e.put("amount", BigDecimal.valueOf(500 + random.nextInt(11_500), 2));
                } else {
                    e.putNull("amount");
                }
                e.put("event_ts", String.format("%sT%02d:%02d:00Z", dt, random.nextInt(24), random.nextInt(60)));
                day.add(e.toString());
            }
            day.add(day.get(3));                                     // producer retry: an exact duplicate
            day.add("{\"event_id\": \"broken\", \"user_id\": ");      // a truncated line
            day.add("{\"user_id\": \"u1\", \"event_type\": \"view\", \"event_ts\": \"" + dt + "T10:00:00Z\"}"); // no event_id
            put(lake, "raw/events/dt=" + dt + "/part-0001.json", String.join("\n", day) + "\n");
            lines.put(dt, day.size());
        }
        // It happened on 1 October but was delivered with 2 October's files.
        put(lake, "raw/events/dt=2026-10-02/part-0002.json",
                "{\"event_id\": \"late-1\", \"user_id\": \"u2\", \"event_type\": \"purchase\", \"amount\": 30.0, \"event_ts\": \"2026-10-01T23:58:00Z\"}\n");
        lines.merge("2026-10-02", 1, Integer::sum);
        return lines;
    }

    private static void put(ExampleLake lake, String key, String content) {
        lake.s3().putObject(b -> b.bucket(lake.bucket()).key(lake.key(key)), RequestBody.fromString(content, StandardCharsets.UTF_8));
    }

    /** Runs the job for one processing date and reconciles it; throws if an equation does not hold. */
    static Counts run(ExampleLake lake, String dt) {
        List<String> raw = new ArrayList<>();
        String folder = lake.key("raw/events/dt=" + dt + "/");
        for (S3Object o : lake.s3().listObjectsV2Paginator(b -> b.bucket(lake.bucket()).prefix(folder)).contents()) {
            String text = lake.s3().getObjectAsBytes(b -> b.bucket(lake.bucket()).key(o.key())).asString(StandardCharsets.UTF_8);
            text.lines().filter(l -> !l.isBlank()).forEach(raw::add);
        }
        List<Quarantined> quarantine = new ArrayList<>();
        Map<String, Event> unique = new LinkedHashMap<>();
        long valid = 0;
        for (String line : raw) {
            Event e;
            try {
                e = parse(line, dt);
            } catch (BadRecord bad) {
                quarantine.add(new Quarantined(dt, line, bad.getMessage()));
                continue;
            }
            valid++;
            unique.putIfAbsent(e.eventId(), e);
        }
        List<Event> events = new ArrayList<>(unique.values());
        Map<String, DailyUserActivity> activity = new TreeMap<>();
        for (Event e : events) {
            DailyUserActivity a = activity.getOrDefault(e.userId(), new DailyUserActivity(dt, e.userId(), 0, 0, 0, BigDecimal.ZERO.setScale(2)));
            activity.put(e.userId(), new DailyUserActivity(dt, e.userId(),
                    a.views() + (e.eventType().equals("view") ? 1 : 0),
                    a.addToCarts() + (e.eventType().equals("add_to_cart") ? 1 : 0),
                    a.purchases() + (e.eventType().equals("purchase") ? 1 : 0),
                    e.amount() == null ? a.revenue() : a.revenue().add(e.amount())));
        }

        lake.database("curated");
        GlueCatalog glue = GlueCatalog.of(lake.glue());
        // One set of options for the job's three tables: each rerun of a date replaces that date, nothing else.
        WriteOptions daily = WriteOptions.builder().s3(lake.s3()).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS).build();
        S3Parquet.write(events).options(daily).catalog(glue.table("curated", "events")).to(lake.uri("curated/events/"));
        S3Parquet.write(new ArrayList<>(activity.values())).options(daily).catalog(glue.table("curated", "daily_user_activity"))
                .to(lake.uri("curated/daily_user_activity/"));
        S3Parquet.write(quarantine).options(daily).catalog(glue.table("curated", "quarantine")).to(lake.uri("curated/quarantine/"));

        long curated = (Long) lake.query("curated/events/", "SELECT count(*) FROM t WHERE dt = '" + dt + "'").get(0).get(0);
        long quarantined = (Long) lake.query("curated/quarantine/", "SELECT count(*) FROM t WHERE dt = '" + dt + "'").get(0).get(0);
        Partition p = lake.glue().getPartition(b -> b.databaseName("curated").tableName("events").partitionValues(dt)).partition();
        String location = p.storageDescriptor().location();
        String locationKey = location.substring(("s3://" + lake.bucket() + "/").length());
        long catalogRows = (Long) DuckReader.query(lake.s3(), lake.bucket(), locationKey, "SELECT count(*) FROM t").get(0).get(0);
        long late = events.stream().filter(e -> e.eventDate().isBefore(LocalDate.parse(dt))).count();
        Counts c = new Counts(raw.size(), valid, valid - events.size(), quarantined, curated, catalogRows, late);
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

    private static final class BadRecord extends Exception {
        private static final long serialVersionUID = 1L;

        BadRecord(String reason) {
            super(reason, null, false, false);
        }
    }

    /** Parses one line with the explicit schema; a line that does not fit is a BadRecord with the reason. */
    static Event parse(String line, String dt) throws BadRecord {
        JsonNode n;
        try {
            n = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new BadRecord("unparseable");
        }
        if (n == null || !n.isObject()) {
            throw new BadRecord("unparseable");
        }
        String id = text(n, "event_id");
        String ts = text(n, "event_ts");
        if (id == null || ts == null) {
            throw new BadRecord("missing event_id or event_ts");
        }
        Instant eventTs;
        BigDecimal amount = null;
        try {
            eventTs = Instant.parse(ts);
            JsonNode a = n.get("amount");
            if (a != null && !a.isNull()) {
                if (!a.isNumber()) {
                    throw new BadRecord("amount is not a number");
                }
                amount = a.decimalValue().setScale(2, RoundingMode.UNNECESSARY);
            }
        } catch (DateTimeParseException e) {
            throw new BadRecord("event_ts is not an ISO-8601 instant");
        } catch (ArithmeticException e) {
            throw new BadRecord("amount has more than 2 decimals");
        }
        return new Event(id, text(n, "user_id"), text(n, "event_type"), amount, eventTs, LocalDate.ofInstant(eventTs, ZoneOffset.UTC), dt);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** Rows and revenue per date of daily_user_activity, and rows per date of the other two tables. */
    static Map<String, List<Object>> totals(ExampleLake lake) {
        Map<String, List<Object>> out = new TreeMap<>();
        for (String table : List.of("events", "quarantine")) {
            for (List<Object> row : lake.query("curated/" + table + "/", "SELECT dt, count(*) FROM t GROUP BY ALL")) {
                out.put(table + " " + row.get(0), List.of(row.get(1)));
            }
        }
        for (List<Object> row : lake.query("curated/daily_user_activity/", "SELECT dt, count(*), CAST(sum(revenue) AS VARCHAR) FROM t GROUP BY ALL")) {
            out.put("daily_user_activity " + row.get(0), List.of(row.get(1), row.get(2)));
        }
        return out;
    }

    public static void main(String[] args) {
        Path folder = Path.of(args.length > 0 ? args[0] : "wrangler-data").toAbsolutePath();
        try (ExampleLake lake = ExampleLake.open(folder)) {
            System.out.println("Lake: " + lake.describe());
            Map<String, Integer> landed = landRawFiles(lake);
            landed.forEach((dt, n) -> System.out.println("landed " + n + " raw lines under " + lake.uri("raw/events/dt=" + dt + "/")));
            for (String dt : DATES) {
                Counts c = run(lake, dt);
                System.out.printf("%s raw=%d valid=%d duplicates=%d quarantined=%d curated=%d catalog=%d late=%d (reconciled)%n",
                        dt, c.raw(), c.valid(), c.duplicates(), c.quarantined(), c.curated(), c.catalogRows(), c.lateEvents());
            }
            Map<String, List<Object>> before = totals(lake);
            System.out.println("rerun of 2026-10-02:");
            run(lake, "2026-10-02");
            Map<String, List<Object>> after = totals(lake);
            Set<String> keys = new LinkedHashSet<>(before.keySet());
            keys.addAll(after.keySet());
            for (String k : keys) {
                System.out.printf("  %-32s %-18s %s%n", k, before.get(k), before.get(k) != null && before.get(k).equals(after.get(k)) ? "identical" : "CHANGED " + after.get(k));
            }
            if (!before.equals(after)) {
                throw new IllegalStateException("The rerun changed the curated tables: " + before + " -> " + after);
            }
            System.out.println("rerunning 2026-10-02 left every partition of every date identical");
        }
    }
}
