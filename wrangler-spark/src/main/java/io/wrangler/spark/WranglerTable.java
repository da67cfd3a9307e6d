package io.wrangler.spark;

import io.wrangler.InvalidReadException;
import io.wrangler.spi.TableSnapshot;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The table a wrangler write goes to or a read reads, as Spark's planner sees it: for a write the query's schema and
 * partitioning; for a read the schema of the snapshot the DataFrame was loaded with.
 */
final class WranglerTable implements SupportsWrite, SupportsRead {
    private final StructType schema;
    private final Transform[] partitioning;
    /** The snapshot the read was loaded with, or null (a write, or a read given a schema by the caller). */
    private final TableSnapshot loaded;

    WranglerTable(StructType schema, Transform[] partitioning, TableSnapshot loaded) {
        this.schema = schema;
        this.partitioning = partitioning;
        this.loaded = loaded;
    }

    @Override
    public String name() {
        return "wrangler";
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Transform[] partitioning() {
        return partitioning.clone();
    }

    @Override
    public Set<TableCapability> capabilities() {
        return Set.of(TableCapability.BATCH_WRITE, TableCapability.TRUNCATE, TableCapability.OVERWRITE_DYNAMIC,
                TableCapability.ACCEPT_ANY_SCHEMA, TableCapability.BATCH_READ);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new WranglerWriteBuilder(info, partitioning);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        if (loaded == null) {
            String name = options.getOrDefault("path", "the wrangler data source");
            throw new InvalidReadException(name, "Cannot read " + name + " (step: validate): a schema was given (.schema(...)); the wrangler "
                    + "data source reads the table's own schema. Remove .schema(...), and select or cast columns after load().");
        }
        return new WranglerScanBuilder(options.asCaseSensitiveMap(), loaded, schema);
    }
}
