package io.wrangler.glue;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One MemoryS3 (the protocol tier: no HTTP; Last-Modified to the millisecond, as S3Mock keeps it, for the tests that
 * order writes made within one second) and one LocalGlue for the test JVM; a fresh bucket and Glue database per test.
 */
final class Lake {
    private static MemoryS3 s3;
    private static LocalGlue glue;
    private static final AtomicInteger N = new AtomicInteger();

    private Lake() {
    }

    static synchronized MemoryS3 s3() {
        if (s3 == null) {
            s3 = MemoryS3.start();
            s3.lastModifiedPrecision(ChronoUnit.MILLIS);
            glue = LocalGlue.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                s3.close();
                glue.close();
            }));
        }
        return s3;
    }

    static LocalGlue glue() {
        s3();
        return glue;
    }

    /** A new bucket and a database of the same name (with '-' as '_'). */
    static String fresh() {
        String name = "lake-" + N.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        s3().createBucket(name);
        glue().client().createDatabase(b -> b.databaseInput(d -> d.name(name.replace('-', '_'))));
        return name;
    }

    static String db(String bucket) {
        return bucket.replace('-', '_');
    }

    /** Every object of the bucket; the tables' commit logs ({@code _wrangler/}) left out, as a table's data. */
    static Map<String, byte[]> snapshot(String bucket) {
        Map<String, byte[]> out = new TreeMap<>(s3().snapshot(bucket, ""));
        out.keySet().removeIf(k -> k.contains("_wrangler/"));
        return out;
    }

    /** Keys and sizes under the prefix; the tables' commit logs ({@code _wrangler/}) left out unless the prefix is in one. */
    static Map<String, Long> list(String bucket, String prefix) {
        Map<String, Long> out = new TreeMap<>(s3().list(bucket, prefix));
        out.keySet().removeIf(k -> !prefix.contains("_wrangler/") && k.contains("_wrangler/"));
        return out;
    }

    static List<List<Object>> query(String bucket, String prefix, String sql) {
        return DuckReader.query(s3(), bucket, prefix, sql);
    }
}
