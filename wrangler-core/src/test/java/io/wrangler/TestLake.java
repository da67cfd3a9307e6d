package io.wrangler;

import io.wrangler.testkit.LocalS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' lake: one LocalS3 for the whole test JVM (it takes seconds to start), a fresh bucket per test,
 * and DuckDB as the independent reader of what was written.
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

    /**
     * Downloads the table (as Hive readers see it: without {@code _tmp/} and other hidden folders) and runs
     * {@code sql} in DuckDB, where {@code t} is the table read with hive partitioning. Rows as lists of values.
     */
    static List<List<Object>> query(String bucket, String prefix, String sql) {
        try {
            Path dir = Files.createTempDirectory("wrangler-read-");
            for (String key : keys(bucket, prefix)) {
                String rel = key.substring(prefix.length());
                if (rel.startsWith("_") || rel.contains("/_") || rel.startsWith(".")) {
                    continue;
                }
                Path file = dir.resolve(rel);
                Files.createDirectories(file.getParent());
                Files.write(file, s3().get(bucket, key));
            }
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
                st.execute("SET TimeZone='UTC'");
                boolean any;
                try (var walk = Files.walk(dir)) {
                    any = walk.anyMatch(p -> p.toString().endsWith(".parquet"));
                }
                if (any) {
                    st.execute("CREATE VIEW t AS SELECT * FROM read_parquet('" + dir + "/**/*.parquet', hive_partitioning=true)");
                }
                try (ResultSet rs = st.executeQuery(sql)) {
                    return rows(rs);
                }
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code sql} in DuckDB on one file. */
    static List<List<Object>> queryFile(byte[] parquet, String sql) {
        try {
            Path file = Files.createTempFile("wrangler-file-", ".parquet");
            Files.write(file, parquet);
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
                st.execute("SET TimeZone='UTC'");
                try (ResultSet rs = st.executeQuery(sql.replace("$file", "'" + file + "'"))) {
                    return rows(rs);
                }
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<List<Object>> rows(ResultSet rs) throws SQLException {
        List<List<Object>> out = new ArrayList<>();
        ResultSetMetaData md = rs.getMetaData();
        while (rs.next()) {
            List<Object> row = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                row.add(rs.getObject(i));
            }
            out.add(row);
        }
        return out;
    }

}
