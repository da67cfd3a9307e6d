package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.catalog.PartitionEntry;
import io.wrangler.commit.CatalogOnly;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Table;

/** S3Parquet.register: an existing dataset adopted into Glue without a byte of it rewritten. */
class RegisterTableTest {
    private final MemoryS3 s3 = TestLakes.memoryS3();
    private final LocalGlue glue = TestLakes.glue();

    public record Order(String id, long cents, LocalDate dt, String country) {
    }

    public record Event(String id, Instant ts) {
    }

    public record Named(String id, String country) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private static List<Order> orders() {
        List<Order> out = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            out.add(new Order("o" + i, 100L * i, LocalDate.of(2024, 1, 1 + i % 3), i % 2 == 0 ? "RU" : "a/b"));
        }
        return out;
    }

    private Table table(String db, String name) {
        return glue.client().getTable(b -> b.databaseName(db).name(name)).table();
    }

    @Test
    void aDatasetWrittenWithoutCatalogIsRegisteredAndReadsByNameAsByPath() {
        String bucket = TestLakes.bucket("register", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/orders/";
        S3Parquet.write(orders()).partitionBy("dt", "country").s3(s3.client()).to(uri);
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "orders");
        Map<String, String> before = objects(s3, bucket, "");

        RegisterResult planned = S3Parquet.register(uri).catalog(catalog).partitionTypes(Map.of("dt", "date")).s3(s3.client()).plan();
        assertThat(objects(s3, bucket, "")).as("a plan writes nothing").isEqualTo(before);
        assertThat(glue.client().getTables(b -> b.databaseName(db)).tableList()).isEmpty();

        RegisterResult r = S3Parquet.register(uri).catalog(catalog).partitionTypes(Map.of("dt", "date")).s3(s3.client()).run();

        assertThat(r.applied()).isTrue();
        assertThat(planned.applied()).isFalse();
        assertThat(planned.partitions()).isEqualTo(r.partitions());
        assertThat(planned.columns()).isEqualTo(r.columns());
        assertThat(r.columns()).containsExactly(Map.entry("id", "string"), Map.entry("cents", "bigint"));
        assertThat(r.partitionColumns()).containsExactly(Map.entry("dt", "date"), Map.entry("country", "string"));
        assertThat(r.files()).isEqualTo(6);
        assertThat(r.partitions()).extracting(PartitionEntry::location).containsExactlyInAnyOrder(
                uri + "dt=2024-01-01/country=RU/", uri + "dt=2024-01-01/country=a%2Fb/", uri + "dt=2024-01-02/country=RU/",
                uri + "dt=2024-01-02/country=a%2Fb/", uri + "dt=2024-01-03/country=RU/", uri + "dt=2024-01-03/country=a%2Fb/");
        assertThat(objects(s3, bucket, "")).as("no object written, moved or deleted; the lease released")
                .isEqualTo(before);

        Table t = table(db, "orders");
        assertThat(t.storageDescriptor().location()).isEqualTo(uri);
        assertThat(t.tableType()).isEqualTo("EXTERNAL_TABLE");
        assertThat(t.parameters()).containsEntry("classification", "parquet").containsEntry("compressionType", "snappy");
        assertThat(t.storageDescriptor().columns()).extracting(Column::name, Column::type)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("id", "string"), org.assertj.core.groups.Tuple.tuple("cents", "bigint"));
        assertThat(t.partitionKeys()).extracting(Column::name, Column::type)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("dt", "date"), org.assertj.core.groups.Tuple.tuple("country", "string"));
        assertThat(CatalogLake.partitions(glue, db, "orders")).extracting(p -> p.values().get(1), p -> p.storageDescriptor().location())
                .contains(org.assertj.core.groups.Tuple.tuple("a/b", uri + "dt=2024-01-01/country=a%2Fb/"));

        List<Order> byName = new ArrayList<>(S3Parquet.read(catalog).s3(s3.client()).toList(Order.class));
        List<Order> byPath = new ArrayList<>(S3Parquet.read(uri).s3(s3.client()).toList(Order.class));
        byName.sort(Comparator.comparing(Order::id));
        byPath.sort(Comparator.comparing(Order::id));
        assertThat(byName).isEqualTo(byPath).hasSize(12);
        assertThat(DuckReader.query(s3, bucket, "orders/", "SELECT id, cents, CAST(dt AS VARCHAR), country FROM t ORDER BY id"))
                .isEqualTo(byPath.stream().sorted(Comparator.comparing(Order::id))
                        .map(o -> List.<Object>of(o.id(), o.cents(), o.dt().toString(), o.country())).toList());
    }

    @Test
    void registeringAgainAddsOnlyWhatCameSinceAndChangesNothingElse() {
        String bucket = TestLakes.bucket("register-again", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/orders/";
        S3Parquet.write(orders()).partitionBy("dt", "country").s3(s3.client()).to(uri);
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "orders");
        S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run();
        String version = table(db, "orders").versionId();
        S3Parquet.write(List.of(new Order("late", 1, LocalDate.of(2024, 2, 1), "RU"))).partitionBy("dt", "country").s3(s3.client()).to(uri);

        RegisterResult again = S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run();

        assertThat(again.partitions()).hasSize(7);
        assertThat(CatalogLake.partitions(glue, db, "orders")).hasSize(7).extracting(p -> p.values())
                .contains(List.of("2024-02-01", "RU"));
        assertThat(table(db, "orders").versionId()).as("the table's definition unchanged: no UpdateTable").isEqualTo(version);
        assertThat(table(db, "orders").partitionKeys()).extracting(Column::type).containsExactly("string", "string");
    }

    @Test
    void awswranglersLayoutIsAdopted() {
        // awswrangler 3: values unescaped (country=a/b c=d:e/ nests folders), <32 hex>.snappy.parquet names, INT96 timestamps,
        // no default partition; beside it Spark's _SUCCESS marker and a hidden checksum file.
        String bucket = TestLakes.bucket("register-awswrangler", s3);
        String db = TestLakes.database(bucket);
        String scratch = "s3://" + bucket + "/scratch/";
        Instant ts = Instant.parse("2024-03-01T10:15:30.123456Z");
        S3Parquet.write(List.of(new Event("e1", ts))).timestampsAsInt96(true).s3(s3.client()).to(scratch + "one/");
        S3Parquet.write(List.of(new Event("e2", ts.plusSeconds(60)), new Event("e3", null))).timestampsAsInt96(true).s3(s3.client())
                .to(scratch + "two/");
        byte[] one = CatalogLake.only(s3, bucket, "scratch/one/");
        byte[] two = CatalogLake.only(s3, bucket, "scratch/two/");
        s3.put(bucket, "events/country=a/b c=d:e/0123456789abcdef0123456789abcdef.snappy.parquet", one);
        s3.put(bucket, "events/country=RU/fedcba9876543210fedcba9876543210.snappy.parquet", two);
        s3.put(bucket, "events/_SUCCESS", new byte[0]);
        s3.put(bucket, "events/country=RU/.fedcba9876543210fedcba9876543210.snappy.parquet.crc", new byte[] {1, 2, 3});
        String uri = "s3://" + bucket + "/events/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "events");

        assertThatThrownBy(() -> S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessageStartingWith("Cannot register " + uri + " (step: validate): " + uri + "country=a/b c=d:e/0123456789abcdef0123456789abcdef"
                        + ".snappy.parquet lies in the folder 'country=a/b c=d:e/' (folders of the columns [country, b c]), which is not a "
                        + "partition folder of the columns [country] that " + uri + "country=RU/fedcba9876543210fedcba9876543210.snappy.parquet "
                        + "lies in. Move the stray object out of the table, or declare the partition columns with partitionColumns(...). "
                        + "Nothing was changed.");

        RegisterResult r = S3Parquet.register(uri).catalog(catalog).partitionColumns("country").s3(s3.client()).run();

        assertThat(r.columns()).containsExactly(Map.entry("id", "string"), Map.entry("ts", "timestamp"));
        assertThat(r.partitions()).containsExactlyInAnyOrder(new PartitionEntry(List.of("RU"), uri + "country=RU/"),
                new PartitionEntry(List.of("a/b c=d:e"), uri + "country=a/b c=d:e/"));
        assertThat(CatalogLake.partitions(glue, db, "events")).extracting(p -> p.values(), p -> p.storageDescriptor().location()).containsExactly(
                org.assertj.core.groups.Tuple.tuple(List.of("RU"), uri + "country=RU/"),
                org.assertj.core.groups.Tuple.tuple(List.of("a/b c=d:e"), uri + "country=a/b c=d:e/"));
        List<Map<String, Object>> rows = new ArrayList<>();
        S3Parquet.read(catalog).s3(s3.client()).toList(Named.class).forEach(n -> rows.add(Map.of("id", n.id(), "country", n.country())));
        assertThat(rows).containsExactlyInAnyOrder(Map.of("id", "e1", "country", "a/b c=d:e"), Map.of("id", "e2", "country", "RU"),
                Map.of("id", "e3", "country", "RU"));
        assertThat(DuckReader.query(s3, bucket, "events/country=a/b c=d:e/", "SELECT id, CAST(ts AS VARCHAR) FROM t"))
                .containsExactly(List.of("e1", "2024-03-01 10:15:30.123456"));
    }

    @Test
    void sparksLayoutWithTheDefaultPartitionIsAdoptedWithDeclaredTypes() {
        String bucket = TestLakes.bucket("register-spark", s3);
        String db = TestLakes.database(bucket);
        String scratch = "s3://" + bucket + "/scratch/";
        S3Parquet.write(List.of(new Named("s1", "x"))).s3(s3.client()).to(scratch + "one/");
        byte[] one = CatalogLake.only(s3, bucket, "scratch/one/");
        s3.put(bucket, "spark/hour=7/part-00000-6f1c2d3e-0000-4000-8000-000000000000-c000.snappy.parquet", one);
        s3.put(bucket, "spark/hour=__HIVE_DEFAULT_PARTITION__/part-00001-6f1c2d3e-0000-4000-8000-000000000000-c000.snappy.parquet", one);
        s3.put(bucket, "spark/_SUCCESS", new byte[0]);
        s3.put(bucket, "spark/hour=7_$folder$", new byte[0]);
        String uri = "s3://" + bucket + "/spark/";
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "spark");

        assertThatThrownBy(() -> S3Parquet.register(uri).catalog(catalog).partitionTypes(Map.of("hour", "date")).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot register " + uri + " (step: validate): the folder 'hour=7/' gives the partition column 'hour' the value '7', "
                        + "which is not a date. Declare the column's type as the folders have it (or leave it a string). Nothing was changed.");
        RegisterResult r = S3Parquet.register(uri).catalog(catalog).partitionTypes(Map.of("hour", "int")).s3(s3.client()).run();

        assertThat(r.partitionColumns()).containsExactly(Map.entry("hour", "int"));
        assertThat(CatalogLake.partitions(glue, db, "spark")).extracting(p -> p.values()).containsExactlyInAnyOrder(List.of("7"),
                List.of(PartitionEntry.DEFAULT_PARTITION));
        assertThat(DuckReader.query(s3, bucket, "spark/", "SELECT id, country, hour FROM t ORDER BY hour"))
                .containsExactly(List.of("s1", "x", "7"), List.of("s1", "x", PartitionEntry.DEFAULT_PARTITION));
    }

    @Test
    void badInputIsRefusedBeforeAnythingChanges() {
        String bucket = TestLakes.bucket("register-bad", s3);
        String db = TestLakes.database(bucket);
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "t");
        String empty = "s3://" + bucket + "/nothing/";
        s3.put(bucket, "nothing/_tmp/20240101T000000Z-0123456789abcdef/x.parquet", new byte[] {1});
        assertThatThrownBy(() -> S3Parquet.register(empty).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot register " + empty + " (step: validate): no data file lies under " + empty + " (no table there; _tmp/ and "
                        + "hidden objects do not count). Check the URI. Nothing was changed.");
        assertThatThrownBy(() -> S3Parquet.register(empty).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot register " + empty + " (step: validate): no catalog was given. Call catalog(...) with the table to create, "
                        + "e.g. GlueCatalog.of(glue).table(\"db\", \"name\"). Nothing was changed.");

        // Footers no engine reads as one table: id is a string in one file, a bigint in the other.
        String scratch = "s3://" + bucket + "/scratch/";
        S3Parquet.write(List.of(new Named("a", "x"))).s3(s3.client()).to(scratch + "s/");
        S3Parquet.write(List.of(new Order("b", 1, LocalDate.of(2024, 1, 1), "y"))).s3(s3.client()).to(scratch + "o/");
        record Numbered(long id) {
        }
        S3Parquet.write(List.of(new Numbered(7))).s3(s3.client()).to(scratch + "n/");
        s3.put(bucket, "mixed/dt=1/a.parquet", CatalogLake.only(s3, bucket, "scratch/s/"));
        s3.put(bucket, "mixed/dt=2/b.parquet", CatalogLake.only(s3, bucket, "scratch/n/"));
        String mixed = "s3://" + bucket + "/mixed/";
        Map<String, String> before = objects(s3, bucket, "");
        assertThatThrownBy(() -> S3Parquet.register(mixed).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot register " + mixed + " (step: validate): the files' footers disagree, and no reader reads them as one table: "
                        + "the column 'id' is Utf8 in " + mixed + "dt=1/a.parquet but Int(64, true) in " + mixed + "dt=2/b.parquet. Rewrite one of "
                        + "the files with the other's type, or move it out of the table. Nothing was changed.");
        assertThat(objects(s3, bucket, "")).isEqualTo(before);
        assertThat(glue.client().getTables(b -> b.databaseName(db)).tableList()).isEmpty();
    }

    @Test
    void anExistingTableOfAnotherLocationOrColumnsIsRefusedUnlessReplaced() {
        String bucket = TestLakes.bucket("register-existing", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/orders/";
        String other = "s3://" + bucket + "/elsewhere/";
        S3Parquet.write(orders()).partitionBy("dt", "country").s3(s3.client()).to(uri);
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "orders");
        S3Parquet.write(List.of(new Named("z", "q"))).partitionBy("country").catalog(catalog).s3(s3.client()).to(other);

        assertThatThrownBy(() -> S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot register " + uri + " (step: validate): the catalog's table glue:" + db + ".orders already exists and is at "
                        + other + ", not at " + uri + ". Register under another table name, or call replaceTable(true) to replace its "
                        + "definition. Nothing was changed.");

        RegisterResult replaced = S3Parquet.register(uri).catalog(catalog).replaceTable(true).s3(s3.client()).run();
        assertThat(replaced.replaced()).isTrue();
        assertThat(table(db, "orders").storageDescriptor().location()).isEqualTo(uri);
        assertThat(CatalogLake.partitions(glue, db, "orders")).hasSize(6).allMatch(p -> p.storageDescriptor().location().startsWith(uri));

        // Same location, other columns: a table whose Glue definition declares a column the files do not have.
        Table t = table(db, "orders");
        glue.client().updateTable(b -> b.databaseName(db).tableInput(software.amazon.awssdk.services.glue.model.TableInput.builder()
                .name(t.name()).tableType(t.tableType()).parameters(t.parameters()).partitionKeys(t.partitionKeys())
                .storageDescriptor(t.storageDescriptor().toBuilder().columns(Column.builder().name("id").type("int").build()).build()).build()));
        assertThatThrownBy(() -> S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run())
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage("Cannot register " + uri + " (step: validate): the catalog's table glue:" + db + ".orders already exists and has "
                        + "the columns {id=int}, the files {id=string, cents=bigint}. Register under another table name, or call "
                        + "replaceTable(true) to replace its definition. Nothing was changed.");
    }

    @Test
    void aRegistrationCrashedAtEachStepIsFinishedByARerun() {
        String bucket = TestLakes.bucket("register-crash", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/wide/";
        List<Named> rows = new ArrayList<>();
        for (int i = 0; i < 230; i++) {
            rows.add(new Named("r" + i, "c" + i));
        }
        S3Parquet.write(rows).partitionBy("country").s3(s3.client()).to(uri);
        Map<String, String> data = objects(s3, bucket, "wide/");
        // fences: 1 CreateTable, 2..4 BatchCreatePartition (100 + 100 + 30, Glue's limit of 100 a call)
        List<Object[]> crashes = List.of(new Object[] {CatalogOnly.Step.LEASED, 1}, new Object[] {CatalogOnly.Step.RECOVERED, 1},
                new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 1}, new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 2},
                new Object[] {CatalogOnly.Step.BEFORE_CHANGE, 4});
        int n = 0;
        for (Object[] at : crashes) {
            GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "wide" + n++);
            assertThatThrownBy(() -> S3Parquet.register(uri).catalog(catalog).s3(s3.client()).hook((step, count) -> {
                if (step == at[0] && count == (int) at[1]) {
                    throw new Crash();
                }
            }).run()).isInstanceOf(Crash.class);
            int creates = glue.calls("BatchCreatePartition");
            RegisterResult r = S3Parquet.register(uri).catalog(catalog).tuning(TestLakes.PAST_LEASES).s3(s3.client()).run();
            assertThat(r.partitions()).hasSize(230);
            assertThat(CatalogLake.partitions(glue, db, catalog.name())).as("crashed at %s %s", at[0], at[1]).hasSize(230)
                    .allMatch(p -> p.storageDescriptor().location().equals(uri + "country=" + p.values().get(0) + "/"));
            assertThat(glue.calls("BatchCreatePartition") - creates).as("batches of at most 100").isEqualTo(3);
            assertThat(objects(s3, bucket, "wide/")).as("the data untouched, no lease left").isEqualTo(data);
        }
    }

    @Test
    void aRegistrationWaitsForAWriterThatHoldsTheLeaseAndRegistersWhatItWrote() throws Exception {
        String bucket = TestLakes.bucket("register-race", s3);
        String db = TestLakes.database(bucket);
        String uri = "s3://" + bucket + "/orders/";
        S3Parquet.write(orders()).partitionBy("dt", "country").s3(s3.client()).to(uri);
        GlueTable catalog = GlueCatalog.of(glue.client()).table(db, "orders");
        CatalogLake.Held writer = CatalogLake.heldAt(S3Parquet.write(
                List.of(new Order("w", 5, LocalDate.of(2024, 4, 4), "RU"))).partitionBy("dt", "country").s3(s3.client()), uri, io.wrangler.commit.Step.STAGED_FILE, 1);
        Map<String, String> during = published(bucket);
        assertThatThrownBy(() -> S3Parquet.register(uri).catalog(catalog).leaseWait(java.time.Duration.ZERO).s3(s3.client()).run())
                .isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot register " + uri + " (step: lease): another writer holds the table (")
                .hasMessageContaining("Nothing was changed; rerunning is safe once it has finished");
        assertThat(glue.client().getTables(b -> b.databaseName(db)).tableList()).as("nothing registered").isEmpty();
        assertThat(published(bucket)).isEqualTo(during);

        var register = java.util.concurrent.CompletableFuture.supplyAsync(() -> S3Parquet.register(uri).catalog(catalog).s3(s3.client()).run());
        writer.release();
        writer.write().get(60, java.util.concurrent.TimeUnit.SECONDS);
        RegisterResult r = register.get(60, java.util.concurrent.TimeUnit.SECONDS);

        // The registration's plan under the lease comes after the write: its partition is registered, exactly once.
        assertThat(r.partitions()).hasSize(7);
        assertThat(CatalogLake.partitions(glue, db, "orders")).extracting(p -> p.values()).hasSize(7).contains(List.of("2024-04-04", "RU"));
        assertThat(S3Parquet.read(catalog).s3(s3.client()).count()).isEqualTo(13);
    }

    /** The objects under {@code prefix}: each key with a digest of its bytes (so that a failed comparison prints keys). */
    static Map<String, String> objects(MemoryS3 s3, String bucket, String prefix) {
        Map<String, String> out = new java.util.TreeMap<>();
        s3.snapshot(bucket, prefix).forEach((k, v) -> out.put(k, v.length + ":" + java.util.Arrays.hashCode(v)));
        return out;
    }

    /** The objects of the bucket outside {@code _tmp/} folders (where a paused writer's staging may still be landing). */
    private Map<String, String> published(String bucket) {
        Map<String, String> out = objects(s3, bucket, "");
        out.keySet().removeIf(k -> k.contains("/_tmp/"));
        return out;
    }
}
