package io.wrangler.encoding;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;

/**
 * A TimestampPolicy is how a write stores Arrow timestamps in Parquet, and the one place that rule is written: both
 * encoders ({@link ArrowSchemas} for {@link RecordEncoder}, and {@link ColumnarEncoder}) and the checks that read the
 * values before any I/O ({@code Planner}'s validation pass, {@code ValueChecks}) ask it.
 *
 * <p>Timestamps are INT64 with their unit, except that seconds are widened to milliseconds (Parquet has no seconds unit)
 * and nanoseconds are narrowed to microseconds unless {@code keepNanos} (Spark and Athena cannot read nanosecond
 * timestamps); a nanosecond value that is not a whole number of microseconds is refused, never rounded. With
 * {@code int96} every timestamp is INT96 instead, which holds every unit exactly.
 *
 * @param keepNanos nanosecond timestamps are written as such, not narrowed to microseconds
 * @param int96 every timestamp, nested ones too, is written as INT96 (see {@link #int96(long, TimeUnit, String)})
 */
public record TimestampPolicy(boolean keepNanos, boolean int96) {
    /** What to do about a nanosecond value that microseconds cannot hold, for every message that refuses one. */
    public static final String LOSSY_NANOS_TODO = "truncate the column to microseconds, or call preserveNanoseconds(true) (Spark "
            + "and Athena cannot read nanosecond Parquet timestamps)";

    /** The Julian day number of 1970-01-01, which INT96 timestamps count days from. */
    private static final long JULIAN_EPOCH_DAY = 2_440_588;

    /** Whether values of {@code unit} are narrowed from nanoseconds to microseconds, so each must be a whole number of them. */
    public boolean narrows(TimeUnit unit) {
        return unit == TimeUnit.NANOSECOND && !keepNanos;
    }

    /** Whether {@code type} is a timestamp whose values are narrowed ({@link #narrows(TimeUnit)}). */
    public boolean narrows(ArrowType type) {
        return type instanceof ArrowType.Timestamp ts && narrows(ts.getUnit());
    }

    /** Whether a nanosecond value is a whole number of microseconds, so that narrowing it loses nothing. */
    public static boolean wholeMicros(long nanos) {
        return nanos % 1000 == 0;
    }

    /** The refusal of a nanosecond value that microseconds cannot hold: what was found, in the words every message uses. */
    public static String lossyNanos(String path, long nanos, long row) {
        return "column '" + path + "' holds the nanosecond timestamp " + nanos + " at row " + row + ", which a microsecond "
                + "timestamp cannot hold without losing digits";
    }

    /** The Parquet unit of an INT64 timestamp of {@code unit}. */
    LogicalTypeAnnotation.TimeUnit parquetUnit(TimeUnit unit) {
        return switch (unit) {
            case SECOND, MILLISECOND -> LogicalTypeAnnotation.TimeUnit.MILLIS;
            case MICROSECOND -> LogicalTypeAnnotation.TimeUnit.MICROS;
            case NANOSECOND -> keepNanos ? LogicalTypeAnnotation.TimeUnit.NANOS : LogicalTypeAnnotation.TimeUnit.MICROS;
        };
    }

    /** A seconds value as the milliseconds it is written in. */
    static long secondsAsMillis(long seconds) {
        return Math.multiplyExact(seconds, 1000L);
    }

    /** A nanosecond value as the microseconds it is written in; a value that would lose digits is refused. */
    static long nanosAsMicros(long nanos, String path, long row) {
        if (!wholeMicros(nanos)) {
            throw new UnsupportedTypeException(lossyNanos(path, nanos, row) + ": " + LOSSY_NANOS_TODO);
        }
        return nanos / 1000;
    }

    /**
     * A timestamp as Impala, Hive and Spark write INT96: 12 bytes, little-endian, the nanoseconds of the day (8 bytes)
     * then the Julian day (4 bytes), both of UTC for a zoned timestamp and of the wall clock for one without zone.
     * Exact for every unit: a nanosecond timestamp keeps its nanoseconds.
     */
    static Binary int96(long value, TimeUnit unit, String path) {
        long perDay = switch (unit) {
            case SECOND -> 86_400L;
            case MILLISECOND -> 86_400_000L;
            case MICROSECOND -> 86_400_000_000L;
            case NANOSECOND -> 86_400_000_000_000L;
        };
        long nanosPerUnit = 86_400_000_000_000L / perDay;
        long day = Math.floorDiv(value, perDay) + JULIAN_EPOCH_DAY;
        if (day < 0 || day > Integer.MAX_VALUE) {
            throw new UnsupportedTypeException("column '" + path + "' holds the timestamp " + value + " " + unit
                    + ", outside the days an INT96 timestamp counts (Julian days 0 to 2^31-1, from 4713 BC): write it without timestampsAsInt96");
        }
        long nanosOfDay = Math.floorMod(value, perDay) * nanosPerUnit;
        byte[] bytes = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putLong(nanosOfDay).putInt((int) day).array();
        return Binary.fromConstantByteArray(bytes);
    }
}
