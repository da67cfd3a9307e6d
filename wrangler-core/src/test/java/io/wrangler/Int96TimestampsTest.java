package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class Int96TimestampsTest {
    record Flat(long id, Instant ts, LocalDateTime local) {
    }

    record Inner(Instant at) {
    }

    record Nested(long id, List<Instant> history, Inner meta) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    /** Edge values and how DuckDB prints them back. */
    private static final List<String> VALUES = List.of("0001-01-01T00:00:00Z", "1582-10-04T23:59:59.999999Z", "1899-12-31T23:59:59.000001Z",
            "1969-12-31T23:59:59.999999Z", "1970-01-01T00:00:00Z", "2024-02-29T12:34:56.789012Z", "9999-12-31T23:59:59.999999Z");
    private static final List<String> PRINTED = List.of("0001-01-01 00:00:00", "1582-10-04 23:59:59.999999", "1899-12-31 23:59:59.000001",
            "1969-12-31 23:59:59.999999", "1970-01-01 00:00:00", "2024-02-29 12:34:56.789012", "9999-12-31 23:59:59.999999");

    private byte[] onlyFile() {
        Map<String, byte[]> files = TestLake.snapshot(bucket, "t/");
        assertThat(files).hasSize(1);
        return files.values().iterator().next();
    }

    @Test
    void flatTimestampsAreInt96AndReadBackExactly() {
        List<Flat> rows = new ArrayList<>();
        for (int i = 0; i < VALUES.size(); i++) {
            Instant t = Instant.parse(VALUES.get(i));
            rows.add(new Flat(i, t, LocalDateTime.ofInstant(t, java.time.ZoneOffset.UTC)));
        }
        rows.add(new Flat(99, null, null));
        S3Parquet.write(rows).timestampsAsInt96(true).s3(TestLake.memory().client()).to(table);

        byte[] file = onlyFile();
        assertThat(TestLake.queryFile(file, "SELECT name, type, logical_type FROM parquet_schema($file) WHERE name IN ('ts', 'local') ORDER BY name"))
                .containsExactly(java.util.Arrays.asList("local", "INT96", null), java.util.Arrays.asList("ts", "INT96", null));
        List<List<Object>> back = TestLake.queryFile(file, "SELECT id, CAST(ts AS VARCHAR), CAST(local AS VARCHAR) FROM $file ORDER BY id");
        List<List<Object>> expected = new ArrayList<>();
        for (int i = 0; i < PRINTED.size(); i++) {
            expected.add(List.of((long) i, PRINTED.get(i), PRINTED.get(i)));
        }
        expected.add(java.util.Arrays.asList(99L, null, null));
        assertThat(back).isEqualTo(expected);
    }

    @Test
    void nestedTimestampsAreInt96Too() {
        List<Instant> all = VALUES.stream().map(Instant::parse).toList();
        S3Parquet.write(List.of(new Nested(1, all, new Inner(all.get(0))), new Nested(2, List.of(), new Inner(all.get(6)))))
                .timestampsAsInt96(true).s3(TestLake.memory().client()).to(table);

        byte[] file = onlyFile();
        assertThat(TestLake.queryFile(file, "SELECT name, type FROM parquet_schema($file) WHERE name IN ('element', 'at') ORDER BY name"))
                .containsExactly(List.of("at", "INT96"), List.of("element", "INT96"));
        assertThat(TestLake.queryFile(file, "SELECT id, CAST(history AS VARCHAR), CAST(meta.at AS VARCHAR) FROM $file ORDER BY id"))
                .containsExactly(List.of(1L, "['" + String.join("', '", PRINTED) + "']", PRINTED.get(0)), List.of(2L, "[]", PRINTED.get(6)));
    }

    @Test
    void nanosecondsKeepEveryDigit() {
        // Long.MIN_VALUE and MAX_VALUE nanoseconds are 1677-09-21 00:12:43.145224192 and 2262-04-11 23:47:16.854775807.
        long[] nanos = {Long.MIN_VALUE, -1, 0, 1, 1_705_314_600_123_456_789L, Long.MAX_VALUE};
        Schema schema = new Schema(List.of(new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)), null)));
        try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            root.allocateNew();
            for (int i = 0; i < nanos.length; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                ((TimeStampNanoVector) root.getVector("ts")).setSafe(i, nanos[i]);
            }
            root.setRowCount(nanos.length);
            // Without preserveNanoseconds: INT96 holds nanoseconds, so the digits below the microsecond are not refused.
            S3Parquet.write(root).timestampsAsInt96(true).s3(TestLake.memory().client()).to(table);
        }
        // DuckDB reads INT96 to the microsecond (it truncates the nanoseconds), so it checks the day and the microseconds;
        // the nanoseconds themselves are checked byte by byte in encoding.Int96Test.
        byte[] file = onlyFile();
        assertThat(TestLake.queryFile(file, "SELECT type FROM parquet_schema($file) WHERE name = 'ts'")).containsExactly(List.of("INT96"));
        assertThat(TestLake.queryFile(file, "SELECT CAST(ts AS VARCHAR) FROM $file ORDER BY id")).containsExactly(
                List.of("1677-09-21 00:12:43.145224"), List.of("1969-12-31 23:59:59.999999"), List.of("1970-01-01 00:00:00"),
                List.of("1970-01-01 00:00:00"), List.of("2024-01-15 10:30:00.123456"), List.of("2262-04-11 23:47:16.854775"));
    }
}
