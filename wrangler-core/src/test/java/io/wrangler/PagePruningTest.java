package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.filter.BoundFilter;
import io.wrangler.testkit.MemoryS3;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
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
                RowFilterDuckDbTest.WriteSpecTuning.write(root, 8L << 20, new int[] {128, 512}[round], s3, "s3://" + bucket + "/" + w, "p");
            }
            Path local = RowFilterDuckDbTest.copy(s3, bucket, w, temp.resolve(w));
            String bare = "pn" + round + "/";
            try (var files = Files.walk(local)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    String key = bare + local.relativize(f).toString().replace('\\', '/');
                    s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(withoutPageIndexes(Files.readAllBytes(f))));
                }
            }
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
                    assertThat(readK(S3Parquet.read(table).s3(s3).where(f), new long[1])).as(w + ": " + f).isEqualTo(expected);
                    assertThat(readK(S3Parquet.read(table).s3(s3).where(f).columns("k"), withBytes)).as(w + ": " + f).isEqualTo(expected);
                    assertThat(readK(S3Parquet.read(noIndex).s3(s3).where(f).columns("k"), withoutBytes)).as(bare + ": " + f)
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
        Schema schema = new Schema(List.of(new Field("k", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("h", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        int n = 200_000;
        try (RootAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            root.allocateNew();
            for (int i = 0; i < n; i++) {
                ((BigIntVector) root.getVector("k")).setSafe(i, i);
                ((BigIntVector) root.getVector("h")).setSafe(i, i * 0x9E3779B97F4A7C15L);
                ((VarCharVector) root.getVector("s")).setSafe(i, ("row-" + Long.toHexString(i * 0xC2B2AE3D27D4EB4FL)).getBytes());
            }
            root.setRowCount(n);
            // one row group of the whole file, pages of 8 KiB
            RowFilterDuckDbTest.WriteSpecTuning.write(root, 64L << 20, 8 * 1024, s3.client(), table);
        }
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
        assertThat(got).containsExactly("123457 " + 123_457L * 0x9E3779B97F4A7C15L + " row-" + Long.toHexString(123_457L * 0xC2B2AE3D27D4EB4FL));
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

    private static List<Integer> readK(ReadBuilder read, long[] bytes) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (ArrowReader reader = read.open()) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot b = reader.getVectorSchemaRoot();
                IntVector k = (IntVector) b.getVector("k");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(k.get(i));
                }
            }
            bytes[0] = reader.bytesRead();
        }
        out.sort(null);
        return out;
    }

    /** The file without its column and offset indexes (statistics and bloom filters kept), as writers without them leave it. */
    static byte[] withoutPageIndexes(byte[] file) throws Exception {
        int len = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int start = file.length - 8 - len;
        FileMetaData meta = Util.readFileMetaData(new ByteArrayInputStream(file, start, len));
        for (RowGroup g : meta.getRow_groups()) {
            for (ColumnChunk c : g.getColumns()) {
                c.unsetColumn_index_offset();
                c.unsetColumn_index_length();
                c.unsetOffset_index_offset();
                c.unsetOffset_index_length();
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(file, 0, start);
        ByteArrayOutputStream footer = new ByteArrayOutputStream();
        Util.writeFileMetaData(meta, footer);
        out.write(footer.toByteArray());
        out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.size()).array());
        out.write(new byte[] {'P', 'A', 'R', '1'});
        return out.toByteArray();
    }
}
