package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A RegisterBuilder is the registration of an existing Hive-layout Parquet dataset in a catalog, being configured: the
 * catalog's table is created from what the dataset already is, and no object of it is written, moved or deleted (as
 * awswrangler's {@code store_parquet_metadata}).
 *
 * <pre>{@code
 * RegisterResult r = S3Parquet.register("s3://bucket/events/")
 *     .catalog(GlueCatalog.of(glue).table("analytics", "events"))
 *     .partitionTypes(Map.of("dt", "date"))
 *     .run();
 * }</pre>
 *
 * <p>What it reads, from one complete listing of the prefix (every page; {@code _tmp/} and hidden files and folders,
 * {@code _} or {@code .} first, left out, as every Hive reader leaves them out): the partition columns and values from
 * the folders ({@code col=value/}, unescaped by the Hive rule; with {@link #partitionColumns} also awswrangler's
 * unescaped values that hold {@code /}), the data columns' types from every file's footer, united by name as a read
 * unites them. Footers that disagree on a column's type are refused, naming the two files. Partition columns are
 * {@code string} unless {@link #partitionTypes} declares them; every folder's value must parse as its declared type.
 *
 * <p>What it changes, under the table's lease and after recovering interrupted writes: the catalog's table is created
 * with the definition Athena expects, and every partition registered at its folder, in batches within the catalog's
 * limits. Registering again is idempotent (partitions added since are registered). A catalog table that already exists
 * at another location, or with other columns or partition keys, is refused before anything changes, unless
 * {@link #replaceTable(boolean)}: then it is deleted and created anew (not atomic in the catalog: a reader between the
 * two finds no table; a crash between them is finished by running the registration again). {@link #plan()} computes the
 * same result with no request that changes anything.
 *
 * <p>Failures: {@link InvalidWriteException} for bad input (no data file at the prefix, a layout a reader would refuse,
 * a value that does not parse, a type the catalog cannot hold, an existing table of another definition), before any
 * change; {@link CommitConflictException} when another writer holds the lease beyond the wait; {@link CatalogException}
 * when the catalog refuses before any change; {@link WriteIncompleteException} when it fails after some change (rerun
 * to finish). Not thread-safe; each {@code run()} is a new registration.
 */
public final class RegisterBuilder {
    final String uri;
    CatalogTable catalog;
    S3Client s3;
    final Map<String, String> partitionTypes = new LinkedHashMap<>();
    List<String> partitionColumns;
    boolean replaceTable;
    Duration leaseWait = Duration.ofMinutes(3);
    StepHook hook = StepHook.NONE;
    S3Parquet.Tuning tuning = S3Parquet.Tuning.DEFAULTS;

    RegisterBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** The catalog's table to create (required), e.g. {@code GlueCatalog.of(glue).table("analytics", "events")}. */
    public RegisterBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "table");
        return this;
    }

    /** The S3 client; the SDK's default client when not set. */
    public RegisterBuilder s3(S3Client client) {
        this.s3 = Objects.requireNonNull(client, "client");
        return this;
    }

    /**
     * The Hive types of partition columns, by folder name ({@code Map.of("dt", "date", "hour", "int")}); a partition
     * column not named here is a {@code string}. Every folder's value must parse as its column's type.
     */
    public RegisterBuilder partitionTypes(Map<String, String> types) {
        Objects.requireNonNull(types, "types").forEach((k, v) -> partitionTypes.put(Objects.requireNonNull(k, "column"),
                Objects.requireNonNull(v, "type")));
        return this;
    }

    /**
     * Declares the partition columns in folder order, instead of reading them from the folders: needed for datasets
     * whose values were written unescaped and hold {@code /} (awswrangler writes {@code country=a/b/} for the value
     * {@code a/b}), whose folders do not show where a value ends.
     */
    public RegisterBuilder partitionColumns(String... columns) {
        this.partitionColumns = List.of(columns);
        return this;
    }

    /** Whether an existing catalog table of another location or definition is replaced (false: refused). */
    public RegisterBuilder replaceTable(boolean replace) {
        this.replaceTable = replace;
        return this;
    }

    /** How long to wait for another writer's lease on the table (3 minutes by default). */
    public RegisterBuilder leaseWait(Duration wait) {
        this.leaseWait = Objects.requireNonNull(wait, "wait");
        return this;
    }

    /** Test seam: told each step of the operation. */
    RegisterBuilder hook(StepHook hook) {
        this.hook = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /** Test seam: the engine's tunings (a test clock). */
    RegisterBuilder tuning(S3Parquet.Tuning tuning) {
        this.tuning = Objects.requireNonNull(tuning, "tuning");
        return this;
    }

    /** Registers the dataset; see the class comment for what is atomic and what each failure means. */
    public RegisterResult run() {
        return S3Parquet.register(this, true);
    }

    /** What {@link #run()} would register, computed with reads only; {@link RegisterResult#applied()} is false. */
    public RegisterResult plan() {
        return S3Parquet.register(this, false);
    }
}
