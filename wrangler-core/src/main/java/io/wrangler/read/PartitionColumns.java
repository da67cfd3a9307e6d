package io.wrangler.read;

import io.wrangler.ReadException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The partition columns of a read: typed as the catalog (or a record) types them, else by their folders' values
 * ({@link #inferType}), and filled batch by batch from the folder of the file the batch comes from. A partition value
 * is the same in every row of a file, so a batch's column is filled by repeating its first value's bytes.
 */
final class PartitionColumns {
    private final String table;
    private final List<String> columns;
    private final List<Field> fields;

    /**
     * @param types Arrow types of the partition columns by name; a column missing here is inferred from its values
     */
    PartitionColumns(String table, TableFiles.Listing listing, Map<String, Field> types) {
        this.table = table;
        this.columns = listing.partitionColumns();
        List<Field> out = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            String c = columns.get(i);
            Field f = types.get(c);
            if (f == null) {
                final int at = i;
                f = inferType(c, listing.files().stream().map(d -> d.values().get(at)).distinct().toList());
            }
            out.add(new Field(c, FieldType.nullable(f.getType()), null));
        }
        this.fields = List.copyOf(out);
    }

    /** The partition columns as the read's schema has them, in key order, nullable. */
    List<Field> fields() {
        return fields;
    }

    /** Sets the partition columns of {@code out}'s first {@code n} rows to the values of the folder of {@code f}. */
    void fill(VectorSchemaRoot out, int n, TableFiles.DataFile f) {
        for (int c = 0; c < columns.size(); c++) {
            FieldVector v = out.getVector(columns.get(c));
            if (v == null) {
                continue; // not selected
            }
            String text = f.values().get(c);
            if (text == null) {
                for (int i = 0; i < n; i++) {
                    v.setNull(i);
                }
                continue;
            }
            Setter set = setter(v, text, columns.get(c), f);
            if (n > 0) {
                set.at(0);
                if (v instanceof BitVector) {
                    for (int i = 1; i < n; i++) {
                        set.at(i);
                    }
                } else {
                    repeatFirst(v, n);
                }
            }
        }
    }

    /**
     * Repeats the value at index 0 of {@code v} into {@code [1, n)}: a partition value is the same in every row of a
     * file, so its bytes are copied in doubling blocks instead of set row by row (which was a third of a read's time).
     */
    private static void repeatFirst(FieldVector v, int n) {
        if (v instanceof BaseVariableWidthVector x) {
            int length = x.getValueLength(0);
            while (x.getValueCapacity() < n) {
                x.reallocValidityAndOffsetBuffers();
            }
            while (x.getDataBuffer().capacity() < (long) n * length) {
                x.reallocDataBuffer();
            }
            repeat(x.getDataBuffer(), length, n);
            endOffsets(x.getOffsetBuffer(), length, n);
            allValid(x.getValidityBuffer(), n);
            x.setLastSet(n - 1);
        } else if (v instanceof BaseFixedWidthVector x && !(v instanceof BitVector)) {
            while (x.getValueCapacity() < n) {
                x.reAlloc();
            }
            repeat(x.getDataBuffer(), x.getTypeWidth(), n);
            allValid(x.getValidityBuffer(), n);
        } else {
            throw new IllegalStateException("no bulk fill for " + v.getClass().getSimpleName()); // setter() makes no other
        }
    }

    /**
     * Writes the end offsets {@code i * length} of rows {@code [0, n)} (slots 1 to n; slot 0 holds 0) at memory addresses,
     * the range checked against the buffer first: one checked ArrowBuf write per row was most of the fill's time for a
     * string partition column, and a VarHandle over a scratch array was still about two fifths of the decoding workers'
     * samples in a profile of warm reads (the VarHandle's guards and index checks, not inlined away).
     */
    private static void endOffsets(ArrowBuf offsets, int length, int n) {
        long bytes = (long) (n + 1) * BaseVariableWidthVector.OFFSET_WIDTH;
        if (bytes > offsets.capacity()) {
            throw new IllegalStateException("offsets of " + n + " rows out of their buffer of " + offsets.capacity() + " bytes");
        }
        long at = offsets.memoryAddress() + BaseVariableWidthVector.OFFSET_WIDTH;
        int end = length;
        for (int i = 0; i < n; i++) {
            MemoryUtil.putInt(at, end);
            at += BaseVariableWidthVector.OFFSET_WIDTH;
            end += length;
        }
    }

    /** Copies the first {@code width} bytes of {@code buf} until it holds {@code n} copies. */
    private static void repeat(ArrowBuf buf, int width, int n) {
        long total = (long) width * n;
        long filled = width;
        while (filled < total) {
            long len = Math.min(filled, total - filled);
            buf.setBytes(filled, buf, 0, len);
            filled += len;
        }
    }

    private static void allValid(ArrowBuf validity, int n) {
        validity.setOne(0L, n / 8);
        for (int i = n & ~7; i < n; i++) {
            BitVectorHelper.setBit(validity, i);
        }
    }

    private interface Setter {
        void at(int i);
    }

    private Setter setter(FieldVector v, String text, String column, TableFiles.DataFile f) {
        Setter set;
        try {
            set = numbersAndText(v, text);
            if (set == null) {
                set = others(v, text);
            }
        } catch (RuntimeException e) {
            throw new ReadException(table, "Cannot read " + table + ": the folder of " + ReadErrors.uri(f) + " gives the partition column '" + column
                    + "' the value '" + text + "', which is not a " + v.getField().getType() + " (" + e.getMessage() + "). Fix the "
                    + "folder name or the catalog's type.", e);
        }
        if (set == null) {
            throw new ReadException(table, "Cannot read " + table + ": the partition column '" + column + "' has the type "
                    + v.getField().getType() + ", which wrangler cannot restore from a folder name.", null);
        }
        return set;
    }

    /** The setter of {@code text} into a string, integer or boolean vector, or null for another vector. */
    private static Setter numbersAndText(FieldVector v, String text) {
        if (v instanceof VarCharVector x) {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            return i -> x.setSafe(i, b);
        }
        if (v instanceof BigIntVector x) {
            long l = Long.parseLong(text);
            return i -> x.setSafe(i, l);
        }
        if (v instanceof IntVector x) {
            int l = Integer.parseInt(text);
            return i -> x.setSafe(i, l);
        }
        if (v instanceof SmallIntVector x) {
            short l = Short.parseShort(text);
            return i -> x.setSafe(i, l);
        }
        if (v instanceof TinyIntVector x) {
            byte l = Byte.parseByte(text);
            return i -> x.setSafe(i, l);
        }
        if (v instanceof BitVector x) {
            if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
                throw new NumberFormatException("not true or false");
            }
            int b = text.equalsIgnoreCase("true") ? 1 : 0;
            return i -> x.setSafe(i, b);
        }
        return null;
    }

    /** The setter of {@code text} into a date, timestamp, decimal or floating-point vector, or null for another vector. */
    private static Setter others(FieldVector v, String text) {
        if (v instanceof DateDayVector x) {
            int d = (int) date(text).toEpochDay();
            return i -> x.setSafe(i, d);
        }
        if (v instanceof TimeStampVector x) {
            LocalDateTime t = LocalDateTime.parse(text, TIMESTAMP);
            long s = t.toEpochSecond(ZoneOffset.UTC);
            TimeUnit unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
            long value = switch (unit) {
                case SECOND -> s;
                case MILLISECOND -> s * 1000 + t.getNano() / 1_000_000;
                case MICROSECOND -> s * 1_000_000 + t.getNano() / 1000;
                case NANOSECOND -> s * 1_000_000_000 + t.getNano();
            };
            return i -> x.setSafe(i, value);
        }
        if (v instanceof DecimalVector x) {
            BigDecimal d = new BigDecimal(text).setScale(((ArrowType.Decimal) v.getField().getType()).getScale());
            return i -> x.setSafe(i, d);
        }
        if (v instanceof Float8Vector x) {
            double d = Double.parseDouble(text);
            return i -> x.setSafe(i, d);
        }
        if (v instanceof Float4Vector x) {
            float d = Float.parseFloat(text);
            return i -> x.setSafe(i, d);
        }
        return null;
    }

    /**
     * The date of a {@code yyyy-MM-dd} folder value: its digits read directly (the value of every file of a table
     * partitioned by day, parsed for each of its batches; {@code LocalDate.parse} took a visible share of a read's
     * decoding), any other form through {@code LocalDate.parse}, which also refuses what is not a date.
     */
    static LocalDate date(String text) {
        if (text.length() == 10 && text.charAt(4) == '-' && text.charAt(7) == '-') {
            int y = digits(text, 0, 4);
            int m = digits(text, 5, 7);
            int d = digits(text, 8, 10);
            if (y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= java.time.YearMonth.of(y, m).lengthOfMonth()) {
                return LocalDate.of(y, m, d); // a valid date: no error of its own, worded differently from parse's
            }
        }
        return LocalDate.parse(text);
    }

    /** The decimal number of {@code text[from, to)}, or -1 when a character there is not an ASCII digit. */
    private static int digits(String text, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /** Hive's rendering of timestamps, {@code yyyy-MM-dd HH:mm:ss[.fffffffff]}. */
    static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder().appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd().toFormatter();

    /**
     * The type of a partition column known only by its folders' values, by the rule DuckDB and Spark use: integers
     * that fit 64 bits are int64, {@code yyyy-MM-dd} dates are date32, {@code yyyy-MM-dd HH:mm:ss[.f]} timestamps are
     * timestamp(us), {@code true}/{@code false} are bool; anything else, or a mix, is utf8. Nulls do not count.
     */
    static Field inferType(String column, List<String> values) {
        boolean ints = true;
        boolean dates = true;
        boolean times = true;
        boolean bools = true;
        boolean any = false;
        for (String v : values) {
            if (v == null) {
                continue;
            }
            any = true;
            ints &= v.matches("-?\\d{1,19}") && fitsLong(v);
            dates &= v.matches("\\d{4}-\\d{2}-\\d{2}") && parses(() -> LocalDate.parse(v));
            times &= v.matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?") && parses(() -> LocalDateTime.parse(v, TIMESTAMP));
            bools &= v.equals("true") || v.equals("false");
        }
        ArrowType t = !any ? ArrowType.Utf8.INSTANCE
                : ints ? new ArrowType.Int(64, true)
                : dates ? new ArrowType.Date(DateUnit.DAY)
                : times ? new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)
                : bools ? ArrowType.Bool.INSTANCE : ArrowType.Utf8.INSTANCE;
        return new Field(column, FieldType.nullable(t), null);
    }

    private static boolean fitsLong(String v) {
        try {
            Long.parseLong(v);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean parses(Runnable r) {
        try {
            r.run();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
