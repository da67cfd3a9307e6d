package io.wrangler;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A RowFilter is a predicate over a row's columns that a read keeps rows by ({@link ReadBuilder#where}): comparisons of
 * a column with literals ({@link #eq}, {@link #ne}, {@link #lt}, {@link #le}, {@link #gt}, {@link #ge}, {@link #in}),
 * {@link #isNull}, {@link #notNull}, {@link #startsWith}, combined with {@link #and}, {@link #or} and {@link #not}.
 * Immutable.
 *
 * <p>The literal's Java type says what it is compared as; it must suit the column's type, which the read checks against
 * the table's schema before it decodes any row (an {@link InvalidReadException} names the column and the literal):
 * <ul>
 *   <li>integer columns (signed or unsigned, any width): {@code Long}, {@code Integer}, {@code Short}, {@code Byte},
 *       {@code BigInteger};</li>
 *   <li>{@code float} and {@code double} columns: {@code Double}, {@code Float}, and integers exactly representable as a
 *       double;</li>
 *   <li>decimal columns: {@code BigDecimal}, {@code BigInteger}, {@code Long}, {@code Integer} (compared by value:
 *       {@code 1.50} equals {@code 1.5});</li>
 *   <li>string columns: {@code String}; binary columns: {@code byte[]};</li>
 *   <li>date columns: {@code LocalDate}; timestamps adjusted to UTC: {@code Instant}; timestamps without a zone:
 *       {@code LocalDateTime} (a literal finer than the column's unit is compared exactly, not rounded);</li>
 *   <li>{@code boolean} columns: {@code Boolean}.</li>
 * </ul>
 *
 * <p>The semantics are SQL's, as DuckDB evaluates a {@code WHERE}: a comparison with a null value is unknown and the row
 * is left out, and so is {@code not} of an unknown ({@code not(gt("a", 1))} keeps neither the rows where {@code a <= 1}
 * is false nor those where {@code a} is null); {@code and}/{@code or} follow three-valued logic. Strings and binary
 * values compare by their bytes, unsigned (UTF-8 bytes for strings: the order of code points); {@code NaN} equals
 * {@code NaN} and is greater than every other number, and {@code -0.0} equals {@code 0.0}. Column names match the
 * table's columns as other names given to wrangler do: exactly, else ignoring case.
 *
 * <pre>{@code
 * RowFilter f = RowFilter.and(
 *     RowFilter.eq("user_id", 42L),
 *     RowFilter.or(RowFilter.ge("amount", new BigDecimal("10.00")), RowFilter.isNull("amount")),
 *     RowFilter.not(RowFilter.startsWith("country", "X")));
 * }</pre>
 */
public final class RowFilter {
    /** What a filter does: one comparison, a null check, a prefix, or a combination of filters. */
    public enum Op {
        EQ("="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">="), IN("IN"), IS_NULL("IS NULL"), NOT_NULL("IS NOT NULL"),
        STARTS_WITH("STARTS WITH"), AND("AND"), OR("OR"), NOT("NOT");

        private final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }
    }

    private static final List<Class<?>> LITERALS = List.of(Long.class, Integer.class, Short.class, Byte.class, BigInteger.class,
            Double.class, Float.class, BigDecimal.class, String.class, byte[].class, LocalDate.class, Instant.class,
            LocalDateTime.class, Boolean.class);

    private final Op op;
    private final String column;
    private final List<Object> values;
    private final List<RowFilter> children;

    private RowFilter(Op op, String column, List<Object> values, List<RowFilter> children) {
        this.op = op;
        this.column = column;
        this.values = values;
        this.children = children;
    }

    /** The rows whose {@code column} equals {@code value}; for nulls use {@link #isNull}. */
    public static RowFilter eq(String column, Object value) {
        return compare(Op.EQ, column, value);
    }

    /** The rows whose {@code column} is not null and differs from {@code value}. */
    public static RowFilter ne(String column, Object value) {
        return compare(Op.NE, column, value);
    }

    /** The rows whose {@code column} is less than {@code value}. */
    public static RowFilter lt(String column, Object value) {
        return compare(Op.LT, column, value);
    }

    /** The rows whose {@code column} is at most {@code value}. */
    public static RowFilter le(String column, Object value) {
        return compare(Op.LE, column, value);
    }

    /** The rows whose {@code column} is greater than {@code value}. */
    public static RowFilter gt(String column, Object value) {
        return compare(Op.GT, column, value);
    }

    /** The rows whose {@code column} is at least {@code value}. */
    public static RowFilter ge(String column, Object value) {
        return compare(Op.GE, column, value);
    }

    /** The rows whose {@code column} equals one of {@code values} (at least one; none null). */
    public static RowFilter in(String column, Object... values) {
        Objects.requireNonNull(values, "values");
        if (values.length == 0) {
            throw new IllegalArgumentException("RowFilter.in(\"" + column + "\") needs at least one value");
        }
        List<Object> out = new ArrayList<>(values.length);
        for (Object v : values) {
            out.add(literal(Op.IN, column, v));
        }
        return new RowFilter(Op.IN, name(column), List.copyOf(out), List.of());
    }

    /** The rows whose {@code column} is null. */
    public static RowFilter isNull(String column) {
        return new RowFilter(Op.IS_NULL, name(column), List.of(), List.of());
    }

    /** The rows whose {@code column} is not null. */
    public static RowFilter notNull(String column) {
        return new RowFilter(Op.NOT_NULL, name(column), List.of(), List.of());
    }

    /**
     * The rows whose {@code column} begins with {@code prefix}: a {@code String} for a string column (its UTF-8 bytes),
     * a {@code byte[]} for a binary one.
     */
    public static RowFilter startsWith(String column, Object prefix) {
        Object p = literal(Op.STARTS_WITH, column, prefix);
        if (!(p instanceof String) && !(p instanceof byte[])) {
            throw new IllegalArgumentException("RowFilter.startsWith(\"" + column + "\") takes a String or a byte[] prefix, got "
                    + p.getClass().getSimpleName());
        }
        return new RowFilter(Op.STARTS_WITH, name(column), List.of(p), List.of());
    }

    /** The rows that pass every one of {@code filters} (at least one). */
    public static RowFilter and(RowFilter... filters) {
        return combine(Op.AND, filters);
    }

    /** The rows that pass at least one of {@code filters} (at least one). */
    public static RowFilter or(RowFilter... filters) {
        return combine(Op.OR, filters);
    }

    /** The rows for which {@code filter} is false (not those for which it is unknown: see the class comment). */
    public static RowFilter not(RowFilter filter) {
        return new RowFilter(Op.NOT, null, List.of(), List.of(Objects.requireNonNull(filter, "filter")));
    }

    /** This filter and {@code other}: {@code and(this, other)}. */
    public RowFilter and(RowFilter other) {
        return and(this, other);
    }

    /** This filter or {@code other}: {@code or(this, other)}. */
    public RowFilter or(RowFilter other) {
        return or(this, other);
    }

    /** What this filter does. */
    public Op op() {
        return op;
    }

    /** The column compared, or null for {@link Op#AND}, {@link Op#OR} and {@link Op#NOT}. */
    public String column() {
        return column;
    }

    /** The literals: one for a comparison and a prefix, several for {@link Op#IN}, none otherwise; a byte[] is a copy. */
    public List<Object> values() {
        List<Object> out = new ArrayList<>(values.size());
        for (Object v : values) {
            out.add(v instanceof byte[] b ? b.clone() : v);
        }
        return out;
    }

    /** The filters combined by {@link Op#AND}, {@link Op#OR} or {@link Op#NOT} (one); empty otherwise. */
    public List<RowFilter> children() {
        return children;
    }

    /** The filter as SQL-like text, for messages: {@code amount >= 10 AND country IN ('RU', 'DE')}. */
    @Override
    public String toString() {
        return switch (op) {
            case AND, OR -> children.stream().map(c -> c.children.size() > 1 && c.op != op ? "(" + c + ")" : c.toString())
                    .collect(Collectors.joining(" " + op.symbol + " "));
            case NOT -> "NOT (" + children.get(0) + ")";
            case IS_NULL, NOT_NULL -> column + " " + op.symbol;
            case IN -> column + " IN (" + values.stream().map(RowFilter::text).collect(Collectors.joining(", ")) + ")";
            default -> column + " " + op.symbol + " " + text(values.get(0));
        };
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RowFilter f) || f.op != op || !Objects.equals(f.column, column) || !f.children.equals(children)
                || f.values.size() != values.size()) {
            return false;
        }
        for (int i = 0; i < values.size(); i++) {
            if (!Objects.deepEquals(values.get(i), f.values.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(op, column, children);
        for (Object v : values) {
            h = 31 * h + (v instanceof byte[] b ? Arrays.hashCode(b) : v.hashCode());
        }
        return h;
    }

    /** A literal as text: strings quoted, binary as hex. */
    static String text(Object v) {
        if (v instanceof String s) {
            return "'" + s.replace("'", "''") + "'";
        }
        if (v instanceof byte[] b) {
            return "X'" + HexFormat.of().formatHex(b) + "'";
        }
        if (v instanceof LocalDate || v instanceof Instant || v instanceof LocalDateTime) {
            return "'" + v + "'";
        }
        return String.valueOf(v);
    }

    private static RowFilter compare(Op op, String column, Object value) {
        return new RowFilter(op, name(column), List.of(literal(op, column, value)), List.of());
    }

    private static String name(String column) {
        return Objects.requireNonNull(column, "column");
    }

    private static Object literal(Op op, String column, Object value) {
        Objects.requireNonNull(column, "column");
        if (value == null) {
            throw new IllegalArgumentException("RowFilter " + op.symbol + " on \"" + column + "\" got a null literal: a comparison "
                    + "with null is never true; use RowFilter.isNull(\"" + column + "\") or notNull");
        }
        if (!LITERALS.contains(value.getClass())) {
            throw new IllegalArgumentException("RowFilter " + op.symbol + " on \"" + column + "\" got a literal of type "
                    + value.getClass().getName() + "; a literal is one of " + LITERALS.stream().map(Class::getSimpleName).toList());
        }
        return value instanceof byte[] b ? b.clone() : value;
    }

    private static RowFilter combine(Op op, RowFilter... filters) {
        Objects.requireNonNull(filters, "filters");
        if (filters.length == 0) {
            throw new IllegalArgumentException("RowFilter." + op.name().toLowerCase(java.util.Locale.ROOT) + "() needs at least one filter");
        }
        List<RowFilter> out = new ArrayList<>();
        for (RowFilter f : filters) {
            Objects.requireNonNull(f, "filter");
            if (f.op == op) {
                out.addAll(f.children); // a AND (b AND c) is a AND b AND c
            } else {
                out.add(f);
            }
        }
        return out.size() == 1 ? out.get(0) : new RowFilter(op, null, List.of(), List.copyOf(out));
    }
}
