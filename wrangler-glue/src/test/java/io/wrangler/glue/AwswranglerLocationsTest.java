package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.InvalidWriteException;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The registered location is the truth: a partition that awswrangler registered at its unescaped location
 * ({@code country=a/b c=d:e/}) keeps it when wrangler appends to it or replaces it, and every row stays visible to a
 * reader that follows the Glue partitions (the files under each registered Location, as Athena reads them).
 */
class AwswranglerLocationsTest {
    private static final String VALUE = "a/b c=d:e";

    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/sales/";
    /** Where awswrangler puts and registers the partition country='a/b c=d:e': its value unescaped. */
    private final String registered = table + "country=" + VALUE + "/";
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();

    /** A row of the table; names as awswrangler gives them. */
    record Sale(String orderid, long amount, String country) {
    }

    /** A file awswrangler would write into a partition folder: without the partition column. */
    record Old(String orderid, long amount) {
    }

    private static Column col(String name, String type) {
        return Column.builder().name(name).type(type).build();
    }

    private static final List<Column> COLUMNS = List.of(col("orderid", "string"), col("amount", "bigint"));

    private GlueTable catalog() {
        return GlueCatalog.of(glue).table(db, "sales");
    }

    @BeforeEach
    void anAwswranglerTable() {
        AwswranglerTables.create(glue, db, "sales", table, COLUMNS, List.of(col("country", "string")));
        put("country=" + VALUE + "/", List.of(new Old("o1", 10), new Old("o2", 20)));
        AwswranglerTables.partition(glue, db, "sales", List.of(VALUE), registered, COLUMNS);
    }

    /** Writes {@code rows} with any Parquet writer (wrangler, to a scratch table) and moves its files by key under {@code folder}. */
    private void put(String folder, List<Old> rows) {
        String scratch = "scratch-" + System.nanoTime() + "/";
        S3Parquet.write(rows).s3(s3).to("s3://" + bucket + "/" + scratch);
        for (String key : Lake.list(bucket, scratch).keySet()) {
            String name = key.substring(key.lastIndexOf('/') + 1);
            Lake.s3().put(bucket, "sales/" + folder + name, Lake.s3().get(bucket, key));
            s3.deleteObject(b -> b.bucket(bucket).key(key));
        }
    }

    private String locationOf(String value) {
        return glue.getPartition(b -> b.databaseName(db).tableName("sales").partitionValues(value)).partition().storageDescriptor().location();
    }

    /** The rows in the files directly under a registered Location, as Athena reads a partition. */
    private List<List<Object>> rowsAt(String location) {
        String prefix = location.substring(("s3://" + bucket + "/").length());
        return Lake.query(bucket, prefix, "SELECT orderid, amount FROM t ORDER BY 1");
    }

    private Set<String> keys() {
        return Lake.list(bucket, "sales/").keySet();
    }

    @Test
    void anAppendWritesUnderTheRegisteredLocationAndKeepsIt() {
        Set<String> old = keys();

        WriteResult r = S3Parquet.write(List.of(new Sale("o3", 30, VALUE), new Sale("o4", 40, "x"))).partitionBy("country")
                .mode(WriteMode.APPEND).catalog(catalog()).s3(s3).to(table);

        assertThat(locationOf(VALUE)).isEqualTo(registered);
        assertThat(locationOf("x")).isEqualTo(table + "country=x/");
        assertThat(rowsAt(registered)).containsExactly(List.of("o1", 10L), List.of("o2", 20L), List.of("o3", 30L));
        assertThat(rowsAt(table + "country=x/")).containsExactly(List.of("o4", 40L));
        assertThat(keys()).containsAll(old).allMatch(k -> k.startsWith("sales/country=" + VALUE + "/") || k.startsWith("sales/country=x/"));
        assertThat(r.partitions()).extracting(p -> p.prefix()).containsExactlyInAnyOrder(registered, table + "country=x/");
    }

    @Test
    void anOverwriteOfThePartitionReplacesTheFilesUnderTheRegisteredLocationOnly() {
        // A file of another partition next to it, at its escaped Hive folder: not this partition's to replace.
        put("country=a%2Fb c%3Dd%3Ae/", List.of(new Old("escaped", 1)));
        Set<String> before = keys();
        Set<String> oldOfPartition = before.stream().filter(k -> k.startsWith("sales/country=" + VALUE + "/")).collect(Collectors.toSet());
        assertThat(oldOfPartition).hasSize(1);

        S3Parquet.write(List.of(new Sale("o5", 50, VALUE))).partitionBy("country").mode(WriteMode.OVERWRITE_PARTITIONS)
                .catalog(catalog()).s3(s3).to(table);

        assertThat(locationOf(VALUE)).isEqualTo(registered);
        assertThat(rowsAt(registered)).containsExactly(List.of("o5", 50L));
        assertThat(keys()).doesNotContainAnyElementsOf(oldOfPartition)
                .containsAll(before.stream().filter(k -> !oldOfPartition.contains(k)).toList());
        assertThat(keys().stream().filter(k -> k.startsWith("sales/country=" + VALUE + "/"))).hasSize(1);
    }

