package io.wrangler.spark;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalS3;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The tests' lake and engine: one LocalS3 and one Spark session at a time ({@code local[2]}, a task may fail 3 times,
 * unless a test asks for another master) for the test JVM, a fresh bucket per test, DuckDB as the independent reader.
 */
final class SparkLake {
    private static LocalS3 s3;
    private static SparkSession spark;
    private static String sessionKey;
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private SparkLake() {
    }

    static synchronized LocalS3 s3() {
        if (s3 == null) {
            s3 = LocalS3.start();
            Runtime.getRuntime().addShutdownHook(new Thread(s3::close));
        }
        return s3;
    }

    static synchronized SparkSession spark() {
        return session("local[2,3]", Map.of());
    }

    /**
     * The resource lock of the JVM's one SparkContext: a class that runs beside others (KilledDriverTest, concurrent) and
     * uses the session holds it in READ mode; a class that needs the session to itself holds it in READ_WRITE mode: one
     * that asks {@link #session} for another master (the switch stops the context under every other user: a loaded run's
     * speculation test lost its session to KilledDriverTest's next {@link #spark()}, "No active or default Spark session
     * found"), or one that listens to every query of the session (SparkWriteMetricsTest).
     */
    static final String SESSION_LOCK = "io.wrangler.spark.SparkLake.session";

    /**
     * The session with this master and these settings beside the tests' own: a JVM runs one SparkContext at a time, so a
     * session with another master stops the current one (the next {@link #spark()} starts the usual one again). A test
     * that asks for another master holds {@link #SESSION_LOCK} in READ_WRITE mode.
     */
    static synchronized SparkSession session(String master, Map<String, String> conf) {
        // LocalS3 first: its Tomcat sets the JVM's URL stream handler factory, which fails once Spark has set it.
        s3();
        String key = master + " " + new java.util.TreeMap<>(conf);
        if (spark != null && key.equals(sessionKey) && !spark.sparkContext().isStopped()) {
            return spark;
        }
        if (spark != null) {
            spark.stop();
        }
        SparkSession.Builder b = SparkSession.builder().master(master).appName("wrangler-spark-tests")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.ui.showConsoleProgress", "false");
        conf.forEach(b::config);
        spark = b.getOrCreate();
        sessionKey = key;
        spark.sparkContext().setLogLevel("ERROR");
        return spark;
    }

    /** How tasks and the driver reach the LocalS3. */
    static S3Settings settings() {
        return S3Settings.defaults().endpoint(s3().endpoint()).region("us-east-1").pathStyle(true)
                .staticCredentials(LocalS3.ACCESS_KEY, "wrangler-local-secret", null).chunkedEncoding(false).checksumsWhenRequired(true);
    }

    /** The same settings as data source options. */
    static Map<String, String> options() {
        return Map.of("s3.endpoint", s3().endpoint().toString(), "s3.region", "us-east-1", "s3.pathStyle", "true",
                "s3.accessKeyId", LocalS3.ACCESS_KEY, "s3.secretAccessKey", "wrangler-local-secret", "s3.chunkedEncoding", "false",
                "s3.checksumsWhenRequired", "true");
    }

    static String bucket() {
        String name = "spark-" + BUCKETS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        s3().createBucket(name);
        return name;
    }

    /** The objects under the prefix; the tables' commit logs ({@code _wrangler/}) left out unless the prefix is in one. */
    static Map<String, byte[]> snapshot(String bucket, String prefix) {
        Map<String, byte[]> out = new java.util.TreeMap<>(s3().snapshot(bucket, prefix));
        out.keySet().removeIf(k -> !prefix.contains("_wrangler/") && k.contains("_wrangler/"));
        return out;
    }

    /** Keys under the prefix; the tables' commit logs ({@code _wrangler/}) left out unless the prefix is in one. */
    static List<String> keys(String bucket, String prefix) {
        List<String> out = new ArrayList<>(s3().list(bucket, prefix).keySet());
        out.removeIf(k -> !prefix.contains("_wrangler/") && k.contains("_wrangler/"));
        return out;
    }

    /** The table read by Spark from a local copy of its objects (Spark skips {@code _tmp/}, as readers of the table do). */
    static Dataset<Row> sparkRead(String bucket, String prefix) {
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("wrangler-spark-read");
            java.nio.file.Path table = s3().download(bucket, prefix, dir);
            return spark().read().parquet(table.toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<List<Object>> query(String bucket, String prefix, String sql) {
        return DuckReader.query(s3(), bucket, prefix, sql);
    }
}
