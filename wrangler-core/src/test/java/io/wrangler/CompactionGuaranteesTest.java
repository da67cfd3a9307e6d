package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * What compaction promises beyond its happy path: a writer that meets it on the table's lease loses nothing, and the
 * check before its commit point really refuses new files that do not hold what was read, changing nothing.
 */
class CompactionGuaranteesTest {
    record Row(long id, long amount, String region) {
    }

    private static List<Row> rows(long from, int n, String region) {
        List<Row> out = new ArrayList<>();
        for (long i = from; i < from + n; i++) {
            out.add(new Row(i, 10 * i, region));
        }
        return out;
    }

    private static List<List<Object>> contents(String bucket) {
        return TestLake.query(bucket, "t/", "SELECT id, amount, region FROM t ORDER BY ALL");
    }

    /** Every row of {@code runs}, as DuckDB gives them back, ordered as {@link #contents}. */
    private static List<List<Object>> expected(List<List<Row>> runs) {
        List<List<Object>> out = new ArrayList<>();
        runs.forEach(run -> run.forEach(r -> out.add(List.of(r.id(), r.amount(), r.region()))));
        out.sort((a, b) -> {
            int c = Long.compare((Long) a.get(0), (Long) b.get(0));
            return c != 0 ? c : ((String) a.get(2)).compareTo((String) b.get(2));
        });
        return out;
    }

