package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CrashRecoveryTest.SimulatedCrash;
import io.wrangler.commit.Step;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Compaction rewrites small files into one per partition, keeps every row (less duplicates), and survives crashes. */
class CompactionTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private static final LocalDate D17 = LocalDate.of(2024, 1, 17);

    /** Eight small appends to four partitions, and one append to a fifth. */
    private static String smallFiles(String bucket) {
        String table = "s3://" + bucket + "/t/";
        for (int run = 0; run < 8; run++) {
            S3Parquet.write(Orders.orders("r" + run, List.of(D15, D16), List.of("RU", "DE"), 3)).partitionBy("dt", "country")
                    .s3(TestLake.memory().client()).to(table);
        }
        S3Parquet.write(Orders.orders("single", List.of(D17), List.of("RU"), 2)).partitionBy("dt", "country").s3(TestLake.memory().client())
                .to(table);
        return table;
    }

    private static List<List<Object>> contents(String bucket) {
        return TestLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, \"orderId\", \"amountCents\", CAST(price AS VARCHAR) "
                + "FROM t ORDER BY ALL");
    }

    /** Data files per partition folder. */
    private static Map<String, Long> filesPerFolder(String bucket) {
        return TestLake.keys(bucket, "t/").stream().filter(k -> !k.startsWith("t/_tmp/"))
                .collect(Collectors.groupingBy(k -> k.substring(2, k.lastIndexOf('/') + 1), TreeMap::new, Collectors.counting()));
    }

    private static long readSum(String table) throws Exception {
        long sum = 0;
        try (ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).columns("amountCents").open()) {
            while (r.loadNextBatch()) {
                BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector(0);
                for (int i = 0; i < v.getValueCount(); i++) {
                    sum += v.get(i);
                }
            }
        }
        return sum;
    }

    @Test
    void manySmallAppendsBecomeOneFilePerPartitionWithRowsAndSumsUnchanged() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = smallFiles(bucket);
        List<List<Object>> before = contents(bucket);
        String single = TestLake.keys(bucket, "t/dt=2024-01-17/country=RU/").get(0);
        long sum = readSum(table);
        assertThat(filesPerFolder(bucket)).containsEntry("dt=2024-01-15/country=RU/", 8L).containsEntry("dt=2024-01-17/country=RU/", 1L);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).run();

        assertThat(r.partitions()).containsExactlyInAnyOrder(table + "dt=2024-01-15/country=DE/", table + "dt=2024-01-15/country=RU/",
                table + "dt=2024-01-16/country=DE/", table + "dt=2024-01-16/country=RU/");
        assertThat(r.filesBefore()).isEqualTo(32);
        assertThat(r.filesAfter()).isEqualTo(4);
        assertThat(r.rowsRead()).isEqualTo(96);
        assertThat(r.rowsWritten()).isEqualTo(96);
        assertThat(r.duplicatesDropped()).isZero();
        assertThat(filesPerFolder(bucket)).containsExactly(Map.entry("dt=2024-01-15/country=DE/", 1L), Map.entry("dt=2024-01-15/country=RU/", 1L),
                Map.entry("dt=2024-01-16/country=DE/", 1L), Map.entry("dt=2024-01-16/country=RU/", 1L), Map.entry("dt=2024-01-17/country=RU/", 1L));
        assertThat(TestLake.keys(bucket, "t/dt=2024-01-17/country=RU/")).containsExactly(single);
        assertThat(contents(bucket)).isEqualTo(before);
        assertThat(readSum(table)).isEqualTo(sum);
        assertThat(TestLake.query(bucket, "t/", "SELECT sum(\"amountCents\")::BIGINT, count(*) FROM t")).containsExactly(List.of(sum, 98L));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();

        CompactionResult again = S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        assertThat(again.partitions()).isEmpty();
        assertThat(again.write()).isNull();
    }

    @Test
    void filterAndThresholdChooseThePartitions() {
        String bucket = TestLake.memoryBucket();
        String table = smallFiles(bucket);
        CompactionResult none = S3Parquet.compact(table).s3(TestLake.memory().client()).whenMoreFilesThan(8).run();
        assertThat(none.partitions()).isEmpty();

        CompactionResult one = S3Parquet.compact(table).s3(TestLake.memory().client()).whenMoreFilesThan(7)
                .filter(PartitionFilter.in("dt", "2024-01-16").and(PartitionFilter.in("country", "DE"))).run();
        assertThat(one.partitions()).containsExactly(table + "dt=2024-01-16/country=DE/");
        assertThat(filesPerFolder(bucket)).containsEntry("dt=2024-01-16/country=DE/", 1L).containsEntry("dt=2024-01-15/country=DE/", 8L);
    }

    @Test
    void whenFilesSmallerThanCompactsOnlyPartitionsWithASmallFileAmongSeveral() {
        String bucket = TestLake.memoryBucket();
        String table = smallFiles(bucket);
        long smallest = TestLake.keys(bucket, "t/").stream().filter(k -> !k.startsWith("t/_tmp/"))
                .mapToLong(k -> TestLake.memory().client().headObject(b -> b.bucket(bucket).key(k)).contentLength()).min().orElseThrow();
        CompactionResult none = S3Parquet.compact(table).s3(TestLake.memory().client()).whenFilesSmallerThan(smallest).run();
        assertThat(none.partitions()).isEmpty();
        assertThat(filesPerFolder(bucket)).containsEntry("dt=2024-01-15/country=DE/", 8L);

        // every file is smaller than this; the single file of 2024-01-17/RU is not compacted (a partition needs two)
        CompactionResult some = S3Parquet.compact(table).s3(TestLake.memory().client()).whenFilesSmallerThan(smallest + 1_000_000).run();
        assertThat(some.partitions()).containsExactlyInAnyOrder(table + "dt=2024-01-15/country=DE/", table + "dt=2024-01-15/country=RU/",
                table + "dt=2024-01-16/country=DE/", table + "dt=2024-01-16/country=RU/");
        assertThat(filesPerFolder(bucket)).containsEntry("dt=2024-01-15/country=DE/", 1L).containsEntry("dt=2024-01-17/country=RU/", 1L);
        assertThatThrownBy(() -> S3Parquet.compact(table).whenFilesSmallerThan(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("whenFilesSmallerThan must be at least 1 byte, got 0");
    }

    record Event(long id, String payload, long version, String region) {
    }

    @Test
    void dedupKeepsTheLastRowPerKeyByTheOrderColumn() {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/t/";
        List<List<Event>> runs = List.of(
                List.of(new Event(1, "a1", 1, "EU"), new Event(2, "b1", 1, "EU"), new Event(3, "c1", 1, "EU"), new Event(4, "d1", 1, "EU"),
                        new Event(5, "e1", 1, "US")),
                List.of(new Event(3, "c2", 2, "EU"), new Event(4, "d2", 2, "EU"), new Event(5, "e2", 2, "US"), new Event(6, "f2", 2, "US")),
                List.of(new Event(5, "e3", 3, "US"), new Event(1, "a0", 0, "EU")));
        for (List<Event> run : runs) {
            S3Parquet.write(run).partitionBy("region").s3(TestLake.memory().client()).to(table);
        }
        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(List.of("id"), "version").run();
        assertThat(r.rowsRead()).isEqualTo(11);
        assertThat(r.duplicatesDropped()).isEqualTo(5);
        assertThat(r.rowsWritten()).isEqualTo(6);
        assertThat(TestLake.query(bucket, "t/", "SELECT id, payload, version, region FROM t ORDER BY id")).containsExactly(
                List.of(1L, "a1", 1L, "EU"), List.of(2L, "b1", 1L, "EU"), List.of(3L, "c2", 2L, "EU"), List.of(4L, "d2", 2L, "EU"),
                List.of(5L, "e3", 3L, "US"), List.of(6L, "f2", 2L, "US"));
    }

    @Test
    void dedupByAnUnknownColumnIsRefusedBeforeAnyChange() {
        String bucket = TestLake.memoryBucket();
        String table = smallFiles(bucket);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "t/");
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(TestLake.memory().client()).dedupBy(List.of("id"), "orderId").run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot compact " + table + " (step: validate): dedupBy names the column 'id', which the table does not have; "
                        + "its columns are [orderId, amountCents, price, dt, country]. Name columns of the table in dedupBy; nothing was "
                        + "changed.");
        assertThat(TestLake.snapshot(bucket, "t/").keySet()).isEqualTo(before.keySet());
    }

    enum Crash {
        STAGED_FILE(Step.STAGED_FILE), CHECKED(Step.LISTED_OLD_FILES), MANIFEST_WRITTEN(Step.MANIFEST_WRITTEN), COPIED_FILE(Step.COPIED_FILE),
        DELETED_BATCH(Step.DELETED_BATCH), BEFORE_CATALOG(Step.BEFORE_CATALOG), BEFORE_CLEANUP(Step.BEFORE_CLEANUP),
        STAGING_REMOVED(Step.STAGING_REMOVED);

        final Step step;

        Crash(Step step) {
            this.step = step;
        }
    }

    @ParameterizedTest
    @EnumSource(Crash.class)
    void crashAtEachStepThenRecoverLeavesTheTableAsBeforeOrAsAfter(Crash crash) {
        String bucket = TestLake.memoryBucket();
        String table = smallFiles(bucket);
        List<List<Object>> rows = contents(bucket);
        Map<String, Long> before = filesPerFolder(bucket);

        assertThatThrownBy(() -> S3Parquet.compact(table).s3(TestLake.memory().client()).tuning(Tunings.smallDeleteBatches())
                .stepHook((step, n) -> {
                    if (step == crash.step && n == 1) {
                        throw new SimulatedCrash(step, n);
                    }
                }).run()).isInstanceOf(SimulatedCrash.class);

        RecoveryResult recovered = Tunings.recover(table, TestLake.memory().client());
        boolean committed = crash.step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
        Map<String, Long> after = new TreeMap<>(before);
        after.replaceAll((folder, n) -> 1L);
        assertThat(filesPerFolder(bucket)).isEqualTo(committed ? after : before);
        assertThat(contents(bucket)).isEqualTo(rows);
        assertThat(recovered.rolledForward()).hasSize(committed ? 1 : 0);
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();

        // Then the compaction runs to its end (or finds nothing left to do).
        CompactionResult r = S3Parquet.compact(table).s3(TestLake.memory().client()).run();
        assertThat(r.partitions()).hasSize(committed ? 0 : 4);
        assertThat(filesPerFolder(bucket)).isEqualTo(after);
        assertThat(contents(bucket)).isEqualTo(rows);
    }

    @Test
    void anInvalidUriIsRefusedAsACompactionBeforeAnyRequest() {
        software.amazon.awssdk.services.s3.S3Client none = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(
                new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(software.amazon.awssdk.core.interceptor.Context.BeforeExecution context,
                                                software.amazon.awssdk.core.interceptor.ExecutionAttributes attributes) {
                        throw new AssertionError("a request was sent: " + context.request());
                    }
                })));
        Map<String, String> messages = new java.util.LinkedHashMap<>();
        messages.put("gs://bucket/t/", "Cannot compact gs://bucket/t/: the scheme is not s3:// or s3a://. Pass the table root as "
                + "s3://bucket/prefix/.");
        messages.put("s3://Bad_Bucket/t/", "Cannot compact s3://Bad_Bucket/t/: 'Bad_Bucket' is not a valid bucket name (3 to 63 characters "
                + "of a-z, 0-9, '.' and '-'). Check the URI.");
        messages.put("s3://bucket//t/", "Cannot compact s3://bucket//t/: the prefix has an empty path segment ('//'). Remove the extra "
                + "slash.");
        messages.put("s3://bucket/t/./u/", "Cannot compact s3://bucket/t/./u/: the prefix has a '.' segment, which S3 keeps literally but "
                + "other tools resolve. Use a plain prefix.");
        messages.forEach((uri, message) -> assertThatThrownBy(() -> S3Parquet.compact(uri).s3(none).run())
                .isInstanceOf(InvalidWriteException.class).hasMessage(message)
                .satisfies(e -> assertThat(((InvalidWriteException) e).step()).isEqualTo(WriteStep.VALIDATE)));
    }
}
