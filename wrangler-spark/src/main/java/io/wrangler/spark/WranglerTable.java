package io.wrangler.spark;

import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/** The table a wrangler write goes to, as Spark's planner sees it: the query's schema and partitioning, writable. */
final class WranglerTable implements SupportsWrite {
    private final StructType schema;
    private final Transform[] partitioning;

    WranglerTable(StructType schema, Transform[] partitioning) {
        this.schema = schema;
        this.partitioning = partitioning;
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
                TableCapability.ACCEPT_ANY_SCHEMA);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new WranglerWriteBuilder(info, partitioning);
    }
}
