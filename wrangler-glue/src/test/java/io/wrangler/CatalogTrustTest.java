package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.wrangler.commit.Step;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.model.Partition;

/**
 * Recovery's catalog step acts on what a catalog-pending manifest in {@code _tmp/} says only within the table, and decides
 * on the Locations the catalog registers (issue 32): manifests left by a real crash before the catalog step, then edited.
 */
class CatalogTrustTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();

    /** A row of orders. */
    public record Order(String id, LocalDate dt, String country) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private final class Marts {
        final String bucket = TestLakes.bucket("marts", s3);
        final String db = TestLakes.database(bucket);
        final GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "orders");
        final String table = "s3://" + bucket + "/marts/orders/";

        Marts() {
            write(List.of(new Order("a1", D15, "RU"), new Order("a2", D15, "RU")), WriteMode.APPEND).to(table);
            write(List.of(new Order("r1", D16, "RU"), new Order("r2", D16, "RU"), new Order("r3", D16, "RU")), WriteMode.APPEND).to(table);
            S3Parquet.write(List.of(new Order("archived", D16, "RU"))).partitionBy("dt", "country").s3(s3.client())
                    .to("s3://" + bucket + "/marts/orders-archive/");
        }

        WriteBuilder write(List<Order> rows, WriteMode mode) {
            return S3Parquet.write(rows).partitionBy("dt", "country").mode(mode).catalog(catalog).s3(s3.client()).tuning(TestLakes.PAST_LEASES);
        }

        /** An overwrite of D15 cut right before its catalog step: PUBLISHED, its catalog step pending. */
        void crashBeforeCatalog() {
            assertThatThrownBy(() -> write(List.of(new Order("n1", D15, "RU")), WriteMode.OVERWRITE_PARTITIONS).stepHook((step, n) -> {
                if (step == Step.BEFORE_CATALOG) {
                    throw new Crash();
                }
            }).to(table)).isInstanceOf(Crash.class);
        }

        String manifestKey() {
            return s3.list(bucket, "marts/orders/_tmp/").keySet().stream().filter(k -> k.endsWith("/_manifest.json")).findFirst().orElseThrow();
        }

        void edit(Consumer<ObjectNode> change) throws Exception {
            ObjectNode m = (ObjectNode) JSON.readTree(s3.get(bucket, manifestKey()));
            change.accept(m);
            s3.put(bucket, manifestKey(), JSON.writeValueAsBytes(m));
        }

        Map<List<String>, String> partitions() {
            Map<List<String>, String> out = new TreeMap<>((x, y) -> x.toString().compareTo(y.toString()));
            for (Partition p : glue.client().getPartitions(b -> b.databaseName(db).tableName("orders")).partitions()) {
                out.put(p.values(), p.storageDescriptor().location());
            }
            return out;
        }

        List<List<Object>> rows(String prefix) {
            return DuckReader.query(s3, bucket, prefix, "SELECT id FROM t ORDER BY 1");
        }
    }

    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);

    private static ObjectNode partition(ObjectNode m, String folder, String... values) {
        ObjectNode p = ((ArrayNode) m.get("partitions")).addObject();
        p.put("folder", folder);
        ArrayNode v = p.putArray("values");
        for (String s : values) {
            v.add(s);
        }
        p.put("rows", 1).put("bytes", 100);
        return p;
    }

    @Test
    void aPendingPartitionFolderThatClimbsIntoASiblingTableIsNeverRegistered() throws Exception {
        Marts marts = new Marts();
        marts.crashBeforeCatalog();
        Map<List<String>, String> registered = marts.partitions();
        String folder = "_tmp/x/../../../orders-archive/dt=2024-01-17/country=RU/";
        String archived = s3.list(marts.bucket, "marts/orders-archive/dt=2024-01-16/country=RU/").keySet().iterator().next();
        s3.put(marts.bucket, "marts/orders/" + folder + "part-00000.parquet", s3.get(marts.bucket, archived));
        marts.edit(m -> partition(m, folder, "2024-01-17", "RU"));

        assertThatThrownBy(() -> S3Parquet.recover(marts.table, s3.client(), marts.catalog, TestLakes.PAST_LEASES))
                .isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("does not belong to this table: it names the partition folder '" + folder + "', which is not a "
                        + "plain folder of this table. Nothing was touched.");
        assertThat(marts.partitions()).isEqualTo(registered).doesNotContainKey(List.of("2024-01-17", "RU"));
    }

    @Test
    void aPendingPartitionAtAnEmptyFolderNeverRemovesTheRegisteredPartitionWhoseLocationHoldsData() throws Exception {
        Marts marts = new Marts();
        marts.crashBeforeCatalog();
        String live = marts.partitions().get(List.of("2024-01-16", "RU"));
        assertThat(live).isEqualTo(marts.table + "dt=2024-01-16/country=RU/");
        marts.edit(m -> partition(m, "dt=2024-01-16/country=RU/nothing-here/", "2024-01-16", "RU"));

        RecoveryResult r = S3Parquet.recover(marts.table, s3.client(), marts.catalog, TestLakes.PAST_LEASES);

        assertThat(r.rolledForward()).hasSize(1);
        assertThat(marts.partitions()).containsEntry(List.of("2024-01-16", "RU"), live)
                .containsEntry(List.of("2024-01-15", "RU"), marts.table + "dt=2024-01-15/country=RU/");
        assertThat(marts.rows("marts/orders/dt=2024-01-16/country=RU/")).containsExactly(List.of("r1"), List.of("r2"), List.of("r3"));
        assertThat(marts.rows("marts/orders/dt=2024-01-15/country=RU/")).containsExactly(List.of("n1"));
    }

    @Test
    void noForgedPendingPartitionFolderIsRegisteredOutsideTheTableOrRemovesALivePartition() throws Exception {
        for (String folder : List.of("../orders-archive/dt=2024-01-16/country=RU/", "dt=2024-01-16/../../orders-archive/",
                "dt=2024-01-16/country=%2e%2e/", "./dt=2024-01-16/country=RU/", "dt=2024-01-16//country=RU/", "_tmp/dt=2024-01-16/",
                "dt=2024-01-16/country=RU/_tmp/", "dt=2024-01-16/country=RU/nothing-here/", "dt=2024-01-15/country=RU/")) {
            Marts marts = new Marts();
            marts.crashBeforeCatalog();
            Map<List<String>, String> before = marts.partitions();
            marts.edit(m -> partition(m, folder, "2024-01-16", "RU"));
            try {
                S3Parquet.recover(marts.table, s3.client(), marts.catalog, TestLakes.PAST_LEASES);
            } catch (RuntimeException e) {
                assertThat(e).as(folder).isInstanceOf(CommitStateUnknownException.class);
            }
            Map<List<String>, String> after = marts.partitions();
            assertThat(after).as(folder).containsEntry(List.of("2024-01-16", "RU"), before.get(List.of("2024-01-16", "RU")));
            assertThat(after.values()).as(folder).allMatch(l -> l.startsWith(marts.table) && !l.contains("/.") && !l.contains("_tmp")
                    && !l.contains("%2e"));
            assertThat(marts.rows("marts/orders-archive/")).as(folder).containsExactly(List.of("archived"));
        }
    }
}