    @Test
    void anOverwriteOfARegisteredFolderInsideAHiveFolderReplacesBoth() {
        // 'a' is at its Hive folder country=a/, which holds the folder awswrangler registered for 'a/b c=d:e': partitions of
        // one first folder at two depths, listed together.
        put("country=a/", List.of(new Old("a-old", 1)));
        AwswranglerTables.partition(glue, db, "sales", List.of("a"), table + "country=a/", COLUMNS);
        Set<String> before = keys();
        assertThat(before).hasSize(2);

        S3Parquet.write(List.of(new Sale("a-new", 2, "a"), new Sale("o5", 50, VALUE))).partitionBy("country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).catalog(catalog()).s3(s3).to(table);

        assertThat(keys()).hasSize(2).doesNotContainAnyElementsOf(before);
        assertThat(rowsAt(registered)).containsExactly(List.of("o5", 50L));
        String direct = keys().stream().filter(k -> k.lastIndexOf('/') == "sales/country=a/".length() - 1).findFirst().orElseThrow();
        assertThat(io.wrangler.testkit.DuckReader.queryFile(Lake.s3().get(bucket, direct), "SELECT orderid, amount FROM $file"))
                .containsExactly(List.of("a-new", 2L));
        assertThat(locationOf(VALUE)).isEqualTo(registered);
        assertThat(locationOf("a")).isEqualTo(table + "country=a/");
    }

    @Test
    void anOverwriteOfAPartitionLeavesAPartitionRegisteredBelowItsFolder() {
        // awswrangler's 'a/b c=d:e' lies inside the Hive folder of 'a': replacing 'a' alone must not delete it.
        put("country=a/", List.of(new Old("a-old", 1)));
        AwswranglerTables.partition(glue, db, "sales", List.of("a"), table + "country=a/", COLUMNS);
        Set<String> nested = keys().stream().filter(k -> k.startsWith("sales/country=" + VALUE + "/")).collect(Collectors.toSet());
        assertThat(nested).hasSize(1);

        S3Parquet.write(List.of(new Sale("a-new", 2, "a"))).partitionBy("country").mode(WriteMode.OVERWRITE_PARTITIONS)
                .catalog(catalog()).s3(s3).to(table);

        assertThat(keys()).containsAll(nested).hasSize(2);
        assertThat(rowsAt(registered)).containsExactly(List.of("o1", 10L), List.of("o2", 20L));
        String direct = keys().stream().filter(k -> k.lastIndexOf('/') == "sales/country=a/".length() - 1).findFirst().orElseThrow();
        assertThat(io.wrangler.testkit.DuckReader.queryFile(Lake.s3().get(bucket, direct), "SELECT orderid, amount FROM $file"))
                .containsExactly(List.of("a-new", 2L));
        assertThat(locationOf(VALUE)).isEqualTo(registered);
    }

    @Test
    void aStreamedAppendLooksUpEachPartitionAsItComes() throws IOException {
        try (BufferAllocator allocator = new RootAllocator(); ArrowStreamReader reader = stream(allocator, "o6", 60, VALUE)) {
            S3Parquet.write(reader).partitionBy("country").mode(WriteMode.APPEND).catalog(catalog()).s3(s3).to(table);
        }

        assertThat(locationOf(VALUE)).isEqualTo(registered);
        assertThat(rowsAt(registered)).containsExactly(List.of("o1", 10L), List.of("o2", 20L), List.of("o6", 60L));
        assertThat(keys()).allMatch(k -> k.startsWith("sales/country=" + VALUE + "/"));
    }

    @Test
    void aRegisteredLocationWithoutItsTrailingSlashIsKeptAsItIs() {
        String bare = table + "country=b c";
        put("country=b c/", List.of(new Old("p1", 1)));
        AwswranglerTables.partition(glue, db, "sales", List.of("b c"), bare, COLUMNS);

        S3Parquet.write(List.of(new Sale("p2", 2, "b c"))).partitionBy("country").mode(WriteMode.OVERWRITE_PARTITIONS)
                .catalog(catalog()).s3(s3).to(table);

        assertThat(locationOf("b c")).isEqualTo(bare);
        assertThat(rowsAt(bare + "/")).containsExactly(List.of("p2", 2L));
    }

    @Test
    void aRegisteredLocationOutsideTheTableIsRefusedBeforeAnyIo() {
        String elsewhere = "s3://" + bucket + "/elsewhere/country=y/";
        Lake.s3().put(bucket, "elsewhere/country=y/part-0.parquet", Lake.s3().get(bucket, keys().iterator().next()));
        AwswranglerTables.partition(glue, db, "sales", List.of("y"), elsewhere, COLUMNS);
        Map<String, byte[]> before = Lake.snapshot(bucket);

        for (WriteMode mode : List.of(WriteMode.APPEND, WriteMode.OVERWRITE_PARTITIONS)) {
            assertThatThrownBy(() -> S3Parquet.write(List.of(new Sale("o7", 70, "y"), new Sale("o8", 80, VALUE))).partitionBy("country")
                    .mode(mode).catalog(catalog()).s3(s3).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): the partition [country=y] is registered in glue:" + db
                            + ".sales at the Location " + elsewhere + ", which is outside the table root " + table + "; wrangler writes "
                            + "a partition that is already registered under its registered Location, and never writes or deletes outside "
                            + "that partition's folder in the table. Move the partition's files to a folder under " + table + " and set its "
                            + "Location to it (or drop the partition from the catalog, and wrangler writes it at " + table + "country=y/). "
                            + "Nothing was written.");
            assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
        }
        assertThat(locationOf("y")).isEqualTo(elsewhere);
    }

