package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Orders.Order;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/** WriteOptions are a value: shared by writes on several threads, changed by copy, refused when bad. */
class WriteOptionsTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);

    private final String bucket = TestLake.bucket();
    private final S3Client s3 = TestLake.s3().client();

    private WriteOptions daily() {
        return WriteOptions.builder().s3(s3).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).compression(Compression.ZSTD)
                .maxRowsPerFile(2).filenamePrefix("job7-").encryption(Encryption.sseS3()).retryPolicy(RetryPolicy.of(3, Duration.ofMillis(1),
                        Duration.ofMillis(5))).build();
    }

    private List<List<Object>> rows(String prefix) {
        return TestLake.query(bucket, prefix, "SELECT CAST(dt AS VARCHAR), country, \"orderId\", \"amountCents\", CAST(price AS VARCHAR) "
                + "FROM t ORDER BY ALL");
    }

    /** Each data file's folder and name, less the write id, which differs from write to write. */
    private List<String> files(String prefix) {
        return TestLake.keys(bucket, prefix).stream().filter(k -> !k.contains("/_tmp/")).map(k -> k.substring(prefix.length()))
                .map(k -> k.replaceAll("part-(\\d+)-(\\d+)-[^.]+\\.", "part-$1-$2-<id>.")).sorted().toList();
    }

    @Test
    void optionsSharedByTwoWritesOnTwoThreadsWriteWhatTheFluentFormWrites() throws Exception {
        List<Order> orders = Orders.orders("o", List.of(D15, D16), List.of("RU", "DE"), 3);
        List<Order> refunds = Orders.orders("r", List.of(D16), List.of("US"), 5);
        WriteOptions shared = daily();
        WriteOptions asBuilt = daily();

        CyclicBarrier start = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<WriteResult> a = pool.submit(() -> {
                start.await();
                return S3Parquet.write(orders).options(shared).to("s3://" + bucket + "/shared/orders/");
            });
            Future<WriteResult> b = pool.submit(() -> {
                start.await();
                return S3Parquet.write(refunds).options(shared).to("s3://" + bucket + "/shared/refunds/");
            });
            assertThat(a.get().rows()).isEqualTo(12);
            assertThat(b.get().rows()).isEqualTo(5);
        } finally {
            pool.shutdownNow();
        }
        for (var e : Map.of("orders", orders, "refunds", refunds).entrySet()) {
            S3Parquet.write(e.getValue()).s3(s3).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).compression(Compression.ZSTD)
                    .maxRowsPerFile(2).filenamePrefix("job7-").sseS3().retry(3, Duration.ofMillis(1), Duration.ofMillis(5))
                    .to("s3://" + bucket + "/fluent/" + e.getKey() + "/");
        }

        assertThat(shared).isEqualTo(asBuilt);
        for (String t : List.of("orders", "refunds")) {
            assertThat(rows("shared/" + t + "/")).isEqualTo(rows("fluent/" + t + "/"));
            assertThat(files("shared/" + t + "/")).isEqualTo(files("fluent/" + t + "/"));
        }
        assertThat(rows("shared/refunds/")).containsExactly(
                List.of("2024-01-16", "US", "r-2024-01-16-US-0", 100L, "0.25"),
                List.of("2024-01-16", "US", "r-2024-01-16-US-1", 200L, "1.25"),
                List.of("2024-01-16", "US", "r-2024-01-16-US-2", 300L, "2.25"),
                List.of("2024-01-16", "US", "r-2024-01-16-US-3", 400L, "3.25"),
                List.of("2024-01-16", "US", "r-2024-01-16-US-4", 500L, "4.25"));
        assertThat(files("shared/refunds/")).containsExactly(
                "dt=2024-01-16/country=US/job7-part-00000-000-<id>.zstd.parquet",
                "dt=2024-01-16/country=US/job7-part-00000-001-<id>.zstd.parquet",
                "dt=2024-01-16/country=US/job7-part-00000-002-<id>.zstd.parquet");
        String dataKey = TestLake.keys(bucket, "shared/orders/dt=2024-01-15/country=RU/").get(0);
        assertThat(s3.headObject(h -> h.bucket(bucket).key(dataKey)).serverSideEncryptionAsString()).isEqualTo("AES256");
    }

    @Test
    void aSetterAfterSharedOptionsChangesThisWriteOnly() {
        String table = "s3://" + bucket + "/t/";
        WriteOptions shared = daily();
        S3Parquet.write(Orders.orders("a", List.of(D15), List.of("RU"), 1)).options(shared).to(table);
        S3Parquet.write(Orders.orders("b", List.of(D15), List.of("RU"), 1)).options(shared).mode(WriteMode.APPEND).to(table);
        S3Parquet.write(Orders.orders("c", List.of(D16), List.of("RU"), 1)).options(shared).to(table);
        S3Parquet.write(Orders.orders("d", List.of(D16), List.of("RU"), 1)).options(shared).to(table);

        assertThat(shared.mode()).isEqualTo(WriteMode.OVERWRITE_PARTITIONS);
        assertThat(TestLake.query(bucket, "t/", "SELECT \"orderId\" FROM t ORDER BY 1")).extracting(r -> r.get(0))
                .containsExactly("a-2024-01-15-RU-0", "b-2024-01-15-RU-0", "d-2024-01-16-RU-0");
    }

    @Test
    void optionsAfterASetterOrTwiceAreRefusedBecauseTheyWouldUndoIt() {
        WriteOptions shared = daily();
        assertThatThrownBy(() -> S3Parquet.write(Orders.orders("a", List.of(D15), List.of("RU"), 1)).compression(Compression.GZIP).options(shared))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Cannot apply WriteOptions: compression(...) was set before options(...), which replaces every option and would "
                        + "undo it; call options(...) first, then the setters for this write");
        assertThatThrownBy(() -> S3Parquet.write(Orders.orders("a", List.of(D15), List.of("RU"), 1)).options(shared).options(shared))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Cannot apply WriteOptions: this write was given options(...) already; give it one WriteOptions "
                        + "(options.toBuilder() makes a changed copy)");
        // a refused value sets nothing, so options may still follow
        WriteBuilder w = S3Parquet.write(Orders.orders("a", List.of(D15), List.of("RU"), 1));
        assertThatThrownBy(() -> w.maxRowsPerFile(0)).isInstanceOf(IllegalArgumentException.class);
        w.options(shared);
        // what belongs to one write alone may come first
        S3Parquet.write(Orders.orders("a", List.of(D15), List.of("RU"), 1)).idempotencyKey("k").progress(new Progress() { }).options(shared)
                .to("s3://" + bucket + "/t/");
        assertThat(TestLake.keys(bucket, "t/dt=2024-01-15/country=RU/")).singleElement().asString().contains("/job7-part-00000-");
    }

    @Test
    void toBuilderChangesOneOptionAndLeavesTheOriginalAsItWas() {
        WriteOptions original = daily();
        WriteOptions.Builder b = original.toBuilder();
        WriteOptions gzip = b.compression(Compression.GZIP).build();
        WriteOptions gzipLz = b.partitionBy("dt").build();

        assertThat(original.compression()).isEqualTo(Compression.ZSTD);
        assertThat(original.partitionBy()).containsExactly("dt", "country");
        assertThat(gzip.compression()).isEqualTo(Compression.GZIP);
        assertThat(gzip.partitionBy()).containsExactly("dt", "country");
        assertThat(gzipLz.partitionBy()).containsExactly("dt");
        assertThat(gzip).isNotEqualTo(original);
        assertThat(gzip.toBuilder().compression(Compression.ZSTD).build()).isEqualTo(original).hasSameHashCodeAs(original);
        assertThat(original).isEqualTo(daily());
    }

    @Test
    void optionsAreEqualExactlyWhenEveryOptionIs() {
        List<UnaryOperator<WriteOptions.Builder>> changes = List.of(
                b -> b.mode(WriteMode.OVERWRITE),
                b -> b.partitionBy("dt"),
                b -> b.compression(Compression.GZIP),
                b -> b.maxRowsPerFile(10),
                b -> b.targetFileSize(1 << 20),
                b -> b.spillDirectory(Path.of("/spill")),
                b -> b.commitMethod(CommitMethod.DEFERRED_UPLOADS),
                b -> b.preserveNanoseconds(true),
                b -> b.timestampsAsInt96(true),
                b -> b.lease(false),
                b -> b.leaseWait(Duration.ofSeconds(1)),
                b -> b.encryption(Encryption.kms("k")),
                b -> b.acl("bucket-owner-full-control"),
                b -> b.expectedBucketOwner("123456789012"),
                b -> b.retryPolicy(RetryPolicy.none()),
                b -> b.concurrency(3),
                b -> b.s3(s3),
                b -> b.dtype(Map.of("n", "bigint")),
                b -> b.bucketBy(List.of("id"), 4),
                b -> b.filenamePrefix("x"));
        List<WriteOptions> changed = new ArrayList<>();
        for (UnaryOperator<WriteOptions.Builder> c : changes) {
            WriteOptions one = c.apply(WriteOptions.builder()).build();
            WriteOptions again = c.apply(WriteOptions.builder()).build();
            assertThat(one).isEqualTo(again).hasSameHashCodeAs(again).isNotEqualTo(WriteOptions.defaults());
            assertThat(one.toString()).isEqualTo(again.toString()).isNotEqualTo(WriteOptions.defaults().toString());
            changed.add(one);
        }
        assertThat(changed).doesNotHaveDuplicates();
        assertThat(WriteOptions.builder().build()).isEqualTo(WriteOptions.defaults()).hasSameHashCodeAs(WriteOptions.defaults());
        try (S3Client another = TestLake.s3().newClient()) {
            assertThat(WriteOptions.builder().s3(s3).build()).isNotEqualTo(WriteOptions.builder().s3(another).build());
        }
    }

    @Test
    void theDefaultsAreWhatAWriteWithoutOptionsUses() {
        WriteOptions d = WriteOptions.defaults();
        assertThat(d.mode()).isEqualTo(WriteMode.APPEND);
        assertThat(d.partitionBy()).isEmpty();
        assertThat(d.compression()).isEqualTo(Compression.SNAPPY);
        assertThat(d.maxRowsPerFile()).isEqualTo(Long.MAX_VALUE);
        assertThat(d.targetFileSize()).isEqualTo(Long.MAX_VALUE);
        assertThat(d.spillDirectory()).isEmpty();
        assertThat(d.commitMethod()).isEqualTo(CommitMethod.STAGE_AND_COPY);
        assertThat(d.lease()).isTrue();
        assertThat(d.leaseWait()).isEqualTo(Duration.ofMinutes(3));
        assertThat(d.encryption()).isEqualTo(Encryption.none());
        assertThat(d.acl()).isEmpty();
        assertThat(d.expectedBucketOwner()).isEmpty();
        assertThat(d.retryPolicy()).isEqualTo(RetryPolicy.of(4, Duration.ofMillis(200), Duration.ofSeconds(10))).isEqualTo(RetryPolicy.defaults());
        assertThat(d.concurrency()).isEqualTo(48);
        assertThat(d.s3()).isEmpty();
        assertThat(d.buckets()).isZero();
        assertThat(d.filenamePrefix()).isEmpty();
    }

    @Test
    void badValuesAreRefusedWhenSetWithClearMessages() {
        WriteOptions.Builder b = WriteOptions.builder();
        assertThatThrownBy(() -> b.maxRowsPerFile(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxRowsPerFile must be at least 1, got 0");
        assertThatThrownBy(() -> b.targetFileSize(1000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("targetFileSize must be at least 1 KiB, got 1000");
        assertThatThrownBy(() -> b.leaseWait(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leaseWait must not be negative, got PT-1S");
        assertThatThrownBy(() -> b.concurrency(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("concurrency must be at least 1, got 0");
        assertThatThrownBy(() -> b.filenamePrefix("_x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filenamePrefix '_x' starts with '_', which makes Hive, Spark, Athena and Trino skip the files as hidden: "
                        + "start it with a letter or digit");
        assertThatThrownBy(() -> b.bucketBy(List.of("id"), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bucketBy needs at least 1 bucket, got 0");
        assertThatThrownBy(() -> b.dtype(Map.of("n", "notatype"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("dtype of 'n': ");
        assertThatThrownBy(() -> b.partitionBy("dt", null)).isInstanceOf(NullPointerException.class).hasMessage("partition column");
        assertThatThrownBy(() -> b.encryption(null)).isInstanceOf(NullPointerException.class).hasMessage("encryption");
        assertThatThrownBy(() -> RetryPolicy.of(0, Duration.ZERO, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempts must be at least 1, got 0");
        assertThatThrownBy(() -> RetryPolicy.of(3, Duration.ofMillis(-1), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the retry base must not be negative, got PT-0.001S");
        assertThatThrownBy(() -> RetryPolicy.of(3, Duration.ofSeconds(2), Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the retry cap (PT1S) is shorter than its base (PT2S): give a cap at least as long as the base");
        assertThatThrownBy(() -> Encryption.kms(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the KMS key id is blank: give a key id or ARN, or use Encryption.kms() for the bucket's default key");
        // a refused value leaves the builder as it was
        assertThat(b.build()).isEqualTo(WriteOptions.defaults());
    }

    @Test
    void encryptionsAreValuesNamedAsTheirFactories() {
        assertThat(Encryption.kms("k")).isEqualTo(Encryption.kms("k")).hasSameHashCodeAs(Encryption.kms("k")).isNotEqualTo(Encryption.kms());
        assertThat(Encryption.kms("k").serverSideEncryption()).isEqualTo("aws:kms");
        assertThat(Encryption.kms("k").kmsKeyId()).isEqualTo("k");
        assertThat(Encryption.sseS3().serverSideEncryption()).isEqualTo("AES256");
        assertThat(Encryption.none().serverSideEncryption()).isNull();
        assertThat(List.of(Encryption.none(), Encryption.sseS3(), Encryption.kms(), Encryption.kms("k")).stream().map(Object::toString))
                .containsExactly("Encryption.none()", "Encryption.sseS3()", "Encryption.kms()", "Encryption.kms(k)");
        assertThat(RetryPolicy.none().attempts()).isEqualTo(1);
        assertThat(RetryPolicy.of(2, Duration.ZERO, Duration.ofMillis(3))).hasToString("RetryPolicy[attempts=2, base=PT0S, cap=PT0.003S]");
    }

    @Test
    void aCompactionTakesTheWritesOptionsAndRefusesThoseItCannotHonour() {
        String table = "s3://" + bucket + "/t/";
        WriteOptions tableWide = WriteOptions.builder().s3(s3).compression(Compression.ZSTD).filenamePrefix("c-").build();
        for (int run = 0; run < 3; run++) {
            S3Parquet.write(Orders.orders("r" + run, List.of(D15), List.of("RU", "DE"), 2)).options(tableWide).partitionBy("dt", "country")
                    .to(table);
        }
        List<List<Object>> before = rows("t/");

        assertThatThrownBy(() -> S3Parquet.compact(table).options(daily())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot compact " + table + " with these WriteOptions: mode is OVERWRITE_PARTITIONS, but a compaction always "
                        + "replaces exactly the files it read in the partitions it rewrites. Give compact(...) options that leave it at its "
                        + "default.");
        assertThatThrownBy(() -> S3Parquet.compact(table).options(tableWide.toBuilder().commitMethod(CommitMethod.DEFERRED_UPLOADS).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commitMethod is DEFERRED_UPLOADS, but a compaction reads "
                        + "its new files back before its commit point");
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(s3).options(tableWide)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Cannot apply WriteOptions: s3(...) was set before options(...), which replaces every option and would undo "
                        + "it; call options(...) first, then the setters for this compaction");

        CompactionResult r = S3Parquet.compact(table).options(tableWide).run();

        assertThat(r.filesBefore()).isEqualTo(6);
        assertThat(r.filesAfter()).isEqualTo(2);
        assertThat(rows("t/")).isEqualTo(before);
        Map<String, List<String>> byFolder = files("t/").stream().collect(Collectors.groupingBy(f -> f.substring(0, f.lastIndexOf('/')),
                TreeMap::new, Collectors.toList()));
        assertThat(byFolder).containsExactly(
                Map.entry("dt=2024-01-15/country=DE", List.of("dt=2024-01-15/country=DE/c-part-00000-000-<id>.zstd.parquet")),
                Map.entry("dt=2024-01-15/country=RU", List.of("dt=2024-01-15/country=RU/c-part-00001-000-<id>.zstd.parquet")));
    }
}
