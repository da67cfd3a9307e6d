package io.wrangler.spark;

import io.wrangler.InvalidReadException;
import io.wrangler.InvalidWriteException;
import io.wrangler.PartitionFilter;
import io.wrangler.RetryPolicy;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.ReadTarget;
import java.time.Duration;
import java.util.Map;

/**
 * ReadOptions read the data source's string options for a read: the table by path ({@code load("s3://...")} or the
 * option {@code path}), by Glue table ({@code glue.database} and {@code glue.table}, with {@code glue.region}, {@code
 * glue.endpoint}, {@code glue.catalogId}: the write's options), or both (the path read through the catalog), and how
 * every JVM reaches S3 ({@code s3.*}, {@code retryAttempts}, {@code retryBaseMillis}, {@code retryCapMillis}, {@code
 * expectedBucketOwner}), as the write takes them. A bad option is an {@link InvalidReadException} before any request.
 */
final class ReadOptions {
    private final SourceOptions o;
    /** The table's URI, or null for a read by Glue table. */
    final String path;
    /** The table as messages name it: its URI, or {@code glue database.table}. */
    final String name;

    ReadOptions(Map<String, String> options) {
        SourceOptions lower = new SourceOptions("", options);
        String p = lower.get("path");
        String database = lower.get("glue.database");
        String table = lower.get("glue.table");
        this.name = p != null ? p : database != null && table != null ? "glue table " + database + "." + table : "the wrangler data source";
        this.o = new SourceOptions(name, options);
        this.path = p;
        if (o.get("paths") != null && !o.get("paths").equals("[]")) {
            throw invalid("it was given several paths", "Read one table: load(\"s3://bucket/prefix/\").");
        }
        if ((database == null) != (table == null)) {
            throw invalid("only one of the options glue.database and glue.table is set", "Set both, or neither.");
        }
        if (p == null && database == null) {
            throw invalid("it names no table", "Give the table's URI (load(\"s3://bucket/prefix/\")) or its Glue table (the options "
                    + "glue.database and glue.table).");
        }
    }

    InvalidReadException invalid(String what, String todo) {
        return new InvalidReadException(name, "Cannot read " + name + " (step: validate): " + what + ". " + todo);
    }

    S3Settings s3() {
        try {
            return S3Settings.fromOptions(o.o);
        } catch (RuntimeException e) {
            throw invalid("the s3.* options are not usable (" + e.getMessage() + ")", "See docs/spark.md, 'Options of the data source'.");
        }
    }

    RetryPolicy retry() {
        try {
            return RetryPolicy.of(o.retryAttempts(), Duration.ofMillis(o.retryBaseMillis()), Duration.ofMillis(o.retryCapMillis()));
        } catch (InvalidWriteException e) {
            throw reworded(e);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage(), "Fix the retry options.");
        }
    }

    /** The write's wording of a bad option ({@link SourceOptions}) as a read's. */
    private InvalidReadException reworded(InvalidWriteException e) {
        String m = e.getMessage();
        int at = m.indexOf("(step: validate): ");
        return new InvalidReadException(name, "Cannot read " + name + " (step: validate): " + (at < 0 ? m : m.substring(at + 18)));
    }

    String expectedBucketOwner() {
        return o.get("expectedBucketOwner");
    }

    /** Rows of a batch a task hands Spark (option {@code batchRows}, 8,192 by default). */
    int batchRows() {
        try {
            return o.get("batchRows") == null ? 8192 : o.batchRows();
        } catch (InvalidWriteException e) {
            throw reworded(e);
        }
    }

    /** The driver's target: the table, through its Glue table if the options name one (the caller closes this). */
    ReadTarget target(PartitionFilter filter) {
        CatalogTable catalog = o.get("glue.table") == null ? null : o.glue();
        return new ReadTarget(path, catalog, s3().client(), filter, retry(), expectedBucketOwner());
    }

    /** Closes the Glue client {@link #target} made, if any. */
    void close() {
        o.close();
    }
}
