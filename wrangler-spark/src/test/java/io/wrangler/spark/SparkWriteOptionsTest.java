package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Compression;
import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.WriteResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** A Spark write takes the WriteOptions a job shares with its single-process writes. */
class SparkWriteOptionsTest {
    private static final WriteOptions DAILY = WriteOptions.builder().partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS)
            .compression(Compression.ZSTD).filenamePrefix("job7-").maxRowsPerFile(40).encryption(Encryption.sseS3())
            .retryPolicy(RetryPolicy.of(3, Duration.ofMillis(1), Duration.ofMillis(5))).build();

    /** Rows (id, cents, dt, country) for ids [from, to), over 2 Spark partitions. */
    private static Dataset<Row> range(long from, long to, String day) {
        return SparkLake.spark().sql("SELECT id, CAST(id * 10 AS BIGINT) AS cents, '" + day + "' AS dt, "
                + "element_at(array('RU','DE'), CAST(id % 2 AS INT) + 1) AS country FROM range(" + from + ", " + to + ", 1, 2)");
    }

    @Test
    void sharedOptionsLayOutEncodeEncryptAndCommitTheSparkWrite() {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/orders/";
        SparkParquet.write(range(0, 100, "2024-01-15")).options(DAILY).s3(SparkLake.settings()).to(uri);
        WriteResult r = SparkParquet.write(range(1000, 1010, "2024-01-16")).options(DAILY).s3(SparkLake.settings()).to(uri);
        SparkParquet.write(range(2000, 2004, "2024-01-16")).options(DAILY).s3(SparkLake.settings()).to(uri);

        assertThat(r.rows()).isEqualTo(10);
        // OVERWRITE_PARTITIONS: the third write replaced the second's partitions and left the first's
        assertThat(SparkLake.query(bucket, "orders/", "SELECT CAST(dt AS VARCHAR), country, count(*), min(id), max(id) FROM t "
                + "GROUP BY ALL ORDER BY ALL")).containsExactly(
                        List.of("2024-01-15", "DE", 50L, 1L, 99L), List.of("2024-01-15", "RU", 50L, 0L, 98L),
                        List.of("2024-01-16", "DE", 2L, 2001L, 2003L), List.of("2024-01-16", "RU", 2L, 2000L, 2002L));
        List<String> data = SparkLake.keys(bucket, "orders/").stream().filter(k -> !k.startsWith("orders/_tmp/")).toList();
        assertThat(data).allSatisfy(k -> assertThat(k.substring(k.lastIndexOf('/') + 1)).startsWith("job7-t").endsWith(".zstd.parquet"));
        // 50 rows of a day and country in 2 Spark partitions, at most 40 rows a file: at least 2 files each
        assertThat(data.stream().filter(k -> k.startsWith("orders/dt=2024-01-15/country=RU/"))).hasSizeGreaterThanOrEqualTo(2);
        assertThat(data).allSatisfy(k -> assertThat(SparkLake.s3().client().headObject(h -> h.bucket(bucket).key(k))
                .serverSideEncryptionAsString()).isEqualTo("AES256"));
    }

    @Test
    void optionsASparkWriteCannotHonourAreRefused() {
        Dataset<Row> df = range(0, 2, "2024-01-15");
        assertThatThrownBy(() -> SparkParquet.write(df).options(DAILY.toBuilder().s3(SparkLake.s3().client()).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot write a DataFrame with these WriteOptions: they hold an S3 client, which cannot reach the executors; "
                        + "leave it out and give the write S3Settings with s3(...).");
        assertThatThrownBy(() -> SparkParquet.write(df).options(DAILY.toBuilder().spillDirectory(Path.of("/big")).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot write a DataFrame with these WriteOptions: they name a spill directory (/big), but each executor spills "
                        + "into its own temporary directory; leave it out.");
        assertThatThrownBy(() -> SparkParquet.write(df).options(DAILY.toBuilder().dtype(Map.of("cents", "bigint")).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot write a DataFrame with these WriteOptions: they hold dtype {cents=bigint}, which wrangler-spark does not "
                        + "support yet; cast the columns in Spark and leave it out.");
        assertThatThrownBy(() -> SparkParquet.write(df).options(DAILY.toBuilder().timestampsAsInt96(true).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot write a DataFrame with these WriteOptions: they ask for timestampsAsInt96, which wrangler-spark does "
                        + "not write; leave it out.");
        assertThatThrownBy(() -> SparkParquet.write(df).compression(Compression.GZIP).options(DAILY))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Cannot apply WriteOptions: option(\"compression\", ...) was set before options(...), which replaces every "
                        + "option and would undo it; call options(...) first, then the setters for this write");
        assertThatThrownBy(() -> SparkParquet.write(df).options(DAILY).options(DAILY)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void layoutOptionsReachEveryTaskAndItsFiles() {
        String bucket = SparkLake.bucket();
        Dataset<Row> df = SparkLake.spark().sql("SELECT CAST((id * 7919) % 1000 AS BIGINT) AS id, concat('n', CAST(id % 5 AS STRING)) AS name "
                + "FROM range(0, 1000, 1, 2)");
        SparkParquet.write(df).s3(SparkLake.settings()).sortBy("id").bloomFilters("id").dictionaryEncoding(Map.of("name", false))
                .fileMetadata(Map.of("source", "crm")).storageClass("STANDARD_IA").tags(Map.of("team", "risk")).to("s3://" + bucket + "/l/");
        List<String> data = SparkLake.keys(bucket, "l/").stream().filter(k -> !k.startsWith("l/_tmp/") && k.endsWith(".parquet")).toList();
        assertThat(data).hasSize(2);
        var client = SparkLake.s3().client();
        for (String k : data) {
            byte[] file = client.getObjectAsBytes(g -> g.bucket(bucket).key(k)).asByteArray();
            List<Long> ids = io.wrangler.testkit.DuckReader.queryFile(file, "SELECT id FROM read_parquet($file)").stream()
                    .map(r -> (Long) r.get(0)).toList();
            assertThat(ids).hasSize(500).isSorted();
            assertThat(io.wrangler.testkit.DuckReader.queryFile(file, "SELECT value::VARCHAR FROM parquet_kv_metadata($file) "
                    + "WHERE key::VARCHAR = 'source'")).containsExactly(List.of("crm"));
            assertThat(io.wrangler.testkit.DuckReader.queryFile(file, "SELECT path_in_schema, bloom_filter_offset IS NOT NULL, "
                    + "encodings LIKE '%DICTIONARY%' FROM parquet_metadata($file) ORDER BY column_id"))
                    .containsExactly(List.of("id", true, false), List.of("name", false, false));
            assertThat(client.headObject(h -> h.bucket(bucket).key(k)).storageClassAsString()).isEqualTo("STANDARD_IA");
            assertThat(client.getObjectTagging(t -> t.bucket(bucket).key(k)).tagSet())
                    .containsExactly(software.amazon.awssdk.services.s3.model.Tag.builder().key("team").value("risk").build());
        }
    }
}
