package io.wrangler.spark;

import io.wrangler.WriteMode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;

/** Turns Spark's write request (append, truncate or dynamic overwrite) into wrangler's mode; planning only, no I/O. */
final class WranglerWriteBuilder implements WriteBuilder, SupportsTruncate, SupportsDynamicOverwrite {
    private final LogicalWriteInfo info;
    private final Transform[] partitioning;
    private boolean truncate;
    private boolean dynamic;

    WranglerWriteBuilder(LogicalWriteInfo info, Transform[] partitioning) {
        this.info = info;
        this.partitioning = partitioning;
    }

    @Override
    public WriteBuilder truncate() {
        truncate = true;
        return this;
    }

    @Override
    public WriteBuilder overwriteDynamicPartitions() {
        dynamic = true;
        return this;
    }

    @Override
    public Write build() {
        String uri = info.options().get("path");
        SourceOptions options = new SourceOptions(uri == null ? "(no path)" : uri, info.options().asCaseSensitiveMap());
        if (uri == null) {
            throw options.invalid("no table URI was given", "Call save(\"s3://bucket/table/\").");
        }
        WriteMode asked = options.writeMode();
        WriteMode mode;
        if (dynamic) {
            mode = WriteMode.OVERWRITE_PARTITIONS;
        } else if (truncate) {
            String session = SparkSession.active().conf().get("spark.sql.sources.partitionOverwriteMode", "static");
            mode = asked != null ? asked : options.dynamicOverwrite(session) ? WriteMode.OVERWRITE_PARTITIONS : WriteMode.OVERWRITE;
            if (mode == WriteMode.APPEND) {
                throw options.invalid("Spark's mode is overwrite but the option writeMode is APPEND", "Use mode(\"append\") to append.");
            }
        } else {
            mode = asked != null ? asked : WriteMode.APPEND;
            if (mode != WriteMode.APPEND) {
                throw options.invalid("Spark's mode is append but the option writeMode is " + mode, "Use mode(\"overwrite\") for " + mode + ".");
            }
        }
        List<String> partitionBy = new ArrayList<>();
        for (Transform t : partitioning) {
            NamedReference[] refs = t.references();
            if (!t.name().equals("identity") || refs.length != 1 || refs[0].fieldNames().length != 1) {
                throw options.invalid("the partitioning " + t.describe() + " is not a plain column", "Partition by columns: partitionBy(\"dt\").");
            }
            partitionBy.add(refs[0].fieldNames()[0]);
        }
        WriteMode chosen = mode;
        return new Write() {
            private WranglerBatchWrite batch;

            @Override
            public String description() {
                return "wrangler " + chosen + " to " + uri;
            }

            @Override
            public BatchWrite toBatch() {
                batch = new WranglerBatchWrite(options, chosen, partitionBy, info.schema());
                return batch;
            }

            // Spark 4's driver metrics, asked after the commit (no @Override: the method is not in Spark 3.5's Write)
            public CustomTaskMetric[] reportDriverMetrics() {
                return WriteMetrics.driver(batch == null ? null : batch.committed());
            }

            @Override
            public CustomMetric[] supportedCustomMetrics() {
                return WriteMetrics.supported();
            }
        };
    }
}
