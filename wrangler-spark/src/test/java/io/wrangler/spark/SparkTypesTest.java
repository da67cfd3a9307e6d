package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Decimal;
import io.wrangler.S3Parquet;
import io.wrangler.testkit.DuckReader;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every Spark SQL type wrangler writes round-trips with exact values (read back with DuckDB and with Spark), and gets
 * the Parquet types a single-process write of the same values gets.
 */
class SparkTypesTest {
    private static final String VALUES = "SELECT CAST(1 AS TINYINT) AS b, CAST(-2 AS SMALLINT) AS s, 3 AS i, 4000000000L AS l, "
            + "CAST(1.5 AS FLOAT) AS f, CAST(2.25 AS DOUBLE) AS d, true AS bo, CAST('123.45' AS DECIMAL(9,2)) AS d9, "
            + "CAST('-12345678901234.5678' AS DECIMAL(18,4)) AS d18, CAST('1234567890123456789012345678.0123456789' AS DECIMAL(38,10)) AS d38, "
            + "'héllo ✓' AS str, X'00FF10' AS bin, DATE'1900-03-01' AS dt, TIMESTAMP'1969-12-31 23:59:59.999999' AS ts, "
            + "TIMESTAMP_NTZ'2024-01-15 10:11:12.123456' AS ntz, array(1, NULL, 3) AS arr, named_struct('a', 1, 'b', 'x') AS st, "
            + "map('k1', CAST(1.5 AS DOUBLE), 'k2', CAST(NULL AS DOUBLE)) AS m, array(named_struct('x', array('a', 'b'))) AS nested, 'p1' AS part "
            + "UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            + "NULL, 'p1'";

    private static final String READ = "SELECT b, s, i, l, f, d, bo, CAST(d9 AS VARCHAR), CAST(d18 AS VARCHAR), CAST(d38 AS VARCHAR), str, "
            + "hex(bin), CAST(dt AS VARCHAR), epoch_us(ts), CAST(ntz AS VARCHAR), CAST(arr AS VARCHAR), CAST(st AS VARCHAR), "
            + "CAST(m AS VARCHAR), CAST(nested AS VARCHAR), CAST(part AS VARCHAR) FROM t ORDER BY b NULLS LAST";

