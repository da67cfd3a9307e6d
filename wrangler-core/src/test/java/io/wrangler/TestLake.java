package io.wrangler;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalS3;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' lake: one LocalS3 for the whole test JVM (it takes seconds to start), a fresh bucket per test,
 * and DuckDB (through the testkit's DuckReader) as the independent reader of what was written.
 */
final class TestLake {
    private static LocalS3 s3;
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private TestLake() {
    }

    static synchronized LocalS3 s3() {
        if (s3 == null) {
            s3 = LocalS3.start();
            Runtime.getRuntime().addShutdownHook(new Thread(s3::close));
        }
        return s3;
    }

    /** A new, empty bucket. */
    static String bucket() {
        String name = "lake-" + BUCKETS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        s3().createBucket(name);
        return name;
    }

    /** Every key under the prefix with its content, for byte-identical comparisons. */
    static Map<String, byte[]> snapshot(String bucket, String prefix) {
        return s3().snapshot(bucket, prefix);
    }

    /** Keys under the prefix. */
    static List<String> keys(String bucket, String prefix) {
        return new ArrayList<>(s3().list(bucket, prefix).keySet());
    }

    /** Runs {@code sql} in DuckDB over the table at {@code s3://bucket/prefix}, visible as {@code t}; see {@link DuckReader}. */
    static List<List<Object>> query(String bucket, String prefix, String sql) {
        return DuckReader.query(s3(), bucket, prefix, sql);
    }

    /** Runs {@code sql} in DuckDB on one file, named {@code $file}. */
    static List<List<Object>> queryFile(byte[] parquet, String sql) {
        return DuckReader.queryFile(parquet, sql);
    }
}