    /** Tells {@code onRefused} each time this client's conditional create of the table's lease is refused (another holds it). */
    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertThat(latch.await(60, TimeUnit.SECONDS)).as(what).isTrue();
    }

    @Test
    void anAppendThatWaitsOnTheLeaseDuringACompactionLosesNothing() throws Exception {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        List<List<Row>> runs = new ArrayList<>();
        for (int run = 0; run < 4; run++) {
            runs.add(rows(run * 10L, 10, run % 2 == 0 ? "EU" : "US"));
            runs.add(rows(1000 + run * 10L, 3, "EU"));
        }
        runs.forEach(run -> S3Parquet.write(run).partitionBy("region").s3(TestLake.s3().client()).to(table));
        assertThat(contents(bucket)).isEqualTo(expected(runs));

        // The compaction is held after its check, before its commit point, holding the lease.
        CountDownLatch compactionHeld = new CountDownLatch(1);
        CountDownLatch releaseCompaction = new CountDownLatch(1);
        CompletableFuture<CompactionResult> compaction = CompletableFuture.supplyAsync(() -> S3Parquet.compact(table)
                .s3(TestLake.s3().client()).stepHook((step, n) -> {
                    if (step == Step.LISTED_OLD_FILES) {
                        compactionHeld.countDown();
                        try {
                            releaseCompaction.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }).run());
        await(compactionHeld, "the compaction reached its check");

        // An append to both compacted partitions and to a new one, which must wait for the lease.
        List<Row> appended = new ArrayList<>(rows(100, 4, "EU"));
        appended.addAll(rows(200, 2, "US"));
        appended.addAll(rows(300, 2, "ASIA"));
        CountDownLatch appendWaiting = new CountDownLatch(1);
        CompletableFuture<WriteResult> append = CompletableFuture.supplyAsync(() -> S3Parquet.write(appended).partitionBy("region")
                .mode(WriteMode.APPEND).leaseWait(Duration.ofSeconds(60)).s3(LeaseWatch.refusals(appendWaiting::countDown)).to(table));
        await(appendWaiting, "the append was refused the lease");
        assertThat(append).isNotDone();
        releaseCompaction.countDown();

        CompactionResult compacted = Stalls.within(compaction, 60, bucket);
        WriteResult written = Stalls.within(append, 60, bucket);
        assertThat(compacted.partitions()).containsExactlyInAnyOrder(table + "region=EU/", table + "region=US/");
        assertThat(compacted.rowsRead()).isEqualTo(52);
        assertThat(compacted.rowsWritten()).isEqualTo(52);
        assertThat(written.rows()).isEqualTo(8);

        runs.add(appended);
        assertThat(contents(bucket)).isEqualTo(expected(runs));
        assertThat(TestLake.query(bucket, "t/", "SELECT count(*), count(DISTINCT (id, region)), sum(amount)::BIGINT FROM t"))
                .containsExactly(List.of(60L, 60L, runs.stream().flatMap(List::stream).mapToLong(Row::amount).sum()));
        // The compacted partitions hold their compacted file and the append's; nothing is left staged.
        assertThat(TestLake.keys(bucket, "t/region=EU/")).hasSize(2);
        assertThat(TestLake.keys(bucket, "t/region=US/")).hasSize(2);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    @Test
    void aCompactionThatWaitsOnTheLeaseReplacesOnlyTheFilesItListedAndAnAppendMeanwhileStays() throws Exception {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        List<List<Row>> runs = List.of(rows(0, 5, "EU"), rows(5, 5, "EU"), rows(10, 5, "EU"));
        runs.forEach(run -> S3Parquet.write(run).partitionBy("region").s3(TestLake.s3().client()).to(table));

        // An append holds the lease, stopped after staging its file (before its commit point).
        CountDownLatch appendHeld = new CountDownLatch(1);
        CountDownLatch releaseAppend = new CountDownLatch(1);
        List<Row> appended = rows(50, 7, "EU");
        CompletableFuture<WriteResult> append = Stalls.stalledAt(S3Parquet.write(appended).partitionBy("region").mode(WriteMode.APPEND)
                .s3(TestLake.s3().client()), table, Step.STAGED_FILE, 1, appendHeld, releaseAppend);
        await(appendHeld, "the append staged its file");

        // The compaction lists the three files, then waits on the lease; the append commits meanwhile.
        CountDownLatch compactionWaiting = new CountDownLatch(1);
        CompletableFuture<CompactionResult> compaction = CompletableFuture.supplyAsync(() -> S3Parquet.compact(table)
                .s3(LeaseWatch.refusals(compactionWaiting::countDown)).leaseWait(Duration.ofSeconds(60)).run());
        await(compactionWaiting, "the compaction was refused the lease");
        releaseAppend.countDown();
        assertThat(Stalls.failureOf(append)).isNull();

        CompactionResult r = Stalls.within(compaction, 60, bucket);
        assertThat(r.filesBefore()).isEqualTo(3);
        assertThat(r.filesAfter()).isEqualTo(1);
        assertThat(r.rowsRead()).isEqualTo(15);
        List<List<Row>> all = new ArrayList<>(runs);
        all.add(appended);
        assertThat(contents(bucket)).isEqualTo(expected(all));
        assertThat(TestLake.keys(bucket, "t/region=EU/")).hasSize(2);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    /** The 8 bytes of {@code v} as Parquet stores an int64 (little endian). */
    private static byte[] int64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    private static List<Integer> occurrences(byte[] in, byte[] what) {
        List<Integer> at = new ArrayList<>();
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            at.add(i);
        }
        return at;
    }

    /** A client that, before the first GET of a staged file (the check reading it back), lets {@code change} alter it in S3. */
    private static S3Client changingStagedFiles(String bucket, Consumer<String> change) {
        AtomicInteger seen = new AtomicInteger();
        return TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof GetObjectRequest g && g.key().startsWith("t/_tmp/") && g.key().endsWith(".parquet")
                        && seen.getAndIncrement() == 0) {
                    change.accept(g.key());
                }
            }
        })));
    }

    private static final long MARKER = 0x0123_4567_89AB_CDEFL;

    /** Three small files in one partition, one of whose amounts is {@link #MARKER} (neither the least nor the greatest). */
    private static String markedTable(String bucket) {
        String table = "s3://" + bucket + "/t/";
        S3Parquet.write(rows(0, 5, "EU")).partitionBy("region").s3(TestLake.s3().client()).to(table);
        S3Parquet.write(List.of(new Row(5, MARKER, "EU"), new Row(6, Long.MAX_VALUE, "EU"))).partitionBy("region")
                .s3(TestLake.s3().client()).to(table);
        S3Parquet.write(rows(7, 3, "EU")).partitionBy("region").s3(TestLake.s3().client()).to(table);
        return table;
    }

    /** Refused the way every failed check is, naming what differed. */
    private static String refused(String table, String what) {
        return "Cannot compact " + table + " (step: commit): " + what + ". Nothing was changed: the new files were removed before the "
                + "commit point. Report this with the message; the table is as before.";
    }

    @Test
    void theCheckRefusesAStagedFileThatHoldsOtherValuesAndNothingChanges() {
        // The same table but for one value, compacted: a valid file of the same rows, size and layout as the one staged.
        String twinBucket = TestLake.bucket();
        String twinTable = "s3://" + twinBucket + "/t/";
        S3Parquet.write(rows(0, 5, "EU")).partitionBy("region").s3(TestLake.s3().client()).to(twinTable);
        S3Parquet.write(List.of(new Row(5, MARKER + 1, "EU"), new Row(6, Long.MAX_VALUE, "EU"))).partitionBy("region")
                .s3(TestLake.s3().client()).to(twinTable);
        S3Parquet.write(rows(7, 3, "EU")).partitionBy("region").s3(TestLake.s3().client()).to(twinTable);
        S3Parquet.compact(twinTable).s3(TestLake.s3().client()).compression(Compression.NONE).run();
        byte[] twin = TestLake.s3().get(twinBucket, TestLake.keys(twinBucket, "t/region=EU/").get(0));

        String bucket = TestLake.bucket();
        String table = markedTable(bucket);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        List<List<Object>> rows = contents(bucket);
        List<Integer> sizes = new ArrayList<>();
        // Another process puts that file in the staged file's place before the check reads it back.
        S3Client client = changingStagedFiles(bucket, key -> {
            sizes.add(TestLake.s3().get(bucket, key).length);
            TestLake.s3().put(bucket, key, twin);
        });

        Throwable refusal = org.assertj.core.api.Assertions.catchThrowable(
                () -> S3Parquet.compact(table).s3(client).compression(Compression.NONE).run());
        assertThat(sizes).hasSize(1);
        // The staged file is not always byte for byte as long as the twin (seen once in CI: a few bytes apart), and
        // then the twin cannot be read at the staged size, which the check refuses as well.
        if (sizes.get(0) == twin.length) {
            assertThat(refusal).isInstanceOf(VerificationException.class)
                    .hasMessage(refused(table, "read back, its new files differ from the rows read: the values of the column 'amount' "
                            + "differ (checksum)"));
        } else {
            assertThat(refusal).isInstanceOf(VerificationException.class)
                    .hasMessageStartingWith("Cannot compact " + table + " (step: commit): read back, its new files could not be read (")
                    .hasMessageEndingWith("). Nothing was changed: the new files were removed before the commit point. Report this with "
                            + "the message; the table is as before.");
        }
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(contents(bucket)).isEqualTo(rows);
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void theCheckRefusesAStagedFileWithAChangedByteAndNothingChanges() {
        String bucket = TestLake.bucket();
        String table = markedTable(bucket);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        List<List<Object>> rows = contents(bucket);
        List<Integer> found = new ArrayList<>();

        // One stored value of the staged file changes in place (bit rot): same size, same row count; its page checksum fails.
        S3Client client = changingStagedFiles(bucket, key -> {
            byte[] file = TestLake.s3().get(bucket, key);
            List<Integer> at = occurrences(file, int64(MARKER));
            found.addAll(at);
            if (at.size() == 1) {
                System.arraycopy(int64(MARKER + 1), 0, file, at.get(0), 8);
                TestLake.s3().put(bucket, key, file);
            }
        });

        assertThatThrownBy(() -> S3Parquet.compact(table).s3(client).compression(Compression.NONE).run())
                .isInstanceOf(VerificationException.class)
                .hasMessage(refused(table, "read back, its new files could not be read (org.apache.parquet.io.ParquetDecodingException: "
                        + "could not verify page integrity, CRC checksum verification failed)"));
        assertThat(found).as("the marker is stored once, uncompressed, in the staged file").hasSize(1);
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(contents(bucket)).isEqualTo(rows);
        assertThat(TestLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }

    @Test
    void theCheckRefusesAStagedFileReplacedByAShorterOneAndNothingChanges() {
        String bucket = TestLake.bucket();
        String table = markedTable(bucket);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        List<List<Object>> rows = contents(bucket);
        // A valid Parquet file of other rows (one of the table's own, shorter) takes the staged file's place.
        byte[] other = TestLake.s3().get(bucket, TestLake.keys(bucket, "t/region=EU/").get(0));
        List<String> staged = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        S3Client client = changingStagedFiles(bucket, key -> {
            staged.add(key);
            sizes.add(TestLake.s3().get(bucket, key).length);
            TestLake.s3().put(bucket, key, other);
        });

        assertThatThrownBy(() -> S3Parquet.compact(table).s3(client).run())
                .isInstanceOf(VerificationException.class)
                .satisfies(e -> assertThat(e).hasMessage(refused(table, "read back, its new files could not be read (java.io.EOFException: s3://"
                        + bucket + "/" + staged.get(0) + " answered " + other.length + " bytes for a range of " + sizes.get(0)
                        + ": the object changed while it was read)")));
        assertThat(other.length).isLessThan(sizes.get(0));
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(contents(bucket)).isEqualTo(rows);
    }

    /**
     * A compaction run after a write crashed past its commit point, before anyone recovered it: the compaction recovers
     * the table before it lists it, so it compacts the table as that write left it (rolled forward) instead of listing
     * files that its own recovery then deletes (it failed reading them).
     */
    @Test
    void aCompactionAfterAnUnrecoveredCrashRecoversFirstAndCompactsTheTableAsTheWriteLeftIt() {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        S3Client s3 = TestLake.s3().client();
        S3Parquet.write(rows(1, 3, "EU")).partitionBy("region").s3(s3).to(table);
        S3Parquet.write(rows(4, 3, "EU")).partitionBy("region").s3(s3).to(table);
        List<Row> replacement = rows(100, 2, "EU");
        assertThatThrownBy(() -> S3Parquet.write(replacement).partitionBy("region").mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3)
                .stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        throw new CrashRecoveryTest.SimulatedCrash(step, n);
                    }
                }).to(table)).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isNotEmpty();

        CompactionResult r = S3Parquet.compact(table).tuning(Tunings.pastLeases()).s3(s3).run();

        // Recovered first, the partition holds the overwrite's one file: nothing left to compact (before, the compaction
        // chose the two files the overwrite replaced and failed reading them once its own recovery had deleted them).
        assertThat(contents(bucket)).isEqualTo(expected(List.of(replacement)));
        assertThat(r.partitions()).isEmpty();
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }
}
