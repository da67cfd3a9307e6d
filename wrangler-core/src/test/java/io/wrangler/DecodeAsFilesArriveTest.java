package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.read.FullBatches;
import io.wrangler.read.TableReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Test;

/**
 * A read of every row on several threads decodes each file as its bytes arrive, into vectors of the file's own columns,
 * before every footer is in and the read's schema known; the batches are mapped by name into the read's schema when
 * handed over. The rows, their order and the union by name are those of a read decoded on the caller's thread, and
 * DuckDB's.
 */
class DecodeAsFilesArriveTest {
    record A(long id, long amount, String region) {
    }

    /** Adds a column spelled in capitals, and puts it first. */
    record B(long DISCOUNT, long id, long amount, String region) {
    }

    /** Lacks {@code amount}; its columns in another order. */
    record C(String note, long discount, long id, String region) {
    }

    record Bad(long id, String amount, String region) {
    }

    /** Six files in two partitions, each append's schema another: the last file adds {@code note}. */
    private static String evolved(String bucket) {
        String table = "s3://" + bucket + "/t/";
        var s3 = TestLake.memory().client();
        S3Parquet.write(List.of(new A(1, 10, "EU"), new A(2, 20, "US"))).partitionBy("region").filenamePrefix("a").s3(s3).to(table);
        S3Parquet.write(List.of(new B(3, 3, 30, "EU"), new B(4, 4, 40, "US"))).partitionBy("region").filenamePrefix("b").s3(s3).to(table);
        S3Parquet.write(List.of(new C("x", 5, 5, "EU"), new C("y\u00e9", 6, 6, "US"))).partitionBy("region").filenamePrefix("c").s3(s3)
                .to(table);
        return table;
    }

    private static List<List<Object>> rows(ArrowReader r, List<String> names) throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (r) {
            names.addAll(r.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList());
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    List<Object> row = new ArrayList<>();
                    for (FieldVector v : b.getFieldVectors()) {
                        Object o = v.getObject(i);
                        row.add(o instanceof Text t ? t.toString() : o);
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }

    @Test
    void filesOfEverySchemaDecodedAsTheyArriveReadAsOnOneThreadAndAsDuckDb() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = evolved(bucket);
        try (BufferAllocator a = new RootAllocator()) {
            for (int batchRows : new int[] {1, 65_536}) {
                ArrowReader early = S3Parquet.read(table).s3(TestLake.memory().client()).allocator(a).batchRows(batchRows).open();
                assertThat(((FullBatches) early).source().decodesAsFilesArrive()).isTrue();
                ArrowReader oneThread = S3Parquet.read(table).s3(TestLake.memory().client()).allocator(a).batchRows(batchRows).open();
                assertThat(((FullBatches) oneThread).threads(1).source().decodesAsFilesArrive()).isFalse();
                List<String> names = new ArrayList<>();
                List<List<Object>> got = rows(early, names);
                // in order of first appearance, spelled as the first file that has them spells them; partition columns last
                assertThat(names).containsExactly("id", "amount", "DISCOUNT", "note", "region");
                assertThat(got).as("the same rows in the same order").isEqualTo(rows(oneThread, new ArrayList<>()));
                List<List<Object>> sorted = new ArrayList<>(got);
                sorted.sort(Comparator.comparing(row -> (Long) row.get(0)));
                assertThat(sorted).isEqualTo(TestLake.query(bucket, "t/", "SELECT id, amount, discount, note, region FROM t ORDER BY id"));
                assertThat(sorted.get(4)).containsExactly(5L, null, 5L, "x", "EU");
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    @Test
    void aProjectionByOtherCaseAndAPartitionColumnIsMappedByName() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = evolved(bucket);
        ArrowReader r = S3Parquet.read(table).s3(TestLake.memory().client()).columns("REGION", "discount", "Id").open();
        assertThat(((FullBatches) r).source().decodesAsFilesArrive()).isTrue();
        List<List<Object>> got = rows(r, new ArrayList<>());
        got.sort(Comparator.comparing(row -> (Long) row.get(2)));
        assertThat(got).isEqualTo(TestLake.query(bucket, "t/", "SELECT region, discount, id FROM t ORDER BY id"));
    }

    @Test
    void aReadClosedBeforeItsFirstBatchOrRefusedByItsSchemaReleasesEverything() throws Exception {
        String bucket = TestLake.memoryBucket();
        String table = evolved(bucket);
        try (BufferAllocator a = new RootAllocator()) {
            S3Parquet.read(table).s3(TestLake.memory().client()).allocator(a).open().close();
            ArrowReader half = S3Parquet.read(table).s3(TestLake.memory().client()).allocator(a).batchRows(1).open();
            assertThat(half.loadNextBatch()).isTrue();
            half.close();
            assertThat(a.getAllocatedMemory()).isZero();
        }
        // A write refuses to retype the column: the file comes from another table, as another writer's would.
        var s3 = TestLake.memory().client();
        S3Parquet.write(List.of(new Bad(7, "seventy", "US"))).partitionBy("region").filenamePrefix("d").s3(s3).to("s3://" + bucket + "/other/");
        String other = TestLake.keys(bucket, "other/region=US/").get(0);
        String copy = "t/region=US/" + other.substring(other.lastIndexOf('/') + 1);
        s3.copyObject(c -> c.sourceBucket(bucket).sourceKey(other).destinationBucket(bucket).destinationKey(copy));
        String first = TestLake.keys(bucket, "t/region=EU/").get(0);
        try (BufferAllocator a = new RootAllocator()) {
            assertThatThrownBy(() -> S3Parquet.read(table).s3(s3).allocator(a).open())
                    .isInstanceOf(ReadException.class)
                    .hasMessage("Cannot read " + table + ": the column 'amount' is Int(64, true) in s3://" + bucket + "/" + first
                            + " but Utf8 in s3://" + bucket + "/" + copy + ". Rewrite one of them with the other's type.");
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }
}