    @Test
    void aStreamedWriteRefusesALocationOutsideTheTableAndLeavesTheBucketAsItWas() throws IOException {
        String elsewhere = "s3://" + bucket + "/elsewhere/country=y/";
        AwswranglerTables.partition(glue, db, "sales", List.of("y"), elsewhere, COLUMNS);
        Map<String, byte[]> before = Lake.snapshot(bucket);

        try (BufferAllocator allocator = new RootAllocator(); ArrowStreamReader reader = stream(allocator, "o9", 90, "y")) {
            assertThatThrownBy(() -> S3Parquet.write(reader).partitionBy("country").mode(WriteMode.APPEND).catalog(catalog()).s3(s3).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessageStartingWith("Cannot write " + table + " (step: validate): the partition [country=y] is registered in glue:"
                            + db + ".sales at the Location " + elsewhere + ", which is outside the table root " + table + ";");
        }
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void aPartitionRegisteredAtTheTableRootIsRefused() {
        AwswranglerTables.partition(glue, db, "sales", List.of("root"), table, COLUMNS);
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(List.of(new Sale("o", 1, "root"))).partitionBy("country").mode(WriteMode.OVERWRITE_PARTITIONS)
                .catalog(catalog()).s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the partition [country=root] is registered in glue:" + db
                        + ".sales at the Location " + table + ", which is the table root itself; wrangler writes a partition that is "
                        + "already registered under its registered Location, and never writes or deletes outside that partition's folder "
                        + "in the table. Move the partition's files to a folder under " + table + " and set its Location to it (or drop "
                        + "the partition from the catalog, and wrangler writes it at " + table + "country=root/). Nothing was written.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void twoPartitionsRegisteredAtOneLocationAreRefused() {
        AwswranglerTables.partition(glue, db, "sales", List.of("twin"), registered, COLUMNS);
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(List.of(new Sale("o", 1, VALUE), new Sale("p", 2, "twin"))).partitionBy("country")
                .mode(WriteMode.APPEND).catalog(catalog()).s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the partitions [country=" + VALUE + "] and [country=twin] are both "
                        + "registered in glue:" + db + ".sales at the Location " + registered + ", so their files could not be told apart. "
                        + "Give each partition a Location of its own. Nothing was written.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void withoutACatalogAWriteIntoFoldersThatReadAsOtherColumnsIsRefused() {
        // Without the catalog, awswrangler's country=a/b c=d:e/ reads as the folders of two columns (country, b c): a write
        // of the escaped Hive folder country=a%2Fb c%3Dd%3Ae/ beside it would leave a table that a read by path refuses.
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(List.of(new Sale("o3", 30, VALUE))).partitionBy("country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageContaining("(step: validate): it partitions by [country] but the table's files lie in folders of [country, b c]")
                .hasMessageEndingWith("Write with partitionBy(\"country\", \"b c\"), or OVERWRITE the table to redefine it; nothing was written.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(locationOf(VALUE)).isEqualTo(registered);
    }

    /** A one-batch Arrow stream (an input that can be read only once) of one row. */
    private static ArrowStreamReader stream(BufferAllocator allocator, String orderid, long amount, String country) throws IOException {
        Schema schema = new Schema(List.of(new Field("orderid", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("amount", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("country", FieldType.nullable(new ArrowType.Utf8()), null)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator); ArrowStreamWriter w = new ArrowStreamWriter(root, null, bytes)) {
            root.allocateNew();
            ((VarCharVector) root.getVector(0)).setSafe(0, orderid.getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector(1)).setSafe(0, amount);
            ((VarCharVector) root.getVector(2)).setSafe(0, country.getBytes(StandardCharsets.UTF_8));
            root.setRowCount(1);
            w.start();
            w.writeBatch();
            w.end();
        }
        return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
    }
}
