package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.CompactionResult;
import io.wrangler.PartitionFilter;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Reading and compacting through the Glue partitions: each partition is read from its registered Location (one
 * awswrangler put at the unescaped value, one an operator moved to a folder of another name), and a compaction with
 * the catalog leaves the partitions registered exactly where their files are.
 */
class ReadThroughGlueTest {
    private static final String VALUE = "a/b c=d:e";

    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/sales/";
    /** awswrangler's Location for country='a/b c=d:e': the value unescaped (its Hive folder is country=a%2Fb c%3Dd%3Ae/). */
    private final String unescaped = table + "country=" + VALUE + "/";
    /** An operator's Location for country='DE': no Hive folder at all. */
    private final String moved = table + "legacy/germany/";
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();

    record Sale(String orderid, long amount, String country) {
    }

    record Old(String orderid, long amount) {
    }

    private static Column col(String name, String type) {
        return Column.builder().name(name).type(type).build();
    }

    private static final List<Column> COLUMNS = List.of(col("orderid", "string"), col("amount", "bigint"));

    private GlueTable catalog() {
        return GlueCatalog.of(glue).table(db, "sales");
    }

    /** Writes {@code rows} with wrangler to a scratch table and moves its file by key under {@code folder} of the table. */
    private void put(String folder, List<Old> rows) {
        String scratch = "scratch-" + System.nanoTime() + "/";
        S3Parquet.write(rows).s3(s3).to("s3://" + bucket + "/" + scratch);
        for (String key : Lake.list(bucket, scratch).keySet()) {
            Lake.s3().put(bucket, "sales/" + folder + key.substring(key.lastIndexOf('/') + 1), Lake.s3().get(bucket, key));
            s3.deleteObject(b -> b.bucket(bucket).key(key));
        }
    }

    @BeforeEach
    void aTableWithPartitionsAwayFromTheirHiveFolders() {
        AwswranglerTables.create(glue, db, "sales", table, COLUMNS, List.of(col("country", "string")));
        put("country=" + VALUE + "/", List.of(new Old("u1", 10), new Old("u2", 20)));
        put("country=" + VALUE + "/", List.of(new Old("u3", 30)));
        AwswranglerTables.partition(glue, db, "sales", List.of(VALUE), unescaped, COLUMNS);
        put("legacy/germany/", List.of(new Old("g1", 100)));
        put("legacy/germany/", List.of(new Old("g2", 200), new Old("g3", 300)));
        AwswranglerTables.partition(glue, db, "sales", List.of("DE"), moved, COLUMNS);
        // Files at the Hive folder of 'DE' that Glue does not point to: not the table's rows for a reader of the catalog.
        put("country=DE/", List.of(new Old("stray", 9999)));
        // And a partition wrangler writes itself, in two appends, at its Hive folder.
        for (int run = 0; run < 2; run++) {
            S3Parquet.write(List.of(new Sale("f" + run, 1000 + run, "FR"))).partitionBy("country").mode(WriteMode.APPEND)
                    .catalog(catalog()).s3(s3).to(table);
        }
    }

