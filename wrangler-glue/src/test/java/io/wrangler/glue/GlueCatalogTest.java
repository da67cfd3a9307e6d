package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CatalogException;
import io.wrangler.Compression;
import io.wrangler.InvalidWriteException;
import io.wrangler.RecoveryResult;
import io.wrangler.RetryPolicy;
import io.wrangler.S3Parquet;
import io.wrangler.WriteIncompleteException;
import io.wrangler.WriteMode;
import io.wrangler.WriteStep;
import io.wrangler.WriteResult;
import io.wrangler.testkit.GlueFault;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.StorageDescriptor;
import software.amazon.awssdk.services.glue.model.Table;

class GlueCatalogTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/marts/orders/";
    private final GlueClient glue = Lake.glue().client();

    record Order(String orderId, LocalDate dt, String country, long amountCents, BigDecimal price) {
    }

    record WiderOrder(String orderId, LocalDate dt, String country, long amountCents, BigDecimal price, String channel) {
    }

    /** An order with the column names the catalog gives {@link Order}'s (what a write without the catalog must use). */
    record CatalogOrder(String orderid, LocalDate dt, String country, long amountcents, BigDecimal price) {
    }

    static List<CatalogOrder> catalogNamed(List<Order> orders) {
        return orders.stream().map(o -> new CatalogOrder(o.orderId(), o.dt(), o.country(), o.amountCents(), o.price())).toList();
    }

    static List<Order> orders(String tag, List<LocalDate> days, List<String> countries, int each) {
        List<Order> out = new ArrayList<>();
        for (LocalDate d : days) {
            for (String c : countries) {
                for (int i = 0; i < each; i++) {
                    out.add(new Order(tag + "-" + d + "-" + c + "-" + i, d, c, 100L * i, new BigDecimal("1.50")));
                }
            }
        }
        return out;
    }

    private GlueTable orders() {
        return GlueCatalog.of(glue).table(db, "orders");
    }

    private WriteResult write(List<? extends Record> rows, WriteMode mode, GlueTable catalog) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).catalog(catalog).s3(Lake.s3().client()).to(table);
    }

    private Table glueTable(String name) {
        return glue.getTable(b -> b.databaseName(db).name(name)).table();
    }

    private List<Partition> partitions(String name) {
        List<Partition> out = new ArrayList<>();
        glue.getPartitionsPaginator(b -> b.databaseName(db).tableName(name)).forEach(page -> out.addAll(page.partitions()));
        return out;
    }

    private void assertParquetStorage(StorageDescriptor sd, String location, boolean compressed) {
        assertThat(sd.location()).isEqualTo(location);
        assertThat(sd.inputFormat()).isEqualTo("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        assertThat(sd.outputFormat()).isEqualTo("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        assertThat(sd.serdeInfo().serializationLibrary()).isEqualTo("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe");
        assertThat(sd.serdeInfo().parameters()).containsExactly(Map.entry("serialization.format", "1"));
        assertThat(sd.compressed()).isEqualTo(compressed);
        assertThat(sd.numberOfBuckets()).isEqualTo(-1);
        assertThat(sd.bucketColumns()).isEmpty();
        assertThat(sd.storedAsSubDirectories()).isFalse();
        assertThat(sd.sortColumns()).isEmpty();
    }

    @Test
    void registersTheTableAndPartitionsExactlyAsAthenaExpects() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU", "DE"), 2), WriteMode.OVERWRITE_PARTITIONS,
                orders().description("Orders mart"));

        Table t = glueTable("orders");
        assertThat(t.name()).isEqualTo("orders");
        assertThat(t.tableType()).isEqualTo("EXTERNAL_TABLE");
        assertThat(t.description()).isEqualTo("Orders mart");
        assertThat(t.parameters()).containsExactlyInAnyOrderEntriesOf(Map.of("classification", "parquet", "compressionType", "snappy", "typeOfData", "file"));
        assertThat(t.partitionKeys()).extracting(Column::name, Column::type).containsExactly(
                org.assertj.core.groups.Tuple.tuple("dt", "date"), org.assertj.core.groups.Tuple.tuple("country", "string"));
        assertThat(t.storageDescriptor().columns()).extracting(Column::name, Column::type).containsExactly(
                org.assertj.core.groups.Tuple.tuple("orderid", "string"), org.assertj.core.groups.Tuple.tuple("amountcents", "bigint"),
                org.assertj.core.groups.Tuple.tuple("price", "decimal(38,2)"));
        assertParquetStorage(t.storageDescriptor(), table, true);
        assertThat(t.storageDescriptor().parameters())
                .containsExactlyInAnyOrderEntriesOf(Map.of("classification", "parquet", "compressionType", "snappy", "typeOfData", "file"));

        List<Partition> parts = partitions("orders");
        assertThat(parts).extracting(Partition::values).containsExactlyInAnyOrder(List.of("2024-01-15", "RU"), List.of("2024-01-15", "DE"));
        Partition ru = parts.stream().filter(p -> p.values().get(1).equals("RU")).findFirst().orElseThrow();
        assertParquetStorage(ru.storageDescriptor(), table + "dt=2024-01-15/country=RU/", true);
        assertThat(ru.storageDescriptor().columns()).isEqualTo(t.storageDescriptor().columns());
        // The files carry the catalog's (sanitized) column names, so Athena finds every column.
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT orderid, amountcents, CAST(price AS VARCHAR) FROM t ORDER BY 1 LIMIT 1"))
                .containsExactly(List.of("a-2024-01-15-DE-0", 0L, "1.50"));
    }

    @Test
    void partitionValuesAreUnescapedAndLocationsEscaped() {
        record Event(String tag, long n) {
        }
        S3Parquet.write(List.of(new Event("a/b:c", 1), new Event(null, 2))).partitionBy("tag").catalog(GlueCatalog.of(glue).table(db, "events"))
                .s3(Lake.s3().client()).to("s3://" + bucket + "/events/");

        assertThat(partitions("events")).extracting(Partition::values, p -> p.storageDescriptor().location()).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(List.of("a/b:c"), "s3://" + bucket + "/events/tag=a%2Fb%3Ac/"),
                org.assertj.core.groups.Tuple.tuple(List.of("__HIVE_DEFAULT_PARTITION__"), "s3://" + bucket + "/events/tag=__HIVE_DEFAULT_PARTITION__/"));
    }

    @Test
    void twoHundredFiftyPartitionsAreRegisteredInChunksOfAHundred() {
        List<LocalDate> days = new ArrayList<>();
        for (int i = 0; i < 125; i++) {
            days.add(LocalDate.of(2024, 1, 1).plusDays(i));
        }
        int before = Lake.glue().calls("BatchCreatePartition");
        WriteResult r = write(orders("a", days, List.of("RU", "DE"), 1), WriteMode.APPEND, orders());

        assertThat(r.partitions()).hasSize(250);
        assertThat(Lake.glue().calls("BatchCreatePartition") - before).isEqualTo(3);
        assertThat(partitions("orders")).hasSize(250);
        assertThat(glue.getPartitions(b -> b.databaseName(db).tableName("orders").expression("dt BETWEEN '2024-01-10' AND '2024-01-12' AND country = 'RU'"))
                .partitions()).extracting(p -> p.values().get(0)).containsExactlyInAnyOrder("2024-01-10", "2024-01-11", "2024-01-12");
    }

    @Test
    void anAppendThatChangesNothingMakesNoUpdateTableCall() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders());
        int updates = Lake.glue().calls("UpdateTable");
        write(orders("b", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders());
        write(orders("c", List.of(LocalDate.of(2024, 1, 16)), List.of("RU"), 1), WriteMode.APPEND, orders());

        assertThat(Lake.glue().calls("UpdateTable")).isEqualTo(updates);
        assertThat(partitions("orders")).hasSize(2);
        assertThat(glueTable("orders").versionId()).isEqualTo("0");
    }

    @Test
    void aNewColumnEvolvesTheTableWithoutArchivingAVersion() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders());
        write(List.of(new WiderOrder("w", LocalDate.of(2024, 1, 16), "RU", 5, BigDecimal.ONE.setScale(2), "web")), WriteMode.APPEND, orders());

        Table t = glueTable("orders");
        assertThat(t.storageDescriptor().columns()).extracting(Column::name).containsExactly("orderid", "amountcents", "price", "channel");
        assertThat(t.versionId()).isEqualTo("1");
        assertThat(glue.getTableVersions(b -> b.databaseName(db).tableName("orders")).tableVersions()).hasSize(1);
        Partition p16 = partitions("orders").stream().filter(p -> p.values().get(0).equals("2024-01-16")).findFirst().orElseThrow();
        assertThat(p16.storageDescriptor().columns()).extracting(Column::name).contains("channel");
    }

    @Test
    void catalogVersioningKeepsATableVersionPerUpdate() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders().catalogVersioning(true));
        write(List.of(new WiderOrder("w", LocalDate.of(2024, 1, 16), "RU", 5, BigDecimal.ONE.setScale(2), "web")), WriteMode.APPEND,
                orders().catalogVersioning(true));

        assertThat(glue.getTableVersions(b -> b.databaseName(db).tableName("orders")).tableVersions()).extracting(v -> v.versionId())
                .containsExactly("1", "0");
    }

    @Test
    void aChangedColumnTypeIsRefusedBeforeAnyObjectIsWritten() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders());
        record Retyped(String orderId, LocalDate dt, String country, double amountCents, BigDecimal price) {
        }
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> write(List.of(new Retyped("x", LocalDate.of(2024, 1, 15), "RU", 1.5, BigDecimal.ONE.setScale(2))),
                WriteMode.OVERWRITE_PARTITIONS, orders()))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 'amountcents' is bigint in glue:" + db
                        + ".orders but double in this write, which does not widen to bigint without losing values. Cast it to bigint "
                        + "before writing, or OVERWRITE the table to redefine it.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void aLocationOtherThanTheTablesIsRefusedBeforeAnyObjectIsWritten() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders());
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(orders("b", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1)).partitionBy("dt", "country")
                .catalog(orders()).s3(Lake.s3().client()).to("s3://" + bucket + "/elsewhere/"))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write s3://" + bucket + "/elsewhere/ (step: validate): the Glue table " + db + ".orders is at " + table
                        + ", not at s3://" + bucket + "/elsewhere/. Write to the table's location, or register the data under another table name.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void otherPartitionKeysAreRefusedExceptByOverwrite() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders());
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> S3Parquet.write(orders("b", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1)).partitionBy("country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).catalog(orders()).s3(Lake.s3().client()).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the Glue table " + db + ".orders is partitioned by [dt:date, country:string], "
                        + "this write by [country:string]. Partition the write as the table is, or OVERWRITE the table to redefine it.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);

        S3Parquet.write(orders("b", List.of(LocalDate.of(2024, 1, 15)), List.of("RU", "DE"), 1)).partitionBy("country")
                .mode(WriteMode.OVERWRITE).catalog(orders()).s3(Lake.s3().client()).to(table);
        assertThat(glueTable("orders").partitionKeys()).extracting(Column::name).containsExactly("country");
        assertThat(glueTable("orders").storageDescriptor().columns()).extracting(Column::name).containsExactly("orderid", "dt", "amountcents", "price");
        assertThat(partitions("orders")).extracting(Partition::values).containsExactlyInAnyOrder(List.of("RU"), List.of("DE"));
    }

    @Test
    void aNewColumnWithSchemaEvolutionOffIsRefused() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders());
        Map<String, byte[]> before = Lake.snapshot(bucket);

        assertThatThrownBy(() -> write(List.of(new WiderOrder("w", LocalDate.of(2024, 1, 16), "RU", 5, BigDecimal.ONE.setScale(2), "web")), WriteMode.APPEND,
                orders().schemaEvolution(false)))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the column 'channel' is not in the Glue table " + db
                        + ".orders and schema evolution is off. Drop the column, or allow it with schemaEvolution(true).");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void aMissingDatabaseIsAnErrorUnlessAskedToCreateIt() {
        Map<String, byte[]> before = Lake.snapshot(bucket);
        assertThatThrownBy(() -> write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND,
                GlueCatalog.of(glue).table("nowhere_" + db, "orders")))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the Glue database 'nowhere_" + db
                        + "' does not exist. Create it, or call createDatabase(true) on the Glue table.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);

        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND,
                GlueCatalog.of(glue).table("nowhere_" + db, "orders").createDatabase(true));
        assertThat(glue.getTable(b -> b.databaseName("nowhere_" + db).name("orders")).table().name()).isEqualTo("orders");
    }

    @Test
    void namesAreSanitizedInTheCatalogAndTheFilesAndCollisionsRefused() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("Cámël Casë", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("Order-Date", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("N", FieldType.nullable(new ArrowType.Int(64, true)), null))), a)) {
            root.allocateNew();
            ((VarCharVector) root.getVector(0)).setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
            ((VarCharVector) root.getVector(1)).setSafe(0, "2024-01-15".getBytes(StandardCharsets.UTF_8));
            ((BigIntVector) root.getVector(2)).setSafe(0, 7);
            root.setRowCount(1);
            S3Parquet.write(root).partitionBy("Order-Date").catalog(GlueCatalog.of(glue).table(db, "My Orders!"))
                    .s3(Lake.s3().client()).to("s3://" + bucket + "/my/");
        }
        Table t = glueTable("my_orders_");
        assertThat(t.storageDescriptor().columns()).extracting(Column::name).containsExactly("camel_case", "n");
        assertThat(t.partitionKeys()).extracting(Column::name).containsExactly("order_date");
        assertThat(Lake.list(bucket, "my/").keySet()).allMatch(k -> k.startsWith("my/order_date=2024-01-15/"));
        assertThat(Lake.query(bucket, "my/", "SELECT camel_case, n, CAST(order_date AS VARCHAR) FROM t")).containsExactly(List.of("x", 7L, "2024-01-15"));

        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("Cámël Casë", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("camel_case", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))), a)) {
            root.setRowCount(0);
            Map<String, byte[]> before = Lake.snapshot(bucket);
            assertThatThrownBy(() -> S3Parquet.write(root).catalog(GlueCatalog.of(glue).table(db, "clash")).s3(Lake.s3().client())
                    .to("s3://" + bucket + "/clash/"))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write s3://" + bucket + "/clash/ (step: validate): the input columns 'Cámël Casë' and 'camel_case' both become "
                            + "'camel_case' in the catalog glue:" + db + ".clash. Rename one of them.");
            assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
        }
    }

    @Test
    void commentsDescriptionParametersAndTableTypeReachTheTable() {
        write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, orders()
                .description("Daily orders").parameters(Map.of("owner", "etl", "classification", "parquet"))
                .columnComments(Map.of("price", "unit price in EUR", "dt", "order day")).tableType("EXTERNAL_TABLE"));

        Table t = glueTable("orders");
        assertThat(t.description()).isEqualTo("Daily orders");
        assertThat(t.parameters()).containsEntry("owner", "etl").containsEntry("compressionType", "snappy");
        assertThat(t.storageDescriptor().columns()).filteredOn(c -> c.name().equals("price")).extracting(Column::comment).containsExactly("unit price in EUR");
        assertThat(t.partitionKeys()).filteredOn(c -> c.name().equals("dt")).extracting(Column::comment).containsExactly("order day");
    }

    @Test
    void compressionNoneIsRegisteredUncompressed() {
        S3Parquet.write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1)).partitionBy("dt", "country").compression(Compression.NONE)
                .catalog(orders()).s3(Lake.s3().client()).to(table);
        Table t = glueTable("orders");
        assertThat(t.storageDescriptor().compressed()).isFalse();
        assertThat(t.parameters()).containsEntry("compressionType", "none");
    }

    @Test
    void throttlingAndLostResponsesAreSurvived() {
        Lake.glue().failNext("GetTable", 2, GlueFault.THROTTLING);
        Lake.glue().failNextAfterApplying("CreateTable", 1, GlueFault.OPERATION_TIMEOUT);
        Lake.glue().failNext("BatchCreatePartition", 2, GlueFault.INTERNAL_SERVICE);
        Lake.glue().failNextAfterApplying("BatchCreatePartition", 1, GlueFault.THROTTLING);
        WriteResult r = write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU", "DE"), 1), WriteMode.APPEND,
                orders().retry(8, Duration.ofMillis(1), Duration.ofMillis(20)));

        assertThat(r.rows()).isEqualTo(2);
        assertThat(glueTable("orders").storageDescriptor().location()).isEqualTo(table);
        assertThat(partitions("orders")).hasSize(2);
    }

    @Test
    void aRetryPolicyBoundsTheCallsToAThrottledGlueOperation() {
        int before = Lake.glue().calls("GetTable");
        Lake.glue().failNext("GetTable", 3, GlueFault.THROTTLING);
        GlueTable threeAttempts = orders().retryPolicy(RetryPolicy.of(3, Duration.ofMillis(1), Duration.ofMillis(5)));
        assertThatThrownBy(() -> write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, threeAttempts))
                .isInstanceOf(CatalogException.class).hasMessageContaining("Glue answered ThrottlingException");
        assertThat(Lake.glue().calls("GetTable") - before).isEqualTo(3);
        assertThat(Lake.snapshot(bucket)).isEmpty();

        Lake.glue().failNext("GetTable", 3, GlueFault.THROTTLING);
        GlueTable fourAttempts = orders().retryPolicy(RetryPolicy.of(4, Duration.ofMillis(1), Duration.ofMillis(5)));
        WriteResult r = write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND, fourAttempts);
        assertThat(r.rows()).isEqualTo(1);
        assertThat(partitions("orders")).extracting(Partition::values).containsExactly(List.of("2024-01-15", "RU"));
    }

    @Test
    void retryPolicyNoneCallsAThrottledGlueOperationOnce() {
        int before = Lake.glue().calls("GetTable");
        Lake.glue().failNext("GetTable", 1, GlueFault.THROTTLING);
        assertThatThrownBy(() -> write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND,
                orders().retryPolicy(RetryPolicy.none())))
                .isInstanceOf(CatalogException.class).hasMessageContaining("Glue answered ThrottlingException");
        assertThat(Lake.glue().calls("GetTable") - before).isEqualTo(1);
    }

    @Test
    void theRetryShorthandIsTheSamePolicyAndATableKeepsItsOwnWhenChanged() {
        GlueTable base = orders();
        GlueTable shorthand = base.retry(5, Duration.ofMillis(10), Duration.ofMillis(80));
        GlueTable policy = base.retryPolicy(RetryPolicy.of(5, Duration.ofMillis(10), Duration.ofMillis(80)));
        assertThat(shorthand.options().retry).isEqualTo(policy.options().retry).isNotEqualTo(base.options().retry);
        assertThat(base.options().retry).isEqualTo(RetryPolicy.of(8, Duration.ofMillis(100), Duration.ofSeconds(5)));
        GlueTable described = policy.description("d");
        assertThat(described.options().retry).isEqualTo(policy.options().retry);
        assertThat(described.options().description).isEqualTo("d");
        assertThat(policy.options().description).isNull();
        assertThatThrownBy(() -> base.retry(0, Duration.ofMillis(1), Duration.ofMillis(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attempts must be at least 1, got 0");
    }

    @Test
    void aPermanentGlueErrorFailsFastAndRecoveryWithTheCatalogRegistersThePublishedData() {
        Lake.glue().failNext("CreateTable", 1, GlueFault.ACCESS_DENIED);
        int calls = Lake.glue().calls("CreateTable");
        assertThatThrownBy(() -> write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 2), WriteMode.OVERWRITE_PARTITIONS, orders()))
                .isInstanceOfSatisfying(WriteIncompleteException.class, e -> assertThat(e.remaining()).isEqualTo(WriteStep.CATALOG))
                .hasCauseInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Cannot register the write in glue:" + db + ".orders for " + table + " (step: catalog): Cannot create "
                        + "the Glue table " + db + ".orders for " + table + " (step: catalog): Glue answered AccessDeniedException "
                        + "(User is not authorized to perform this operation).")
                .hasMessageEndingWith("The data is committed and published; S3Parquet.recover(uri, s3, catalog), or the next write to the "
                        + "table with this catalog, registers the table as it is then. Rerunning the write is safe too.");
        assertThat(Lake.glue().calls("CreateTable") - calls).isEqualTo(1);
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT count(*) FROM t")).containsExactly(List.of(2L));

        RecoveryResult withoutCatalog = S3Parquet.recover(table, Lake.s3().client());
        assertThat(withoutCatalog.catalogPending()).hasSize(1);
        RecoveryResult r = S3Parquet.recover(table, Lake.s3().client(), orders());
        assertThat(r.rolledForward()).hasSize(1);
        assertThat(partitions("orders")).extracting(Partition::values).containsExactly(List.of("2024-01-15", "RU"));
        assertThat(Lake.list(bucket, "marts/orders/_tmp/")).isEmpty();
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT count(*) FROM t")).containsExactly(List.of(2L));
    }

    @Test
    void aCatalogPendingOverwriteIsNeverPublishedAgainAndIsRegisteredAsTheTableIsLater() {
        LocalDate d15 = LocalDate.of(2024, 1, 15);
        LocalDate d16 = LocalDate.of(2024, 1, 16);
        write(orders("a", List.of(d15, d16), List.of("RU"), 1), WriteMode.APPEND, orders());
        Lake.glue().failNext("BatchCreatePartition", 1, GlueFault.ACCESS_DENIED);
        assertThatThrownBy(() -> write(orders("b", List.of(d15), List.of("RU"), 2), WriteMode.OVERWRITE_PARTITIONS, orders()))
                .isInstanceOf(WriteIncompleteException.class);
        assertThat(S3Parquet.recover(table, Lake.s3().client()).catalogPending()).hasSize(1);
        // The pending write's staged copies are gone: only its manifest (PUBLISHED) is left.
        assertThat(Lake.list(bucket, "marts/orders/_tmp/").keySet()).allSatisfy(k -> assertThat(k).endsWith("_manifest.json"));

        // A later overwrite of the same partition, and an unrelated write, both without the catalog. Without a catalog
        // names are not sanitized, so these writes carry the catalog's column names themselves.
        S3Parquet.write(catalogNamed(orders("c", List.of(d15), List.of("RU"), 1))).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(Lake.s3().client()).to(table);
        S3Parquet.write(catalogNamed(orders("d", List.of(LocalDate.of(2024, 1, 17)), List.of("DE"), 1))).partitionBy("dt", "country")
                .mode(WriteMode.APPEND).s3(Lake.s3().client()).to(table);
        List<List<Object>> expected = List.of(List.of("c-2024-01-15-RU-0"), List.of("a-2024-01-16-RU-0"), List.of("d-2024-01-17-DE-0"));
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT orderid FROM t ORDER BY dt")).isEqualTo(expected);

        // With the catalog, the pending write registers the table as it is now: its data is not published again.
        RecoveryResult r = S3Parquet.recover(table, Lake.s3().client(), orders());
        assertThat(r.rolledForward()).hasSize(1);
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT orderid FROM t ORDER BY dt")).isEqualTo(expected);
        assertThat(Lake.list(bucket, "marts/orders/_tmp/")).isEmpty();
    }

    @Test
    void aFailureBetweenPartitionBatchesIsRepairedByRecoveryWithTheCatalog() {
        List<LocalDate> days = new ArrayList<>();
        for (int i = 0; i < 125; i++) {
            days.add(LocalDate.of(2024, 1, 1).plusDays(i));
        }
        int before = Lake.glue().calls("BatchCreatePartition");
        Lake.glue().failNth("BatchCreatePartition", 2, GlueFault.ACCESS_DENIED);
        assertThatThrownBy(() -> write(orders("a", days, List.of("RU", "DE"), 1), WriteMode.OVERWRITE_PARTITIONS, orders()))
                .isInstanceOf(WriteIncompleteException.class).hasMessageContaining("Glue answered AccessDeniedException");
        assertThat(Lake.glue().calls("BatchCreatePartition") - before).isEqualTo(2);
        assertThat(partitions("orders")).hasSize(100);

        S3Parquet.recover(table, Lake.s3().client(), orders());

        java.util.Set<String> folders = new java.util.TreeSet<>();
        Lake.list(bucket, "marts/orders/").keySet().forEach(k -> folders.add("s3://" + bucket + "/" + k.substring(0, k.lastIndexOf('/') + 1)));
        assertThat(partitions("orders")).extracting(p -> p.storageDescriptor().location()).containsExactlyInAnyOrderElementsOf(folders).hasSize(250);
    }

    @Test
    void anAppendWhoseCatalogStepFailsUndoesItselfInS3AndInGlue() {
        write(orders("a", List.of(LocalDate.of(2023, 12, 31)), List.of("RU"), 1), WriteMode.APPEND, orders());
        List<LocalDate> days = new ArrayList<>();
        for (int i = 0; i < 125; i++) {
            days.add(LocalDate.of(2024, 1, 1).plusDays(i));
        }
        Lake.glue().failNth("BatchCreatePartition", 2, GlueFault.ACCESS_DENIED);
        assertThatThrownBy(() -> write(orders("b", days, List.of("RU", "DE"), 1), WriteMode.APPEND, orders()))
                .isInstanceOf(CatalogException.class).hasMessageContaining("The append was undone");

        assertThat(S3Parquet.recover(table, Lake.s3().client(), orders()).isEmpty()).isTrue();
        assertThat(partitions("orders")).extracting(Partition::values).containsExactly(List.of("2023-12-31", "RU"));
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT orderid FROM t")).containsExactly(List.of("a-2023-12-31-RU-0"));
        assertThat(Lake.list(bucket, "marts/orders/_tmp/")).isEmpty();
        // The rerun the rollback makes safe: every row once, every partition registered.
        write(orders("b", days, List.of("RU", "DE"), 1), WriteMode.APPEND, orders());
        assertThat(partitions("orders")).hasSize(251);
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT count(*), count(DISTINCT orderid) FROM t")).containsExactly(List.of(251L, 251L));
    }

    @Test
    void overwriteRemovesPartitionsThatNoLongerExistInBatchesOfTwentyFive() {
        List<LocalDate> days = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            days.add(LocalDate.of(2024, 1, 1).plusDays(i));
        }
        write(orders("a", days, List.of("RU"), 1), WriteMode.APPEND, orders());
        int deletes = Lake.glue().calls("BatchDeletePartition");
        write(orders("b", List.of(LocalDate.of(2024, 3, 1)), List.of("RU"), 1), WriteMode.OVERWRITE, orders());

        assertThat(Lake.glue().calls("BatchDeletePartition") - deletes).isEqualTo(2);
        assertThat(partitions("orders")).extracting(Partition::values).containsExactly(List.of("2024-03-01", "RU"));
        assertThat(Lake.query(bucket, "marts/orders/", "SELECT CAST(dt AS VARCHAR), count(*) FROM t GROUP BY ALL"))
                .containsExactly(List.of("2024-03-01", 1L));
    }

    @Test
    void projectionWithoutRegisteredPartitionsMakesNoPartitionCalls() {
        int before = Lake.glue().callLog().size();
        write(orders("a", List.of(LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16)), List.of("RU", "DE"), 1), WriteMode.APPEND, orders()
                .registerPartitions(false)
                .projection(PartitionProjection.date("dt", "2024-01-01,NOW", "yyyy-MM-dd", 1, "DAYS"), PartitionProjection.enumOf("country", "RU", "DE")));

        assertThat(Lake.glue().callLog().subList(before, Lake.glue().callLog().size())).noneMatch(op -> op.contains("Partition"));
        assertThat(partitions("orders")).isEmpty();
        Map<String, String> p = glueTable("orders").parameters();
        assertThat(p).containsEntry("projection.enabled", "true")
                .containsEntry("projection.dt.type", "date").containsEntry("projection.dt.range", "2024-01-01,NOW")
                .containsEntry("projection.dt.format", "yyyy-MM-dd").containsEntry("projection.dt.interval", "1")
                .containsEntry("projection.dt.interval.unit", "DAYS")
                .containsEntry("projection.country.type", "enum").containsEntry("projection.country.values", "RU,DE")
                .containsEntry("storage.location.template", table + "dt=${dt}/country=${country}/");
        // Every written partition's folder is what the template makes of its values.
        for (String key : Lake.list(bucket, "marts/orders/").keySet()) {
            String folder = "s3://" + bucket + "/" + key.substring(0, key.lastIndexOf('/') + 1);
            String[] parts = key.substring("marts/orders/".length()).split("/");
            String dt = parts[0].substring(3);
            String country = parts[1].substring(8);
            assertThat(folder).isEqualTo(p.get("storage.location.template").replace("${dt}", dt).replace("${country}", country));
            assertThat(List.of("RU", "DE")).contains(country);
        }
    }

    @Test
    void integerAndInjectedProjectionsAndUnsanitizedNamesAndACatalogId() {
        record Reading(String Sensor, int bucket, long value) {
        }
        S3Parquet.write(List.of(new Reading("s1", 3, 10))).partitionBy("bucket", "Sensor")
                .catalog(GlueCatalog.of(glue).table(db, "readings").sanitizeNames(false).catalogId("123456789012")
                        .projection(PartitionProjection.integer("bucket", 0, 9), PartitionProjection.injected("Sensor")))
                .s3(Lake.s3().client()).to("s3://" + bucket + "/readings/");

        Table t = glue.getTable(b -> b.catalogId("123456789012").databaseName(db).name("readings")).table();
        assertThat(t.partitionKeys()).extracting(Column::name).containsExactly("bucket", "Sensor");
        assertThat(t.parameters()).containsEntry("projection.bucket.type", "integer").containsEntry("projection.bucket.range", "0,9")
                .containsEntry("projection.Sensor.type", "injected")
                .containsEntry("storage.location.template", "s3://" + bucket + "/readings/bucket=${bucket}/Sensor=${Sensor}/");
        assertThat(Lake.list(bucket, "readings/").keySet()).allMatch(k -> k.startsWith("readings/bucket=3/Sensor=s1/"));
    }

    @Test
    void aProjectionOfAColumnThatIsNotAPartitionKeyIsRefused() {
        Map<String, byte[]> before = Lake.snapshot(bucket);
        assertThatThrownBy(() -> write(orders("a", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 1), WriteMode.APPEND,
                orders().projection(PartitionProjection.enumOf("price", "1"))))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot write " + table + " (step: validate): the partition projection names the column 'price', which is not a "
                        + "partition column of this write [dt, country]. Project only partition columns.");
        assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void anUnsigned64BitColumnIsRefusedForGlue() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("big", FieldType.nullable(new ArrowType.Int(64, false)), null))), a)) {
            root.allocateNew();
            ((UInt8Vector) root.getVector(0)).setSafe(0, -1L);
            root.setRowCount(1);
            Map<String, byte[]> before = Lake.snapshot(bucket);
            assertThatThrownBy(() -> S3Parquet.write(root).catalog(orders()).s3(Lake.s3().client()).to(table))
                    .isInstanceOf(InvalidWriteException.class)
                    .hasMessage("Cannot write " + table + " (step: validate): column 'big' is an unsigned 64-bit integer, which no Glue or Athena type "
                            + "holds: cast it to a signed 64-bit integer if its values fit, or ask for decimal(20,0) with dtype, which holds every value. "
                            + "Nothing was written.");
            assertThat(Lake.snapshot(bucket)).containsExactlyInAnyOrderEntriesOf(before);
        }
    }
}
