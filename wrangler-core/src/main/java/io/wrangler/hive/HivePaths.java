package io.wrangler.hive;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * HivePaths renders partition values and path segments exactly as Hive, Spark, Trino, Athena and
 * DuckDB produce and parse them.
 */
public final class HivePaths {
    /** The folder value of a null or empty partition value, as Hive, Spark and Athena write and read it. */
    public static final String DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__";

    private static final boolean[] ESCAPED = new boolean[128];

    static {
        for (int c = 1; c <= 0x1F; c++) {
            ESCAPED[c] = true;
        }
        ESCAPED[0x7F] = true;
        for (char c : "\"#%'*/:=?\\{[]^".toCharArray()) {
            ESCAPED[c] = true;
        }
    }

    private HivePaths() {
    }

    /** Escapes one column name or value: each listed character becomes {@code %XX}; all else, non-ASCII included, stays. */
    public static String escape(String s) {
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 128 && ESCAPED[c]) {
                if (out == null) {
                    out = new StringBuilder(s.length() + 8).append(s, 0, i);
                }
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? s : out.toString();
    }

    /** Reverses {@link #escape}. */
    public static String unescape(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length() && isHex(s.charAt(i + 1)) && isHex(s.charAt(i + 2))) {
                out.append((char) Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isHex(char c) {
        return Character.digit(c, 16) >= 0;
    }

    /** The folder of one partition below the table root: {@code dt=2024-01-15/country=RU/}. Values as rendered; null for default. */
    public static String folder(List<String> columns, List<String> values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            String v = values.get(i);
            sb.append(escape(columns.get(i))).append('=')
                    .append(v == null || v.isEmpty() ? DEFAULT_PARTITION : escape(v)).append('/');
        }
        return sb.toString();
    }

    /** A date as {@code yyyy-MM-dd}. */
    public static String date(long epochDay) {
        return LocalDate.ofEpochDay(epochDay).toString();
    }

    /** A timestamp as Spark renders it in a path: {@code yyyy-MM-dd HH:mm:ss[.fffffffff]}, trailing zeros of the fraction dropped. */
    public static String timestamp(long epochSecond, int nanos) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, nanos, ZoneOffset.UTC);
        StringBuilder sb = new StringBuilder(29);
        int year = t.getYear();
        if (year < 0 || year > 9999) {
            sb.append(year);
        } else {
            pad(sb, year, 4);
        }
        sb.append('-');
        pad(sb, t.getMonthValue(), 2);
        sb.append('-');
        pad(sb, t.getDayOfMonth(), 2);
        sb.append(' ');
        pad(sb, t.getHour(), 2);
        sb.append(':');
        pad(sb, t.getMinute(), 2);
        sb.append(':');
        pad(sb, t.getSecond(), 2);
        if (nanos != 0) {
            StringBuilder frac = new StringBuilder();
            pad(frac, nanos, 9);
            int end = frac.length();
            while (frac.charAt(end - 1) == '0') {
                end--;
            }
            sb.append('.').append(frac, 0, end);
        }
        return sb.toString();
    }

    private static void pad(StringBuilder sb, int value, int width) {
        String s = Integer.toString(value);
        for (int i = s.length(); i < width; i++) {
            sb.append('0');
        }
        sb.append(s);
    }

    /**
     * A decimal as plain digits, no exponent, without trailing zeros after the point: {@code 1.5} whether the column's
     * scale is 1, 2 or 4.
     *
     * <p>Why not the column's scale, as Spark renders it: a partition names a number, and the same number must always
     * name the same folder. Records get their decimal scale from the data of each run (unless declared with
     * {@code @Decimal}), and Arrow inputs of different runs may declare different scales; with the scale in the path, a
     * second run would write {@code price=1.50/} next to {@code price=1.5/}, and OVERWRITE_PARTITIONS would keep both.
     * Hive, Spark, Trino, Athena and DuckDB parse a decimal partition value as a number, so {@code 1.5} reads back as
     * 1.50 in a decimal(9,2) column.
     */
    public static String decimal(BigDecimal d) {
        return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    }
}