    /** Every row the reader gives, as (orderid, amount, country), sorted. */
    private static List<List<Object>> rows(ArrowReader r) throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (r) {
            assertThat(r.getVectorSchemaRoot().getSchema().findField("amount").getType()).isEqualTo(new ArrowType.Int(64, true));
            assertThat(r.getVectorSchemaRoot().getSchema().findField("country").getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                BigIntVector amount = (BigIntVector) b.getVector("amount");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(List.of(b.getVector("orderid").getObject(i).toString(), amount.get(i), b.getVector("country").getObject(i).toString()));
                }
            }
        }
        out.sort(Comparator.comparing(Object::toString));
        return out;
    }

    /** What DuckDB finds under each Location Glue registers, with the partition's value: the table as Athena reads it. */
    private List<List<Object>> duckThroughGlue() {
        List<List<Object>> out = new ArrayList<>();
        for (Map.Entry<String, String> p : glueLocations().entrySet()) {
            String prefix = p.getValue().substring(("s3://" + bucket + "/").length());
            for (List<Object> row : Lake.query(bucket, prefix, "SELECT orderid, amount FROM t")) {
                out.add(List.of(row.get(0), row.get(1), p.getKey()));
            }
        }
        out.sort(Comparator.comparing(Object::toString));
        return out;
    }

    /** Glue's partitions: value to Location. */
    private Map<String, String> glueLocations() {
        Map<String, String> out = new TreeMap<>();
        for (Partition p : glue.getPartitions(b -> b.databaseName(db).tableName("sales")).partitions()) {
            out.put(p.values().get(0), p.storageDescriptor().location());
        }
        return out;
    }

    /** The folders that hold the table's data files in S3 (as s3:// URIs), and how many each holds. */
    private Map<String, Long> dataFolders() {
        return Lake.list(bucket, "sales/").keySet().stream().filter(k -> !k.startsWith("sales/_tmp/"))
                .collect(Collectors.groupingBy(k -> "s3://" + bucket + "/" + k.substring(0, k.lastIndexOf('/') + 1), TreeMap::new,
                        Collectors.counting()));
    }

    private static final List<List<Object>> EXPECTED = List.of(List.of("f0", 1000L, "FR"), List.of("f1", 1001L, "FR"),
            List.of("g1", 100L, "DE"), List.of("g2", 200L, "DE"), List.of("g3", 300L, "DE"), List.of("u1", 10L, VALUE),
            List.of("u2", 20L, VALUE), List.of("u3", 30L, VALUE));

    @Test
    void aReadThroughGlueReadsEachPartitionAtItsRegisteredLocation() throws Exception {
        assertThat(glueLocations()).containsExactly(Map.entry("DE", moved), Map.entry("FR", table + "country=FR/"), Map.entry(VALUE, unescaped));

        assertThat(rows(S3Parquet.read(table).catalog(catalog()).s3(s3).open())).isEqualTo(EXPECTED).isEqualTo(duckThroughGlue());
        assertThat(rows(S3Parquet.read(table).catalog(catalog()).s3(s3).filter(PartitionFilter.in("country", VALUE, "DE")).open()))
                .containsExactly(List.of("g1", 100L, "DE"), List.of("g2", 200L, "DE"), List.of("g3", 300L, "DE"), List.of("u1", 10L, VALUE),
                        List.of("u2", 20L, VALUE), List.of("u3", 30L, VALUE));
    }

    @Test
    void aCompactionThroughGlueKeepsThePartitionsWhereTheirFilesAreAndTheRows() throws Exception {
        Map<String, String> locations = glueLocations();
        long strayFiles = dataFolders().get(table + "country=DE/");

        CompactionResult r = S3Parquet.compact(table).catalog(catalog()).s3(s3).run();

        assertThat(r.filesBefore()).isEqualTo(6);
        assertThat(r.filesAfter()).isEqualTo(3);
        assertThat(r.rowsRead()).isEqualTo(8);
        assertThat(r.rowsWritten()).isEqualTo(8);
        assertThat(glueLocations()).isEqualTo(locations);
        // Every registered partition's Location holds its one compacted file; the only other folder is the stray one Glue
        // does not register, untouched.
        Map<String, Long> folders = dataFolders();
        assertThat(folders.get(table + "country=DE/")).isEqualTo(strayFiles);
        folders.remove(table + "country=DE/");
        assertThat(new TreeSet<>(folders.keySet())).isEqualTo(new TreeSet<>(locations.values()));
        assertThat(folders.values()).containsOnly(1L);
        assertThat(rows(S3Parquet.read(table).catalog(catalog()).s3(s3).open())).isEqualTo(EXPECTED).isEqualTo(duckThroughGlue());
        assertThat(Lake.list(bucket, "sales/_tmp/")).isEmpty();
    }

    @Test
    void aPartitionLocationOutsideS3IsRefusedByReadAndCompactWithWhatToFix() throws Exception {
        AwswranglerTables.partition(glue, db, "sales", List.of("XX"), "gs://elsewhere/sales/country=XX/", COLUMNS);
        Map<String, Long> before = Lake.list(bucket, "sales/");
        String found = "the catalog registers the partition {country=XX} at 'gs://elsewhere/sales/country=XX/', which is not a location "
                + "wrangler can read (Cannot read gs://elsewhere/sales/country=XX/: the scheme is not s3:// or s3a://. Pass the table root "
                + "as s3://bucket/prefix/.). Fix the partition's Location in the catalog, or ";
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> S3Parquet.read(table).catalog(catalog()).s3(s3).open())
                .isInstanceOf(io.wrangler.ReadException.class)
                .hasMessage("Cannot read " + table + " (step: list): " + found + "read the table without catalog(...).");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> S3Parquet.compact(table).catalog(catalog()).s3(s3).run())
                .isInstanceOf(io.wrangler.ReadException.class)
                .hasMessage("Cannot compact " + table + " (step: list): " + found + "compact the table without catalog(...).");
        assertThat(Lake.list(bucket, "sales/")).isEqualTo(before);
        // The other partitions are still read through the catalog once the filter leaves the bad one out.
        assertThat(rows(S3Parquet.read(table).catalog(catalog()).filter(PartitionFilter.in("country", "DE")).s3(s3).open())).isNotEmpty();
    }
}
