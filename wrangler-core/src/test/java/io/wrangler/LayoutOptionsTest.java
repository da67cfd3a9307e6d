package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.testkit.MemoryS3;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.Tag;

/**
 * The file layout options (row group and page size, dictionary encoding per column, bloom filters, sortBy, footer
 * metadata) read back from the files by DuckDB and by parquet-java's footer reader, and the storage class and tags read
 * back from the objects; every bad value refused before any I/O.
 */
class LayoutOptionsTest {
    private final MemoryS3 s3 = TestLake.memory();
    private final S3Client client = s3.client();

    /** A row of the test table: a user id (distinct, shuffled), a name with few values, a flag and a day. */
    record Visit(long user_id, String name, String country, boolean member, double amount, String dt) {
    }

    private static List<Visit> visits(int n, long seed) {
        List<Long> ids = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            ids.add(i * 7 + 3);
        }
        Collections.shuffle(ids, new Random(seed));
        List<Visit> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long id = ids.get(i);
            out.add(new Visit(id, "name-" + (id % 13), i % 3 == 0 ? "RU" : "DE", i % 2 == 0, id / 4.0, i % 2 == 0 ? "2024-01-15" : "2024-01-16"));
        }
        return out;
    }

    private WriteBuilder laidOut(List<Visit> rows) {
        return S3Parquet.write(rows).s3(client).partitionBy("dt").rowGroupSize(64 * 1024).pageSize(4096)
                .dictionaryEncoding(Map.of("name", false, "country", true)).bloomFilters("user_id", "name").bloomFilterFpp(0.001)
                .sortBy("user_id").fileMetadata(Map.of("source", "crm", "job", "nightly")).storageClass("STANDARD_IA")
                .tags(ordered("team", "risk", "cost center", "a+b=c"));
    }

    private static Map<String, String> ordered(String... keysAndValues) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            out.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return out;
    }

    private List<String> dataFiles(String bucket, String prefix) {
        return TestLake.keys(bucket, prefix).stream().filter(k -> k.endsWith(".parquet") && !k.contains("/_tmp/")).toList();
    }

    @Test
    void everyLayoutOptionIsInTheFilesAsDuckDbAndParquetJavaReadThem() throws IOException {
        String bucket = TestLake.memoryBucket();
        List<Visit> rows = visits(40_000, 1);
        laidOut(rows).to("s3://" + bucket + "/visits/");

        // every value read back
        assertThat(TestLake.query(bucket, "visits/", "SELECT count(*), sum(user_id)::BIGINT, count(DISTINCT name), sum(amount) FROM t"))
                .containsExactly(List.of(40_000L, rows.stream().mapToLong(Visit::user_id).sum(), 13L,
                        rows.stream().mapToDouble(Visit::amount).sum()));
        List<String> files = dataFiles(bucket, "visits/");
        assertThat(files).hasSize(2);
        for (String key : files) {
            byte[] file = s3.get(bucket, key);
            // sorted within the file, and recorded so in every row group
            List<Long> ids = TestLake.queryFile(file, "SELECT user_id FROM read_parquet($file)").stream().map(r -> (Long) r.get(0)).toList();
            assertThat(ids).hasSize(20_000).isSorted();
            FileMetaData footer = footer(file);
            assertThat(footer.getRow_groups()).hasSizeGreaterThan(1);
            for (RowGroup g : footer.getRow_groups()) {
                assertThat(g.getSorting_columns()).containsExactly(new SortingColumn(0, false, true));
            }
            // row groups of about 64 KiB, dictionaries as asked, bloom filters where asked
            List<List<Object>> chunks = TestLake.queryFile(file, "SELECT row_group_id, path_in_schema, encodings, bloom_filter_offset IS NOT NULL, "
                    + "row_group_compressed_bytes FROM parquet_metadata($file) ORDER BY row_group_id, column_id");
            for (List<Object> c : chunks) {
                String column = (String) c.get(1);
                String encodings = (String) c.get(2);
                assertThat(encodings).as(column).contains(column.equals("country") ? "DICTIONARY" : "PLAIN");
                if (column.equals("name")) {
                    assertThat(encodings).doesNotContain("DICTIONARY");
                }
                assertThat(c.get(3)).as(column + " has a bloom filter").isEqualTo(Set.of("user_id", "name").contains(column));
                // a row group ends at the first 4,096-row chunk past 64 KiB
                assertThat(((Number) c.get(4)).longValue()).isLessThan(192 * 1024);
            }
            assertThat(TestLake.queryFile(file, "SELECT key::VARCHAR, value::VARCHAR FROM parquet_kv_metadata($file) "
                    + "WHERE key::VARCHAR IN ('source', 'job') ORDER BY 1"))
                    .containsExactly(List.of("job", "nightly"), List.of("source", "crm"));
            assertThat(TestLake.queryFile(file, "SELECT name, type FROM parquet_schema($file) WHERE name = 'user_id'"))
                    .containsExactly(List.of("user_id", "INT64"));
            // DuckDB's probe: the filter of the row group holding a value keeps it; no row group holds one that is absent
            long present = ids.get(12_345);
            assertThat(TestLake.queryFile(file, "SELECT bool_and(NOT bloom_filter_excludes) FROM parquet_bloom_probe($file, 'user_id', "
                    + present + ") p JOIN (SELECT DISTINCT row_group_id FROM parquet_metadata($file) m WHERE path_in_schema = 'user_id' "
                    + "AND stats_min::BIGINT <= " + present + " AND stats_max::BIGINT >= " + present + ") USING (row_group_id)"))
                    .containsExactly(List.of(true));
            assertThat(TestLake.queryFile(file, "SELECT bool_and(bloom_filter_excludes) FROM parquet_bloom_probe($file, 'user_id', 4)"))
                    .containsExactly(List.of(true));
            parquetJava(file, present, ids.size());
        }
        // the objects: in their storage class, with their tags
        for (String key : files) {
            assertThat(client.headObject(b -> b.bucket(bucket).key(key)).storageClassAsString()).isEqualTo("STANDARD_IA");
            assertThat(client.getObjectTagging(b -> b.bucket(bucket).key(key)).tagSet()).containsExactly(
                    Tag.builder().key("team").value("risk").build(), Tag.builder().key("cost center").value("a+b=c").build());
        }
    }

    /** parquet-java's footer reader: the same metadata, page and column indexes on every column, bloom filters it finds the value in. */
    private static void parquetJava(byte[] file, long present, int rows) throws IOException {
        Path local = Files.createTempFile("layout-", ".parquet");
        try {
            Files.write(local, file);
            try (ParquetFileReader reader = io.wrangler.read.LocalParquet.open(local)) {
                assertThat(reader.getFooter().getFileMetaData().getKeyValueMetaData()).containsEntry("source", "crm").containsEntry("job", "nightly");
                assertThat(reader.getRecordCount()).isEqualTo(rows);
                boolean found = false;
                for (BlockMetaData block : reader.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData c : block.getColumns()) {
                        String column = c.getPath().toDotString();
                        assertThat(reader.readColumnIndex(c)).as("column index of " + column).isNotNull();
                        OffsetIndex pages = reader.readOffsetIndex(c);
                        assertThat(pages).as("offset index of " + column).isNotNull();
                        if (column.equals("user_id")) {
                            // 4 KiB pages: a row group of 64 KiB has many
                            assertThat(pages.getPageCount()).isGreaterThan(4);
                            for (int p = 0; p < pages.getPageCount(); p++) {
                                assertThat(pages.getCompressedPageSize(p)).isLessThan(6 * 1024);
                            }
                        }
                        BloomFilter bloom = reader.readBloomFilter(c);
                        assertThat(bloom != null).as("bloom filter of " + column).isEqualTo(Set.of("user_id", "name").contains(column));
                        if (column.equals("user_id")) {
                            long min = (Long) c.getStatistics().genericGetMin();
                            long max = (Long) c.getStatistics().genericGetMax();
                            if (present >= min && present <= max) {
                                assertThat(bloom.findHash(bloom.hash(present))).isTrue();
                                found = true;
                            }
                            assertThat(bloom.findHash(bloom.hash(4L))).isFalse();
                        }
                        if (column.equals("name")) {
                            assertThat(bloom.findHash(bloom.hash(Binary.fromString("name-" + (present % 13))))).isTrue();
                            assertThat(bloom.findHash(bloom.hash(Binary.fromString("name-99")))).isFalse();
                        }
                    }
                }
                assertThat(found).isTrue();
            }
        } finally {
            Files.deleteIfExists(local);
        }
    }

    /** The footer as parquet-java's format reader reads it (parquet-java's metadata has no sorting columns of its own). */
    static FileMetaData footer(byte[] file) throws IOException {
        int length = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return Util.readFileMetaData(new ByteArrayInputStream(file, file.length - 8 - length, length));
    }

    @Test
    void stagedObjectsStayStandardAndTheCopyToTheFinalKeyTakesTheStorageClassAndTags() {
        String bucket = TestLake.memoryBucket();
        int before = s3.requests().size();
        laidOut(visits(2_000, 2)).to("s3://" + bucket + "/t/");
        List<MemoryS3.Request> requests = new ArrayList<>(s3.requests().subList(before, s3.requests().size()));
        requests.removeIf(r -> !bucket.equals(r.bucket()));
        List<PutObjectRequest> stagedPuts = requests.stream().filter(r -> r.request() instanceof PutObjectRequest p && p.key().endsWith(".parquet"))
                .map(r -> (PutObjectRequest) r.request()).toList();
        assertThat(stagedPuts).hasSize(2).allSatisfy(p -> {
            assertThat(p.key()).contains("/_tmp/");
            assertThat(p.storageClass()).isNull();
            assertThat(p.tagging()).isEqualTo("team=risk&cost%20center=a%2Bb%3Dc");
        });
        List<CopyObjectRequest> copies = requests.stream().filter(r -> r.request() instanceof CopyObjectRequest)
                .map(r -> (CopyObjectRequest) r.request()).toList();
        assertThat(copies).hasSize(2).allSatisfy(c -> {
            assertThat(c.storageClassAsString()).isEqualTo("STANDARD_IA");
            assertThat(c.taggingDirectiveAsString()).isEqualTo("REPLACE");
            assertThat(c.tagging()).isEqualTo("team=risk&cost%20center=a%2Bb%3Dc");
        });
    }

    @Test
    void deferredUploadsAreCreatedAtTheFinalKeyInTheStorageClassWithTheTags() {
        String bucket = TestLake.memoryBucket();
        int before = s3.requests().size();
        S3Parquet.write(visits(1_000, 3)).s3(client).commitMethod(CommitMethod.DEFERRED_UPLOADS).storageClass("GLACIER_IR")
                .tags(Map.of("team", "risk")).to("s3://" + bucket + "/d/");
        List<String> files = dataFiles(bucket, "d/");
        assertThat(files).hasSize(1);
        assertThat(client.headObject(b -> b.bucket(bucket).key(files.get(0))).storageClassAsString()).isEqualTo("GLACIER_IR");
        assertThat(client.getObjectTagging(b -> b.bucket(bucket).key(files.get(0))).tagSet())
                .containsExactly(Tag.builder().key("team").value("risk").build());
        assertThat(s3.requests().subList(before, s3.requests().size()).stream().filter(r -> r.request() instanceof CreateMultipartUploadRequest)
                .map(r -> (CreateMultipartUploadRequest) r.request()).filter(r -> r.bucket().equals(bucket)).toList())
                .hasSize(1).allSatisfy(r -> assertThat(r.storageClassAsString()).isEqualTo("GLACIER_IR"));
        // manifests and leases are not data: no storage class, no tags
        assertThat(TestLake.keys(bucket, "d/_tmp/")).allSatisfy(k ->
                assertThat(client.getObjectTagging(b -> b.bucket(bucket).key(k)).tagSet()).isEmpty());
    }

    @Test
    void layoutColumnsAreCheckedAgainstTheInputBeforeAnyIo() {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/bad/";
        Map<String, Consumer<WriteBuilder>> bad = new TreeMap<>(Map.of(
                "Cannot write " + table + " (step: validate): the sortBy column 'userid' is not in the input. Pass data columns of the input "
                        + "to sortBy(...), or remove it from sortBy. Nothing was written.", w -> w.sortBy("userid"),
                "Cannot write " + table + " (step: validate): the bloomFilters column 'dt' is a partition column, which is in the folder "
                        + "names, not in the files. Pass data columns to bloomFilters(...). Nothing was written.", w -> w.bloomFilters("dt"),
                "Cannot write " + table + " (step: validate): the bloomFilters column 'member' is boolean, and a bloom filter of two "
                        + "values tells nothing the statistics do not. Remove it from bloomFilters(...). Nothing was written.",
                w -> w.bloomFilters("member"),
                "Cannot write " + table + " (step: validate): the dictionaryEncoding column 'nme' is not in the input. Pass data columns "
                        + "of the input to dictionaryEncoding(...), or remove it from dictionaryEncoding. Nothing was written.",
                w -> w.dictionaryEncoding(Map.of("nme", false))));
        int before = s3.requests().size();
        bad.forEach((message, option) -> {
            WriteBuilder w = S3Parquet.write(visits(10, 4)).s3(client).partitionBy("dt");
            option.accept(w);
            assertThatThrownBy(() -> w.to(table)).isInstanceOf(InvalidWriteException.class).hasMessage(message);
        });
        assertThat(TestLake.keys(bucket, "")).isEmpty();
        // reads of the table only (its folders, to check the input against it): no object written, copied or deleted
        assertThat(s3.requests().subList(before, s3.requests().size()).stream().filter(r -> bucket.equals(r.bucket()))
                .map(MemoryS3.Request::operation)).isNotEmpty().allMatch(op -> op.startsWith("List") || op.startsWith("Get")
                || op.startsWith("Head"));
        // a column is found as partitionBy finds one: ignoring case
        S3Parquet.write(visits(10, 4)).s3(client).sortBy("USER_ID").bloomFilters("Name").to(table);
        assertThat(footerUnchecked(s3.get(bucket, dataFiles(bucket, "bad/").get(0)))).satisfies(f ->
                assertThat(f.getRow_groups().get(0).getSorting_columns()).containsExactly(new SortingColumn(0, false, true)));
    }

    private static FileMetaData footerUnchecked(byte[] file) {
        try {
            return footer(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void badValuesAreRefusedBySetterWithTheLimitInTheMessage() {
        WriteOptions.Builder b = WriteOptions.builder();
        assertThatThrownBy(() -> b.rowGroupSize(1000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rowGroupSize must be from 64 KiB (65536) to 2 GiB (2147483647) bytes, got 1000");
        assertThatThrownBy(() -> b.pageSize(100)).hasMessage("pageSize must be from 1 KiB (1024) to 512 MiB (536870912) bytes, got 100");
        assertThatThrownBy(() -> WriteOptions.builder().rowGroupSize(65536).pageSize(1 << 20).build())
                .hasMessage("pageSize (1048576) is larger than rowGroupSize (65536): a page lies within a row group");
        assertThatThrownBy(() -> b.bloomFilterFpp(1.0)).hasMessage("bloomFilterFpp must be above 0 and below 1, such as 0.01, got 1.0");
        assertThatThrownBy(() -> b.sortBy("a", "a")).hasMessage("sortBy names a column twice: [a, a]");
        assertThatThrownBy(() -> b.storageClass("GLACIER")).hasMessage("storageClass 'GLACIER' is not one a table's data files can be in: "
                + "give STANDARD, INTELLIGENT_TIERING, STANDARD_IA, ONEZONE_IA or GLACIER_IR (GLACIER and DEEP_ARCHIVE objects cannot be "
                + "read without a restore, which reads, compactions and keyed reruns need)");
        Map<String, String> eleven = new TreeMap<>();
        for (int i = 0; i < 11; i++) {
            eleven.put("k" + i, "v");
        }
        assertThatThrownBy(() -> b.tags(eleven)).hasMessage("tags has 11 tags, but S3 allows at most 10 on an object");
        assertThatThrownBy(() -> b.tags(Map.of("k".repeat(129), "v")))
                .hasMessage("tag key '" + "k".repeat(129) + "' has 129 characters: S3 allows 1 to 128");
        assertThatThrownBy(() -> b.tags(Map.of("k", "v".repeat(257)))).hasMessage("the value of tag 'k' has 257 characters: S3 allows at most 256");
        assertThatThrownBy(() -> b.tags(Map.of("aws:x", "v"))).hasMessage("tag key 'aws:x' starts with 'aws:', which S3 reserves");
        assertThatThrownBy(() -> b.tags(Map.of("k", "a&b"))).hasMessage("tag 'k' holds a character S3 does not allow in tags: use letters, "
                + "digits, spaces and + - = . _ : / @");
        assertThatThrownBy(() -> b.fileMetadata(Map.of("wrangler.keys", "x")))
                .hasMessage("fileMetadata key 'wrangler.keys' is one wrangler or Arrow writes itself: use another key");
        // the limits themselves pass
        Map<String, String> ten = new TreeMap<>();
        for (int i = 0; i < 10; i++) {
            ten.put(i + "k".repeat(127), "v".repeat(256));
        }
        assertThat(b.tags(ten).rowGroupSize(65536).pageSize(1024).build().tags()).hasSize(10);
    }

    record Row(long user_id, String source) {
    }

    private static List<Row> rows(String source, int n, long seed) {
        List<Row> out = new ArrayList<>();
        Random r = new Random(seed);
        for (int i = 0; i < n; i++) {
            out.add(new Row(r.nextInt(1_000_000), source));
        }
        return out;
    }

    private List<Long> idsInFileOrder(byte[] file) {
        return TestLake.queryFile(file, "SELECT user_id FROM read_parquet($file)").stream().map(r -> (Long) r.get(0)).toList();
    }

    @Test
    void compactionSortsEachNewFile() throws IOException {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/c/";
        for (int i = 0; i < 3; i++) {
            S3Parquet.write(rows("append" + i, 3_000, i)).s3(client).to(table);
        }
        S3Parquet.compact(table).options(WriteOptions.builder().bloomFilters("user_id").build()).s3(client).sortBy("user_id").run();
        List<String> files = dataFiles(bucket, "c/");
        assertThat(files).hasSize(1);
        byte[] file = s3.get(bucket, files.get(0));
        assertThat(idsInFileOrder(file)).hasSize(9_000).isSorted();
        assertThat(footer(file).getRow_groups()).allSatisfy(g -> assertThat(g.getSorting_columns()).containsExactly(new SortingColumn(0, false, true)));
        assertThat(TestLake.queryFile(file, "SELECT DISTINCT bloom_filter_offset IS NOT NULL FROM parquet_metadata($file) WHERE path_in_schema = 'user_id'"))
                .containsExactly(List.of(true));
    }

    @Test
    void aCompactionOfKeyedRunsSortsWithinEachKeyAndKeepsOneRunPerKey() throws IOException {
        String bucket = TestLake.memoryBucket();
        String table = "s3://" + bucket + "/k/";
        Map<String, List<Long>> written = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            List<Row> rows = rows("key" + i, 2_000, 10 + i);
            S3Parquet.write(rows).s3(client).idempotencyKey("key" + i).to(table);
            written.put("key" + i, rows.stream().map(Row::user_id).sorted().toList());
        }
        S3Parquet.compact(table).s3(client).sortBy("user_id").run();
        List<String> files = dataFiles(bucket, "k/");
        assertThat(files).hasSize(1);
        assertThat(files.get(0)).contains("_k");
        byte[] file = s3.get(bucket, files.get(0));
        FileMetaData footer = footer(file);
        // the rows of each key are one run, sorted; the file as a whole is not, and says so by naming no sorting columns
        String runs = footer.getKey_value_metadata().stream().filter(kv -> kv.getKey().equals("wrangler.keys")).findFirst().orElseThrow()
                .getValue();
        com.fasterxml.jackson.databind.JsonNode list = new com.fasterxml.jackson.databind.ObjectMapper().readTree(runs);
        assertThat(list).hasSize(3);
        List<Long> ids = idsInFileOrder(file);
        int at = 0;
        Map<String, List<Long>> read = new java.util.LinkedHashMap<>();
        for (com.fasterxml.jackson.databind.JsonNode run : list) {
            int n = run.get(1).asInt();
            List<Long> segment = ids.subList(at, at + n);
            assertThat(segment).isSorted();
            at += n;
            read.put(run.get(0).asText(), segment);
        }
        assertThat(at).isEqualTo(ids.size());
        assertThat(new ArrayList<>(read.values())).containsExactlyInAnyOrderElementsOf(written.values());
        assertThat(footer.getRow_groups()).allSatisfy(g -> assertThat(g.isSetSorting_columns()).isFalse());
        assertThat(TestLake.queryFile(file, "SELECT key::VARCHAR FROM parquet_kv_metadata($file) WHERE key::VARCHAR LIKE 'wrangler.uns%'")).isEmpty();
        // a keyed rerun still finds and replaces its key's rows in the compacted file
        S3Parquet.write(rows("key1", 5, 99)).s3(client).idempotencyKey("key1").to(table);
        assertThat(TestLake.query(bucket, "k/", "SELECT source, count(*) FROM t GROUP BY source ORDER BY source"))
                .containsExactly(List.of("key0", 2_000L), List.of("key1", 5L), List.of("key2", 2_000L));
    }

    record Tagged(long user_id, String name, List<Long> tags) {
    }

    @Test
    void filesWithNestedColumnsGetTheLayoutTooFromParquetJavasOwnWriter() throws IOException {
        String bucket = TestLake.memoryBucket();
        List<Tagged> rows = new ArrayList<>();
        Random r = new Random(5);
        for (int i = 0; i < 3_000; i++) {
            rows.add(new Tagged(r.nextInt(100_000), i % 4 == 0 ? null : "n" + (i % 7), List.of((long) i, (long) i + 1)));
        }
        S3Parquet.write(rows).s3(client).sortBy("name", "user_id").bloomFilters("user_id").dictionaryEncoding(Map.of("name", false))
                .fileMetadata(Map.of("source", "crm")).to("s3://" + bucket + "/n/");
        byte[] file = s3.get(bucket, dataFiles(bucket, "n/").get(0));
        List<List<Object>> read = TestLake.queryFile(file, "SELECT name, user_id, tags[1] FROM read_parquet($file)");
        List<List<Object>> expected = rows.stream().sorted(java.util.Comparator.comparing(Tagged::name,
                java.util.Comparator.nullsFirst(java.util.Comparator.<String>naturalOrder())).thenComparingLong(Tagged::user_id))
                .map(t -> java.util.Arrays.<Object>asList(t.name(), t.user_id(), t.tags().get(0))).toList();
        assertThat(read).isEqualTo(expected);
        // leaves: user_id 0, name 1, tags.list.element 2
        assertThat(footer(file).getRow_groups()).allSatisfy(g -> assertThat(g.getSorting_columns())
                .containsExactly(new SortingColumn(1, false, true), new SortingColumn(0, false, true)));
        assertThat(TestLake.queryFile(file, "SELECT path_in_schema, bloom_filter_offset IS NOT NULL, encodings LIKE '%DICTIONARY%' "
                + "FROM parquet_metadata($file) WHERE path_in_schema IN ('user_id', 'name') ORDER BY 1"))
                .extracting(c -> c.subList(0, c.get(0).equals("name") ? 3 : 2))
                .containsExactly(List.of("name", false, false), List.of("user_id", true));
        assertThat(TestLake.queryFile(file, "SELECT value::VARCHAR FROM parquet_kv_metadata($file) WHERE key::VARCHAR = 'source'"))
                .containsExactly(List.of("crm"));
        long present = rows.get(17).user_id();
        assertThat(TestLake.queryFile(file, "SELECT bool_or(bloom_filter_excludes) FROM parquet_bloom_probe($file, 'user_id', " + present + ")"))
                .containsExactly(List.of(false));
    }
}
