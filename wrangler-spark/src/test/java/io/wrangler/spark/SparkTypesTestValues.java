package io.wrangler.spark;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** One row of every type as Spark SQL and as the equivalent Java record, for the tests that compare the two. */
final class SparkTypesTestValues {
    static final String SQL = "SELECT CAST(1 AS TINYINT) AS b, CAST(-2 AS SMALLINT) AS s, 3 AS i, 4000000000L AS l, "
            + "CAST(1.5 AS FLOAT) AS f, CAST(2.25 AS DOUBLE) AS d, true AS bo, CAST('123.45' AS DECIMAL(9,2)) AS d9, "
            + "CAST('-12345678901234.5678' AS DECIMAL(18,4)) AS d18, CAST('1234567890123456789012345678.0123456789' AS DECIMAL(38,10)) AS d38, "
            + "'héllo ✓' AS str, X'00FF10' AS bin, DATE'1900-03-01' AS dt, TIMESTAMP'1969-12-31 23:59:59.999999' AS ts, "
            + "TIMESTAMP_NTZ'2024-01-15 10:11:12.123456' AS ntz, array(1, NULL, 3) AS arr, named_struct('a', 1, 'b', 'x') AS st, "
            + "map('k1', CAST(1.5 AS DOUBLE), 'k2', CAST(NULL AS DOUBLE)) AS m, array(named_struct('x', array('a', 'b'))) AS nested, 'p1' AS part";

    private SparkTypesTestValues() {
    }

    static SparkTypesTest.Every record() {
        return new SparkTypesTest.Every((byte) 1, (short) -2, 3, 4000000000L, 1.5f, 2.25d, true, new BigDecimal("123.45"),
                new BigDecimal("-12345678901234.5678"), new BigDecimal("1234567890123456789012345678.0123456789"), "héllo ✓",
                new byte[] {0, -1, 16}, LocalDate.of(1900, 3, 1), Instant.parse("1969-12-31T23:59:59.999999Z"),
                LocalDateTime.parse("2024-01-15T10:11:12.123456"), Arrays.asList(1, null, 3), new SparkTypesTest.Ab(1, "x"),
                Map.of("k1", 1.5), List.of(new SparkTypesTest.Inner(List.of("a", "b"))), "p1");
    }
}
