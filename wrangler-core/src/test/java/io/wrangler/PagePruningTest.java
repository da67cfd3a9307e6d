package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.filter.BoundFilter;
import io.wrangler.testkit.MemoryS3;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * Page-level pruning (column and offset indexes) never drops a row that passes the filter, and it does fetch less: over
 * random data (nulls, NaN, sorted and unsorted columns of every type), pages of a few hundred bytes (many pages a row
 * group) and random predicates of every comparison, a read equals the filter applied to every row, and equals the
 * same read of the same files with their page indexes removed (statistics and bloom filters kept), which fetches more
 * for many of the predicates. A lookup on a sorted column fetches a small part of its file.
 */
class PagePruningTest {
    @TempDir
    Path temp;

    @Test
    void pagePruningNeverDropsAMatchingRowAndFetchesLess() throws Exception {
        S3Client s3 = TestLake.memory().client();
        String bucket = TestLake.memoryBucket();
        List<RowFilterDuckDbTest.Col> cols = RowFilterDuckDbTest.columns();
        int fewerBytes = 0;
        int nonTrivial = 0;
        for (int round = 0; round < 2; round++) {
            Random r = new Random(4242 + round);
            int rows = 3000 + r.nextInt(2000);
            String w = "pp" + round + "/";
            try (RootAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(RowFilterDuckDbTest.schema(), a)) {
                RowFilterDuckDbTest.fill(root, rows, r);
                FilterFixtures.write(root, 8L << 20, new int[] {128, 512}[round], s3, "s3://" + bucket + "/" + w, "p");
            }
            Path local = FilterFixtures.copy(s3, bucket, w, temp.resolve(w));
            String bare = "pn" + round + "/";
            FilterFixtures.upload(s3, bucket, bare, local, FilterFixtures::withoutPageIndexes);
            String table = "s3://" + bucket + "/" + w;
            String noIndex = "s3://" + bucket + "/" + bare;
            try (ArrowReader all = S3Parquet.read(table).s3(s3).batchRows(1_000_000).open()) {
                assertThat(all.loadNextBatch()).isTrue();
                VectorSchemaRoot every = all.getVectorSchemaRoot();
                assertThat(every.getRowCount()).isEqualTo(rows);
                IntVector k = (IntVector) every.getVector("k");
                for (int i = 0; i < 25; i++) {
                    RowFilter f = RowFilterDuckDbTest.predicate(r, cols, 2).filter();
                    BoundFilter bound = BoundFilter.bind(table, f, every.getSchema().getFields());
                    List<Integer> expected = Arrays.stream(bound.select(every)).map(k::get).sorted().boxed().toList();
                    long[] withBytes = new long[1];
                    long[] withoutBytes = new long[1];
                    // every column read (the filter's too), and only k (the filter's columns decoded beside it)
                    assertThat(FilterFixtures.readK(S3Parquet.read(table).s3(s3).where(f), new long[1])).as(w + ": " + f).isEqualTo(expected);
                    assertThat(FilterFixtures.readK(S3Parquet.read(table).s3(s3).where(f).columns("k"), withBytes)).as(w + ": " + f).isEqualTo(expected);
                    assertThat(FilterFixtures.readK(S3Parquet.read(noIndex).s3(s3).where(f).columns("k"), withoutBytes)).as(bare + ": " + f)
                            .isEqualTo(expected);
                    if (i % 2 == 0) {
                        assertThat(S3Parquet.read(table).s3(s3).where(f).count()).as("count " + f).isEqualTo(expected.size());
                    }
                    if (withBytes[0] < withoutBytes[0]) {
                        fewerBytes++;
                    }
                    if (!expected.isEmpty() && expected.size() < rows) {
                        nonTrivial++;
                    }
                }
            }
        }
        // not vacuous: many predicates select some rows, and the page indexes saved bytes for many of them
        assertThat(nonTrivial).isGreaterThan(12);
        assertThat(fewerBytes).isGreaterThan(5);
    }

    @Test
    void aLookupOnASortedColumnFetchesAFewPagesOfItsFile() throws Exception {
        MemoryS3 s3 = MemoryS3.start();
        String bucket = TestLake.bucket(s3);
        String table = "s3://" + bucket + "/sorted/";
        // one row group of the whole file, pages of 8 KiB
        FilterFixtures.sortedTable(s3.client(), table, 200_000, 64L << 20, 8 * 1024);
        Map<String, Long> objects = s3.list(bucket, "sorted/");
        long fileBytes = objects.entrySet().stream().filter(e -> e.getKey().endsWith(".parquet")).mapToLong(Map.Entry::getValue).sum();
        assertThat(objects.keySet().stream().filter(key -> key.endsWith(".parquet"))).as("one file").hasSize(1);

        s3.clearRequests();
        List<String> got = new ArrayList<>();
        long bytes;
        try (ArrowReader r = S3Parquet.read(table).s3(s3.client()).where(RowFilter.eq("k", 123_457L)).open()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    got.add(b.getVector("k").getObject(i) + " " + b.getVector("h").getObject(i) + " " + b.getVector("s").getObject(i));
                }
            }
            bytes = r.bytesRead();
        }
        assertThat(got).containsExactly("123457 " + FilterFixtures.sortedH(123_457L) + " " + FilterFixtures.sortedS(123_457L));
        long fetched = s3.requests().stream().filter(q -> q.request() instanceof GetObjectRequest)
                .mapToLong(q -> length(((GetObjectRequest) q.request()).range(), fileBytes)).sum();
        assertThat(fetched).as("bytes of the GETs of a lookup in one row group of " + fileBytes + " bytes").isLessThan(fileBytes / 20);
        assertThat(bytes).isLessThanOrEqualTo(fetched);
        assertThat(S3Parquet.read(table).s3(s3.client()).where(RowFilter.and(RowFilter.ge("k", 1000L), RowFilter.lt("k", 2000L))).count()).isEqualTo(1000);
    }

    /** The bytes a range header asks for ({@code bytes=a-b}), or the whole file's without one. */
    private static long length(String range, long file) {
        if (range == null) {
            return file;
        }
        String[] ab = range.substring("bytes=".length()).split("-");
        return Long.parseLong(ab[1]) - Long.parseLong(ab[0]) + 1;
    }
}
