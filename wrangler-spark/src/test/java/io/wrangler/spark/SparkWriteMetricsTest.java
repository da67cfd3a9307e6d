package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.util.QueryExecutionListener;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What a {@code df.write.format("wrangler")} user sees of the write: the rows, files and bytes as SQL metrics on the
 * write node (Spark's UI and {@code QueryExecutionListener}s), and the driver's log lines (began, committed).
 *
 * <p>Its listener receives every query of the JVM's session: it holds {@link SparkLake#SESSION_LOCK} exclusively (a CI run
 * measured KilledDriverTest's concurrent 8-row write here: rows 8, files 8).
 */
@ResourceLock(SparkLake.SESSION_LOCK) // the session's listeners see every query: none of KilledDriverTest's while this one listens
@Order(Integer.MAX_VALUE) // after the other classes (junit-platform.properties): it waits for KilledDriverTest, so nothing waits behind it
class SparkWriteMetricsTest {
    @Test
    void theWriteNodeCarriesRowsFilesAndBytesAndTheDriverLogsTheResult() throws Exception {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/events/";
        List<String> logged = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                synchronized (logged) {
                    logged.add(r.getLevel() + " " + r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger jul = Logger.getLogger("io.wrangler.spark");
        jul.addHandler(handler);
        jul.setLevel(Level.INFO);
        CompletableFuture<Map<String, Long>> metrics = new CompletableFuture<>();
        QueryExecutionListener listener = new QueryExecutionListener() {
            @Override
            public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
                Map<String, Long> found = new HashMap<>();
                Deque<SparkPlan> todo = new ArrayDeque<>(List.of(qe.executedPlan()));
                while (!todo.isEmpty()) {
                    SparkPlan p = todo.pop();
                    for (String name : List.of(WriteMetrics.ROWS, WriteMetrics.FILES, WriteMetrics.BYTES)) {
                        scala.Option<SQLMetric> m = p.metrics().get(name);
                        if (m.isDefined()) {
                            found.put(name, m.get().value());
                        }
                    }
                    todo.addAll(CollectionConverters.asJava(p.children()));
                }
                metrics.complete(found);
            }

            @Override
            public void onFailure(String funcName, QueryExecution qe, Exception exception) {
                metrics.completeExceptionally(exception);
            }
        };
        // Spark's listener bus delivers events asynchronously: a QueryExecution of an earlier test's write can still be
        // queued, and a listener registered now would receive it. Drain the bus first; no other class writes meanwhile
        // (the class holds the session's lock), so the only write it delivers to this listener is this test's.
        SparkLake.spark().sparkContext().listenerBus().waitUntilEmpty(60_000);
        SparkLake.spark().listenerManager().register(listener);
        try {
            SparkLake.spark().sql("SELECT id, CAST(id * 3 AS BIGINT) AS v, IF(id % 2 = 0, '2026-11-01', '2026-11-02') AS dt "
                            + "FROM range(0, 1000, 1, 4)")
                    .write().format("wrangler").partitionBy("dt").mode("append").options(SparkLake.options()).save(uri);
            Map<String, Long> seen;
            try {
                seen = metrics.get(60, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("Spark's listener bus did not deliver the write's QueryExecution within 60 s", e);
            }
            Map<String, byte[]> files = SparkLake.snapshot(bucket, "events/dt=");
            assertThat(files).isNotEmpty();
            assertThat(seen).containsEntry(WriteMetrics.ROWS, 1000L)
                    .containsEntry(WriteMetrics.FILES, (long) files.size())
                    .containsEntry(WriteMetrics.BYTES, files.values().stream().mapToLong(b -> b.length).sum());
            assertThat(SparkLake.query(bucket, "events/", "SELECT count(*), CAST(sum(v) AS BIGINT), CAST(min(dt) AS VARCHAR) FROM t"))
                    .containsExactly(List.of(1000L, 1498500L, "2026-11-01"));
            List<String> lines;
            synchronized (logged) {
                lines = List.copyOf(logged);
            }
            assertThat(lines).anyMatch(l -> l.startsWith("INFO wrangler write ") && l.contains("(APPEND) to " + uri + " began in "));
            assertThat(lines).anyMatch(l -> l.startsWith("INFO wrangler write ") && l.contains("(APPEND) to " + uri + " committed 1000 rows in "
                    + files.size() + " files, 2 partitions, from 4 tasks in "));
        } finally {
            SparkLake.spark().listenerManager().unregister(listener);
            jul.removeHandler(handler);
        }
    }
}
