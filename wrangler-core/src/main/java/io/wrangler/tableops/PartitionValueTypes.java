package io.wrangler.tableops;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a partition folder's value is one of a declared Hive type, as Athena and Spark parse folder values: integers
 * in decimal, {@code true}/{@code false}, dates {@code yyyy-MM-dd}, timestamps {@code yyyy-MM-dd HH:mm:ss[.f]}, decimals
 * in plain digits within their precision and scale.
 */
final class PartitionValueTypes {
    private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)");

    private PartitionValueTypes() {
    }

    /** Whether a column of this Hive type can be a partition column (a primitive). */
    static boolean partitionable(String type) {
        return switch (type) {
            case "string", "tinyint", "smallint", "int", "bigint", "boolean", "float", "double", "date", "timestamp" -> true;
            default -> DECIMAL.matcher(type).matches();
        };
    }

    /**
     * The text a write gives the value {@code v} (which {@link #parses}) of an integer column in its folder, as
     * {@code Long.toString}: {@code 01} and {@code +1} are 1, written {@code 1}. Null for other types (their values are
     * taken as the folders have them).
     */
    static String canonical(String type, String v) {
        return switch (type) {
            case "tinyint", "smallint", "int", "bigint" -> Long.toString(Long.parseLong(v));
            default -> null;
        };
    }

    static boolean parses(String type, String v) {
        try {
            switch (type) {
                case "string":
                    return true;
                case "tinyint":
                    Byte.parseByte(v);
                    return true;
                case "smallint":
                    Short.parseShort(v);
                    return true;
                case "int":
                    Integer.parseInt(v);
                    return true;
                case "bigint":
                    Long.parseLong(v);
                    return true;
                case "boolean":
                    return v.equals("true") || v.equals("false");
                case "float":
                case "double":
                    Double.parseDouble(v);
                    return !v.isBlank();
                case "date":
                    LocalDate.parse(v);
                    return true;
                case "timestamp":
                    LocalDateTime.parse(v.replace(' ', 'T'));
                    return v.length() > 10 && v.charAt(10) == ' ';
                default:
                    return decimal(type, v);
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            return false;
        }
    }

    private static boolean decimal(String type, String v) {
        Matcher m = DECIMAL.matcher(type.toLowerCase(Locale.ROOT));
        if (!m.matches() || v.contains("e") || v.contains("E")) {
            return false;
        }
        BigDecimal d = new BigDecimal(v);
        int precision = Integer.parseInt(m.group(1));
        int scale = Integer.parseInt(m.group(2));
        return d.scale() <= scale && d.precision() - d.scale() <= precision - scale;
    }
}
