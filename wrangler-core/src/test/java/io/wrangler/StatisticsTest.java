package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnOrder;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;

/**
 * Column statistics every reader uses. The footer is read twice, by readers other than the writer: DuckDB's
 * {@code parquet_metadata()} for the min and max values, and the raw Thrift footer for the column orders, since an
 * order a reader does not know (parquet-java's default IEEE754TotalOrder for floating point) makes pyarrow, and Spark
 * and Trino on older parquet-java, ignore the min and max although DuckDB reads them.
 */
class StatisticsTest {
    record Inner(float x) {
    }

    record Row(byte by, short sh, int i, long l, float f, double d, boolean b, String s, byte[] bin,
               @Decimal(precision = 9, scale = 2) BigDecimal dec9, @Decimal(precision = 18, scale = 2) BigDecimal dec18, BigDecimal dec38,
               LocalDate date, Instant ts, List<Double> doubles, Inner inner) {
    }

    private static byte[] onlyFile(String bucket) {
        List<String> keys = TestLake.keys(bucket, "t/");
        assertThat(keys).hasSize(1);
        return TestLake.memory().get(bucket, keys.get(0));
    }

    private static FileMetaData footer(byte[] file) throws Exception {
        int length = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return Util.readFileMetaData(new ByteArrayInputStream(Arrays.copyOfRange(file, file.length - 8 - length, file.length - 8)));
    }

    @Test
    void everyColumnHasMinAndMaxInTheTypeDefinedOrderThatEveryReaderKnows() throws Exception {
        String bucket = TestLake.memoryBucket();
        S3Parquet.write(List.of(
                new Row((byte) -1, (short) 3, 1, -5L, 1.5f, 2.5, true, "b", new byte[] {1}, new BigDecimal("1.25"), new BigDecimal("100.00"),
                        new BigDecimal("1.25"), LocalDate.of(2024, 1, 1), Instant.parse("2024-01-01T00:00:00Z"), List.of(1.0, -2.0), new Inner(0.5f)),
                new Row((byte) 4, (short) -3, 7, 9L, -3.5f, -1.5, false, "a", new byte[] {2, 3}, new BigDecimal("-7.50"), new BigDecimal("-1.00"),
                        new BigDecimal("-7.50"), LocalDate.of(2024, 2, 1), Instant.parse("2024-02-01T00:00:00Z"), List.of(8.0), new Inner(-0.25f)),
                // NaN is counted, never a min or a max
                new Row((byte) 0, (short) 0, 2, 0L, Float.NaN, Double.NaN, true, "ab", new byte[] {1, 0}, BigDecimal.ZERO.setScale(2),
                        BigDecimal.ZERO.setScale(2), BigDecimal.ZERO.setScale(2), LocalDate.of(2024, 1, 15), Instant.parse("2024-01-15T00:00:00Z"),
                        List.of(Double.NaN), new Inner(Float.NaN))))
                .s3(TestLake.memory().client()).to("s3://" + bucket + "/t/");
        byte[] file = onlyFile(bucket);

        FileMetaData footer = footer(file);
        assertThat(footer.getColumn_orders()).hasSize(16).allSatisfy(o -> assertThat(o.isSetTYPE_ORDER())
                .as("column order %s", o).isTrue());
        for (ColumnChunk c : footer.getRow_groups().get(0).getColumns()) {
            Statistics st = c.getMeta_data().getStatistics();
            assertThat(st.isSetMin_value() && st.isSetMax_value()).as("min_value and max_value of %s", c.getMeta_data().getPath_in_schema())
                    .isTrue();
        }

        Map<String, List<Object>> expected = new LinkedHashMap<>();
        expected.put("by", List.of("-1", "4"));
        expected.put("sh", List.of("-3", "3"));
        expected.put("i", List.of("1", "7"));
        expected.put("l", List.of("-5", "9"));
        expected.put("f", List.of("-3.5", "1.5"));
        expected.put("d", List.of("-1.5", "2.5"));
        expected.put("b", List.of("false", "true"));
        expected.put("s", List.of("a", "b"));
        expected.put("bin", List.of("\\x01", "\\x02\\x03"));
        expected.put("dec9", List.of("-7.50", "1.25"));
        expected.put("dec18", List.of("-1.00", "100.00"));
        expected.put("dec38", List.of("-7.50", "1.25"));
        expected.put("date", List.of("2024-01-01", "2024-02-01"));
        expected.put("ts", List.of("2024-01-01 00:00:00+00", "2024-02-01 00:00:00+00"));
        expected.put("doubles, list, element", List.of("-2.0", "8.0"));
        expected.put("inner, x", List.of("-0.25", "0.5"));
        Map<String, List<Object>> read = new LinkedHashMap<>();
        for (List<Object> r : TestLake.queryFile(file, "SELECT path_in_schema, stats_min_value, stats_max_value FROM parquet_metadata($file) ORDER BY column_id")) {
            read.put((String) r.get(0), List.of(r.get(1), r.get(2)));
        }
        assertThat(read).containsExactlyEntriesOf(expected);
    }
}
