package io.wrangler.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoField;
import java.util.List;
import org.apache.arrow.vector.types.TimeUnit;
import org.junit.jupiter.api.Test;

class Int96Test {
    /** The Julian day and nanoseconds of the day that an INT96 holds, decoded from its 12 little-endian bytes. */
    private static long[] decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long nanosOfDay = b.getLong();
        int julianDay = b.getInt();
        return new long[] {julianDay, nanosOfDay};
    }

    /** The same two numbers from java.time: the epoch day plus 2,440,588 (the Julian day of 1970-01-01), the nano of day. */
    private static long[] expected(Instant t) {
        LocalDateTime d = LocalDateTime.ofInstant(t, ZoneOffset.UTC);
        return new long[] {d.toLocalDate().toEpochDay() + 2_440_588, d.getLong(ChronoField.NANO_OF_DAY)};
    }

    @Test
    void everyUnitGivesTheJulianDayAndTheNanosecondsOfTheDay() {
        for (String s : List.of("0001-01-01T00:00:00Z", "1677-09-21T00:12:43.145224192Z", "1969-12-31T23:59:59.999999999Z",
                "1970-01-01T00:00:00Z", "2024-01-15T10:30:00.123456789Z", "2262-04-11T23:47:16.854775807Z", "9999-12-31T23:59:59.999999Z")) {
            Instant t = Instant.parse(s);
            long seconds = t.getEpochSecond();
            java.math.BigInteger exact = java.math.BigInteger.valueOf(seconds).multiply(java.math.BigInteger.valueOf(1_000_000_000L))
                    .add(java.math.BigInteger.valueOf(t.getNano()));
            if (exact.bitLength() < 64) { // within what nanosecond timestamps hold: 1677-09-21 to 2262-04-11
                long nanos = exact.longValueExact();
                assertThat(decode(TimestampPolicy.int96(nanos, TimeUnit.NANOSECOND, "ts").getBytes())).as(s).containsExactly(expected(t));
            }
            Instant micro = t.truncatedTo(java.time.temporal.ChronoUnit.MICROS);
            long micros = Math.addExact(Math.multiplyExact(micro.getEpochSecond(), 1_000_000L), micro.getNano() / 1000);
            assertThat(decode(TimestampPolicy.int96(micros, TimeUnit.MICROSECOND, "ts").getBytes())).as(s).containsExactly(expected(micro));
            Instant milli = t.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            assertThat(decode(TimestampPolicy.int96(milli.toEpochMilli(), TimeUnit.MILLISECOND, "ts").getBytes())).as(s).containsExactly(expected(milli));
            Instant second = t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            assertThat(decode(TimestampPolicy.int96(second.getEpochSecond(), TimeUnit.SECOND, "ts").getBytes())).as(s).containsExactly(expected(second));
        }
    }

    @Test
    void aSecondsTimestampBeforeTheJulianEpochIsRefused() {
        assertThatThrownBy(() -> TimestampPolicy.int96(Long.MIN_VALUE / 2, TimeUnit.SECOND, "s.ts")).isInstanceOf(UnsupportedTypeException.class)
                .hasMessage("column 's.ts' holds the timestamp -4611686018427387904 SECOND, outside the days an INT96 timestamp counts "
                        + "(Julian days 0 to 2^31-1, from 4713 BC): write it without timestampsAsInt96");
    }
}
