package io.wrangler.compact;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A KeyMatch matches the rows whose {@code column} holds one of {@code values} ({@code keys(column, values)} of a delete of
 * rows): equal by value as {@link Dedup} compares keys (strings by content, integers of any width by their value,
 * decimals by numeric value). A null never matches. The values must be of the column's kind: strings for a string column,
 * whole numbers for an integer column, decimals or whole numbers for a decimal column.
 */
public final class KeyMatch implements RowMatch {
    private final String column;
    private final Set<Object> keys = new HashSet<>();
    private final int given;

    /** @param values the values of {@code column} whose rows are deleted (at least one, none null) */
    public KeyMatch(String column, List<?> values) {
        this.column = column;
        this.given = values.size();
        for (Object v : values) {
            keys.add(normalized(v));
        }
    }

    @Override
    public List<String> columns() {
        return List.of(column);
    }

    @Override
    public String refusal(Schema table) {
        Field f = table.getFields().stream().filter(x -> x.getName().toLowerCase(Locale.ROOT).equals(column.toLowerCase(Locale.ROOT)))
                .findFirst().orElse(null);
        if (f == null) {
            return "keys(...) names the column '" + column + "', which the table does not have; its columns are "
                    + table.getFields().stream().map(Field::getName).toList() + ". Name a column of the table";
        }
        ArrowType t = f.getType();
        boolean strings = t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8;
        boolean integers = t instanceof ArrowType.Int;
        boolean decimals = t instanceof ArrowType.Decimal;
        for (Object k : keys) {
            boolean fits = strings ? k instanceof Text : integers ? k instanceof BigInteger : decimals && k instanceof BigDecimal;
            if (!fits) {
                return "keys(...) gives the value " + shown(k) + " (" + kind(k) + ") for the column '" + f.getName() + "', which holds "
                        + t + " values, so no row could ever match it. Give values of the column's type";
            }
        }
        return null;
    }

    @Override
    public void match(VectorSchemaRoot batch, BitSet matched) {
        matched.clear();
        FieldVector v = vector(batch, column);
        if (v == null) {
            return; // a file without the column: every value is null, none matches
        }
        for (int i = 0; i < batch.getRowCount(); i++) {
            if (v.isNull(i)) {
                continue;
            }
            if (keys.contains(normalized(Dedup.key(v, i)))) {
                matched.set(i);
            }
        }
    }

    @Override
    public String describe() {
        return "keys(\"" + column + "\", " + given + (given == 1 ? " value)" : " values)");
    }

    private static FieldVector vector(VectorSchemaRoot root, String name) {
        for (FieldVector x : root.getFieldVectors()) {
            if (x.getName().equalsIgnoreCase(name)) {
                return x;
            }
        }
        return null;
    }

    /** A value as the key set holds it: strings and bytes as {@link Text}, whole numbers as BigInteger, decimals stripped. */
    private static Object normalized(Object o) {
        if (o instanceof String s) {
            return new Text(s.getBytes(StandardCharsets.UTF_8));
        }
        if (o instanceof Dedup.Bytes b) {
            return new Text(b.bytes());
        }
        if (o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte) {
            return BigInteger.valueOf(((Number) o).longValue());
        }
        if (o instanceof BigInteger b) {
            return b;
        }
        if (o instanceof BigDecimal d) {
            BigDecimal s = d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
            return s.scale() <= 0 ? s.toBigIntegerExact() : s;
        }
        if (o instanceof Character c) {
            return BigInteger.valueOf(c);
        }
        return o;
    }

    private static String shown(Object k) {
        return k instanceof Text t ? "'" + new String(t.bytes(), StandardCharsets.UTF_8) + "'" : String.valueOf(k);
    }

    private static String kind(Object k) {
        return k instanceof Text ? "a string" : k instanceof BigInteger ? "a whole number" : k instanceof BigDecimal ? "a decimal"
                : "a " + k.getClass().getSimpleName();
    }

    /** UTF-8 bytes equal by content. */
    private record Text(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Text t && java.util.Arrays.equals(bytes, t.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }
}
