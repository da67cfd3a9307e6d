package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad input is refused with a specific message before any object is written or deleted. */
class BadInputTest {
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/marts/orders/";
    private Map<String, byte[]> before;

    record Row(String dt, String country, long n) {
    }

    @BeforeEach
    void existingTable() {
        S3Parquet.write(List.of(new Row("2024-01-15", "RU", 1))).partitionBy("dt").s3(TestLake.memory().client()).to(table);
        TestLake.memory().put(bucket, "marts/orders_backup/sentinel", new byte[] {7});
        TestLake.memory().put(bucket, "sentinel-at-root", new byte[] {8});
        before = TestLake.snapshot(bucket, "");
    }

    private void refused(WriteBuilder write, String uri, String message) {
        assertThatThrownBy(() -> write.s3(TestLake.memory().client()).to(uri))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(message);
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(TestLake.memory().openMultipartUploads(bucket, "")).isEmpty();
    }

    private void refused(List<Row> rows, Consumer<WriteBuilder> options, String message) {
        WriteBuilder w = S3Parquet.write(rows);
        options.accept(w);
        refused(w, table, message);
    }

    private static List<Row> rows() {
        return List.of(new Row("2024-01-16", "RU", 1), new Row("2024-01-16", "DE", 2));
    }

    @Test
    void aUriThatIsNotS3IsRefused() {
        refused(S3Parquet.write(rows()), "https://" + bucket + "/x/",
                "Cannot write https://" + bucket + "/x/: the scheme is not s3:// or s3a://. Pass the table root as s3://bucket/prefix/.");
        refused(S3Parquet.write(rows()), "s3://Bad_Bucket/x/",
                "Cannot write s3://Bad_Bucket/x/: 'Bad_Bucket' is not a valid bucket name (3 to 63 characters of a-z, 0-9, '.' and '-'). Check the URI.");
        refused(S3Parquet.write(rows()), "s3://" + bucket + "/a//b/",
                "Cannot write s3://" + bucket + "/a//b/: the prefix has an empty path segment ('//'). Remove the extra slash.");
    }

    @Test
    void aMissingBucketIsRefused() {
        refused(S3Parquet.write(rows()), "s3://no-such-bucket-here/t/",
                "Cannot write s3://no-such-bucket-here/t/ (step: validate): the bucket 'no-such-bucket-here' does not exist. Create it, or fix the URI.");
    }

    @Test
    void partitionColumnsMustExistAndBePartitionable() {
        refused(rows(), w -> w.partitionBy("day"), "Cannot write " + table + " (step: validate): the partition column 'day' is not in the input, "
                + "whose columns are [dt, country, n]. Pass columns of the input to partitionBy(...).");
        refused(rows(), w -> w.partitionBy("dt", "country", "n"), "Cannot write " + table + " (step: validate): every column is a partition "
                + "column, so the files would have no columns. Keep at least one column out of partitionBy(...).");
        record Measure(double value, String name) {
        }
        refused(S3Parquet.write(List.of(new Measure(1.5, "x"))).partitionBy("value"), table, "Cannot write " + table
                + " (step: validate): the partition column 'value' has the type FloatingPoint(DOUBLE), which cannot be a Hive partition value. "
                + "Partition by a string, integer, boolean, date, timestamp or decimal column.");
    }

    @Test
    void overwriteOfABucketRootIsRefused() {
        refused(S3Parquet.write(rows()).mode(WriteMode.OVERWRITE), "s3://" + bucket,
                "Cannot write s3://" + bucket + "/ (step: validate): OVERWRITE at the root of a bucket could delete objects of the "
                        + "whole bucket; wrangler never deletes at a bucket root. Write the table under a prefix, s3://" + bucket + "/<table>/.");
    }

