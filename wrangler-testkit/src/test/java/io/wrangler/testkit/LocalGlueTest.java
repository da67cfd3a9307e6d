package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.AlreadyExistsException;
import software.amazon.awssdk.services.glue.model.BatchCreatePartitionResponse;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.ConcurrentModificationException;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.GetPartitionsResponse;
import software.amazon.awssdk.services.glue.model.GlueException;
import software.amazon.awssdk.services.glue.model.InvalidInputException;
import software.amazon.awssdk.services.glue.model.Partition;
import software.amazon.awssdk.services.glue.model.PartitionInput;
import software.amazon.awssdk.services.glue.model.PartitionValueList;
import software.amazon.awssdk.services.glue.model.TableInput;

/** LocalGlue answers the real SDK client with Glue's limits, errors and semantics. */
class LocalGlueTest {
    private static LocalGlue local;
    private static GlueClient glue;
    private static int n;
    private String db;

    @BeforeAll
    static void start() {
        local = LocalGlue.start();
        glue = local.client();
    }

    @AfterAll
    static void stop() {
        local.close();
    }

    @BeforeEach
    void database() {
        db = "db" + (++n);
        glue.createDatabase(b -> b.databaseInput(d -> d.name(db)));
        glue.createTable(b -> b.databaseName(db).tableInput(TableInput.builder().name("t")
                .partitionKeys(Column.builder().name("dt").type("date").build(), Column.builder().name("n").type("int").build(),
                        Column.builder().name("c").type("string").build())
                .storageDescriptor(s -> s.location("s3://b/t/").columns(Column.builder().name("x").type("bigint").build())).build()));
    }

    private static PartitionInput partition(String dt, int n, String c) {
        return PartitionInput.builder().values(dt, String.valueOf(n), c).storageDescriptor(s -> s.location("s3://b/t/" + dt + "/" + n + "/" + c + "/")).build();
    }

