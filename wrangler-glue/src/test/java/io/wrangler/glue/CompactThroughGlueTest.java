package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CompactionResult;
import io.wrangler.InvalidWriteException;
import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import io.wrangler.partition.Buckets;
import io.wrangler.testkit.DuckReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.StorageDescriptor;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A compaction through Glue keeps the table as Glue declares it: a bucketed table is compacted bucket by bucket and
 * stays bucketed, and a partition registered outside the table folder is refused before anything changes.
 */
class CompactThroughGlueTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();

    record User(long userId, String name, String dt) {
    }

    private static final Pattern BUCKET_FILE = Pattern.compile("users/dt=d1/part-\\d{5}-\\d{3}-.+_bucket-(\\d{5})\\.snappy\\.parquet");

    @Test
    void aBucketedGlueTableStaysBucketedAndEachRowStaysInItsBucket() {
        String table = "s3://" + bucket + "/users/";
        GlueTable users = GlueCatalog.of(glue).table(db, "users").createDatabase(true);
        for (int run = 0; run < 2; run++) {
            List<User> rows = new ArrayList<>();
            for (long id = run * 8L; id < run * 8L + 8; id++) {
                rows.add(new User(id == 9 ? -7 : id, "n" + id, "d1")); // a small id v is in bucket v % 4; -7 in 2
            }
            S3Parquet.write(rows).partitionBy("dt").bucketBy(List.of("userId"), 4).catalog(users).s3(s3).to(table);
        }
        assertThat(Lake.snapshot(bucket)).hasSize(8);
        List<List<Object>> before = Lake.query(bucket, "users/", "SELECT userid, name FROM t ORDER BY ALL");

        CompactionResult r = S3Parquet.compact(table).catalog(users).s3(s3).run();

        assertThat(r.partitions()).containsExactly(table + "dt=d1/");
        assertThat(r.filesBefore()).isEqualTo(8);
        assertThat(r.filesAfter()).isEqualTo(4);
        Map<Integer, Integer> files = new TreeMap<>();
        Lake.snapshot(bucket).forEach((key, bytes) -> {
            Matcher m = BUCKET_FILE.matcher(key);
            assertThat(m.matches()).as(key).isTrue();
            int number = Integer.parseInt(m.group(1));
            files.merge(number, 1, Integer::sum);
            for (List<Object> row : DuckReader.queryFile(bytes, "SELECT userid FROM $file")) {
                assertThat(Buckets.bucketOf(List.of(((Number) row.get(0)).longValue()), 4)).as(key + " " + row).isEqualTo(number);
            }
        });
        assertThat(files).containsExactlyEntriesOf(new TreeMap<>(Map.of(0, 1, 1, 1, 2, 1, 3, 1)));
        assertThat(Lake.query(bucket, "users/", "SELECT userid, name FROM t ORDER BY ALL")).isEqualTo(before);
        StorageDescriptor sd = glue.getTable(b -> b.databaseName(db).name("users")).table().storageDescriptor();
        assertThat(sd.numberOfBuckets()).isEqualTo(4);
        assertThat(sd.bucketColumns()).containsExactly("userid");
        List<Partition> partitions = new ArrayList<>();
        glue.getPartitionsPaginator(b -> b.databaseName(db).tableName("users")).forEach(p -> partitions.addAll(p.partitions()));
        assertThat(partitions).singleElement().satisfies(p -> assertThat(p.storageDescriptor().numberOfBuckets()).isEqualTo(4));

        // A file numbered beyond the catalog's 4 buckets: the files are not bucketed as Glue says; refused before any change.
        String some = Lake.snapshot(bucket).keySet().iterator().next();
        String stray = some.replaceAll("_bucket-\\d{5}", "_bucket-00006");
        Lake.s3().put(bucket, stray, Lake.s3().get(bucket, some));
        Lake.s3().put(bucket, stray.replace("/part-00000-", "/part-00001-"), Lake.s3().get(bucket, some));
        Map<String, byte[]> now = Lake.snapshot(bucket);
        assertThatThrownBy(() -> S3Parquet.compact(table).catalog(users).s3(s3).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageStartingWith("Cannot compact " + table + " (step: validate): s3://" + bucket + "/" + stray + " has the bucket "
                        + "number 6, but glue:" + db + ".users declares 4 buckets, so the files were bucketed otherwise than the catalog "
                        + "says and a compaction could not keep Athena's reads right. Set the catalog's NumberOfBuckets to the files' "
                        + "count, or rewrite the table with bucketBy (OVERWRITE), then compact again; nothing was changed.");
        assertThat(Lake.snapshot(bucket)).containsOnlyKeys(now.keySet());
    }

    private static Column col(String name, String type) {
        return Column.builder().name(name).type(type).build();
    }

    record Old(String orderid, long amount) {
    }

    /** A Parquet file of the table's columns holding no rows, written by DuckDB. */
    private static byte[] emptyFile() throws Exception {
        Path file = Files.createTempFile("empty-", ".parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
            Files.delete(file);
            st.execute("COPY (SELECT 'a'::VARCHAR AS orderid, 1::BIGINT AS amount LIMIT 0) TO '" + file + "' (FORMAT parquet)");
            return Files.readAllBytes(file);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aPartitionRegisteredOutsideTheTableIsRefusedBeforeAnythingChanges() throws Exception {
        String table = "s3://" + bucket + "/sales/";
        List<Column> columns = List.of(col("orderid", "string"), col("amount", "bigint"));
        AwswranglerTables.create(glue, db, "sales", table, columns, List.of(col("country", "string")));
        for (int i = 0; i < 2; i++) {
            S3Parquet.write(List.of(new Old("o" + i, i))).s3(s3).to("s3://" + bucket + "/scratch" + i + "/");
            String key = Lake.list(bucket, "scratch" + i + "/").keySet().iterator().next();
            Lake.s3().put(bucket, "sales/country=x/part-" + i + ".parquet", Lake.s3().get(bucket, key));
            s3.deleteObject(b -> b.bucket(bucket).key(key));
        }
        AwswranglerTables.partition(glue, db, "sales", List.of("x"), table + "country=x/", columns);
        // The partition y is registered in another folder of the bucket, and its files hold no rows.
        String elsewhere = "s3://" + bucket + "/elsewhere/country=y/";
        Lake.s3().put(bucket, "elsewhere/country=y/a.parquet", emptyFile());
        Lake.s3().put(bucket, "elsewhere/country=y/b.parquet", emptyFile());
        AwswranglerTables.partition(glue, db, "sales", List.of("y"), elsewhere, columns);
        Map<String, byte[]> before = Lake.snapshot(bucket);
        GlueTable sales = GlueCatalog.of(glue).table(db, "sales");

        assertThatThrownBy(() -> S3Parquet.compact(table).catalog(sales).s3(s3).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot compact " + table + " (step: validate): the partition [country=y] is registered in glue:" + db
                        + ".sales at the Location " + elsewhere + ", which is outside the table root " + table + "; a compaction "
                        + "replaces files only in their partition's folder under the table, and never deletes elsewhere. Move the "
                        + "partition's files to a folder under " + table + " and set its Location to it, or leave the partition out "
                        + "with filter(...); nothing was changed.");
        assertThat(Lake.snapshot(bucket)).containsOnlyKeys(before.keySet());
        assertThat(glue.getPartition(b -> b.databaseName(db).tableName("sales").partitionValues("y")).partition().storageDescriptor()
                .location()).isEqualTo(elsewhere);

        // Without it, the table's own partition is compacted, named by its folder; the files outside stay as they were.
        CompactionResult r = S3Parquet.compact(table).catalog(sales).filter(PartitionFilter.in("country", "x")).s3(s3).run();
        assertThat(r.partitions()).containsExactly(table + "country=x/");
        assertThat(r.filesAfter()).isEqualTo(1);
        Map<String, byte[]> after = Lake.snapshot(bucket);
        assertThat(after.get("elsewhere/country=y/a.parquet")).isEqualTo(before.get("elsewhere/country=y/a.parquet"));
        assertThat(after.get("elsewhere/country=y/b.parquet")).isEqualTo(before.get("elsewhere/country=y/b.parquet"));
        assertThat(Lake.query(bucket, "sales/", "SELECT orderid, amount FROM t ORDER BY 1")).containsExactly(List.of("o0", 0L), List.of("o1", 1L));
    }
}
