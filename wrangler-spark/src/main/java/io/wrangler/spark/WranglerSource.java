package io.wrangler.spark;

import io.wrangler.PartitionFilter;
import io.wrangler.ReadException;
import io.wrangler.spi.DistributedRead;
import io.wrangler.spi.TableSnapshot;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code wrangler} data source: {@code df.write().format("wrangler").partitionBy(...).mode(...).option(...).save(uri)}
 * writes through wrangler's commit (executors stage, the driver commits), from Scala, Java or PySpark; {@code
 * spark.read().format("wrangler").option(...).load(uri)} (or by Glue table, the options {@code glue.database} and {@code
 * glue.table}) reads a table as wrangler-core's reader sees it, with core's S3 client and decoder (no Hadoop S3
 * connector): the schema when the DataFrame is loaded, the files when each query is planned.
 *
 * <p>Spark's {@code mode("append")} is wrangler's APPEND; {@code mode("overwrite")} is OVERWRITE_PARTITIONS when the
 * option or the session's {@code partitionOverwriteMode} is {@code dynamic}, else OVERWRITE; the option {@code writeMode}
 * names wrangler's mode outright. Spark's default mode (error if exists) is refused by Spark for this kind of source:
 * give a mode.
 */
public final class WranglerSource implements TableProvider, DataSourceRegister {
    @Override
    public String shortName() {
        return "wrangler";
    }

    /** The snapshot {@link #inferSchema} took, for the table Spark asks for next: a read, not a write. */
    private TableSnapshot loaded;

    /**
     * The table's schema as wrangler-core's reader resolves it (the union by name of its files' columns, or the Glue
     * table's columns first, then the partition columns): the driver lists the table and reads every file's footer.
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        ReadOptions read = new ReadOptions(options);
        try {
            loaded = DistributedRead.plan(read.target(PartitionFilter.all()), true);
            return SparkSchemas.spark(loaded.schema());
        } catch (SparkSchemas.Unsupported e) {
            throw new ReadException(read.name, "Cannot read " + read.name + " (step: schema): " + e.getMessage() + ". Read the table with "
                    + "wrangler-core (S3Parquet.read) or leave the column out of the table.", e);
        } finally {
            read.close();
        }
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new WranglerTable(schema, partitioning, loaded);
    }
}