    @Test
    void overwritePartitionsOfABucketRootIsRefusedPartitionedOrNot() {
        refused(S3Parquet.write(rows()).mode(WriteMode.OVERWRITE_PARTITIONS), "s3://" + bucket,
                "Cannot write s3://" + bucket + "/ (step: validate): OVERWRITE_PARTITIONS at the root of a bucket could delete objects "
                        + "of the whole bucket (without partition columns it replaces the whole table, which is the bucket); wrangler "
                        + "never deletes at a bucket root. Write the table under a prefix, s3://" + bucket + "/<table>/.");
        refused(S3Parquet.write(rows()).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS), "s3://" + bucket,
                "Cannot write s3://" + bucket + "/ (step: validate): OVERWRITE_PARTITIONS at the root of a bucket could delete objects "
                        + "of the whole bucket; wrangler never deletes at a bucket root. Write the table under a prefix, s3://" + bucket + "/<table>/.");
    }

    @Test
    void overwriteWithNoRowsIsRefused() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("dt", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null))), a)) {
            root.setRowCount(0);
            String message = "Cannot write " + table + " (step: validate): the input has no rows, and OVERWRITE with no rows would delete the "
                    + "whole table. If the table should really be emptied, delete its objects explicitly; otherwise check the job's input.";
            refused(S3Parquet.write(root).partitionBy("dt").mode(WriteMode.OVERWRITE), table, message);
            refused(S3Parquet.write(List.<Row>of()).mode(WriteMode.OVERWRITE), table, message);
        }
    }

    @Test
    void columnsThatCollideCaseInsensitivelyAreRefused() {
        record Cased(String id, String ID) {
        }
        refused(S3Parquet.write(List.of(new Cased("a", "b"))), table, "Cannot write " + table + " (step: validate): the input has the "
                + "columns 'id' and 'ID', which Hive, Athena and Glue cannot tell apart (names are case-insensitive). Rename one of them.");
    }

    @Test
    void typesWithoutAFaithfulMappingAreRefused() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("half", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)), null))), a)) {
            root.setRowCount(0);
            refused(S3Parquet.write(root), table, "Cannot write " + table + " (step: validate): column 'half' has the Arrow type float16, "
                    + "which has no faithful Parquet mapping that Athena, Spark and DuckDB read back: cast it to float32 (FloatingPoint SINGLE). "
                    + "Nothing was written.");
        }
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("nothing", FieldType.nullable(ArrowType.Null.INSTANCE), null))), a)) {
            root.setRowCount(1);
            refused(S3Parquet.write(root), table, "Cannot write " + table + " (step: validate): column 'nothing' has the Arrow type null "
                    + "(a column with no type), which has no faithful Parquet mapping that Athena, Spark and DuckDB read back: give the column a "
                    + "type, for example a nullable Utf8 or Int, so that the catalog and readers know what it holds. Nothing was written.");
        }
        record WithChar(char c) {
        }
        refused(S3Parquet.write(List.of(new WithChar('x'))), table, "Cannot write " + table + " (step: validate): component 'c' has the type "
                + "char, which wrangler does not map to a column: use String, a primitive or its box, BigDecimal, LocalDate, Instant, "
                + "LocalDateTime, byte[], UUID, an enum, List, Map or a record. Nothing was written.");
    }

    @Test
    void partitionValuesThatLookLikePathTraversalAreRefused() {
        for (String bad : List.of("..", "../x", "a/../b", ".")) {
            refused(List.of(new Row("2024-01-16", "RU", 1), new Row(bad, "RU", 2)), w -> w.partitionBy("dt"),
                    "Cannot write " + table + " (step: validate): the value '" + bad + "' of partition column 'dt' cannot name a folder: "
                            + "it contains the path segment '" + (bad.equals(".") ? "." : "..") + "', which tools that unescape partition "
                            + "paths read as a directory traversal. Clean the column before writing; nothing of the table was changed.");
        }
    }

    @Test
    void partitionValuesThatMakeKeysLongerThanS3AllowsAreRefused() {
        String longValue = "x".repeat(1000);
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Row(longValue, "RU", 1))).partitionBy("dt").s3(TestLake.memory().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageStartingWith("Cannot write " + table + " (step: validate): the partition dt=" + longValue + "/ makes S3 keys of ")
                .hasMessageEndingWith(" bytes, over S3's limit of 1024. Shorten the partition values or the table prefix; nothing of the table was changed.");
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void aPartitionColumnThatIsNullInEveryRowIsRefused() {
        refused(List.of(new Row("2024-01-16", null, 1), new Row("2024-01-16", "", 2)), w -> w.partitionBy("dt", "country"),
                "Cannot write " + table + " (step: validate): the partition column 'country' is null or empty in every row, which would put all "
                        + "rows in __HIVE_DEFAULT_PARTITION__. Fill the column, or partition by another column.");
    }

    @Test
    void nanosecondsThatMicrosecondsCannotHoldAreRefusedUnlessKept() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)), null))), a)) {
            root.allocateNew();
            ((TimeStampNanoVector) root.getVector("ts")).setSafe(0, 1_000L);
            ((TimeStampNanoVector) root.getVector("ts")).setSafe(1, 1_001L);
            root.setRowCount(2);
            refused(S3Parquet.write(root), table, "Cannot write " + table + " (step: validate): column 'ts' holds the nanosecond timestamp 1001 "
                    + "at row 1: a microsecond timestamp cannot hold it without losing digits; truncate the column to microseconds, or call "
                    + "preserveNanoseconds(true) (Spark and Athena cannot read nanosecond Parquet timestamps). Nothing was written.");

            WriteResult kept = S3Parquet.write(root).preserveNanoseconds(true).s3(TestLake.memory().client()).to("s3://" + bucket + "/nanos/");
            assertThat(kept.rows()).isEqualTo(2);
            assertThat(TestLake.query(bucket, "nanos/", "SELECT typeof(ts), CAST(epoch_ns(ts) AS BIGINT) FROM t ORDER BY 2"))
                    .containsExactly(List.of("TIMESTAMP_NS", 1000L), List.of("TIMESTAMP_NS", 1001L));
        }
    }

    @Test
    void aBadValueInALaterBatchOfAStreamLeavesTheTableUnchanged() throws Exception {
        Schema schema = new Schema(List.of(new Field("dt", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null)));
        ByteArrayOutputStream ipc = new ByteArrayOutputStream();
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, ipc)) {
            w.start();
            for (List<String> batch : List.of(Arrays.asList("2024-01-16", "2024-01-17"), Arrays.asList("2024-01-18", ".."))) {
                root.allocateNew();
                for (int i = 0; i < batch.size(); i++) {
                    ((VarCharVector) root.getVector("dt")).setSafe(i, batch.get(i).getBytes(StandardCharsets.UTF_8));
                    ((IntVector) root.getVector("n")).setSafe(i, i);
                }
                root.setRowCount(batch.size());
                w.writeBatch();
            }
            w.end();
        }
        try (BufferAllocator a = new RootAllocator();
             ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), a)) {
            refused(S3Parquet.write(reader).partitionBy("dt").maxRowsPerFile(1).mode(WriteMode.OVERWRITE_PARTITIONS), table,
                    "Cannot write " + table + " (step: validate): the value '..' of partition column 'dt' cannot name a folder: it contains the "
                            + "path segment '..', which tools that unescape partition paths read as a directory traversal. Clean the column "
                            + "before writing; nothing of the table was changed.");
        }
    }

    @Test
    void anEmptyCollectionOfRecordsIsANoOpForAppend() {
        WriteResult r = S3Parquet.write(List.<Row>of()).partitionBy("dt").s3(TestLake.memory().client()).to(table);
        assertThat(r.rows()).isZero();
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
    }
}
