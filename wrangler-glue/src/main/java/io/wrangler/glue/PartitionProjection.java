package io.wrangler.glue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A PartitionProjection tells Athena how to compute one partition column's values itself, so that it needs no
 * registered partitions (Athena's partition projection). Spark and Trino still read registered partitions: keep
 * {@code registerPartitions(true)} unless only Athena reads the table.
 *
 * <p>Athena substitutes raw values into {@code storage.location.template}; values that Hive paths escape (such as
 * {@code /} or {@code :}) do not project correctly, so project only columns with plain values.
 */
public final class PartitionProjection {
    private final String column;
    private final Map<String, String> settings;

    private PartitionProjection(String column, Map<String, String> settings) {
        this.column = Objects.requireNonNull(column, "column");
        this.settings = Map.copyOf(settings);
    }

    /** A column whose values are one of {@code values}: {@code projection.<col>.type=enum}. */
    public static PartitionProjection enumOf(String column, String... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("an enum projection needs at least one value");
        }
        return new PartitionProjection(column, Map.of("type", "enum", "values", String.join(",", values)));
    }

    /** An integer column from {@code min} to {@code max}: {@code projection.<col>.type=integer}. */
    public static PartitionProjection integer(String column, long min, long max) {
        return new PartitionProjection(column, Map.of("type", "integer", "range", min + "," + max));
    }

    /**
     * A date column: {@code range} such as {@code "2024-01-01,NOW"}, {@code format} such as {@code "yyyy-MM-dd"},
     * one value every {@code interval} {@code unit}s ({@code DAYS}, {@code HOURS}, ...).
     */
    public static PartitionProjection date(String column, String range, String format, int interval, String unit) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("type", "date");
        s.put("range", range);
        s.put("format", format);
        s.put("interval", String.valueOf(interval));
        s.put("interval.unit", unit);
        return new PartitionProjection(column, s);
    }

    /** A column whose value every query must give in its WHERE clause: {@code projection.<col>.type=injected}. */
    public static PartitionProjection injected(String column) {
        return new PartitionProjection(column, Map.of("type", "injected"));
    }

    public String column() {
        return column;
    }

    /** The table parameters of this projection, for the column as the catalog names it. */
    Map<String, String> parameters(String catalogColumn) {
        Map<String, String> out = new LinkedHashMap<>();
        settings.forEach((k, v) -> out.put("projection." + catalogColumn + "." + k, v));
        return out;
    }
}
