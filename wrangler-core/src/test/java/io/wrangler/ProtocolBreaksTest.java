package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.Orders.Order;
import java.time.LocalDate;
import io.wrangler.commit.Step;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sequences that broke commit protocol 2 as first written, found by a review that tried to break it (a keyed append
 * over a nested table or at a bucket root, a parent's recovery over a table created below it, a wrangler 0.1 manifest
 * after the upgrade, a stalled append undone by recovery). Each failed before its fix.
 */
class ProtocolBreaksTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private final String bucket = TestLake.memoryBucket();

    private static WriteBuilder write(List<Order> rows, WriteMode mode, String... partitionBy) {
        return S3Parquet.write(rows).partitionBy(partitionBy).mode(mode).s3(TestLake.memory().client());
    }

    private List<List<Object>> contents(String prefix) {
        return TestLake.query(bucket, prefix, "SELECT CAST(dt AS VARCHAR), country, \"orderId\" FROM t ORDER BY ALL");
    }

    /**
     * A keyed APPEND without partition columns lists its "old files" (earlier runs of its key) recursively under its
     * root, so it deletes the files of another table below it that were written with the same idempotency key (a
     * scheduler's run date, say). The nesting check only sees a child that has something under its _tmp/ at that moment.
     */
    @Test
    void anUnpartitionedKeyedAppendLeavesTheSameKeyedFilesOfATableBelowItAlone() {
        String child = "s3://" + bucket + "/lake/orders/";
        String parent = "s3://" + bucket + "/lake/";
        write(Orders.orders("child", List.of(D15), List.of("RU"), 2), WriteMode.APPEND, "dt", "country")
                .idempotencyKey("2024-01-15").to(child);
        List<String> childBefore = TestLake.keys(bucket, "lake/orders/");
        assertThat(contents("lake/orders/")).hasSize(2);

        write(Orders.orders("parent", List.of(D16), List.of("DE"), 1), WriteMode.APPEND).idempotencyKey("2024-01-15").to(parent);

        assertThat(TestLake.keys(bucket, "lake/orders/")).as("the child table's files, after a keyed append to the parent")
                .containsExactlyElementsOf(childBefore);
    }

    /** Every mode that can delete refuses a bucket root (issue 10, scenario 4); a keyed APPEND deletes its key's earlier files. */
    @Test
    void aKeyedAppendAtABucketRootIsRefusedAndDeletesNothing() {
        String orders = "s3://" + bucket + "/orders/";
        write(Orders.orders("orders", List.of(D15), List.of("RU"), 2), WriteMode.APPEND, "dt", "country")
                .idempotencyKey("2024-01-15").to(orders);
        List<String> before = TestLake.keys(bucket, "orders/");
        assertThat(contents("orders/")).hasSize(2);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> write(Orders.orders("root", List.of(D16), List.of("DE"), 1),
                WriteMode.APPEND).idempotencyKey("2024-01-15").to("s3://" + bucket + "/"))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write s3://" + bucket + "/ (step: validate): a keyed APPEND (idempotencyKey) at the root of a "
                        + "bucket could delete objects of the whole bucket; wrangler never deletes at a bucket root. Write the table "
                        + "under a prefix, s3://" + bucket + "/<table>/.");

        assertThat(TestLake.keys(bucket, "orders/")).as("another table's files, after a keyed append at the bucket root")
                .containsExactlyElementsOf(before);
    }

    /**
     * A plain append stalls right before its commit point (the conditional delete of its manifest). Recovery takes the
     * table over and undoes it. The stalled writer then resumes: it must not report success for rows that are gone.
     */
    @Test
    void aStalledPlainAppendUndoneByRecoveryDoesNotReportSuccess() throws Exception {
        String table = "s3://" + bucket + "/t/";
        write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND, "dt", "country").to(table);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> stalled = Stalls.stalledAt(write(Orders.orders("b", List.of(D15), List.of("RU"), 2), WriteMode.APPEND,
                "dt", "country"), table, Step.STAGING_REMOVED, 1, reached, release);
        assertThat(reached.await(60, TimeUnit.SECONDS)).isTrue();
        RecoveryResult r = Tunings.recover(table, TestLake.memory().client());
        assertThat(r.rolledBack()).hasSize(1);
        release.countDown();
        Throwable failure = Stalls.failureOf(stalled);
        List<List<Object>> rows = contents("t/");
        assertThat(failure).as("the stalled append's outcome, with the table now holding " + rows)
                .isInstanceOf(CommitConflictException.class).hasMessageContaining("undoes this append");
        assertThat(rows).containsExactly(List.of("2024-01-15", "RU", "a-2024-01-15-RU-0"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    /**
     * Wrangler 0.1 kept a catalog-pending write's manifest (format 1) and staged files after publishing it (issue 10,
     * scenario 1), while later writes replaced its data. Protocol 2 reads every format-1 manifest as COMMITTED and rolls
     * it forward: the first write or recover after the upgrade copies the stale staged files back and deletes the newer
     * write's files as "old". Built here as 0.1 would have left it: the pending write's _tmp/ folder with its manifest in
     * format 1, next to a newer overwrite of the same partition.
     */
    @Test
    void aCatalogPendingManifestOfWrangler01IsNotPublishedAgainAfterTheUpgrade() throws Exception {
        String table = "s3://" + bucket + "/t/";
        write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND, "dt", "country").to(table);
        try {
            write(Orders.orders("b", List.of(D15), List.of("RU"), 2), WriteMode.OVERWRITE_PARTITIONS, "dt", "country")
                    .stepHook((step, n) -> {
                        if (step == Step.MANIFEST_WRITTEN) {
                            throw new CrashRecoveryTest.SimulatedCrash(step, n);
                        }
                    }).tuning(Tunings.pastLeases()).to(table);
        } catch (CrashRecoveryTest.SimulatedCrash expected) {
            // the pending write's _tmp/ folder, as 0.1 kept it
        }
        java.util.Map<String, byte[]> pending = TestLake.snapshot(bucket, "t/_tmp/");
        pending.keySet().removeIf(k -> k.endsWith("_lease.json"));
        Tunings.recover(table, TestLake.memory().client());
        write(Orders.orders("c", List.of(D15), List.of("RU"), 1), WriteMode.OVERWRITE_PARTITIONS, "dt", "country")
                .tuning(Tunings.pastLeases()).to(table);
        assertThat(contents("t/")).containsExactly(List.of("2024-01-15", "RU", "c-2024-01-15-RU-0"));

        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (java.util.Map.Entry<String, byte[]> e : pending.entrySet()) {
            byte[] content = e.getValue();
            if (e.getKey().endsWith("_manifest.json")) {
                com.fasterxml.jackson.databind.node.ObjectNode m = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(content);
                m.put("format", 1);
                m.remove("state");
                m.remove("keyId");
                content = json.writeValueAsBytes(m);
            }
            TestLake.memory().put(bucket, e.getKey(), content);
        }
        // Under 0.1 the newer overwrite ran after the pending manifest was written: its files are younger (S3 dates
        // objects in whole seconds, so wait for the next one and write them again).
        Thread.sleep(1100);
        for (java.util.Map.Entry<String, byte[]> e : TestLake.snapshot(bucket, "t/dt=2024-01-15/").entrySet()) {
            TestLake.memory().put(bucket, e.getKey(), e.getValue());
        }

        // The first unrelated write after the upgrade.
        write(Orders.orders("d", List.of(D16), List.of("DE"), 1), WriteMode.APPEND, "dt", "country").tuning(Tunings.pastLeases()).to(table);

        assertThat(contents("t/")).as("the newer overwrite of 2024-01-15 after the upgrade's first write")
                .containsExactly(List.of("2024-01-15", "RU", "c-2024-01-15-RU-0"), List.of("2024-01-16", "DE", "d-2024-01-16-DE-0"));
    }

    /**
     * A parent's interrupted OVERWRITE, committed before the nested table existed, is rolled forward by a later recovery:
     * it deletes the old files its manifest recorded at its commit point, never the nested table's, written after it.
     */
    @Test
    void aParentsRecoveryLeavesATableCreatedBelowItAfterItsCommitPoint() {
        String parent = "s3://" + bucket + "/lake/";
        String child = "s3://" + bucket + "/lake/orders/";
        write(Orders.orders("p", List.of(D15), List.of("RU"), 1), WriteMode.APPEND, "dt", "country").to(parent);
        try {
            write(Orders.orders("q", List.of(D16), List.of("RU"), 1), WriteMode.OVERWRITE, "dt", "country")
                    .stepHook((step, n) -> {
                        if (step == Step.MANIFEST_WRITTEN) {
                            throw new CrashRecoveryTest.SimulatedCrash(step, n);
                        }
                    }).to(parent);
        } catch (CrashRecoveryTest.SimulatedCrash expected) {
            // the parent's overwrite is committed, not published
        }
        write(Orders.orders("child", List.of(D15), List.of("DE"), 2), WriteMode.APPEND, "dt", "country").to(child);
        List<String> childFiles = TestLake.keys(bucket, "lake/orders/");

        Tunings.recover(parent, TestLake.memory().client());

        assertThat(TestLake.keys(bucket, "lake/orders/")).as("the nested table's files after the parent's recovery")
                .containsExactlyElementsOf(childFiles);
    }
}
