package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DtypeTest {
    record Inner(float x) {
    }

    record Row(String k, int n, float f, List<Inner> items) {
    }

    private final String bucket = TestLake.bucket();
    private final String table = "s3://" + bucket + "/t/";
    private final List<Row> rows = List.of(new Row("a", Integer.MIN_VALUE, 0.1f, List.of(new Inner(1.5f))), new Row("b", 3, -2f, List.of()));

    @Test
    void dtypeWidensTheNamedColumnsAtEveryDepth() {
        S3Parquet.write(rows).dtype(Map.of("n", "bigint", "f", "double", "items", "array<struct<x:double>>")).s3(TestLake.s3().client()).to(table);

        assertThat(TestLake.query(bucket, "t/", "SELECT typeof(k), typeof(n), typeof(f), typeof(items) FROM t LIMIT 1"))
                .containsExactly(List.of("VARCHAR", "BIGINT", "DOUBLE", "STRUCT(x DOUBLE)[]"));
        // float to double keeps the float's exact value (0.1f is 0.100000001490116...)
        assertThat(TestLake.query(bucket, "t/", "SELECT k, n, f, CAST(items AS VARCHAR) FROM t ORDER BY k")).containsExactly(
                List.of("a", (long) Integer.MIN_VALUE, (double) 0.1f, "[{'x': 1.5}]"), List.of("b", 3L, -2.0, "[]"));
    }

    @Test
    void aDtypeOfAColumnTheWriteDoesNotHaveIsRefusedBeforeAnyObjectIsWritten() {
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("nn", "bigint")).s3(TestLake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): dtype names the column 'nn', which this write does not have; its "
                        + "columns are [k, n, f, items]. Name the input's columns (or their names in the catalog) in dtype; nothing was "
                        + "written.");
        assertThat(TestLake.keys(bucket, "")).isEmpty();
    }

    @Test
    void aNarrowingOrALossyDtypeIsRefusedBeforeAnyObjectIsWritten() {
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("n", "smallint")).s3(TestLake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'n' as smallint, but 'n' is int in this "
                        + "write, which does not widen to smallint without losing values. Only widenings are applied (a narrower integer "
                        + "to a wider one, float to double, a decimal to a wider one of the same scale): cast the column before writing.");
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("items", "array<struct<x:int>>")).s3(TestLake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): dtype asks for the column 'items' as array<struct<x:int>>, but "
                        + "'items.element.x' is float in this write, which does not widen to int without losing values. Only widenings are "
                        + "applied (a narrower integer to a wider one, float to double, a decimal to a wider one of the same scale): cast "
                        + "the column before writing.");
        assertThat(TestLake.keys(bucket, "")).isEmpty();
    }

    @Test
    void aTypeStringThatIsNotAHiveTypeIsRefused() {
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("k", "varchar(3)")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dtype of 'k': 'varchar(3)' is not a Hive type wrangler writes ('varchar' is unknown; char and varchar are not "
                        + "written, use string)");
        assertThatThrownBy(() -> S3Parquet.write(rows).dtype(Map.of("n", "array<int")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dtype of 'n': 'array<int' is not a Hive type ('>' expected at position 9)");
    }
}
