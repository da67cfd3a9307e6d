package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Issue 31 item 6: the names of the fields inside lists and maps, and their nullability, do not make two files of one
 * table incompatible. Records with a list, a map and a struct appended twice into one partition (and an Arrow write of
 * the same shape, its inner fields named and nulled as Arrow Java names them) are read and compacted; DuckDB checks the
 * values before and after.
 */
class NestedColumnsCompactionTest {
    record Point(Integer x, String label) {
    }

    record Item(long id, List<String> tags, Map<String, Integer> counts, Point point, String day) {
    }

    private static final List<List<Object>> EXPECTED = List.of(
            List.of(1L, "[x, y]", "{a=1, b=NULL}", "{'x': 1, 'label': p}"),
            Arrays.asList(2L, null, "{}", null),
            List.of(3L, "[]", "{c=3}", "{'x': NULL, 'label': q}"),
            List.of(4L, "[z]", "{d=4}", "{'x': 4, 'label': r}"));

    private static List<List<Object>> contents(String bucket) {
        return TestLake.query(bucket, "t/", "SELECT id, CAST(tags AS VARCHAR), CAST(counts AS VARCHAR), CAST(point AS VARCHAR) "
                + "FROM t ORDER BY id");
    }

    private static void appendRecords(String table) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts.put("a", 1);
        counts.put("b", null);
        S3Parquet.write(List.of(new Item(1, List.of("x", "y"), counts, new Point(1, "p"), "d1"), new Item(2, null, Map.of(), null, "d1")))
                .partitionBy("day").s3(TestLake.memory().client()).to(table);
        S3Parquet.write(List.of(new Item(3, List.of(), Map.of("c", 3), new Point(null, "q"), "d1")))
                .partitionBy("day").s3(TestLake.memory().client()).to(table);
    }

    /** An Arrow write of the records' shape, inner fields named as Arrow Java names them and not nullable. */
    private static void appendArrow(String table) {
        Field tags = new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(new Field("$data$", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null)));
        Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
                new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                new Field("value", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
        Field counts = new Field("counts", FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
        Field point = new Field("point", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("label", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null), tags, counts, point,
                new Field("day", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            ArrowValues.fill(root, List.of(List.of(4L, List.of("z"), List.of(List.of("d", 4L)), List.of(4L, "r"), "d1")));
            S3Parquet.write(root).partitionBy("day").s3(TestLake.memory().client()).to(table);
        }
    }

    /** The rows wrangler reads, each as its rendered values, sorted (the files' order is the listing's). */
    private static List<String> readByWrangler(String table) throws Exception {
        try (ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).columns("id", "tags", "counts", "point").open()) {
            Map<String, List<String>> columns = ReadTest.readAll(r);
            List<String> rows = new java.util.ArrayList<>();
            for (int i = 0; i < columns.get("id").size(); i++) {
                rows.add(columns.get("id").get(i) + " " + columns.get("tags").get(i) + " " + columns.get("counts").get(i) + " "
                        + columns.get("point").get(i));
            }
            rows.sort(null);
            return rows;
        }
    }

    @Test
    void twoRecordAppendsWithAListAMapAndAStructAreCompactedAndReadBack() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        appendRecords(table);
        assertThat(contents(bucket)).isEqualTo(EXPECTED.subList(0, 3));
        List<String> before = readByWrangler(table);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).run();

        assertThat(r.filesBefore()).isEqualTo(2);
        assertThat(r.filesAfter()).isEqualTo(1);
        assertThat(r.rowsWritten()).isEqualTo(3);
        assertThat(contents(bucket)).isEqualTo(EXPECTED.subList(0, 3));
        assertThat(readByWrangler(table)).isEqualTo(before);
    }

    @Test
    void recordsAndAnArrowWriteOfTheSameShapeAreOneTableForReadsAndCompaction() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        appendRecords(table);
        appendArrow(table);
        assertThat(contents(bucket)).isEqualTo(EXPECTED);
        List<String> before = readByWrangler(table);
        assertThat(before).hasSize(4);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).run();

        assertThat(r.filesBefore()).isEqualTo(3);
        assertThat(r.filesAfter()).isEqualTo(1);
        assertThat(contents(bucket)).isEqualTo(EXPECTED);
        assertThat(readByWrangler(table)).isEqualTo(before);
        // what wrangler writes is Parquet's canonical LIST and MAP forms, whichever path wrote the rows
        String file = TestLake.keys(bucket, "t/day=d1/").get(0);
        byte[] bytes = TestLake.memory().client().getObjectAsBytes(b -> b.bucket(bucket).key(file)).asByteArray();
        assertThat(TestLake.queryFile(bytes, "SELECT name FROM parquet_schema($file) ORDER BY ALL"))
                .flatExtracting(row -> row).contains("list", "element", "key_value", "key", "value");
    }
}
