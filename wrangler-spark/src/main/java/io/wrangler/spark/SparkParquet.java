package io.wrangler.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * SparkParquet writes a Spark DataFrame as a Hive-partitioned Parquet table on S3 through wrangler's commit: the
 * executors encode and stage the files, the driver commits them (manifest, publish, catalog, cleanup) with wrangler-core,
 * so the table has every guarantee of a single-process {@code S3Parquet} write and either kind of write may follow the
 * other on it.
 *
 * <pre>{@code
 * WriteResult r = SparkParquet.write(events)
 *     .partitionBy("dt")
 *     .mode(WriteMode.OVERWRITE_PARTITIONS)
 *     .catalog(GlueCatalog.of(glue).table("analytics", "events"))
 *     .to("s3://bucket/curated/events/");
 * }</pre>
 *
 * The same write as a data source (also from PySpark): {@code df.write().format("wrangler")...save(uri)}, see
 * {@link WranglerSource}; this builder runs through it.
 */
public final class SparkParquet {
    private SparkParquet() {
    }

    /** A write of {@code df}; nothing runs before {@link SparkWriteBuilder#to}. */
    public static SparkWriteBuilder write(Dataset<Row> df) {
        return new SparkWriteBuilder(df);
    }
}