    @Test
    void everyTypeRoundTripsWithExactValues() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/types/";
        SparkParquet.write(SparkLake.spark().sql(VALUES).coalesce(1)).partitionBy("part").s3(SparkLake.settings()).to(uri);
        List<List<Object>> rows = SparkLake.query(bucket, "types/", READ);
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).containsExactly((byte) 1, (short) -2, 3, 4000000000L, 1.5f, 2.25d, true, "123.45", "-12345678901234.5678",
                "1234567890123456789012345678.0123456789", "héllo ✓", "00FF10", "1900-03-01", -1L, "2024-01-15 10:11:12.123456",
                "[1, NULL, 3]", "{'a': 1, 'b': x}", "{k1=1.5, k2=NULL}", "[{'x': [a, b]}]", "p1");
        assertThat(rows.get(1)).containsExactly(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, "p1");
        assertThat(SparkLake.query(bucket, "types/", "SELECT typeof(ts), typeof(ntz), typeof(d9), typeof(d18), typeof(d38), typeof(dt), "
                + "typeof(m), typeof(nested) FROM t LIMIT 1")).containsExactly(List.of("TIMESTAMP WITH TIME ZONE", "TIMESTAMP",
                "DECIMAL(9,2)", "DECIMAL(18,4)", "DECIMAL(38,10)", "DATE", "MAP(VARCHAR, DOUBLE)", "STRUCT(x VARCHAR[])[]"));

        // Spark reads the same values back
        List<org.apache.spark.sql.Row> back = SparkLake.sparkRead(bucket, "types/").orderBy(org.apache.spark.sql.functions.col("b").asc_nulls_last())
                .selectExpr("b", "s", "i", "l", "f", "d", "bo", "CAST(d9 AS STRING)", "CAST(d18 AS STRING)", "CAST(d38 AS STRING)", "str",
                        "hex(bin)", "CAST(dt AS STRING)", "unix_micros(ts)", "CAST(ntz AS STRING)", "to_json(arr)", "to_json(st)", "to_json(m)",
                        "to_json(nested)")
                .collectAsList();
        assertThat(back.get(0).toSeq().mkString("|")).isEqualTo("1|-2|3|4000000000|1.5|2.25|true|123.45|-12345678901234.5678|"
                + "1234567890123456789012345678.0123456789|héllo ✓|00FF10|1900-03-01|-1|2024-01-15 10:11:12.123456|[1,null,3]|"
                + "{\"a\":1,\"b\":\"x\"}|{\"k1\":1.5,\"k2\":null}|[{\"x\":[\"a\",\"b\"]}]");
        assertThat(back.get(1).toSeq().mkString("|")).isEqualTo("null|null|null|null|null|null|null|null|null|null|null|null|null|null|null|"
                + "null|null|null|null");
    }

    /** The single-process write's input: the same values as Java records. */
    record Inner(List<String> x) {
    }

    record Ab(Integer a, String b) {
    }

    record Every(Byte b, Short s, Integer i, Long l, Float f, Double d, Boolean bo, @Decimal(precision = 9, scale = 2) BigDecimal d9,
                 @Decimal(precision = 18, scale = 4) BigDecimal d18, @Decimal(precision = 38, scale = 10) BigDecimal d38, String str,
                 byte[] bin, LocalDate dt, Instant ts, LocalDateTime ntz, List<Integer> arr, Ab st, Map<String, Double> m,
                 List<Inner> nested, String part) {
    }

    @Test
    void parquetTypesEqualThoseOfASingleProcessWriteOfTheSameValues() {
        String bucket = SparkLake.bucket();
        SparkParquet.write(SparkLake.spark().sql(VALUES).coalesce(1)).partitionBy("part").s3(SparkLake.settings())
                .to("s3://" + bucket + "/spark/");
        S3Parquet.write(List.of(new Every((byte) 1, (short) -2, 3, 4000000000L, 1.5f, 2.25d, true, new BigDecimal("123.45"),
                new BigDecimal("-12345678901234.5678"), new BigDecimal("1234567890123456789012345678.0123456789"), "héllo ✓",
                new byte[] {0, -1, 16}, LocalDate.of(1900, 3, 1), Instant.parse("1969-12-31T23:59:59.999999Z"),
                LocalDateTime.parse("2024-01-15T10:11:12.123456"), Arrays.asList(1, null, 3), new Ab(1, "x"), Map.of("k1", 1.5),
                List.of(new Inner(List.of("a", "b"))), "p1"))).partitionBy("part").s3(SparkLake.s3().client()).to("s3://" + bucket + "/jvm/");
        List<String> spark = schema(bucket, "spark/");
        assertThat(spark).hasSize(32).contains("[ts, INT64, null, OPTIONAL, null, TimestampType(isAdjustedToUTC=1, unit=TimeUnit(MILLIS=<null>, MICROS=MicroSeconds(), NANOS=<null>)), null, null]");
        assertThat(spark).isEqualTo(schema(bucket, "jvm/"));
    }

    /** The Parquet schema of the table's one file: name, physical type, length, repetition, children, logical type, scale, precision. */
    private static List<String> schema(String bucket, String prefix) {
        List<String> keys = SparkLake.keys(bucket, prefix);
        keys.removeIf(k -> !k.endsWith(".parquet"));
        assertThat(keys).hasSize(1);
        List<String> out = new ArrayList<>();
        for (List<Object> r : DuckReader.queryFile(SparkLake.s3().get(bucket, keys.get(0)), "SELECT name, type, type_length, "
                + "repetition_type, num_children, CAST(logical_type AS VARCHAR), scale, precision FROM parquet_schema($file)")) {
            out.add(r.toString());
        }
        return out;
    }
}
