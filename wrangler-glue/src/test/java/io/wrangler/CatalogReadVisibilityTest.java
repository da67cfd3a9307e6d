package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.commit.WriteSpec;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/**
 * A read through the catalog sees every write exactly before or after, as a read by the folders does: one decision over
 * every registered partition it reads, and the partitions a write past its commit point adds shown with it before its
 * catalog step registers them.
 */
class CatalogReadVisibilityTest {
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();
    private final String bucket = TestLakes.bucket("catalog-read", s3);
    private final String table = "s3://" + bucket + "/t/";
    private final GlueTable catalog = GlueCatalog.of(glue.client()).table(TestLakes.database(bucket), "t");

    /** Deletes one old file a batch, the test clock past every lease. */
    private static final S3Parquet.Tuning ONE_DELETE_A_BATCH;

    static {
        WriteSpec.Tuning d = TestLakes.PAST_LEASES.engine();
        ONE_DELETE_A_BATCH = new S3Parquet.Tuning(new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), d.rowGroupBytes(),
                d.pageBytes(), d.maxOpenFiles(), 1, d.singleCopyLimit(), d.copyPartSize(), d.leaseTtl(), d.openBytes(), d.clockOffset()));
    }

    public record Row(String id, LocalDate dt) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);

    private void write(List<Row> rows, WriteMode mode, Step crashAt) {
        WriteBuilder w = S3Parquet.write(rows).partitionBy("dt").mode(mode).catalog(catalog).tuning(ONE_DELETE_A_BATCH).s3(s3.client());
        if (crashAt == null) {
            w.to(table);
            return;
        }
        assertThatThrownBy(() -> w.stepHook((step, n) -> {
            if (step == crashAt && n == 1) {
                throw new Crash();
            }
        }).to(table)).isInstanceOf(Crash.class);
    }

    /** The ids and days read through the catalog, sorted. */
    private List<String> read(PartitionFilter filter) throws Exception {
        List<String> out = new ArrayList<>();
        try (ArrowReader r = S3Parquet.read(table).s3(s3.client()).catalog(catalog).filter(filter).open()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(b.getVector("id").getObject(i) + " " + LocalDate.ofEpochDay(((Number) b.getVector("dt").getObject(i)).longValue()));
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    @Test
    void aReadDuringAnOverwritesDeletesSeesEveryRegisteredPartitionAsAfter() throws Exception {
        write(List.of(new Row("a15", D15), new Row("a16", D16)), WriteMode.APPEND, null);
        write(List.of(new Row("b15", D15), new Row("b16", D16)), WriteMode.OVERWRITE_PARTITIONS, Step.DELETED_BATCH);
        // Day 15's old file is deleted; day 16's is still there beside its new one.
        assertThat(s3.list(bucket, "t/dt=2024-01-15/")).hasSize(1);
        assertThat(s3.list(bucket, "t/dt=2024-01-16/")).hasSize(2);

        assertThat(read(PartitionFilter.all())).containsExactly("b15 2024-01-15", "b16 2024-01-16");
        assertThat(read(PartitionFilter.in("dt", "2024-01-16"))).containsExactly("a16 2024-01-16");
    }

    @Test
    void aReadAfterACrashedOverwriteThatDroppedAPartitionSeesTheTableAfter() throws Exception {
        write(List.of(new Row("a15", D15)), WriteMode.APPEND, null);
        write(List.of(new Row("b16", D16)), WriteMode.OVERWRITE, Step.DELETED_BATCH);
        // Glue still registers day 15 (its folder now empty) and not yet day 16.
        assertThat(s3.list(bucket, "t/dt=2024-01-15/")).isEmpty();
        assertThat(glue.client().getPartitions(b -> b.databaseName(TestLakes.database(bucket)).tableName("t")).partitions())
                .extracting(p -> p.values()).containsExactly(List.of("2024-01-15"));

        assertThat(read(PartitionFilter.all())).containsExactly("b16 2024-01-16");
        assertThat(read(PartitionFilter.in("dt", "2024-01-15", "2024-01-16"))).containsExactly("b16 2024-01-16");
        assertThat(read(PartitionFilter.in("dt", "2024-01-15"))).isEmpty();
        // Day 16 alone holds no deleted file of the write: that scope reads as before, when day 16 did not exist.
        assertThat(read(PartitionFilter.in("dt", "2024-01-16"))).isEmpty();

        S3Parquet.recover(table, s3.client(), catalog, TestLakes.PAST_LEASES);
        assertThat(read(PartitionFilter.all())).containsExactly("b16 2024-01-16");
        assertThat(DuckReader.query(s3, bucket, "t/", "SELECT id, CAST(dt AS VARCHAR) FROM t")).containsExactly(List.of("b16", "2024-01-16"));
    }

    @Test
    void aFilterOnANonPartitionColumnIsRefusedAndATableTheCatalogHasReadsEvenWithoutObjects() throws Exception {
        write(List.of(new Row("a15", D15)), WriteMode.APPEND, null);
        String tail = ", which is not a partition column of the table (its partition columns are [dt]). Filter on partition columns only.";
        assertThatThrownBy(() -> read(PartitionFilter.in("id", "a15"))).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): the partition filter names the column 'id'" + tail);
        assertThatThrownBy(() -> read(PartitionFilter.where(p -> "a15".equals(p.get("id"))))).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): the partition filter asked for the column 'id'" + tail);
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(s3.client()).catalog(catalog).filter(PartitionFilter.in("id", "a15")).run())
                .isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot compact " + table + " (step: list): the partition filter names the column 'id'" + tail);

        // Every object of the table deleted: the catalog still has it, so through the catalog it reads as empty; by its
        // prefix alone there is no table.
        for (String key : s3.list(bucket, "t/").keySet()) {
            s3.client().deleteObject(b -> b.bucket(bucket).key(key));
        }
        assertThat(read(PartitionFilter.all())).isEmpty();
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3.client()).open()).isInstanceOf(InvalidReadException.class)
                .hasMessageContaining("there is no table at this prefix");
    }
}
