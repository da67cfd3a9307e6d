package io.wrangler.testkit;

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
import java.util.Comparator;
import java.util.List;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A DuckReader reads what a write left in a {@link LocalS3} or a {@link MemoryS3} with DuckDB, an engine independent of wrangler, as a
 * Hive-partitioned dataset: the table is downloaded to a temporary folder without its hidden paths (names starting
 * with {@code _} or {@code .}, which Hive, Spark and Athena skip), then queried as the view {@code t}.
 *
 * <p>Every query runs on a connection of its own to one in-memory DuckDB database of the JVM, opened on first use
 * (its view {@code t} is a temporary view of that connection, so queries at once do not see each other's): a new
 * database per query cost about 20 ms of CPU, ten times a query over a small table.
 */
public final class DuckReader {
    /** The JVM's in-memory database: each query connects to it anew. */
    private static Connection database;

    private DuckReader() {
    }

    /** A new connection to the JVM's in-memory database (its session settings and temporary views its own). */
    private static synchronized Connection connect() throws SQLException {
        if (database == null) {
            database = DriverManager.getConnection("jdbc:duckdb:");
        }
        return database.unwrap(org.duckdb.DuckDBConnection.class).duplicate();
    }

    /**
     * Runs {@code sql} over the table at {@code s3://bucket/prefix}, visible as the view {@code t} (hive partitioning on, files
     * unioned by column name as schema evolution needs,
     * session time zone UTC). Rows as lists of JDBC values. An empty table has no view {@code t}.
     */
    public static List<List<Object>> query(S3Fixture s3, String bucket, String prefix, String sql) {
        return query(s3.client(), bucket, prefix, sql);
    }

    /** Like {@link #query(S3Fixture, String, String, String)}, through any S3 client (real AWS included). */
    public static List<List<Object>> query(S3Client s3, String bucket, String prefix, String sql) {
        return query(s3, bucket, prefix, sql, "");
    }

    /**
     * Like {@link #query(S3Fixture, String, String, String)}, with more options for DuckDB's {@code read_parquet}, such as
     * {@code hive_types_autocast=false} (partition values as the text of their folder names, not typed by guess).
     */
    public static List<List<Object>> query(S3Fixture s3, String bucket, String prefix, String sql, String readOptions) {
        return query(s3.client(), bucket, prefix, sql, readOptions);
    }

    private static List<List<Object>> query(S3Client s3, String bucket, String prefix, String sql, String readOptions) {
        OptionalDependency.require("org.duckdb.DuckDBDriver", "DuckReader", "org.duckdb:duckdb_jdbc", "");
        Path dir = null;
        try {
            dir = Files.createTempDirectory("wrangler-read-");
            boolean any = false;
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
                String key = o.key();
                String rel = key.substring(prefix.length());
                if (rel.startsWith("_") || rel.startsWith(".") || rel.contains("/_") || rel.contains("/.")) {
                    continue;
                }
                Path file = dir.resolve(rel);
                Files.createDirectories(file.getParent());
                Files.write(file, s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray());
                any |= rel.endsWith(".parquet");
            }
            try (Connection c = connect(); Statement st = c.createStatement()) {
                st.execute("SET TimeZone='UTC'");
                if (any) {
                    st.execute("CREATE TEMP VIEW t AS SELECT * FROM read_parquet('" + dir + "/**/*.parquet', hive_partitioning=true, union_by_name=true"
                            + (readOptions.isEmpty() ? "" : ", " + readOptions) + ")");
                }
                try (ResultSet rs = st.executeQuery(sql)) {
                    return rows(rs);
                }
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("DuckDB could not read s3://" + bucket + "/" + prefix + ": " + e.getMessage(), e);
        } finally {
            delete(dir);
        }
    }

    /** Runs {@code sql} over one Parquet file given as bytes; {@code $file} in the SQL names it. */
    public static List<List<Object>> queryFile(byte[] parquet, String sql) {
        Path file = null;
        try {
            file = Files.createTempFile("wrangler-file-", ".parquet");
            Files.write(file, parquet);
            try (Connection c = connect(); Statement st = c.createStatement()) {
                st.execute("SET TimeZone='UTC'");
                try (ResultSet rs = st.executeQuery(sql.replace("$file", "'" + file + "'"))) {
                    return rows(rs);
                }
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("DuckDB could not read the file: " + e.getMessage(), e);
        } finally {
            delete(file);
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

    private static void delete(Path path) {
        if (path == null || !Files.exists(path)) {
            return;
        }
        try (var walk = Files.walk(path)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary folder is harmless
        }
    }
}
