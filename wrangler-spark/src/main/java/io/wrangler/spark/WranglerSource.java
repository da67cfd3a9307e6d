package io.wrangler.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code wrangler} data source: {@code df.write().format("wrangler").partitionBy(...).mode(...).option(...).save(uri)}
 * writes through wrangler's commit (executors stage, the driver commits), from Scala, Java or PySpark. Write only.
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

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        throw new UnsupportedOperationException("the wrangler data source writes tables; read them with spark.read.parquet(uri)");
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new WranglerTable(schema, partitioning);
    }
}
