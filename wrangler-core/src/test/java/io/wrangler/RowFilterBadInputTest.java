package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A row filter that names a column the table does not have, or gives a column a literal its type does not take, fails
 * the read with an {@link InvalidReadException} that names the table, the filter, the column and the fix, before any row
 * is decoded; a filter that cannot mean anything (a null literal, an empty {@code in}) is refused when it is made.
 */
class RowFilterBadInputTest {
    private static String table;
    private static S3Client s3;
    private static final List<LocalDate> DAYS = List.of(LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16));

    @BeforeAll
    static void write() {
        s3 = TestLake.memory().client();
        table = "s3://" + TestLake.memoryBucket() + "/orders/";
        S3Parquet.write(Orders.orders("a", DAYS, List.of("RU", "DE"), 3)).partitionBy("dt", "country").s3(s3).to(table);
        try (RootAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(EveryType.schema(), a)) {
            EveryType.fill(root);
            S3Parquet.write(root).preserveNanoseconds(true).s3(s3).to(table.replace("orders/", "every/"));
        }
    }

    private static String message(RowFilter f) {
        return message(table, f);
    }

    private static String message(String t, RowFilter f) {
        Throwable e = org.assertj.core.api.Assertions.catchThrowable(() -> S3Parquet.read(t).s3(s3).where(f).toList(Orders.Order.class));
        Throwable o = org.assertj.core.api.Assertions.catchThrowable(() -> S3Parquet.read(t).s3(s3).where(f).open().close());
        Throwable c = org.assertj.core.api.Assertions.catchThrowable(() -> S3Parquet.read(t).s3(s3).where(f).count());
        assertThat(o).isInstanceOf(InvalidReadException.class).hasMessage(c.getMessage());
        assertThat(((InvalidReadException) o).table()).isEqualTo(t);
        return o.getMessage();
    }

    @Test
    void aColumnTheTableDoesNotHaveIsNamedWithTheTablesColumns() {
        assertThat(message(RowFilter.eq("amount", 5L))).isEqualTo("Cannot read " + table + " (step: validate): the row filter amount = 5 "
                + "names the column 'amount', which the table does not have; its columns are [orderId, amountCents, price, dt, country]. "
                + "Filter on a column of the table.");
        // deep in a combination too
        assertThat(message(RowFilter.and(RowFilter.eq("country", "RU"), RowFilter.not(RowFilter.isNull("nope"))))).isEqualTo("Cannot read "
                + table + " (step: validate): the row filter nope IS NULL names the column 'nope', which the table does not have; its "
                + "columns are [orderId, amountCents, price, dt, country]. Filter on a column of the table.");
    }

    @Test
    void aLiteralItsColumnDoesNotTakeIsRefusedWithTheTypeItTakes() {
        assertThat(message(RowFilter.eq("amountCents", "100"))).isEqualTo("Cannot read " + table + " (step: validate): the row filter "
                + "amountCents = '100' compares the column 'amountCents', of type Int(64, true), with the String '100'; that column takes a "
                + "Long, Integer, Short, Byte or BigInteger. Give the literal that type.");
        assertThat(message(RowFilter.gt("price", 1.5))).isEqualTo("Cannot read " + table + " (step: validate): the row filter price > 1.5 "
                + "compares the column 'price', of type Decimal(38, 2, 128), with the Double 1.5; that column takes a BigDecimal, "
                + "BigInteger, Long or Integer. Give the literal that type.");
        // a partition column, typed as the read types it
        assertThat(message(RowFilter.eq("dt", "2024-01-15"))).isEqualTo("Cannot read " + table + " (step: validate): the row filter "
                + "dt = '2024-01-15' compares the column 'dt', of type Date(DAY), with the String '2024-01-15'; that column takes a "
                + "LocalDate. Give the literal that type.");
        assertThat(message(RowFilter.startsWith("amountCents", "1"))).isEqualTo("Cannot read " + table + " (step: validate): the row "
                + "filter amountCents STARTS WITH '1' asks a prefix of the column 'amountCents', of type Int(64, true); startsWith takes a "
                + "string or binary column. Use a comparison instead.");
        String every = table.replace("orders/", "every/");
        assertThat(message(every, RowFilter.eq("ts_ms_utc", LocalDateTime.of(2024, 1, 1, 0, 0)))).isEqualTo("Cannot read " + every
                + " (step: validate): the row filter ts_ms_utc = '2024-01-01T00:00' compares the column 'ts_ms_utc', of type "
                + "Timestamp(MILLISECOND, UTC), with the LocalDateTime '2024-01-01T00:00'; that column takes an Instant. Give the literal "
                + "that type.");
        assertThat(message(every, RowFilter.eq("ts_ns", Instant.EPOCH))).endsWith("with the Instant '1970-01-01T00:00:00Z'; that column "
                + "takes a LocalDateTime. Give the literal that type.");
        assertThat(message(every, RowFilter.eq("f64", Long.MAX_VALUE))).endsWith("compares the column 'f64', of type FloatingPoint(DOUBLE), "
                + "with the Long 9223372036854775807; that column takes a Double or Float (or an integer a double holds exactly). Give the "
                + "literal that type.");
        assertThat(message(every, RowFilter.eq("bin", "x"))).endsWith("with the String 'x'; that column takes a byte[]. Give the literal "
                + "that type.");
        assertThat(message(every, RowFilter.notNull("li"))).isEqualTo("Cannot read " + every + " (step: validate): the row filter li IS "
                + "NOT NULL names the column 'li', of type List, which a row filter cannot compare (only integer, float, decimal, string, "
                + "binary, boolean, date and timestamp columns). Filter on another column, or filter the rows after reading them.");
    }

    @Test
    void theSameFilterWithTheRightTypesReads() {
        assertThat(S3Parquet.read(table).s3(s3).where(RowFilter.and(RowFilter.eq("dt", LocalDate.of(2024, 1, 16)),
                RowFilter.gt("price", new BigDecimal("7")), RowFilter.in("country", "RU", "XX"))).toList(Orders.Order.class))
                .extracting(Orders.Order::orderId).containsExactly("a-2024-01-16-RU-1", "a-2024-01-16-RU-2");
    }

    @Test
    void aFilterThatCannotMeanAnythingIsRefusedWhenMade() {
        assertThatThrownBy(() -> RowFilter.eq("a", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RowFilter = on \"a\" got a null literal: a comparison with null is never true; use RowFilter.isNull(\"a\") or notNull");
        assertThatThrownBy(() -> RowFilter.in("a")).hasMessage("RowFilter.in(\"a\") needs at least one value");
        assertThatThrownBy(() -> RowFilter.eq("a", new java.util.Date(0))).hasMessage("RowFilter = on \"a\" got a literal of type "
                + "java.util.Date; a literal is one of [Long, Integer, Short, Byte, BigInteger, Double, Float, BigDecimal, String, byte[], "
                + "LocalDate, Instant, LocalDateTime, Boolean]");
        assertThatThrownBy(() -> RowFilter.startsWith("a", 5)).hasMessage("RowFilter.startsWith(\"a\") takes a String or a byte[] prefix, got Integer");
        assertThatThrownBy(RowFilter::and).hasMessage("RowFilter.and() needs at least one filter");
    }

    @Test
    void filtersAreValuesWithReadableText() {
        byte[] b = {1, (byte) 0xff};
        RowFilter f = RowFilter.and(RowFilter.eq("a", 1L), RowFilter.or(RowFilter.startsWith("s", "it's"), RowFilter.in("bin", b)));
        b[0] = 9; // the filter keeps its own copy
        assertThat(f).hasToString("a = 1 AND (s STARTS WITH 'it''s' OR bin IN (X'01ff'))")
                .isEqualTo(RowFilter.and(RowFilter.eq("a", 1L), RowFilter.or(RowFilter.startsWith("s", "it's"), RowFilter.in("bin", new byte[] {1, (byte) 0xff}))));
        assertThat(f.children()).hasSize(2);
        assertThat(RowFilter.and(f, RowFilter.isNull("c")).children()).hasSize(3);
        assertThat(RowFilter.not(RowFilter.le("d", LocalDate.of(2024, 1, 1)))).hasToString("NOT (d <= '2024-01-01')");
    }
}
