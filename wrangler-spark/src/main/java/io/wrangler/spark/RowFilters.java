package io.wrangler.spark;

import io.wrangler.RowFilter;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;

/**
 * RowFilters turn Spark's filters on data columns into wrangler-core's {@link RowFilter}, which each task's reader
 * applies (row groups its statistics rule out skipped, every decoded row tested): comparisons ({@code =}, {@code <},
 * {@code <=}, {@code >}, {@code >=}, {@code IN}, {@code <=>}), {@code IS [NOT] NULL}, {@code LIKE 'x%'}
 * ({@code StringStartsWith}), and {@code AND}, {@code OR}, {@code NOT} of them. A filter is turned only when each of its
 * literals is of the Java type core compares the column's type with (integers with integer columns, {@code BigDecimal}
 * with decimals, dates, instants with timestamps in UTC, local date-times with those without a zone, ...); any other is
 * left to Spark alone. Spark applies every filter to the rows again (the scan reports them as not fully handled), so a
 * filter here only ever saves work.
 */
final class RowFilters {
    /** The row filter (null: none) and the Spark filters it came from. */
    record Pushed(RowFilter where, List<Filter> used) {
    }

    private final Map<String, Field> columns = new HashMap<>();

    private RowFilters(Schema schema, List<String> partitionColumns) {
        for (Field f : schema.getFields()) {
            if (!partitionColumns.contains(f.getName())) {
                columns.put(f.getName(), f);
            }
        }
    }

    /** The data columns' filters among {@code filters}, as one row filter over the read's Arrow {@code schema}. */
    static Pushed of(Filter[] filters, Schema schema, List<String> partitionColumns) {
        RowFilters r = new RowFilters(schema, partitionColumns);
        List<RowFilter> parts = new ArrayList<>();
        List<Filter> used = new ArrayList<>();
        for (Filter f : filters) {
            RowFilter one = r.one(f);
            if (one != null) {
                parts.add(one);
                used.add(f);
            }
        }
        RowFilter where = parts.isEmpty() ? null : parts.size() == 1 ? parts.get(0) : RowFilter.and(parts.toArray(new RowFilter[0]));
        return new Pushed(where, used);
    }

    /** {@code f} as a row filter, or null when it is not one this mapping is sure of. */
    private RowFilter one(Filter f) {
        if (f instanceof And a) {
            RowFilter l = one(a.left());
            RowFilter r = one(a.right());
            return l == null || r == null ? null : RowFilter.and(l, r);
        }
        if (f instanceof Or o) {
            RowFilter l = one(o.left());
            RowFilter r = one(o.right());
            return l == null || r == null ? null : RowFilter.or(l, r);
        }
        if (f instanceof Not n) {
            RowFilter c = one(n.child());
            return c == null ? null : RowFilter.not(c);
        }
        if (f instanceof IsNull n) {
            return columns.containsKey(n.attribute()) ? RowFilter.isNull(n.attribute()) : null;
        }
        if (f instanceof IsNotNull n) {
            return columns.containsKey(n.attribute()) ? RowFilter.notNull(n.attribute()) : null;
        }
        if (f instanceof In in) {
            List<Object> values = new ArrayList<>();
            for (Object v : in.values()) {
                if (v != null) { // a null in IN matches no row
                    Object l = literal(in.attribute(), v);
                    if (l == null) {
                        return null;
                    }
                    values.add(l);
                }
            }
            return values.isEmpty() ? null : RowFilter.in(in.attribute(), values.toArray());
        }
        if (f instanceof StringStartsWith s) {
            Field c = columns.get(s.attribute());
            return c != null && c.getType() instanceof ArrowType.Utf8 ? RowFilter.startsWith(s.attribute(), s.value()) : null;
        }
        return comparison(f);
    }

    private RowFilter comparison(Filter f) {
        if (f instanceof EqualNullSafe e) {
            if (e.value() == null) {
                return columns.containsKey(e.attribute()) ? RowFilter.isNull(e.attribute()) : null;
            }
            Object l = literal(e.attribute(), e.value());
            // two-valued, as <=> is: under a NOT a null row must pass, which NOT of a bare = would leave out
            return l == null ? null : RowFilter.and(RowFilter.notNull(e.attribute()), RowFilter.eq(e.attribute(), l));
        }
        String column;
        Object value;
        if (f instanceof EqualTo e) {
            column = e.attribute();
            value = e.value();
        } else if (f instanceof GreaterThan g) {
            column = g.attribute();
            value = g.value();
        } else if (f instanceof GreaterThanOrEqual g) {
            column = g.attribute();
            value = g.value();
        } else if (f instanceof LessThan l) {
            column = l.attribute();
            value = l.value();
        } else if (f instanceof LessThanOrEqual l) {
            column = l.attribute();
            value = l.value();
        } else {
            return null;
        }
        Object l = value == null ? null : literal(column, value);
        if (l == null) {
            return null;
        }
        if (f instanceof EqualTo) {
            return RowFilter.eq(column, l);
        }
        if (f instanceof GreaterThan) {
            return RowFilter.gt(column, l);
        }
        if (f instanceof GreaterThanOrEqual) {
            return RowFilter.ge(column, l);
        }
        return f instanceof LessThan ? RowFilter.lt(column, l) : RowFilter.le(column, l);
    }

    /** Spark's literal {@code v} as the Java type core compares {@code column}'s type with, or null when unsure. */
    private Object literal(String column, Object v) {
        Field c = columns.get(column);
        if (c == null) {
            return null;
        }
        ArrowType t = c.getType();
        if (t instanceof ArrowType.Int) {
            return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte ? ((Number) v).longValue() : null;
        }
        if (t instanceof ArrowType.FloatingPoint) {
            return v instanceof Double || v instanceof Float ? v : null;
        }
        if (t instanceof ArrowType.Decimal) {
            return v instanceof BigDecimal ? v : null;
        }
        if (t instanceof ArrowType.Utf8) {
            return v instanceof String ? v : null;
        }
        if (t instanceof ArrowType.Binary || t instanceof ArrowType.FixedSizeBinary) {
            return v instanceof byte[] ? v : null;
        }
        if (t instanceof ArrowType.Bool) {
            return v instanceof Boolean ? v : null;
        }
        if (t instanceof ArrowType.Date) {
            return v instanceof LocalDate ? v : v instanceof java.sql.Date d ? d.toLocalDate() : null;
        }
        if (t instanceof ArrowType.Timestamp ts) {
            if (ts.getUnit() == org.apache.arrow.vector.types.TimeUnit.NANOSECOND) {
                return null; // Spark sees these truncated to microseconds, core compares them exactly
            }
            if (ts.getTimezone() != null) {
                return v instanceof Instant ? v : v instanceof java.sql.Timestamp s ? s.toInstant() : null;
            }
            return v instanceof LocalDateTime ? v : null;
        }
        return null;
    }
}
