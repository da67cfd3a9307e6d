package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A write of no rows (docs/writing.md, "An input with no rows"): into a new unpartitioned table it leaves one file of no
 * rows that carries the input's columns, which wrangler and DuckDB read as an empty table; into a table that exists it
 * changes nothing; a WARN line says so and {@link WriteResult#emptyInput()} is true. A root filled with {@code setSafe}
 * whose {@code setRowCount} was never called is refused, not written as no rows.
 */
class EmptyInputTest {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("orderId", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("amountCents", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("dt", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final Logger log = Logger.getLogger("io.wrangler.commit");
    private final List<String> logged = Collections.synchronizedList(new ArrayList<>());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r.getLevel() + " " + r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        log.addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        log.removeHandler(handler);
    }

    private WriteResult writeEmpty(WriteMode mode, String... partitionBy) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            root.allocateNew();
            root.setRowCount(0);
            return S3Parquet.write(root).partitionBy(partitionBy).mode(mode).s3(TestLake.memory().client()).to(table);
        }
    }

    private List<String> warnings() {
        return logged.stream().filter(l -> l.startsWith(Level.WARNING + " ")).toList();
    }

    @Test
    void noRowsIntoANewTableLeaveAnEmptyTableWithTheInputsColumns() throws Exception {
        WriteResult r = writeEmpty(WriteMode.OVERWRITE_PARTITIONS);

        assertThat(r.emptyInput()).isTrue();
        assertThat(r.rows()).isZero();
        assertThat(r.paths()).hasSize(1);
        assertThat(r.deletedFiles()).isEmpty();
        assertThat(TestLake.keys(bucket, "t/")).containsExactly(r.paths().get(0).substring(("s3://" + bucket + "/").length()));
        assertThat(warnings()).containsExactly("WARNING Write to " + table + ": the input has no rows: the table did not exist, so it "
                + "was created with the input's columns and no rows (one file of no rows).");
        try (ArrowReader reader = S3Parquet.read(table).s3(TestLake.memory().client()).open()) {
            assertThat(reader.getVectorSchemaRoot().getSchema().getFields()).extracting(Field::getName, f -> f.getType().toString())
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("orderId", "Utf8"), org.assertj.core.groups.Tuple.tuple("amountCents",
                            "Int(64, true)"), org.assertj.core.groups.Tuple.tuple("dt", "Utf8"));
            long rows = 0;
            while (reader.loadNextBatch()) {
                rows += reader.getVectorSchemaRoot().getRowCount();
            }
            assertThat(rows).isZero();
        }
        assertThat(TestLake.query(bucket, "t/", "SELECT column_name, column_type FROM (DESCRIBE t)")).containsExactly(
                List.of("orderId", "VARCHAR"), List.of("amountCents", "BIGINT"), List.of("dt", "VARCHAR"));
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t")).containsExactly(List.of(0L));

        // rows appended later read beside the file of no rows
        S3Parquet.write(List.of(new Row("o1", 5, "2024-01-15"))).s3(TestLake.memory().client()).to(table);
        assertThat(TestLake.query(bucket, "t/", "SELECT \"orderId\", \"amountCents\", dt FROM t"))
                .containsExactly(List.of("o1", 5L, "2024-01-15"));
    }

    record Row(String orderId, long amountCents, String dt) {
    }

    @Test
    void noRowsIntoATableThatExistsChangeNothing() {
        S3Parquet.write(List.of(new Row("o1", 5, "2024-01-15"))).s3(TestLake.memory().client()).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");

        WriteResult r = writeEmpty(WriteMode.OVERWRITE_PARTITIONS);

        assertThat(r.emptyInput()).isTrue();
        assertThat(r.paths()).isEmpty();
        assertThat(r.deletedFiles()).isEmpty();
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(warnings()).containsExactly("WARNING Write to " + table + ": the input has no rows: the table exists, so nothing was "
                + "changed (no file written, no partition replaced).");
    }

    @Test
    void noRowsIntoANewPartitionedTableWithoutACatalogWriteNothingAndSayWhy() {
        WriteResult r = writeEmpty(WriteMode.APPEND, "dt");

        assertThat(r.emptyInput()).isTrue();
        assertThat(TestLake.keys(bucket, "")).isEmpty();
        assertThat(warnings()).containsExactly("WARNING Write to " + table + ": the input has no rows: nothing was written. A "
                + "partitioned or bucketed table keeps its columns in its partitions' files, so without rows and without a catalog "
                + "it has nowhere to keep them: its first write of rows creates it (or write with catalog(...), which registers it now).");
    }

    @Test
    void aRootFilledWithSetSafeWhoseRowCountWasNeverSetIsRefused() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            VarCharVector ids = (VarCharVector) root.getVector("orderId");
            BigIntVector amounts = (BigIntVector) root.getVector("amountCents");
            for (int i = 0; i < 3; i++) {
                ids.setSafe(i, ("o" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                amounts.setSafe(i, i);
            }
            assertThat(root.getRowCount()).isZero();
            assertThat(ids.getValueCount()).isZero();
            assertThatThrownBy(() -> S3Parquet.write(root).s3(TestLake.memory().client()).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): the batch's row count is 0 but its column 'orderId' has "
                            + "values set (with setSafe, which does not count them): call setRowCount(<rows>) on the VectorSchemaRoot "
                            + "after filling it, or reset() its vectors to send a batch of no rows. Nothing was written.");
        }
        assertThat(TestLake.keys(bucket, "")).isEmpty();
    }

    @Test
    void anEmptyCollectionOfRecordsSaysItHasNoSchema() {
        WriteResult r = S3Parquet.write(List.<Row>of()).s3(TestLake.memory().client()).to(table);
        assertThat(r.emptyInput()).isTrue();
        assertThat(TestLake.keys(bucket, "")).isEmpty();
        assertThat(warnings()).containsExactly("WARNING Write to " + table + ": the input has no rows and no schema (an empty "
                + "collection of records), so no table is created and nothing is changed.");
    }
}
