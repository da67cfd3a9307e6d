package io.wrangler.tableops;

import io.wrangler.hive.HivePaths;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
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
     * The text a write gives the value {@code v} (which {@link #parses}) in its folder: integers as {@code Long.toString}
     * ({@code 01} and {@code +1} are 1, written {@code 1}), decimals without trailing zeros ({@code 1.50} is written
     * {@code 1.5}, {@code 0.00} is {@code 0}), timestamps with seconds and without trailing zeros of the fraction
     * ({@code 2024-01-05 10:00} is written {@code 2024-01-05 10:00:00}), dates as {@code yyyy-MM-dd}. Null for strings,
     * booleans and floating point (taken as the folders have them: a write does not partition by floating point, and a
     * string's folder is matched by its unescaped value).
     */
    static String canonical(String type, String v) {
        return switch (type) {
            case "tinyint", "smallint", "int", "bigint" -> Long.toString(Long.parseLong(v));
            case "date" -> LocalDate.parse(v).toString();
            case "timestamp" -> {
                LocalDateTime t = LocalDateTime.parse(v.replace(' ', 'T'));
                yield HivePaths.timestamp(t.toEpochSecond(ZoneOffset.UTC), t.getNano());
            }
            case "string", "boolean", "float", "double" -> null;
            default -> HivePaths.decimal(new BigDecimal(v));
        };
    }

    /**
     * Why the folder {@code folder} cannot give the partition column {@code column} of Hive type {@code type} the value
     * {@code v}, or null when it can: the value does not parse as the type, or a write of that value puts it in another
     * folder ({@link #canonical}), where a merge, delete or overwrite of the partition would not find this folder's rows.
     * A null value (the default partition) is any type's.
     */
    static String problem(String folder, String column, String type, String v) {
        if (v == null) {
            return null;
        }
        String gives = "the folder '" + folder + "' gives the partition column '" + column + "' the value '" + v + "', which ";
        if (!parses(type, v)) {
            return gives + "is not a " + type;
        }
        String canonical = canonical(type, v);
        if (canonical != null && !canonical.equals(v)) {
            return gives + "a write of the " + type + " " + canonical + " puts in the folder of '" + canonical + "': a merge, delete or "
                    + "overwrite of that partition would leave this folder's rows beside its own";
        }
        return null;
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
