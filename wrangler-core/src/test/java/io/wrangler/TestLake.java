package io.wrangler;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalS3;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fixture;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * The tests' lake: a fresh bucket per test, and DuckDB (through the testkit's DuckReader) as the independent reader of
 * what was written. A bucket lives in one of two S3s of the test JVM: the MemoryS3 ({@link #memoryBucket}, the protocol
 * tier: the library's code on the SDK's S3Client, without HTTP) or the LocalS3 ({@link #bucket}, S3Mock over HTTP, started
 * on first use as it takes seconds) for the tests of HTTP semantics (the SDK's retries and marshalling, interceptors,
 * other processes). {@link #keys}, {@link #snapshot} and {@link #query} read a bucket where it lives.
 */
final class TestLake {
    private static LocalS3 s3;
    private static final MemoryS3 MEMORY = memoryS3();
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    private static final Map<String, S3Fixture> WHERE = new ConcurrentHashMap<>();

    private TestLake() {
    }

    /**
     * A MemoryS3 that keeps Last-Modified to the millisecond, as S3Mock does: the tests of dedup's commit order tell two
     * writes made within one second apart by it (on AWS, whole seconds, such writes are ordered by file name instead).
     */
    static MemoryS3 memoryS3() {
        MemoryS3 s3 = MemoryS3.start();
        s3.lastModifiedPrecision(ChronoUnit.MILLIS);
        return s3;
    }

    /** The LocalS3 of the test JVM. */
    static synchronized LocalS3 s3() {
        if (s3 == null) {
            s3 = LocalS3.start();
            Runtime.getRuntime().addShutdownHook(new Thread(s3::close));
        }
        return s3;
    }

    /** The MemoryS3 of the test JVM. */
    static MemoryS3 memory() {
        return MEMORY;
    }

    /** A new, empty bucket in the LocalS3. */
    static String bucket() {
        return bucket(s3());
    }

    /** A new client of the LocalS3 that adds the key of every GetObject it sends (each attempt) to {@code gets}. */
    static S3Client recordingGets(List<String> gets) {
        return s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof GetObjectRequest g) {
                    gets.add(g.key());
                }
            }
        })));
    }

    /** A new, empty bucket in the MemoryS3. */
    static String memoryBucket() {
        return bucket(MEMORY);
    }

    /** A new, empty bucket in {@code in} (a MemoryS3 of a test's own, say). */
    static String bucket(S3Fixture in) {
        String name = "lake-" + BUCKETS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        in.createBucket(name);
        WHERE.put(name, in);
        return name;
    }

    private static S3Fixture where(String bucket) {
        S3Fixture in = WHERE.get(bucket);
        if (in == null) {
            throw new IllegalArgumentException("No bucket " + bucket + " was made by TestLake");
        }
        return in;
    }

    /**
     * Every key under the prefix with its content, for byte-identical comparisons; the tables' commit logs
     * ({@code _wrangler/}, which record each run's write id) left out unless the prefix is in one.
     */
    static Map<String, byte[]> snapshot(String bucket, String prefix) {
        Map<String, byte[]> out = new java.util.TreeMap<>(where(bucket).snapshot(bucket, prefix));
        out.keySet().removeIf(k -> !prefix.contains("_wrangler/") && k.contains("_wrangler/"));
        return out;
    }

    /** Keys under the prefix; the tables' commit logs ({@code _wrangler/}) left out unless the prefix is in one. */
    static List<String> keys(String bucket, String prefix) {
        List<String> out = new ArrayList<>(where(bucket).list(bucket, prefix).keySet());
        out.removeIf(k -> !prefix.contains("_wrangler/") && k.contains("_wrangler/"));
        return out;
    }

    /** Runs {@code sql} in DuckDB over the table at {@code s3://bucket/prefix}, visible as {@code t}; see {@link DuckReader}. */
    static List<List<Object>> query(String bucket, String prefix, String sql) {
        return DuckReader.query(where(bucket), bucket, prefix, sql);
    }

    /** Runs {@code sql} in DuckDB on one file, named {@code $file}. */
    static List<List<Object>> queryFile(byte[] parquet, String sql) {
        return DuckReader.queryFile(parquet, sql);
    }
}
