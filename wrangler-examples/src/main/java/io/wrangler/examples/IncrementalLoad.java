package io.wrangler.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.wrangler.CompactionResult;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.glue.GlueCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The incremental load (the user's third scenario): new rows of a JDBC source table (an embedded H2 database) are
 * appended to a Parquet table partitioned by day, with a checkpoint of the last loaded id kept in S3.
 *
 * <p>The checkpoint is updated only after a successful write, with a conditional PUT ({@code If-Match} on the ETag it
 * read, {@code If-None-Match: *} for the first), so two runs can never both advance it. The append is made
 * idempotent with {@code idempotencyKey("events:<first id>-<last id>")}: a crash between the append and the checkpoint
 * update leaves the checkpoint where it was, the rerun reads the same rows, writes the same files under the same key
 * and replaces what the crashed run wrote instead of adding it twice. (A crash inside the write is undone by the
 * library's recovery when the rerun starts.) Small files: each run adds a file per day it touches; {@link #compact}
 * rewrites each such day as one file with the library's compaction, deduplicated by id.
 */
public final class IncrementalLoad {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String TABLE = "incremental/events/";
    static final String CHECKPOINT = "checkpoints/events_incremental.json";

    private IncrementalLoad() {
    }

    /** One source row; {@code dt} (the day of {@code createdAt}) is the partition. */
    public record Event(long id, String userId, String eventType, String payload, Instant createdAt, LocalDate dt) {
    }

    /** The checkpoint and the ETag it was read with (null when there is none yet). */
    record Checkpoint(long lastId, String etag) {
    }

    /** Thrown on purpose between the append and the checkpoint update, as a killed job would stop there. */
    static final class SimulatedCrash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SimulatedCrash() {
            super("simulated crash after the append, before the checkpoint update");
        }
    }

    static Connection source() throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:h2:mem:source-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE events (id BIGINT PRIMARY KEY, user_id VARCHAR(16), event_type VARCHAR(16), payload VARCHAR(200), "
                    + "created_at TIMESTAMP WITH TIME ZONE)");
        }
        return c;
    }

    /** Inserts {@code count} rows after the last one, one every 17 minutes from 2026-10-01. */
    static void produce(Connection db, int count) throws SQLException {
        long last;
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT coalesce(max(id), 0) FROM events")) {
            rs.next();
            last = rs.getLong(1);
        }
        try (PreparedStatement ps = db.prepareStatement("INSERT INTO events VALUES (?, ?, ?, ?, ?)")) {
            for (long id = last + 1; id <= last + count; id++) {
                ps.setLong(1, id);
                ps.setString(2, "u" + (id % 7));
                ps.setString(3, id % 5 == 0 ? "purchase" : "view");
                ps.setString(4, "{\"n\":" + id + "}");
                ps.setObject(5, Instant.parse("2026-10-01T00:00:00Z").plusSeconds(id * 17 * 60).atOffset(ZoneOffset.UTC));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    static Checkpoint readCheckpoint(ExampleLake lake) {
        try {
            var bytes = lake.s3().getObjectAsBytes(b -> b.bucket(lake.bucket()).key(lake.key(CHECKPOINT)));
            JsonNode json = JSON.readTree(bytes.asByteArray());
            return new Checkpoint(json.get("last_id").asLong(), bytes.response().eTag());
        } catch (NoSuchKeyException e) {
            return new Checkpoint(0, null);
        } catch (IOException e) {
            throw new UncheckedIOException("the checkpoint " + CHECKPOINT + " is not JSON", e);
        }
    }

    /** Moves the checkpoint from {@code read} to {@code lastId}; fails (HTTP 412) if someone moved it meanwhile. */
    static void writeCheckpoint(ExampleLake lake, Checkpoint read, long lastId) {
        PutObjectRequest.Builder put = PutObjectRequest.builder().bucket(lake.bucket()).key(lake.key(CHECKPOINT));
        if (read.etag() == null) {
            put.ifNoneMatch("*");
        } else {
            put.ifMatch(read.etag());
        }
        lake.s3().putObject(put.build(), RequestBody.fromString("{\"last_id\": " + lastId + "}"));
    }

    /** What one run did. */
    record Run(long fromId, long toId, long rows, String writeId) {
    }

    /** Loads the rows after the checkpoint; returns null when there were none. */
    static Run runOnce(ExampleLake lake, Connection db, boolean crashBeforeCheckpoint) throws SQLException {
        Checkpoint cp = readCheckpoint(lake);
        List<Event> rows = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT id, user_id, event_type, payload, created_at FROM events WHERE id > ? ORDER BY id")) {
            ps.setLong(1, cp.lastId());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Instant at = rs.getObject(5, OffsetDateTime.class).toInstant();
                    rows.add(new Event(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), at, LocalDate.ofInstant(at, ZoneOffset.UTC)));
                }
            }
        }
        if (rows.isEmpty()) {
            return null;
        }
        long from = rows.get(0).id();
        long to = rows.get(rows.size() - 1).id();
        lake.database("raw");
        WriteResult r = S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey("events:" + from + "-" + to)
                .catalog(GlueCatalog.of(lake.glue()).table("raw", "events_incremental")).s3(lake.s3()).to(lake.uri(TABLE));
        if (crashBeforeCheckpoint) {
            throw new SimulatedCrash();
        }
        writeCheckpoint(lake, cp, to);
        return new Run(from, to, r.rows(), r.writeId());
    }

    /**
     * Compacts every day with more than one file into one file, keeping one row per id (the one with the latest
     * {@code createdat}), as the seed pipeline does with DuckDB's {@code ROW_NUMBER() OVER (PARTITION BY id ORDER BY
     * created_at DESC)}: under the table's lease and the commit protocol, replacing exactly the files it read.
     */
    static CompactionResult compact(ExampleLake lake) {
        return S3Parquet.compact(lake.uri(TABLE)).whenMoreFilesThan(1).dedupBy(List.of("id"), "createdat")
                .catalog(GlueCatalog.of(lake.glue()).table("raw", "events_incremental")).s3(lake.s3()).run();
    }

    /** The keys of the table's data files (not its hidden {@code _tmp/}). */
    static List<String> dataFiles(ExampleLake lake) {
        return lake.s3().listObjectsV2Paginator(b -> b.bucket(lake.bucket()).prefix(lake.key(TABLE))).contents().stream()
                .map(o -> o.key()).filter(k -> k.endsWith(".parquet") && !k.contains("/_tmp/")).toList();
    }

    /** Rows, distinct ids and max id as DuckDB reads the table, and its number of data files. */
    static List<Object> state(ExampleLake lake) {
        List<Object> row = lake.query(TABLE, "SELECT count(*), count(DISTINCT id), max(id) FROM t").get(0);
        return List.of(row.get(0), row.get(1), (long) dataFiles(lake).size(), row.get(2));
    }

    public static void main(String[] args) throws SQLException {
        Path folder = Path.of(args.length > 0 ? args[0] : "wrangler-data").toAbsolutePath();
        try (ExampleLake lake = ExampleLake.open(folder); Connection db = source()) {
            System.out.println("Lake: " + lake.describe() + "; source: embedded H2 table events");
            lake.s3().deleteObject(b -> b.bucket(lake.bucket()).key(lake.key(CHECKPOINT)));
            produce(db, 100);
            System.out.println("1. run:   " + runOnce(lake, db, false) + "  table (rows, ids, files, max id) = " + state(lake));
            produce(db, 50);
            try {
                runOnce(lake, db, true);
            } catch (SimulatedCrash e) {
                System.out.println("2. run:   " + e.getMessage() + "; checkpoint still " + readCheckpoint(lake).lastId()
                        + "; table = " + state(lake));
            }
            System.out.println("3. rerun: " + runOnce(lake, db, false) + "  table = " + state(lake) + " (no row twice)");
            produce(db, 30);
            System.out.println("4. run:   " + runOnce(lake, db, false) + "  table = " + state(lake));
            System.out.println("5. run:   " + (runOnce(lake, db, false) == null ? "no new rows" : "?") + "; checkpoint " + readCheckpoint(lake).lastId());
            List<Object> before = state(lake);
            CompactionResult c = compact(lake);
            List<Object> after = state(lake);
            System.out.println("6. compacted " + c.partitions().size() + " days: files " + c.filesBefore() + " -> " + c.filesAfter() + " (table "
                    + before.get(2) + " -> " + after.get(2) + "), rows " + before.get(0) + " -> " + after.get(0) + ", duplicates dropped "
                    + c.duplicatesDropped());
            if (!before.get(0).equals(after.get(0)) || !after.get(0).equals(after.get(1))) {
                throw new IllegalStateException("compaction changed the rows: " + before + " -> " + after);
            }
        }
    }

}
