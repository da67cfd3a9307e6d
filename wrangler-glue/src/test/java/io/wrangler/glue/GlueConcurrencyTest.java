package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CommitConflictException;
import io.wrangler.Compression;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableDefinition;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.Table;
import software.amazon.awssdk.services.glue.model.TableInput;

/** The catalog half of a write against a table that another writer changes between prepare and commit. */
class GlueConcurrencyTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String location = "s3://" + bucket + "/t/";
    private final GlueClient glue = Lake.glue().client();

    private static Field f(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    private TableDefinition definition(WriteMode mode, Field... columns) {
        return new TableDefinition(location, List.of(columns), List.of(f("dt", ArrowType.Utf8.INSTANCE)), mode, Compression.SNAPPY);
    }

    private Table table() {
        return glue.getTable(b -> b.databaseName(db).name("t")).table();
    }

    /** Another writer's UpdateTable: adds a parameter, or changes a column's type. */
    private void otherWriterUpdates(Map<String, String> extraParameters, String columnToRetype) {
        Table t = table();
        Map<String, String> params = new HashMap<>(t.parameters());
        params.putAll(extraParameters);
        List<Column> columns = t.storageDescriptor().columns().stream()
                .map(c -> c.name().equals(columnToRetype) ? c.toBuilder().type("string").build() : c).toList();
        glue.updateTable(b -> b.databaseName(db).skipArchive(true).tableInput(TableInput.builder().name(t.name()).tableType(t.tableType())
                .parameters(params).partitionKeys(t.partitionKeys()).storageDescriptor(t.storageDescriptor().toBuilder().columns(columns).build()).build()));
    }

    @Test
    void aConcurrentUpdateIsDetectedThroughVersionIdAndMergedOnRetry() {
        GlueTable catalog = GlueCatalog.of(glue).table(db, "t");
        catalog.prepare(definition(WriteMode.APPEND, f("a", new ArrowType.Int(64, true)))).commit(List.of());

        CatalogCommit evolve = catalog.prepare(definition(WriteMode.APPEND, f("a", new ArrowType.Int(64, true)), f("b", ArrowType.Utf8.INSTANCE)));
        otherWriterUpdates(Map.of("owner", "someone-else"), null);
        int updates = Lake.glue().calls("UpdateTable");
        evolve.commit(List.of(new PartitionEntry(List.of("2024-01-15"), location + "dt=2024-01-15/")));

        assertThat(Lake.glue().calls("UpdateTable") - updates).as("one refused for its stale VersionId, one that succeeds").isEqualTo(2);
        Table t = table();
        assertThat(t.parameters()).containsEntry("owner", "someone-else");
        assertThat(t.storageDescriptor().columns()).extracting(Column::name).containsExactly("a", "b");
        assertThat(t.versionId()).isEqualTo("2");
    }

    @Test
    void aConcurrentChangeThatNoLongerFitsIsACommitConflict() {
        GlueTable catalog = GlueCatalog.of(glue).table(db, "t");
        catalog.prepare(definition(WriteMode.APPEND, f("a", new ArrowType.Int(64, true)))).commit(List.of());

        CatalogCommit evolve = catalog.prepare(definition(WriteMode.APPEND, f("a", new ArrowType.Int(64, true)), f("b", ArrowType.Utf8.INSTANCE)));
        otherWriterUpdates(Map.of(), "a");

        assertThatThrownBy(() -> evolve.commit(List.of()))
                .isInstanceOf(CommitConflictException.class)
                .hasMessage("Cannot update the Glue table " + db + ".t for " + location + " (step: catalog): another writer changed it so that this "
                        + "write no longer fits: Cannot write " + location + " (step: validate): the column 'a' is string in the Glue table " + db
                        + ".t but bigint in this write. Cast the column to string, or OVERWRITE the table to redefine it. The data is published "
                        + "and the write's manifest kept: rerunning the write is safe and registers it.");
    }

    /**
     * A change whose attempt fails (throttled) is fenced again before its retry: a writer that lost the table's lease
     * while it waited out the backoff sends nothing more (with a 10 s lease, a retry loop of seconds is long enough for a
     * takeover). The fence here is the caller's: it throws as TableLease's does once another holder took the lease.
     */
    @Test
    void aThrottledChangeIsFencedAgainBeforeItsRetry() {
        GlueTable catalog = GlueCatalog.of(glue).table(db, "t").retry(4, java.time.Duration.ofMillis(1), java.time.Duration.ofMillis(5));
        catalog.prepare(definition(WriteMode.APPEND, f("a", new ArrowType.Int(64, true)))).commit(List.of());
        CatalogCommit commit = catalog.prepare(definition(WriteMode.APPEND, f("a", new ArrowType.Int(64, true))));
        int[] fences = {0};
        Runnable fence = () -> {
            if (++fences[0] > 1) {
                throw new CommitConflictException(location, io.wrangler.WriteStep.CATALOG, "the lease was taken over (test)", null);
            }
        };
        int before = Lake.glue().calls("BatchCreatePartition");
        Lake.glue().failNext("BatchCreatePartition", 1, io.wrangler.testkit.GlueFault.THROTTLING);
        assertThatThrownBy(() -> commit.commit(List.of(new PartitionEntry(List.of("2024-01-15"), location + "dt=2024-01-15/")), fence))
                .isInstanceOf(CommitConflictException.class).hasMessage("the lease was taken over (test)");
        assertThat(fences[0]).isEqualTo(2);
        assertThat(Lake.glue().calls("BatchCreatePartition") - before).as("the throttled attempt only; no retry after the fence failed")
                .isEqualTo(1);
        assertThat(glue.getPartitions(b -> b.databaseName(db).tableName("t")).partitions()).isEmpty();
    }

    record Order(String orderId, LocalDate dt, long amountCents, BigDecimal price) {
    }

    record WiderOrder(String orderId, LocalDate dt, long amountCents, BigDecimal price, String channel) {
    }

    @Test
    void anExistingPartitionWhoseColumnsChangedIsUpdated() {
        String table = "s3://" + bucket + "/orders/";
        GlueTable catalog = GlueCatalog.of(glue).table(db, "orders");
        S3Parquet.write(List.of(new Order("a", LocalDate.of(2024, 1, 15), 1, BigDecimal.ONE.setScale(2)))).partitionBy("dt").catalog(catalog)
                .s3(Lake.s3().client()).to(table);
        int updates = Lake.glue().calls("BatchUpdatePartition");
        S3Parquet.write(List.of(new WiderOrder("b", LocalDate.of(2024, 1, 15), 2, BigDecimal.ONE.setScale(2), "web"))).partitionBy("dt")
                .catalog(catalog).s3(Lake.s3().client()).to(table);
        int afterEvolve = Lake.glue().calls("BatchUpdatePartition");
        S3Parquet.write(List.of(new WiderOrder("c", LocalDate.of(2024, 1, 15), 3, BigDecimal.ONE.setScale(2), "app"))).partitionBy("dt")
                .catalog(catalog).s3(Lake.s3().client()).to(table);

        assertThat(afterEvolve - updates).isEqualTo(1);
        assertThat(Lake.glue().calls("BatchUpdatePartition")).as("an existing partition with the same definition is left alone").isEqualTo(afterEvolve);
        Partition p = glue.getPartition(b -> b.databaseName(db).tableName("orders").partitionValues("2024-01-15")).partition();
        assertThat(p.storageDescriptor().columns()).extracting(Column::name).containsExactly("orderid", "amountcents", "price", "channel");
        assertThat(Lake.query(bucket, "orders/", "SELECT orderid, channel FROM t ORDER BY 1"))
                .containsExactly(java.util.Arrays.asList("a", null), List.of("b", "web"), List.of("c", "app"));
    }
}
