package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.filter.BoundFilter;
import io.wrangler.filter.FooterStats;
import io.wrangler.filter.Verdict;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.MemoryS3;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * Pruning by statistics never drops a row that passes the filter, whatever the data, the layout (row group and page
 * sizes; wrangler's files, the same files with every statistic, page index and bloom filter stripped, DuckDB's files)
 * and the predicate; and it does skip: a row group statistics rule out is never fetched, and a count that statistics
 * decide reads footers only.
 */
class RowFilterPruningTest {
    @TempDir
    Path temp;

    @Test
    void pruningNeverDropsAMatchingRow() throws Exception {
        S3Client s3 = TestLake.memory().client();
        String bucket = TestLake.memoryBucket();
        Map<String, Map<Verdict, Integer>> verdicts = new LinkedHashMap<>();
        List<RowFilterDuckDbTest.Col> cols = RowFilterDuckDbTest.columns();
        for (int round = 0; round < 2; round++) {
            Random r = new Random(1000 + round);
            int rows = 5000 + r.nextInt(5000);
            String w = "w" + round + "/";
            try (RootAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(RowFilterDuckDbTest.schema(), a)) {
                RowFilterDuckDbTest.fill(root, rows, r);
                FilterFixtures.write(root, new long[] {2048, 8192, 65536}[r.nextInt(3)], new int[] {256, 2048}[r.nextInt(2)],
                        s3, "s3://" + bucket + "/" + w, "p");
            }
            Path local = FilterFixtures.copy(s3, bucket, w, temp.resolve(w));
            String stripped = "s" + round + "/";
            FilterFixtures.upload(s3, bucket, stripped, local, FilterFixtures::withoutStatistics);
            String duck = "d" + round + "/";
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
                st.execute("SET TimeZone='UTC'");
                st.execute("COPY (SELECT * FROM read_parquet('" + local + "/**/*.parquet', hive_partitioning=true, hive_types_autocast=false)) "
                        + "TO '" + temp.resolve(duck) + "' (FORMAT PARQUET, PARTITION_BY (p), ROW_GROUP_SIZE " + (2048 + r.nextInt(2048)) + ")");
            }
            FilterFixtures.upload(s3, bucket, duck, temp.resolve(duck));
            for (String layout : List.of(w, stripped, duck)) {
                String table = "s3://" + bucket + "/" + layout;
                Map<Verdict, Integer> seen = verdicts.computeIfAbsent(layout.substring(0, 1), k -> new EnumMap<>(Verdict.class));
                List<ParquetMetadata> footers = footers(s3, bucket, layout);
                try (ArrowReader all = S3Parquet.read(table).s3(s3).batchRows(1_000_000).open()) {
                    assertThat(all.loadNextBatch()).isTrue();
                    VectorSchemaRoot every = all.getVectorSchemaRoot();
                    assertThat(every.getRowCount()).isEqualTo(rows);
                    List<Field> fields = every.getSchema().getFields();
                    for (int i = 0; i < 20; i++) {
                        RowFilter f = RowFilterDuckDbTest.predicate(r, cols, 3).filter();
                        BoundFilter bound = BoundFilter.bind(table, f, fields);
                        IntVector k = (IntVector) every.getVector("k");
                        List<Integer> expected = Arrays.stream(bound.select(every)).map(k::get).boxed().toList();
                        assertThat(FilterFixtures.readK(S3Parquet.read(table).s3(s3).where(f))).as(layout + ": " + f).isEqualTo(expected);
                        assertThat(S3Parquet.read(table).s3(s3).where(f).count()).as(layout + ": count " + f).isEqualTo(expected.size());
                        tally(footers, bound, seen);
                    }
                }
            }
        }
        // not vacuous: statistics decided row groups both ways on the files with statistics, never on the stripped ones
        assertThat(verdicts.get("w").getOrDefault(Verdict.NONE, 0)).isGreaterThan(15);
        assertThat(verdicts.get("w").getOrDefault(Verdict.ALL, 0)).isGreaterThan(3);
        assertThat(verdicts.get("d").getOrDefault(Verdict.NONE, 0)).isGreaterThan(15);
        assertThat(verdicts.get("s")).containsOnlyKeys(Verdict.SOME);
    }

    /** Counts what each row group's statistics say of {@code bound} (its data columns; the partition column unknown). */
    private static void tally(List<ParquetMetadata> footers, BoundFilter bound, Map<Verdict, Integer> seen) {
        Map<String, Field> data = new LinkedHashMap<>(bound.columns());
        data.remove("p");
        for (ParquetMetadata footer : footers) {
            for (BlockMetaData block : footer.getBlocks()) {
                Verdict v = bound.verdict(FooterStats.of(block, footer.getFileMetaData().getSchema(), data, null));
                seen.merge(v, 1, Integer::sum);
            }
        }
    }

    private static List<ParquetMetadata> footers(S3Client s3, String bucket, String prefix) {
        List<ParquetMetadata> out = new ArrayList<>();
        for (var o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
            if (o.key().endsWith(".parquet")) {
                out.add(FilterFixtures.footer(s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArray()));
            }
        }
        return out;
    }

    /** One file of 400,000 rows in row groups of about 256 KiB ({@link FilterFixtures#sortedTable}). */
    private static String bigTable(S3Client s3, String bucket) {
        String table = "s3://" + bucket + "/big/";
        FilterFixtures.sortedTable(s3, table, 400_000, 256 * 1024, 16 * 1024);
        return table;
    }

    @Test
    void rowGroupsStatisticsRuleOutAreNotFetchedAndCountsTheyDecideReadFootersOnly() throws Exception {
        MemoryS3 s3 = MemoryS3.start();
        String bucket = TestLake.bucket(s3);
        String table = bigTable(s3.client(), bucket);
        long fileBytes = s3.list(bucket, "big/").entrySet().stream().filter(e -> e.getKey().endsWith(".parquet"))
                .mapToLong(Map.Entry::getValue).sum();
        assertThat(fileBytes).as("one file of several row groups, larger than a whole-file GET").isGreaterThan(2L << 20);

        List<Long> hs = new ArrayList<>();
        long bytes;
        try (ArrowReader r = S3Parquet.read(table).s3(s3.client()).where(RowFilter.eq("k", 123_456L)).columns("h").open()) {
            while (r.loadNextBatch()) {
                BigIntVector h = (BigIntVector) r.getVectorSchemaRoot().getVector("h");
                for (int i = 0; i < r.getVectorSchemaRoot().getRowCount(); i++) {
                    hs.add(h.get(i));
                }
            }
            bytes = r.bytesRead();
        }
        assertThat(hs).containsExactly(FilterFixtures.sortedH(123_456L));
        assertThat(bytes).as("bytes fetched for one row group of " + fileBytes).isLessThan(fileBytes / 5);

        s3.clearRequests();
        assertThat(S3Parquet.read(table).s3(s3.client()).where(RowFilter.ge("k", 0L)).count()).isEqualTo(400_000);
        assertThat(S3Parquet.read(table).s3(s3.client()).where(RowFilter.lt("k", 0L)).count()).isZero();
        assertThat(S3Parquet.read(table).s3(s3.client()).where(RowFilter.isNull("k").or(RowFilter.gt("h", Long.MAX_VALUE))).count()).isZero();
        assertThat(gets(s3)).as("footers only: one GET of each count, of the file's tail").hasSize(3)
                .allMatch(g -> g.endsWith("-" + (fileBytes - 1)));

        s3.clearRequests();
        assertThat(S3Parquet.read(table).s3(s3.client()).where(RowFilter.lt("h", 0L)).count())
                .isEqualTo(DuckReader.query(s3, bucket, "big/", "SELECT count(*) FROM t WHERE h < 0").get(0).get(0));
        assertThat(gets(s3)).as("statistics cannot decide h < 0: the column h is fetched").hasSizeGreaterThan(1);
    }

    private static List<String> gets(MemoryS3 s3) {
        return s3.requests().stream().filter(q -> q.request() instanceof GetObjectRequest)
                .map(q -> q.key() + " " + ((GetObjectRequest) q.request()).range()).toList();
    }
}
