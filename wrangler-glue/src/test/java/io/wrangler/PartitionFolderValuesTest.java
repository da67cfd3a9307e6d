package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.hive.HivePaths;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Register and repair check every partition folder's value against its column's type: a value that is not of the type
 * (readers that parse it fail), or that a write of the same value puts in another folder (a merge, delete or overwrite of
 * that partition would leave this folder's rows beside its own: a merged key read twice), is refused before anything
 * changes, naming the folder; so are two folders that give one partition's values (the catalog would point to one of
 * them, and readers through it miss the other's rows). Glue equals S3 after every step.
 */
class PartitionFolderValuesTest {
    public record Id(String id) {
    }

    /**
     * A folder value under a column of {@code type}; {@code good} is a value of the type as a write writes it;
     * {@code canonical} is how a write writes {@code value} (null: as it is, or not a value of the type when {@code ok}
     * is false).
     */
    record Case(String type, String good, String value, boolean ok, String canonical) {
        String refusal() {
            String folder = "p=" + HivePaths.escape(value) + "/";
            String gives = "the folder '" + folder + "' gives the partition column 'p' the value '" + value + "', which ";
            return canonical == null ? gives + "is not a " + type : gives + "a write of the " + type + " " + canonical + " puts in the "
                    + "folder of '" + canonical + "': a merge, delete or overwrite of that partition would leave this folder's rows "
                    + "beside its own";
        }
    }

    private static final List<Case> CASES = List.of(
            new Case("date", "2024-01-04", "2024-01-05", true, null),
            new Case("date", "2024-01-04", "2024-1-5", false, null),
            new Case("date", "2024-01-04", "notadate", false, null),
            new Case("int", "7", "1.5", false, null),
            new Case("int", "7", "01", false, "1"),
            new Case("bigint", "7", "+5", false, "5"),
            new Case("bigint", "7", "99999999999", true, null),
            new Case("decimal(5,2)", "2", "1.5", true, null),
            new Case("decimal(5,2)", "2", "1.50", false, "1.5"),
            new Case("decimal(5,2)", "2", "0.00", false, "0"),
            new Case("decimal(5,2)", "2", "1.234", false, null),
            new Case("decimal(3,1)", "2", "123.4", false, null),
            new Case("boolean", "false", "true", true, null),
            new Case("boolean", "false", "TRUE", false, null),
            new Case("timestamp", "2024-01-04 00:00:00", "2024-01-05 10:00:00.25", true, null),
            new Case("timestamp", "2024-01-04 00:00:00", "2024-01-05 10:00", false, "2024-01-05 10:00:00"),
            new Case("timestamp", "2024-01-04 00:00:00", "2024-01-05 10:00:00.500", false, "2024-01-05 10:00:00.5"),
            new Case("string", "x", "a/b:c%", true, null));

    private final CatalogLake lake = new CatalogLake("values");
    private final byte[] file = lake.parquetOf(List.of(new Id("i1")));

    private String put(String table, String value) {
        String key = table + "/p=" + HivePaths.escape(value) + "/part-00000.parquet";
        lake.s3.put(lake.bucket, key, file);
        return key;
    }

    @Test
    void registerRefusesAFolderValueNotOfItsTypeOrNotAsAWriteWritesIt() {
        for (int i = 0; i < CASES.size(); i++) {
            Case c = CASES.get(i);
            String name = "r" + i;
            String uri = lake.uri(name);
            put(name, c.value());
            RegisterBuilder register = S3Parquet.register(uri).catalog(lake.table(name)).partitionTypes(Map.of("p", c.type()))
                    .s3(lake.s3.client());
            if (c.ok()) {
                register.run();
                assertThat(lake.locations(name)).as(c.toString()).containsExactly(c.value() + " @ " + uri + "p=" + HivePaths.escape(c.value()) + "/");
                lake.assertGlueEqualsS3(name, c.toString());
            } else {
                assertThatThrownBy(register::run).as(c.toString()).isInstanceOf(InvalidWriteException.class)
                        .hasMessage("Cannot register " + uri + " (step: validate): " + c.refusal() + ". " + (c.canonical() == null
                                ? "Declare the column's type as the folders have it (or leave it a string)."
                                : "Rename the folder to the value as written, or declare the column a string.") + " Nothing was changed.");
            }
            assertThat(lake.tableExists(name)).as(c.toString()).isEqualTo(c.ok());
        }
    }

    @Test
    void repairRefusesAFolderValueNotOfItsColumnsTypeOrNotAsAWriteWritesIt() {
        for (int i = 0; i < CASES.size(); i++) {
            Case c = CASES.get(i);
            String name = "m" + i;
            String uri = lake.uri(name);
            put(name, c.good());
            S3Parquet.register(uri).catalog(lake.table(name)).partitionTypes(Map.of("p", c.type())).s3(lake.s3.client()).run();
            put(name, c.value());
            RepairBuilder repair = S3Parquet.repairCatalog(uri).catalog(lake.table(name)).s3(lake.s3.client());
            if (c.ok()) {
                assertThat(repair.run().added()).as(c.toString()).hasSize(1);
                lake.assertGlueEqualsS3(name, c.toString());
            } else {
                List<String> before = lake.locations(name);
                assertThatThrownBy(repair::run).as(c.toString()).isInstanceOf(InvalidWriteException.class)
                        .hasMessage("Cannot repair the catalog of " + uri + " (step: validate): " + c.refusal() + " (p is " + c.type() + " in glue:"
                                + lake.db + "." + name + "). " + (c.canonical() == null
                                ? "Move the folder's files out of the table, or rename the folder to a " + c.type() + " value: registered, the "
                                        + "value fails the readers that parse it (Athena: HIVE_INVALID_PARTITION_VALUE)."
                                : "Rename the folder to the value as written.") + " Nothing was changed.");
                assertThat(lake.locations(name)).as(c.toString()).isEqualTo(before);
            }
        }
    }

    /**
     * {@code s=a%3Ab/} and {@code s=a:b/} (awswrangler's unescaped value beside wrangler's escaped one) both hold the value
     * {@code a:b}: registered, Glue pointed to the first and the second one's rows were read by no reader through Glue.
     */
    @Test
    void twoFoldersOfOnePartitionAreRefusedByRegisterAndRepairNotOneOfThemLeftUnregistered() {
        String uri = lake.uri("d");
        lake.s3.put(lake.bucket, "d/s=x/part-00000.parquet", file);
        lake.s3.put(lake.bucket, "d/s=a%3Ab/part-00000.parquet", file);
        lake.s3.put(lake.bucket, "d/s=a:b/part-00000.parquet", file);
        String refusal = "the folders 's=a%3Ab/' and 's=a:b/' both give the partition values [a:b]: a catalog's partition has one folder, "
                + "and readers through the catalog would not read the other one's rows. Move the files of one folder into the other. "
                + "Nothing was changed.";
        assertThatThrownBy(() -> S3Parquet.register(uri).catalog(lake.table("d")).s3(lake.s3.client()).run())
                .isInstanceOf(InvalidWriteException.class).hasMessage("Cannot register " + uri + " (step: validate): " + refusal);
        assertThat(lake.tableExists("d")).isFalse();

        lake.deleteFolder("d/s=a");
        S3Parquet.register(uri).catalog(lake.table("d")).s3(lake.s3.client()).run();
        lake.s3.put(lake.bucket, "d/s=a%3Ab/part-00000.parquet", file);
        lake.s3.put(lake.bucket, "d/s=a:b/part-00000.parquet", file);
        assertThatThrownBy(() -> S3Parquet.repairCatalog(uri).catalog(lake.table("d")).s3(lake.s3.client()).run())
                .isInstanceOf(InvalidWriteException.class).hasMessage("Cannot repair the catalog of " + uri + " (step: validate): " + refusal);
        assertThat(lake.locations("d")).containsExactly("x @ " + uri + "s=x/");

        lake.deleteFolder("d/s=a:b/");
        S3Parquet.repairCatalog(uri).catalog(lake.table("d")).s3(lake.s3.client()).run();
        lake.assertGlueEqualsS3("d", "one folder of a:b left, repaired");
    }
}
