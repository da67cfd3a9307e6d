package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.spi.DistributedRead;
import io.wrangler.spi.DistributedWrite;
import io.wrangler.spi.ReadTarget;
import io.wrangler.spi.StagedFiles;
import io.wrangler.spi.TableSnapshot;
import io.wrangler.spi.TaskBatches;
import io.wrangler.spi.WriteTarget;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/**
 * The engine SPI's read (what wrangler-spark's driver and tasks run): the driver's one listing and schema, each task
 * reading exactly its files with that schema; here with the "tasks" in this JVM, on MemoryS3.
 */
class DistributedReadTest {
    record Old(long id, String country) {
    }

    record Evolved(long id, String note, String country) {
    }

    private static ReadTarget target(String uri) {
        return ReadTarget.of(uri, TestLake.memory().client());
    }

    /** Every row of {@code part} as "column=value,..." lines. */
    private static List<String> rows(String uri, TableSnapshot part, List<String> columns, RowFilter where) throws IOException {
        List<String> out = new ArrayList<>();
        try (BufferAllocator a = new RootAllocator(); ArrowReader r = DistributedRead.read(target(uri), part, columns, where, a, 2)) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    List<String> cells = new ArrayList<>();
                    for (FieldVector v : b.getFieldVectors()) {
                        cells.add(v.getName() + "=" + v.getObject(i));
                    }
                    out.add(String.join(",", cells));
                }
            }
        }
        return out;
    }

    @Test
    void eachTaskReadsExactlyItsFilesWithTheWholeTablesSchema() throws IOException {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Old(1, "RU"), new Old(2, "DE"))).partitionBy("country").s3(TestLake.memory().client()).to(uri);
        S3Parquet.write(List.of(new Evolved(3, "late", "RU"))).partitionBy("country").mode(WriteMode.APPEND)
                .s3(TestLake.memory().client()).to(uri);
        TableSnapshot all = DistributedRead.plan(target(uri), true);
        assertThat(all.schema().getFields()).extracting(f -> f.getName() + " " + f.getType())
                .containsExactly("id Int(64, true)", "note Utf8", "country Utf8");
        assertThat(all.files()).hasSize(3);
        List<String> byTask = new ArrayList<>();
        for (TableSnapshot.File f : all.files()) {
            // a task of one file: an old file has no note, and reads it as nulls of the table's schema
            byTask.addAll(rows(uri, all.with(all.schema(), List.of(f)), null, null));
        }
        byTask.sort(null);
        assertThat(byTask).containsExactly("id=1,note=null,country=RU", "id=2,note=null,country=DE", "id=3,note=late,country=RU");
        assertThat(S3Parquet.read(uri).s3(TestLake.memory().client()).count()).isEqualTo(3);
        // the selected columns, and only the rows the row filter keeps
        assertThat(rows(uri, all, List.of("country", "id"), RowFilter.gt("id", 1L))).containsExactlyInAnyOrder("country=DE,id=2",
                "country=RU,id=3");
        // a plan without the schema lists the same files, only those the partition filter admits
        TableSnapshot ru = DistributedRead.plan(new ReadTarget(uri, null, TestLake.memory().client(), PartitionFilter.in("country", "RU"),
                RetryPolicy.defaults(), null), false);
        assertThat(ru.schemaJson()).isNull();
        assertThat(ru.files()).allMatch(f -> f.folder().equals("country=RU/")).hasSize(2);
    }

    @Test
    void aFileRemovedAfterTheListingFailsTheTaskThatReadsIt() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Old(1, "RU"), new Old(2, "DE"))).partitionBy("country").s3(TestLake.memory().client()).to(uri);
        TableSnapshot planned = DistributedRead.plan(target(uri), true);
        S3Parquet.write(List.of(new Old(5, "RU"))).partitionBy("country").mode(WriteMode.OVERWRITE).s3(TestLake.memory().client()).to(uri);
        TableSnapshot.File gone = planned.files().get(0);
        assertThatThrownBy(() -> rows(uri, planned, null, null)).isInstanceOf(ReadException.class)
                .hasMessageStartingWith("Cannot read " + uri + ": the table changed while it was read: s3://" + bucket + "/" + gone.key()
                        + ", listed by this read, was removed by another write (an overwrite, a keyed rerun or a compaction) before it was "
                        + "read (");
    }

    /**
     * A file replaced under its own name after the driver's listing (round 10): the snapshot carries each file's listed
     * ETag to the task, whose GETs carry it as If-Match, so the task fails ("read again"), never reading the other object.
     */
    @Test
    void aFileReplacedUnderItsNameAfterTheListingFailsTheTaskThatReadsIt() {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Old(1, "RU"), new Old(2, "DE"))).partitionBy("country").s3(TestLake.memory().client()).to(uri);
        TableSnapshot planned = DistributedRead.plan(target(uri), true);
        assertThat(planned.files()).allMatch(f -> f.eTag() != null && !f.eTag().isBlank());
        TableSnapshot.File swapped = planned.files().get(0);
        TableSnapshot.File other = planned.files().get(1);
        TestLake.memory().put(bucket, swapped.key(), TestLake.memory().get(bucket, other.key()));
        assertThatThrownBy(() -> rows(uri, planned, null, null)).isInstanceOf(ReadException.class)
                .hasMessageStartingWith("Cannot read " + uri + " (step: read): the table changed while it was read: s3://" + bucket + "/"
                        + swapped.key() + " changed since it was listed").hasMessageContaining("read again (safe to retry)");
    }

    @Test
    void aWriteInFlightIsNotPlannedUntilItCommits() throws IOException {
        String bucket = TestLake.memoryBucket();
        String uri = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Old(1, "RU"))).partitionBy("country").s3(TestLake.memory().client()).to(uri);
        WriteOptions o = WriteOptions.builder().mode(WriteMode.OVERWRITE).partitionBy("country").build();
        List<Old> next = List.of(new Old(7, "DE"));
        org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
                org.apache.arrow.vector.types.pojo.Field.nullable("id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)),
                org.apache.arrow.vector.types.pojo.Field.nullable("country", org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE)));
        try (DistributedWrite w = DistributedWrite.begin(new WriteTarget(uri, TestLake.memory().client(), o, null, null), schema);
             BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            ((org.apache.arrow.vector.BigIntVector) root.getVector("id")).setSafe(0, next.get(0).id());
            ((org.apache.arrow.vector.VarCharVector) root.getVector("country")).setSafe(0, "DE".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            root.setRowCount(1);
            WriteOptions task = WriteOptions.builder().mode(WriteMode.OVERWRITE).partitionBy("country").lease(false)
                    .filenamePrefix("t00000-a0-").build();
            StagedFiles staged = DistributedWrite.stage(new WriteTarget(uri, TestLake.memory().client(), task, null, null), w.writeId(), 1,
                    new TaskBatches() {
                        private boolean done;

                        @Override
                        public org.apache.arrow.vector.types.pojo.Schema schema() {
                            return schema;
                        }

                        @Override
                        public boolean next() {
                            boolean more = !done;
                            done = true;
                            return more;
                        }

                        @Override
                        public VectorSchemaRoot current() {
                            return root;
                        }
                    });
            TableSnapshot during = DistributedRead.plan(target(uri), true);
            assertThat(rows(uri, during, null, null)).containsExactly("id=1,country=RU");
            w.commit(List.of(staged));
        }
        TableSnapshot after = DistributedRead.plan(target(uri), true);
        assertThat(rows(uri, after, null, null)).containsExactly("id=7,country=DE");
    }
}
