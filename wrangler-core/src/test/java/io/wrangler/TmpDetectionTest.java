package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CrashRecoveryTest.SimulatedCrash;
import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Whether a write is running or was interrupted is told from every folder of the table's {@code _tmp/} named like a
 * write id (all its LIST pages), never from its first entries: objects of other tools or of the user in {@code _tmp/},
 * more than one LIST page of them (MemoryS3 pages at 1,000 like S3), sorting before or after the write's folder, hide
 * nothing, and a folder that is not a write's is not taken for one. Checked for every form of write id: a plain write's
 * ({@code yyyyMMddTHHmmssZ-<hex>}, which a compaction uses too) and a keyed run's ({@code k-...}, which sorts after
 * {@code _lease.json} and after names a to j).
 */
class TmpDetectionTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private static final List<Order> FIRST = Orders.orders("v1", List.of(D15, D16), List.of("RU"), 2);
    private static final List<Order> SECOND = Orders.orders("v2", List.of(D16), List.of("RU"), 3);
    /** More than one LIST page of stray objects, sorting before a plain write's folder and after {@code _lease.json}. */
    private static final int STRAYS = 1005;

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private WriteBuilder write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).maxRowsPerFile(1).s3(TestLake.memory().client());
    }

    private static WriteBuilder crashingAfterCommit(WriteBuilder w) {
        return w.stepHook((step, n) -> {
            if (step == Step.COPIED_FILE && n == 1) {
                throw new SimulatedCrash(step, n); // past the commit point: recovery rolls it forward
            }
        });
    }

    private void strays() {
        byte[] note = "a note".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < STRAYS; i++) {
            TestLake.memory().put(bucket, String.format("t/_tmp/0-note-%04d.txt", i), note);
            TestLake.memory().put(bucket, String.format("t/_tmp/backup-note-%04d.txt", i), note);
        }
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\", \"amountCents\" FROM t ORDER BY ALL");
    }

    private static List<List<Object>> rows(List<Order> orders) {
        List<List<Object>> out = new ArrayList<>();
        for (Order o : orders) {
            out.add(List.of(o.dt().toString(), o.country(), o.orderId(), o.amountCents()));
        }
        return out;
    }

    @Test
    void aCrashedCommittedOverwriteBehindPagesOfStrayObjectsIsPendingRecovery() {
        write(FIRST, WriteMode.APPEND).to(table);
        assertThatThrownBy(() -> crashingAfterCommit(write(SECOND, WriteMode.OVERWRITE)).to(table)).isInstanceOf(SimulatedCrash.class);
        strays();

        PlannedWrite plan = write(FIRST, WriteMode.APPEND).plan(table);

        assertThat(plan.recoveryPending()).as("the crashed overwrite's folder is seen past %s stray objects", 2 * STRAYS).isTrue();
    }

    @Test
    void aCrashedKeyedAppendBehindPagesOfStrayObjectsIsPendingRecovery() {
        write(FIRST, WriteMode.APPEND).to(table);
        assertThatThrownBy(() -> crashingAfterCommit(write(SECOND, WriteMode.APPEND).idempotencyKey("day-16")).to(table))
                .isInstanceOf(SimulatedCrash.class);
        strays();

        PlannedWrite plan = write(FIRST, WriteMode.APPEND).plan(table);

        assertThat(plan.recoveryPending()).as("the crashed keyed run's k-... folder is seen past %s stray objects", 2 * STRAYS).isTrue();
    }

    @Test
    void foldersOfOtherToolsAndStrayObjectsAreNotAWrite() {
        write(FIRST, WriteMode.APPEND).to(table);
        TestLake.memory().put(bucket, "t/_tmp/another-tool/marker", "x".getBytes(StandardCharsets.UTF_8));
        TestLake.memory().put(bucket, "t/_tmp/0-note.txt", "x".getBytes(StandardCharsets.UTF_8));

        assertThat(write(FIRST, WriteMode.APPEND).plan(table).recoveryPending()).isFalse();
    }

    @Test
    void aCompactionAfterACrashedOverwriteBehindStrayObjectsRecoversFirstAndSucceeds() {
        write(FIRST, WriteMode.APPEND).to(table);
        assertThatThrownBy(() -> crashingAfterCommit(write(SECOND, WriteMode.OVERWRITE)).to(table)).isInstanceOf(SimulatedCrash.class);
        strays();

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).tuning(Tunings.pastLeases()).run();

        // The overwrite rolled forward first (SECOND alone), then its three one-row files of dt=2024-01-16 compacted.
        assertThat(r.partitions()).containsExactly(table + "dt=2024-01-16/country=RU/");
        assertThat(r.filesBefore()).isEqualTo(3);
        assertThat(r.filesAfter()).isEqualTo(1);
        assertThat(contents()).isEqualTo(rows(SECOND));
        assertThat(TestLake.keys(bucket, "t/").stream().filter(k -> !k.contains("-note-")).toList())
                .allMatch(k -> k.startsWith("t/dt=2024-01-16/country=RU/part-")).hasSize(1);
    }

    record Flat(String id, long n) {
    }

    /**
     * A read's partition columns are not told from the first entries of one LIST of the root: a table without partition
     * columns whose root starts with more hidden objects ({@code _...}, sorting before {@code part-}) than that LIST
     * returns still refuses a filter on a column it is not partitioned by, as it does without them.
     */
    @Test
    void aFilterOnATableWithoutPartitionColumnsIsRefusedWhateverHiddenObjectsSortFirst() {
        S3Parquet.write(List.of(new Flat("a", 1))).s3(TestLake.memory().client()).to(table);
        for (int i = 0; i < 20; i++) {
            TestLake.memory().put(bucket, String.format("t/_note-%02d.txt", i), "x".getBytes(StandardCharsets.UTF_8));
        }
        assertThatThrownBy(() -> S3Parquet.read(table).s3(TestLake.memory().client()).filter(PartitionFilter.in("n", "1")).open())
                .isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): the partition filter names the column 'n', which is not a partition "
                        + "column of the table (it has none). Filter on partition columns only.");
    }
}
