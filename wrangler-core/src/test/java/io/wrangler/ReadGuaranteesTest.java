package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import io.wrangler.testkit.FaultyS3;
import io.wrangler.testkit.S3Fault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What a read sees (docs/reading.md): the default partition named once by null and "", filters checked
 * against the partition columns, every write exactly before or after over the whole scope of the read (partitions an
 * overwrite emptied included), a manifest that cannot be read failing the read, and a prefix without a table refused.
 */
class ReadGuaranteesTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);

    private final String bucket = TestLake.bucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.s3().client();

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    /** The rows as "orderId dt country" (dt as its day number), sorted; none for a read without files (no columns). */
    private static List<String> orders(ArrowReader r) throws Exception {
        Map<String, List<String>> cols = ReadTest.readAll(r);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < cols.getOrDefault("orderId", List.of()).size(); i++) {
            out.add(cols.get("orderId").get(i) + " " + cols.get("dt").get(i) + " " + cols.get("country").get(i));
        }
        Collections.sort(out);
        return out;
    }

    private List<String> read(PartitionFilter filter) throws Exception {
        return orders(S3Parquet.read(table).s3(s3).filter(filter).open());
    }

    private List<String> duck() {
        List<String> out = new ArrayList<>();
        for (List<Object> row : TestLake.query(bucket, "t/", "SELECT \"orderId\", CAST(dt AS VARCHAR), country FROM t ORDER BY ALL")) {
            out.add(row.get(0) + " " + (LocalDate.parse(row.get(1).toString()).toEpochDay()) + " " + row.get(2));
        }
        return out;
    }

    private static String row(String tag, LocalDate d, int i) {
        return tag + "-" + d + "-RU-" + i + " " + d.toEpochDay() + " RU";
    }

    private WriteBuilder write(List<Order> rows, WriteMode mode) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).maxRowsPerFile(1).tuning(Tunings.smallDeleteBatches()).s3(s3);
    }

    private static StepHookCrash crashAt(Step at, int n) {
        return new StepHookCrash(at, n);
    }

    private record StepHookCrash(Step at, int n) implements io.wrangler.commit.StepHook {
        @Override
        public void reached(Step step, int count) {
            if (step == at && count == n) {
                throw new Crash();
            }
        }
    }

    // Item 8: null and "" name the default partition once, and read back as null.

    record P(String id, String ps) {
    }

    @Test
    void nullAndEmptyNameTheDefaultPartitionOnceAndReadBackAsNull() throws Exception {
        S3Parquet.write(List.of(new P("a", null), new P("b", ""), new P("c", "x"))).partitionBy("ps").s3(s3).to(table);
        assertThat(TestLake.query(bucket, "t/ps=__HIVE_DEFAULT_PARTITION__/", "SELECT id FROM t ORDER BY id"))
                .containsExactly(List.of("a"), List.of("b"));

        for (PartitionFilter f : List.of(PartitionFilter.in("ps", null, ""), PartitionFilter.in("ps", ""), PartitionFilter.in("ps", "", null),
                PartitionFilter.in("ps", (String) null))) {
            Map<String, List<String>> rows = ReadTest.readAll(S3Parquet.read(table).s3(s3).filter(f).open());
            assertThat(rows).containsExactly(Map.entry("id", List.of("a", "b")), Map.entry("ps", List.of("null", "null")));
        }
        Map<String, List<String>> both = ReadTest.readAll(S3Parquet.read(table).s3(s3).filter(PartitionFilter.in("ps", "x", "")).open());
        assertThat(both.get("id")).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(both.get("ps")).containsExactlyInAnyOrder("null", "null", "x");
    }

    // Item 9: a filter names partition columns only.

    @Test
    void aFilterOnADataColumnOrAnUnknownColumnIsRefusedBeforeAnyFileIsOpened() throws Exception {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU", "DE"), 2), WriteMode.APPEND).to(table);
        // The filter would have matched rows: DuckDB finds them by the data column.
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*) FROM t WHERE \"amountCents\" = 100")).containsExactly(List.of(1L));
        List<String> operations = new CopyOnWriteArrayList<>();
        S3Client counted = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                operations.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
            }
        })));
        String tail = ", which is not a partition column of the table (its partition columns are [dt, country]). Filter on partition "
                + "columns only.";
        Map<PartitionFilter, String> refused = Map.of(
                PartitionFilter.in("amountCents", "100"), "names the column 'amountCents'",
                PartitionFilter.in("dtt", "2024-01-15"), "names the column 'dtt'",
                PartitionFilter.in("dt", "2024-01-15").and(PartitionFilter.in("orderId", "a-2024-01-15-RU-0")), "names the column 'orderId'",
                PartitionFilter.where(p -> "RU".equals(p.get("contry"))), "asked for the column 'contry'",
                PartitionFilter.in("dt", "2024-01-15").and(PartitionFilter.where(p -> p.getOrDefault("amountCents", "0").equals("100"))),
                "asked for the column 'amountCents'");
        refused.forEach((filter, what) -> assertThatThrownBy(() -> S3Parquet.read(table).s3(counted).filter(filter).open())
                .isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): the partition filter " + what + tail));
        assertThat(operations).isNotEmpty().doesNotContain("GetObject", "HeadObject");

        // A compaction with such a filter is refused the same way, and changes nothing.
        write(Orders.orders("b", List.of(D15), List.of("RU"), 2), WriteMode.APPEND).to(table);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(s3).filter(PartitionFilter.in("amountCents", "100")).run())
                .isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot compact " + table + " (step: list): the partition filter names the column 'amountCents'" + tail);
        assertThat(TestLake.snapshot(bucket, "t/")).containsOnlyKeys(before.keySet());

        // A day that does not exist shows no folder below it: the filter is checked against the columns of one that does.
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).filter(PartitionFilter.in("dt", "2099-01-01")
                .and(PartitionFilter.in("amountCents", "100"))).open()).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): the partition filter names the column 'amountCents'" + tail);
        assertThat(read(PartitionFilter.in("dt", "2099-01-01").and(PartitionFilter.in("country", "RU")))).isEmpty();
        assertThat(read(PartitionFilter.in("dt", "2099-01-01").and(PartitionFilter.where(p -> "RU".equals(p.get("country")))))).isEmpty();

        // A filter on the partition columns, and a predicate that asks whether a column is there, still read.
        assertThat(read(PartitionFilter.in("country", "DE").and(PartitionFilter.where(p -> !p.containsKey("amountCents")
                && !"2024-01-16".equals(p.get("dt")))))).containsExactly(row("a", D15, 0).replace("RU", "DE"),
                row("a", D15, 1).replace("RU", "DE"));
    }

    record Flat(String id, long n) {
    }

    @Test
    void aFilterOnATableWithoutPartitionColumnsIsRefused() {
        S3Parquet.write(List.of(new Flat("a", 1))).s3(s3).to(table);
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).filter(PartitionFilter.in("n", "1")).open())
                .isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): the partition filter names the column 'n', which is not a partition "
                        + "column of the table (it has none). Filter on partition columns only.");
    }

    // Item 10: exactly before or exactly after over the whole scope of the read.

    @Test
    void aCrashedOverwriteThatDroppedAPartitionReadsAsTheTableAfter() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND).to(table);
        assertThatThrownBy(() -> write(Orders.orders("b", List.of(D16), List.of("RU"), 2), WriteMode.OVERWRITE)
                .stepHook(crashAt(Step.DELETED_BATCH, 1)).to(table)).isInstanceOf(Crash.class);
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.startsWith("t/dt=2024-01-15/"));

        List<String> after = List.of(row("b", D16, 0), row("b", D16, 1));
        assertThat(read(PartitionFilter.all())).isEqualTo(after);
        assertThat(read(PartitionFilter.where(p -> true))).isEqualTo(after);
        assertThat(read(PartitionFilter.in("dt", "2024-01-15", "2024-01-16"))).isEqualTo(after);
        assertThat(read(PartitionFilter.in("dt", "2024-01-15"))).isEmpty();
        // Day 16 alone holds no deleted file of the write: that scope reads as before, when day 16 did not exist.
        assertThat(read(PartitionFilter.in("dt", "2024-01-16"))).isEmpty();

        assertThat(Tunings.recover(table, s3).rolledForward()).hasSize(1);
        assertThat(read(PartitionFilter.all())).isEqualTo(after);
        assertThat(duck()).isEqualTo(after);
    }

    @Test
    void anOverwritePausedBetweenItsDeletesReadsAsTheTableAfterWhereverTheDeleteWas() throws Exception {
        write(Orders.orders("a", List.of(D15, D16), List.of("RU"), 2), WriteMode.APPEND).to(table);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> paused = Stalls.stalledAt(write(Orders.orders("b", List.of(D16), List.of("RU"), 1),
                WriteMode.OVERWRITE), table, Step.DELETED_BATCH, 1, reached, release);
        try {
            assertThat(reached.await(60, TimeUnit.SECONDS)).isTrue();
            // The first batch of deletes took day 15's two files; day 16's old files are still there beside the new one.
            assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.startsWith("t/dt=2024-01-15/"))
                    .filteredOn(k -> k.startsWith("t/dt=2024-01-16/")).hasSize(3);

            assertThat(read(PartitionFilter.all())).containsExactly(row("b", D16, 0));
            assertThat(read(PartitionFilter.where(p -> true))).containsExactly(row("b", D16, 0));
            // A read of day 16 alone sees that partition as it was before: none of the write's deletes lies in its scope.
            assertThat(read(PartitionFilter.in("dt", "2024-01-16"))).containsExactly(row("a", D16, 0), row("a", D16, 1));
        } finally {
            release.countDown();
        }
        assertThat(Stalls.failureOf(paused)).isNull();
        assertThat(read(PartitionFilter.all())).containsExactly(row("b", D16, 0));
        assertThat(duck()).containsExactly(row("b", D16, 0));
    }

    // Item 11: a manifest that cannot be read fails the read.

    /** A committed OVERWRITE_PARTITIONS of day 15 stopped with its new file in place and the old ones not yet deleted. */
    private String committedWithOldAndNewInPlace() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2), WriteMode.APPEND).to(table);
        assertThatThrownBy(() -> write(Orders.orders("b", List.of(D15), List.of("RU"), 1), WriteMode.OVERWRITE_PARTITIONS)
                .stepHook(crashAt(Step.COPIED_FILE, 1)).to(table)).isInstanceOf(Crash.class);
        assertThat(read(PartitionFilter.all())).containsExactly(row("a", D15, 0), row("a", D15, 1));
        assertThat(duck()).containsExactly(row("a", D15, 0), row("a", D15, 1), row("b", D15, 0));
        return TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith("/_manifest.json")).findFirst().orElseThrow();
    }

    @Test
    void aManifestThatCannotBeFetchedFailsTheReadAsRetryable() throws Exception {
        String manifest = committedWithOldAndNewInPlace();
        try (FaultyS3 proxy = FaultyS3.start(TestLake.s3()); S3Client client = proxy.client(1, Duration.ofMillis(500))) {
            proxy.timeoutDelay(Duration.ofSeconds(2));
            RetryPolicy once = RetryPolicy.of(1, Duration.ofMillis(1), Duration.ofMillis(1));
            for (S3Fault fault : List.of(S3Fault.INTERNAL_ERROR, S3Fault.ACCESS_DENIED, S3Fault.TIMEOUT)) {
                proxy.failWhereKeyContains("GetObject", "_manifest.json", fault);
                assertThatThrownBy(() -> S3Parquet.read(table).s3(client).retryPolicy(once).open())
                        .as("%s", fault)
                        .isExactlyInstanceOf(ReadException.class)
                        .hasMessageStartingWith("Cannot read " + table + " (step: list): fetching the manifest s3://" + bucket + "/"
                                + manifest + " failed (")
                        .hasMessageEndingWith("), and without it the files of that write cannot be told visible or not. Nothing was "
                                + "changed; read again (safe to retry).")
                        .hasCauseInstanceOf(software.amazon.awssdk.core.exception.SdkException.class);
                assertThatThrownBy(() -> S3Parquet.compact(table).s3(client).retry(1, Duration.ofMillis(1), Duration.ofMillis(1)).run())
                        .isExactlyInstanceOf(ReadException.class)
                        .hasMessageStartingWith("Cannot compact " + table + " (step: list): fetching the manifest ");
                proxy.clearKeyFaults();
            }
            // Retried once S3 answers again, the read sees the table as before the committed overwrite.
            assertThat(orders(S3Parquet.read(table).s3(client).open())).containsExactly(row("a", D15, 0), row("a", D15, 1));
        }
    }

    @Test
    void aManifestThatCannotBeParsedFailsTheRead() throws Exception {
        String manifest = committedWithOldAndNewInPlace();
        TestLake.s3().put(bucket, manifest, "{\"format\": 2, \"writeId\": ".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).open())
                .isExactlyInstanceOf(ReadException.class)
                .hasMessageStartingWith("Cannot read " + table + " (step: list): the manifest s3://" + bucket + "/" + manifest
                        + " cannot be parsed (")
                .hasMessageEndingWith("), so which files of that write are visible cannot be decided. Nothing was changed. Do not "
                        + "delete it: inspect it, and upgrade wrangler if it was written by a newer version.");
    }

    /** A plain append that ends (its manifest deleted: its commit point) between the read's listing and its GET. */
    @Test
    void aManifestGoneBetweenTheListingAndItsGetIsSkipped() throws Exception {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND).to(table);
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> append = Stalls.stalledAt(write(Orders.orders("b", List.of(D15), List.of("RU"), 1),
                WriteMode.APPEND), table, Step.BEFORE_CLEANUP, 1, reached, release);
        assertThat(reached.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(read(PartitionFilter.all())).containsExactly(row("a", D15, 0));

        List<String> gets = new CopyOnWriteArrayList<>();
        S3Client racing = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof software.amazon.awssdk.services.s3.model.GetObjectRequest g
                        && g.key().endsWith("/_manifest.json") && gets.isEmpty()) {
                    gets.add(g.key());
                    release.countDown();
                    append.join();
                }
            }
        })));
        assertThat(orders(S3Parquet.read(table).s3(racing).open())).containsExactly(row("a", D15, 0), row("b", D15, 0));
        assertThat(gets).hasSize(1);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    // Item 14: a prefix without a table is refused; a table without rows reads as empty.

    @Test
    void aPrefixThatHoldsNoTableIsRefused() {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND).to(table);
        String typo = "s3://" + bucket + "/tt/";
        String message = "Cannot read " + typo + " (step: list): there is no table at this prefix: no object lies under it (no data "
                + "file, no _tmp/). Check the URI, or pass catalog(...) for a table whose partitions the catalog registers elsewhere.";
        assertThatThrownBy(() -> S3Parquet.read(typo).s3(s3).open()).isInstanceOf(InvalidReadException.class).hasMessage(message);
        assertThatThrownBy(() -> S3Parquet.read(typo).s3(s3).filter(PartitionFilter.in("dt", "2024-01-15")).open())
                .isInstanceOf(InvalidReadException.class).hasMessage(message);
        assertThatThrownBy(() -> S3Parquet.compact(typo).s3(s3).run())
                .isInstanceOf(InvalidReadException.class).hasMessage(message.replace("Cannot read", "Cannot compact"));
        assertThat(TestLake.keys(bucket, "tt/")).isEmpty();
    }

    @Test
    void aTableWhoseFirstWriteIsInFlightReadsAsEmpty() throws Exception {
        assertThatThrownBy(() -> write(Orders.orders("a", List.of(D15), List.of("RU"), 1), WriteMode.APPEND)
                .stepHook(crashAt(Step.STAGED_FILE, 1)).to(table)).isInstanceOf(Crash.class);
        assertThat(TestLake.keys(bucket, "t/")).allMatch(k -> k.startsWith("t/_tmp/")).isNotEmpty();
        try (ArrowReader r = S3Parquet.read(table).s3(s3).open()) {
            assertThat(r.getVectorSchemaRoot().getSchema().getFields()).isEmpty();
            assertThat(r.loadNextBatch()).isFalse();
        }
        // Its partition columns are not known yet, so a filter is not checked against them: the read is empty.
        assertThat(ReadTest.readAll(S3Parquet.read(table).s3(s3).filter(PartitionFilter.in("dt", "2024-01-15")).open())).isEmpty();
    }
}
