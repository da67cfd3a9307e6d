package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.read.FullBatches;
import io.wrangler.read.TableReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * A table whose schema evolved (a later append adds a column) reads and compacts with the union of its files' columns,
 * whichever file lists first; columns are matched case-insensitively, and what cannot be one column is refused.
 */
class EvolvedSchemaTest {
    record Old(long id, long amount, String region) {
    }

    record New(long id, long amount, long discount, String region) {
    }

    record Typed(long id, String amount, String region) {
    }

    /** {@link New}'s columns in another order: another file schema with the same columns. */
    record Reordered(long discount, String region, long amount, long id) {
    }

    record Clash(long id, long orderId, long orderXd) {
    }

    /**
     * EU: an older file without {@code discount} (listed first: its name sorts first), then a newer one with it; US: two
     * older files only.
     */
    private static String evolved(String bucket) {
        String table = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Old(1, 10, "EU"), new Old(2, 20, "EU"), new Old(5, 50, "US"))).partitionBy("region")
                .filenamePrefix("a").s3(TestLake.s3().client()).to(table);
        S3Parquet.write(List.of(new Old(6, 60, "US"))).partitionBy("region").filenamePrefix("a").s3(TestLake.s3().client()).to(table);
        S3Parquet.write(List.of(new New(3, 30, 3, "EU"), new New(4, 40, 4, "EU"))).partitionBy("region")
                .filenamePrefix("b").s3(TestLake.s3().client()).to(table);
        List<String> eu = TestLake.keys(bucket, "t/region=EU/");
        assertThat(eu).hasSize(2);
        assertThat(eu.get(0)).as("the older file lists first").startsWith("t/region=EU/a");
        return table;
    }

    private static final String DUCK = "SELECT id, amount, discount, region FROM t ORDER BY id";

    /** Every row wrangler reads, as DuckDB gives them: ints as Long, text as String, ordered by the first column. */
    private static List<List<Object>> read(ArrowReader r) throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (r) {
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
        out.sort(Comparator.comparing(row -> (Long) row.get(0)));
        return out;
    }

    private static List<Object> row(Object... values) {
        return java.util.Arrays.asList(values);
    }

    @Test
    void aColumnALaterFileAddsIsReadWhenAnOlderFileListsFirst() throws Exception {
        String bucket = TestLake.bucket();
        String table = evolved(bucket);
        List<List<Object>> expected = List.of(row(1L, 10L, null, "EU"), row(2L, 20L, null, "EU"), row(3L, 30L, 3L, "EU"),
                row(4L, 40L, 4L, "EU"), row(5L, 50L, null, "US"), row(6L, 60L, null, "US"));
        assertThat(TestLake.query(bucket, "t/", DUCK)).isEqualTo(expected);

        ArrowReader all = S3Parquet.read(table).s3(TestLake.s3().client()).open();
        assertThat(all.getVectorSchemaRoot().getSchema().getFields().stream().map(Field::getName).toList())
                .containsExactly("id", "amount", "discount", "region");
        assertThat(read(all)).isEqualTo(expected);
        // A projection of the added column, and of it alone in the partition whose files all lack it.
        assertThat(read(S3Parquet.read(table).s3(TestLake.s3().client()).columns("id", "discount").open()))
                .isEqualTo(List.of(row(1L, null), row(2L, null), row(3L, 3L), row(4L, 4L), row(5L, null), row(6L, null)));
        assertThat(read(S3Parquet.read(table).s3(TestLake.s3().client()).columns("id", "DISCOUNT")
                .filter(PartitionFilter.in("region", "EU")).open()))
                .isEqualTo(List.of(row(1L, null), row(2L, null), row(3L, 3L), row(4L, 4L)));
    }

    @Test
    void aReadOfManyFilesFetchesNoByteOfAFileTwiceThoughItsSchemaNeedsEveryFooterFirst() throws Exception {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        // More files than a read fetches ahead (8): the later ones have their footer fetched alone for the schema.
        int files = 14;
        for (int i = 0; i < files; i++) {
            Record row = i % 2 == 0 ? new Old(i, 10L * i, "EU") : new New(i, 10L * i, i, "EU");
            S3Parquet.write(List.of(row)).filenamePrefix(String.format("f%02d", i)).s3(TestLake.s3().client()).to(table);
        }

        // The files in order, on the caller's thread.
        readsEveryByteOnce(bucket, table, files, r -> r.threads(1));
        // On two workers, the one that takes file 4 held until the other has taken 5, 6 and 7 (as a loaded machine may
        // schedule them): file 4's first GET, started for the schema, is still kept for its decoding.
        CountDownLatch sevenTaken = new CountDownLatch(1);
        List<Integer> decoded = Collections.synchronizedList(new ArrayList<>());
        readsEveryByteOnce(bucket, table, files, r -> r.threads(2).fileTaken(i -> {
            if (i == 4) {
                try {
                    assertThat(sevenTaken.await(60, TimeUnit.SECONDS)).as("file 7 taken while file 4 is held").isTrue();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            decoded.add(i);
            if (i == 7) {
                sevenTaken.countDown();
            }
        }));
        assertThat(decoded).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
        assertThat(decoded.subList(0, decoded.indexOf(4))).as(decoded.toString()).contains(5, 6, 7);
    }

    /**
     * Reads the table of {@code files} files of one row each with the reader {@code setup} sets, and checks its rows and
     * that each byte of each file was fetched once.
     */
    private static void readsEveryByteOnce(String bucket, String table, int files, UnaryOperator<TableReader> setup) throws Exception {
        List<String> gets = Collections.synchronizedList(new ArrayList<>());
        S3Client counting = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c
                .addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                        if (context.request() instanceof GetObjectRequest g) {
                            gets.add(g.key() + " " + g.range());
                        }
                    }
                })));

        FullBatches full = (FullBatches) S3Parquet.read(table).s3(counting).open();
        setup.apply(full.source()); // the threads and hooks are the file reader's, under open()'s full batches
        List<List<Object>> rows = read(full);

        List<List<Object>> expected = new ArrayList<>();
        for (long i = 0; i < files; i++) {
            expected.add(row(i, 10 * i, "EU", i % 2 == 0 ? null : i));
        }
        // Unpartitioned: region is a data column, before discount, which the second file brings.
        assertThat(rows).isEqualTo(expected);
        Map<String, Long> sizes = new java.util.TreeMap<>(TestLake.s3().list(bucket, "t/"));
        sizes.keySet().removeIf(k -> k.startsWith("t/_wrangler/")); // the table's commit log, not data
        assertThat(sizes).hasSize(files);
        for (Map.Entry<String, Long> file : sizes.entrySet()) {
            // Each byte of the file once: its ranges are disjoint and cover it (these small files are read whole).
            List<long[]> ranges = gets.stream().filter(g -> g.startsWith(file.getKey() + " ")).map(g -> {
                String[] r = g.substring(g.indexOf("bytes=") + 6).split("-");
                return new long[] {Long.parseLong(r[0]), Long.parseLong(r[1])};
            }).sorted(Comparator.comparingLong(r -> r[0])).toList();
            assertThat(ranges).as(file.getKey()).hasSizeBetween(1, 2);
            long next = 0;
            for (long[] r : ranges) {
                assertThat(r[0]).as(file.getKey() + " " + gets).isEqualTo(next);
                next = r[1] + 1;
            }
            assertThat(next).isEqualTo(file.getValue());
        }
    }

    /**
     * A read matches its columns to each distinct file schema once and shares that among the files of the schema
     * ({@code FileDecoder.Layouts}): files of three schemas (one lacks a column, two hold the same columns in other
     * orders), interleaved and decoded on several workers, each file by its own schema, with and without a row filter.
     */
    @Test
    void filesOfSchemasThatDifferOnlyInOrderOrByAColumnAreEachDecodedByTheirOwnSchema() throws Exception {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        int files = 12;
        for (int i = 0; i < files; i++) {
            List<? extends Record> rows = switch (i % 3) {
                case 0 -> List.of(new Old(i, 10L * i, "EU"), new Old(100 + i, 1000L + i, "US"));
                case 1 -> List.of(new New(i, 10L * i, i, "EU"), new New(100 + i, 1000L + i, 200 + i, "US"));
                default -> List.of(new Reordered(i, "EU", 10L * i, i), new Reordered(200 + i, "US", 1000L + i, 100 + i));
            };
            S3Parquet.write(rows).filenamePrefix(String.format("f%02d", i)).s3(TestLake.s3().client()).to(table);
        }
        List<List<Object>> expected = TestLake.query(bucket, "t/", DUCK);
        assertThat(expected).hasSize(2 * files).contains(row(0L, 0L, null, "EU"), row(101L, 1001L, 201L, "US"),
                row(2L, 20L, 2L, "EU"), row(102L, 1002L, 202L, "US"));

        for (int threads : new int[] {1, 2, 4}) {
            FullBatches full = (FullBatches) S3Parquet.read(table).s3(TestLake.s3().client()).columns("id", "amount", "discount", "region")
                    .open();
            full.source().threads(threads);
            assertThat(read(full)).as(threads + " threads").isEqualTo(expected);
        }
        // The filter's columns are matched with the read's (another list of columns for the same schemas).
        List<List<Object>> filtered = read(S3Parquet.read(table).s3(TestLake.s3().client()).columns("id", "discount")
                .where(RowFilter.gt("amount", 50L)).open());
        assertThat(filtered).isEqualTo(TestLake.query(bucket, "t/", "SELECT id, discount FROM t WHERE amount > 50 ORDER BY id"));
        assertThat(filtered).hasSize(files + 6);
    }

    @Test
    void aCompactionKeepsAColumnOnlyANewerFileHasAndCompactsPartitionsOfOtherColumnsTogether() {
        String bucket = TestLake.bucket();
        String table = evolved(bucket);
        List<List<Object>> before = TestLake.query(bucket, "t/", DUCK);

        CompactionResult r = S3Parquet.compact(table).s3(TestLake.s3().client()).run();

        assertThat(r.partitions()).containsExactly(table + "region=EU/", table + "region=US/");
        assertThat(r.filesBefore()).isEqualTo(4);
        assertThat(r.filesAfter()).isEqualTo(2);
        assertThat(TestLake.keys(bucket, "t/region=EU/")).hasSize(1);
        assertThat(TestLake.query(bucket, "t/", DUCK)).isEqualTo(before);
        // Each new file holds the column, with nulls for the rows of the files without it.
        for (String folder : List.of("t/region=EU/", "t/region=US/")) {
            byte[] file = TestLake.s3().get(bucket, TestLake.keys(bucket, folder).get(0));
            assertThat(TestLake.queryFile(file, "SELECT count(discount), count(*) FROM read_parquet($file)").get(0))
                    .isEqualTo(folder.contains("EU") ? List.of(2L, 4L) : List.of(0L, 2L));
        }
    }

    @Test
    void aCompactionFetchesEachFileItReadsTwiceItsFooterOnceBeforeTheLeaseAndTheFileOnceWhenItIsRead() {
        String bucket = TestLake.bucket();
        String table = evolved(bucket);
        List<String> read = new ArrayList<>(TestLake.keys(bucket, "t/region=EU/"));
        read.addAll(TestLake.keys(bucket, "t/region=US/"));
        List<String> before = TestLake.query(bucket, "t/", DUCK).stream().map(Object::toString).toList();
        List<String> gets = Collections.synchronizedList(new ArrayList<>());
        S3Client counting = TestLake.recordingGets(gets);

        CompactionResult r = S3Parquet.compact(table).s3(counting).run();

        assertThat(r.filesBefore()).isEqualTo(4);
        assertThat(TestLake.query(bucket, "t/", DUCK).stream().map(Object::toString).toList()).isEqualTo(before);
        // These files are small: the footer pass fetches each whole, and so does its read. The schema, the encodings, the
        // commit order and the key runs all come from that one footer, and every file is read by one reader.
        for (String key : read) {
            assertThat(gets.stream().filter(key::equals).count()).as(key + " in " + gets).isEqualTo(2);
        }
    }

    @Test
    void theCheckRefusesNewFilesThatLackAColumnOfTheFilesRead() {
        String bucket = TestLake.bucket();
        String table = evolved(bucket);
        Map<String, byte[]> before = TestLake.snapshot(bucket, "");
        // As the compaction did when the reader took its schema from the first file: the new files lack discount.
        assertThatThrownBy(() -> S3Parquet.compact(table).s3(TestLake.s3().client())
                .outputSchema(s -> new Schema(s.getFields().stream().filter(f -> !f.getName().equals("discount")).toList())).run())
                .isInstanceOf(VerificationException.class)
                .hasMessage("Cannot compact " + table + " (step: commit): read back, its new files differ from the rows read: the "
                        + "column 'discount' is missing. Nothing was changed: the new files were removed before the commit point. "
                        + "Report this with the message; the table is as before.");
        assertThat(TestLake.snapshot(bucket, "")).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void aColumnOfAnotherTypeInALaterFileIsRefusedNamingBothFiles() {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Old(1, 10, "EU"))).partitionBy("region").filenamePrefix("a").s3(TestLake.s3().client()).to(table);
        // A write refuses to retype the column (TableShapeCheckTest): the file comes from another table, as another writer's would.
        S3Parquet.write(List.of(new Typed(2, "20", "EU"))).partitionBy("region").filenamePrefix("b").s3(TestLake.s3().client())
                .to("s3://" + bucket + "/other/");
        String other = TestLake.keys(bucket, "other/region=EU/").get(0);
        TestLake.s3().client().copyObject(c -> c.sourceBucket(bucket).sourceKey(other).destinationBucket(bucket)
                .destinationKey("t/region=EU/" + other.substring(other.lastIndexOf('/') + 1)));
        List<String> keys = TestLake.keys(bucket, "t/region=EU/");

        assertThatThrownBy(() -> S3Parquet.read(table).s3(TestLake.s3().client()).open())
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot read " + table + ": the column 'amount' is Int(64, true) in s3://" + bucket + "/" + keys.get(0)
                        + " but Utf8 in s3://" + bucket + "/" + keys.get(1) + ". Rewrite one of them with the other's type.");
    }

    @Test
    void twoColumnsOfOneFileThatDifferOnlyByCaseAreRefused() {
        String bucket = TestLake.bucket();
        String table = "s3://" + bucket + "/t/";
        // The writer refuses such columns: another writer's file, made by renaming orderXd to orderid in the footer.
        S3Parquet.write(List.of(new Clash(1, 2, 3))).s3(TestLake.s3().client()).to(table);
        String key = TestLake.keys(bucket, "t/").stream().filter(k -> k.endsWith(".parquet")).findFirst().orElseThrow();
        byte[] file = TestLake.s3().get(bucket, key);
        byte[] from = "orderXd".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int renamed = 0;
        for (int i = 0; i + from.length <= file.length; i++) {
            if (java.util.Arrays.equals(file, i, i + from.length, from, 0, from.length)) {
                file[i + 5] = 'i';
                renamed++;
            }
        }
        assertThat(renamed).isPositive();
        TestLake.s3().put(bucket, key, file);
        assertThat(TestLake.queryFile(file, "SELECT name FROM parquet_schema($file) WHERE name LIKE 'order%'"))
                .isEqualTo(List.of(List.of("orderId"), List.of("orderid")));

        assertThatThrownBy(() -> S3Parquet.read(table).s3(TestLake.s3().client()).open())
                .isInstanceOf(ReadException.class)
                .hasMessage("Cannot read " + table + ": s3://" + bucket + "/" + key + " has the columns 'orderId' and 'orderid', which "
                        + "differ only by case; Hive, Glue and Athena match column names case-insensitively, so they would be one "
                        + "column. Rewrite the file with distinct names.");
    }
}
