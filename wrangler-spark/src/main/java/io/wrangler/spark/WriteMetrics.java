package io.wrangler.spark;

import io.wrangler.WriteResult;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The SQL metrics a wrangler write shows in Spark's UI and query plan (on the write node: {@code AppendData},
 * {@code OverwriteByExpression}, {@code OverwritePartitionsDynamic}): the rows, summed over the task attempts that
 * succeeded (a failed or denied attempt's figure is not counted by Spark), and the files and bytes the committed write
 * added, reported by the driver after the commit point. Spark 3.5 has no driver metrics for writes
 * ({@code Write.reportDriverMetrics} came with Spark 4.0): there the files and bytes show 0 and the driver's log line
 * has them. Public for Spark, which instantiates each metric by class name on the driver; not for users.
 */
public final class WriteMetrics {
    static final String ROWS = "wranglerRows";
    static final String FILES = "wranglerFiles";
    static final String BYTES = "wranglerBytes";

    private WriteMetrics() {
    }

    static CustomMetric[] supported() {
        return new CustomMetric[] {new Rows(), new Files(), new Bytes()};
    }

    /** A task attempt's figure: the rows it was given so far (Spark asks during the task and once at its end). */
    static CustomTaskMetric[] task(long rows) {
        return new CustomTaskMetric[] {value(ROWS, rows)};
    }

    /** The driver's figures once the write committed: the files and bytes it added (Spark 4 asks; Spark 3.5 does not). */
    static CustomTaskMetric[] driver(WriteResult committed) {
        if (committed == null) {
            return new CustomTaskMetric[0];
        }
        long bytes = committed.partitions().stream().mapToLong(p -> p.bytes()).sum();
        return new CustomTaskMetric[] {value(FILES, committed.paths().size()), value(BYTES, bytes)};
    }

    private static CustomTaskMetric value(String name, long value) {
        return new CustomTaskMetric() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long value() {
                return value;
            }
        };
    }

    /** Rows written by the successful task attempts. */
    public static final class Rows extends CustomSumMetric {
        @Override
        public String name() {
            return ROWS;
        }

        @Override
        public String description() {
            return "rows written by wrangler";
        }
    }

    /** Data files the committed write added (Spark 4 and later). */
    public static final class Files extends CustomSumMetric {
        @Override
        public String name() {
            return FILES;
        }

        @Override
        public String description() {
            return "files written by wrangler";
        }
    }

    /** Bytes of Parquet the committed write added (Spark 4 and later). */
    public static final class Bytes extends CustomSumMetric {
        @Override
        public String name() {
            return BYTES;
        }

        @Override
        public String description() {
            return "bytes written by wrangler";
        }
    }
}