    private void createPartitions(int count) {
        List<PartitionInput> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            all.add(partition("2024-01-" + String.format("%02d", 1 + i % 28), i, i % 2 == 0 ? "RU" : "DE"));
        }
        for (int from = 0; from < all.size(); from += 100) {
            List<PartitionInput> chunk = all.subList(from, Math.min(all.size(), from + 100));
            glue.batchCreatePartition(b -> b.databaseName(db).tableName("t").partitionInputList(chunk));
        }
    }

    private List<Integer> matching(String expression) {
        List<Integer> out = new ArrayList<>();
        glue.getPartitionsPaginator(b -> b.databaseName(db).tableName("t").expression(expression))
                .forEach(page -> page.partitions().forEach(p -> out.add(Integer.parseInt(p.values().get(1)))));
        return out.stream().sorted().toList();
    }

    @Test
    void aFileBackedCatalogIsSeenAgainByTheNextEndpointOnItsFile() throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Files.createTempDirectory("local-glue-").resolve("catalog.json");
        try (LocalGlue first = LocalGlue.fileBacked(file)) {
            first.client().createDatabase(b -> b.databaseInput(d -> d.name("kept")));
        }
        try (LocalGlue again = LocalGlue.fileBacked(file)) {
            assertThat(again.client().getDatabase(b -> b.name("kept")).database().name()).isEqualTo("kept");
        }
    }

    @Test
    void tablesAreCreatedReadAndRefusedTwice() {
        assertThat(glue.getTable(b -> b.databaseName(db).name("T")).table().storageDescriptor().location()).isEqualTo("s3://b/t/");
        assertThatThrownBy(() -> glue.createTable(b -> b.databaseName(db).tableInput(t -> t.name("t")))).isInstanceOf(AlreadyExistsException.class);
        assertThatThrownBy(() -> glue.getTable(b -> b.databaseName(db).name("missing"))).isInstanceOf(EntityNotFoundException.class);
        assertThatThrownBy(() -> glue.getTable(b -> b.databaseName("nodb").name("t"))).isInstanceOf(EntityNotFoundException.class)
                .hasMessageContaining("Database nodb not found.");
        assertThatThrownBy(() -> glue.createTable(b -> b.databaseName(db).tableInput(t -> t.name("x".repeat(256)))))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("length between 1 and 255");
    }

    @Test
    void updateTableIsACompareAndSwapOnVersionIdAndArchivesUnlessSkipped() {
        TableInput input = TableInput.builder().name("t").storageDescriptor(s -> s.location("s3://b/t/")).build();
        glue.updateTable(b -> b.databaseName(db).tableInput(input).versionId("0"));
        assertThatThrownBy(() -> glue.updateTable(b -> b.databaseName(db).tableInput(input).versionId("0")))
                .isInstanceOf(ConcurrentModificationException.class);
        glue.updateTable(b -> b.databaseName(db).tableInput(input).versionId("1").skipArchive(true));

        assertThat(glue.getTable(b -> b.databaseName(db).name("t")).table().versionId()).isEqualTo("2");
        assertThat(glue.getTableVersions(b -> b.databaseName(db).tableName("t")).tableVersions()).extracting(v -> v.versionId())
                .containsExactly("2", "0");
    }

    @Test
    void batchLimitsAreEnforced() {
        List<PartitionInput> many = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            many.add(partition("2024-01-01", i, "RU"));
        }
        assertThatThrownBy(() -> glue.batchCreatePartition(b -> b.databaseName(db).tableName("t").partitionInputList(many)))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("between 1 and 100");
        List<PartitionValueList> toDelete = new ArrayList<>();
        for (int i = 0; i < 26; i++) {
            toDelete.add(PartitionValueList.builder().values("2024-01-01", String.valueOf(i), "RU").build());
        }
        assertThatThrownBy(() -> glue.batchDeletePartition(b -> b.databaseName(db).tableName("t").partitionsToDelete(toDelete)))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("less than or equal to 25");
        assertThatThrownBy(() -> glue.getPartitions(b -> b.databaseName(db).tableName("t").maxResults(1001)))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("between 1 and 1000");
        assertThatThrownBy(() -> glue.getPartitions(b -> b.databaseName(db).tableName("t").expression("c = '" + "x".repeat(2048) + "'")))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("2048");
    }

    @Test
    void batchErrorsComeBackPerEntry() {
        createPartitions(2);
        BatchCreatePartitionResponse r = glue.batchCreatePartition(b -> b.databaseName(db).tableName("t").partitionInputList(
                partition("2024-01-01", 0, "RU"), partition("2024-01-05", 5, "RU"),
                PartitionInput.builder().values("2024-01-01").storageDescriptor(s -> s.location("s3://b/t/x/")).build()));
        assertThat(r.errors()).extracting(e -> e.errorDetail().errorCode()).containsExactly("AlreadyExistsException", "InvalidInputException");
        assertThat(glue.batchDeletePartition(b -> b.databaseName(db).tableName("t").partitionsToDelete(
                PartitionValueList.builder().values("2024-01-05", "5", "RU").build(),
                PartitionValueList.builder().values("1999-01-01", "9", "RU").build())).errors())
                .extracting(e -> e.errorDetail().errorCode()).containsExactly("EntityNotFoundException");
    }

    @Test
    void getPartitionsFiltersByExpressionOnStringIntegerAndDateKeysAndPages() {
        createPartitions(250);
        assertThat(matching("n = 7")).containsExactly(7);
        assertThat(matching("n < 3 OR n >= 248")).containsExactly(0, 1, 2, 248, 249);
        assertThat(matching("n <= 2 AND c <> 'RU'")).containsExactly(1);
        assertThat(matching("n > 245 AND c = 'RU'")).containsExactly(246, 248);
        assertThat(matching("n IN (1, 100, 200)")).containsExactly(1, 100, 200);
        assertThat(matching("n BETWEEN 10 AND 12")).containsExactly(10, 11, 12);
        assertThat(matching("dt = '2024-01-28' AND n < 100")).containsExactly(27, 55, 83);
        assertThat(matching("dt BETWEEN '2024-01-27' AND '2024-01-28' AND n < 60")).containsExactly(26, 27, 54, 55);
        assertThat(matching("(dt > '2024-01-27' OR n = 0) AND NOT c = 'RU'")).containsExactly(27, 55, 83, 111, 139, 167, 195, 223);
        assertThat(matching("(dt > '2024-01-27' OR n = 0) AND NOT c = 'DE'")).containsExactly(0);
        assertThat(matching("c LIKE 'R%' AND n < 5")).containsExactly(0, 2, 4);

        GetPartitionsResponse first = glue.getPartitions(b -> b.databaseName(db).tableName("t").maxResults(100));
        assertThat(first.partitions()).hasSize(100);
        assertThat(first.nextToken()).isNotNull();
        List<Partition> all = new ArrayList<>();
        glue.getPartitionsPaginator(b -> b.databaseName(db).tableName("t").maxResults(100)).forEach(p -> all.addAll(p.partitions()));
        assertThat(all).hasSize(250);
    }

    @Test
    void faultsCanBeInjectedBeforeOrAfterApplyingAndCallsAreCounted() {
        int before = local.calls("GetTable");
        local.failNext("GetTable", 1, GlueFault.THROTTLING);
        assertThatThrownBy(() -> glue.getTable(b -> b.databaseName(db).name("t")))
                .isInstanceOfSatisfying(GlueException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException"));
        assertThat(glue.getTable(b -> b.databaseName(db).name("t")).table().name()).isEqualTo("t");
        assertThat(local.calls("GetTable") - before).isEqualTo(2);

        local.failNextAfterApplying("CreatePartition", 1, GlueFault.OPERATION_TIMEOUT);
        assertThatThrownBy(() -> glue.createPartition(b -> b.databaseName(db).tableName("t").partitionInput(partition("2024-02-01", 1, "RU"))))
                .isInstanceOfSatisfying(GlueException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("OperationTimeoutException"));
        assertThat(glue.getPartition(b -> b.databaseName(db).tableName("t").partitionValues("2024-02-01", "1", "RU")).partition()).isNotNull();

        local.failNext("GetDatabase", 1, GlueFault.INTERNAL_SERVICE);
        assertThatThrownBy(() -> glue.getDatabase(b -> b.name(db)))
                .isInstanceOfSatisfying(GlueException.class, e -> assertThat(e.statusCode()).isEqualTo(500));

        local.delay("GetDatabases", Duration.ofMillis(300));
        long start = System.nanoTime();
        glue.getDatabases(b -> { });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        local.delay("GetDatabases", Duration.ZERO);
    }
}
