package io.wrangler.layout;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.wrangler.Compression;
import io.wrangler.WriteMode;
import io.wrangler.staging.StagedFile;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A Manifest is the record of one write, stored as {@code <table>/_tmp/<writeId>/_manifest.json} from before its first
 * upload until its end, and rewritten (compare-and-swap on its ETag) at each change of {@link State}. It holds everything
 * recovery needs to finish or undo the write without the process that started it. The commit's {@code WriteLog}
 * ({@code io.wrangler.commit}) owns its changes.
 *
 * @param format the manifest format version (2; 1 for manifests of wrangler 0.1, read as {@link State#COMMITTED})
 * @param writeId the write's id, carried by the name of every file it writes
 * @param table the table root {@code s3://bucket/prefix/}
 * @param mode the write's mode
 * @param state how far the write got
 * @param keyId for a write with an idempotency key, the part of its write id that every run with that key shares
 *     ({@code k-<key>-<hash>}); else null
 * @param createdAt when the manifest was written (ISO-8601)
 * @param partitionColumns the partition columns in key order (after renaming for the catalog)
 * @param partitions every partition written
 * @param files every staged file and its final key
 * @param catalog the catalog's {@code describe()} when the write had one, else null
 * @param schema the Arrow schema JSON of the data columns then the partition columns, for the catalog step
 * @param compression the codec of the files
 * @param requests what the write's object-creating requests carried (encryption, ACL, expected owner), so that the
 *     copies recovery repeats carry the same; null in manifests that predate it
 * @param replaces the keys of the old files the write replaces, as listed right before its commit point (COMMITTED and
 *     later); recovery deletes exactly these, never files written after the commit point (a table nested in this one, a
 *     writer without the lease). Null before the commit point and in manifests that predate it, which recovery lists
 *     again, counting only files written no later than the manifest
 * @param bucketing the write's bucketing, which the catalog step registers; null for a write without (and in manifests
 *     that predate it)
 */
public record Manifest(int format, String writeId, String table, WriteMode mode, State state, String keyId, String createdAt,
                       List<String> partitionColumns, List<Partition> partitions, List<StagedFile> files,
                       String catalog, String schema, Compression compression, Requests requests, List<String> replaces,
                       Bucketing bucketing) {
    public static final String FILE_NAME = "_manifest.json";
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS, true)
            .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);

    public static final int FORMAT = 2;

    /**
     * The folder {@code _tmp/<writeId>/} of the table at {@code location} that holds the write's manifest and its staged
     * files.
     */
    public static String folder(S3Location location, String writeId) {
        return location.tmpPrefix() + writeId + "/";
    }

    /** How far a write got; see the state table in {@code package-info.java}. */
    public enum State {
        /** The write has begun: its id is recorded before its first upload, nothing is staged for sure. */
        STARTED,
        /** Every file is staged and listed here, the old files to replace are known: an overwrite's commit point. */
        COMMITTED,
        /** Every file is at its final key, the replaced ones are deleted, staged copies are going: never published again. */
        PUBLISHED,
        /** The write is being undone (by itself or by a recovery); whoever holds the table finishes undoing it. */
        ABORTING
    }

    public Manifest {
        partitionColumns = List.copyOf(partitionColumns);
        partitions = List.copyOf(partitions);
        files = List.copyOf(files);
        replaces = replaces == null ? null : List.copyOf(replaces);
    }

    /**
     * One written partition.
     *
     * @param folder the partition's folder below the table root, with a trailing slash ("" when unpartitioned): its
     *     escaped Hive folder, or the folder of the Location its catalog already registered it at, the one the write used
     * @param values the values, unescaped; null for the default partition
     * @param rows rows written to it
     * @param bytes bytes written to it
     */
    public record Partition(String folder, List<String> values, long rows, long bytes) {
        public Partition {
            values = Collections.unmodifiableList(new ArrayList<>(values));
        }
    }

    /**
     * A write's bucketing.
     *
     * @param columns the bucket columns as the catalog names them
     * @param buckets the number of buckets
     */
    public record Bucketing(List<String> columns, int buckets) {
        public Bucketing {
            columns = List.copyOf(columns);
        }
    }

    /**
     * The request options a write's object-creating requests carried: no secrets (a KMS key id is not one). Recovery publishes with its own and refuses a manifest that records others.
     */
    public record Requests(String sse, String kmsKeyId, String acl, String expectedBucketOwner) {
        public static Requests of(RequestOptions o) {
            return new Requests(o.sse(), o.kmsKeyId(), o.acl(), o.expectedBucketOwner());
        }
    }

    /**
     * The record of a write before its first upload (state {@link State#STARTED}, written now): who writes, into which
     * table, how; nothing staged yet, no catalog (see {@link #cataloged}).
     *
     * @param keyId for a write with an idempotency key, the part of its write id every run with that key shares; else null
     * @param requests what its object-creating requests carry; null only in manifests that predate it
     */
    public static Manifest started(String writeId, String table, WriteMode mode, String keyId, Compression compression,
                                   Requests requests) {
        return new Manifest(FORMAT, writeId, table, mode, State.STARTED, keyId, Instant.now().toString(), List.of(), List.of(),
                List.of(), null, null, compression, requests, null, null);
    }

    /** This manifest with the catalog's {@code describe()} ({@code null}: the write has no catalog). */
    public Manifest cataloged(String catalog) {
        return new Manifest(FORMAT, writeId, table, mode, state, keyId, createdAt, partitionColumns, partitions, files, catalog, schema,
                compression, requests, replaces, bucketing);
    }

    /**
     * This write's record at its commit point (state {@link State#COMMITTED}): every file staged, in the partitions it
     * writes, with the schema the catalog step registers.
     *
     * @param partitionColumns the partition columns in key order, as the catalog names them
     * @param schema the Arrow schema JSON of the data columns then the partition columns
     * @param bucketing the write's bucketing, or null for a write without
     */
    public Manifest committed(List<String> partitionColumns, List<Partition> partitions, List<StagedFile> files, String schema,
                              Bucketing bucketing) {
        return new Manifest(FORMAT, writeId, table, mode, State.COMMITTED, keyId, createdAt, partitionColumns, partitions, files,
                catalog, schema, compression, requests, replaces, bucketing);
    }

    /** This manifest in another state. */
    public Manifest in(State next) {
        return new Manifest(FORMAT, writeId, table, mode, next, keyId, createdAt, partitionColumns, partitions, files, catalog, schema,
                compression, requests, replaces, bucketing);
    }

    /** This manifest with the old files it replaces, as listed before its commit point. */
    public Manifest replacing(List<String> old) {
        return new Manifest(FORMAT, writeId, table, mode, state, keyId, createdAt, partitionColumns, partitions, files, catalog, schema,
                compression, requests, old, bucketing);
    }

    /** This manifest with other files (a keyed rerun's rewrites added to its own). */
    public Manifest withFiles(List<StagedFile> files) {
        return new Manifest(FORMAT, writeId, table, mode, state, keyId, createdAt, partitionColumns, partitions, files, catalog, schema,
                compression, requests, replaces, bucketing);
    }

    /** This manifest with other partitions (a replacement's partitions where it stages nothing added to those it stages). */
    public Manifest withPartitions(List<Partition> partitions) {
        return new Manifest(FORMAT, writeId, table, mode, state, keyId, createdAt, partitionColumns, partitions, files, catalog, schema,
                compression, requests, replaces, bucketing);
    }

    /** True for a write with an idempotency key: rolled forward from its commit point, like an overwrite. */
    public boolean keyed() {
        return keyId != null;
    }

    public byte[] toJson() {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(this);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize the manifest of write " + writeId, e);
        }
    }

    /**
     * Parses a manifest; every field a manifest must have is checked here, so that no reader of a manifest meets a missing
     * one later. What its keys and folders may be is {@link ManifestTrust}'s to check.
     *
     * @throws IOException when it is not a manifest's JSON, lacks a required field or holds one of the wrong type
     */
    public static Manifest fromJson(byte[] json) throws IOException {
        Manifest m;
        try {
            m = JSON.readValue(json, Manifest.class);
        } catch (RuntimeException e) {
            throw new IOException(e.getMessage(), e);
        }
        if (m == null) {
            throw new IOException("it is JSON null, not a manifest");
        }
        if (m.format() > FORMAT) {
            throw new IOException("manifest format " + m.format() + " is newer than this wrangler understands (" + FORMAT
                    + "): upgrade wrangler");
        }
        if (m.format() < 1) {
            throw new IOException("it records no manifest format (1 or " + FORMAT + ")");
        }
        String missing = missing(m);
        if (missing != null) {
            throw new IOException("it lacks the field '" + missing + "'");
        }
        if (m.format() == 1) {
            // wrangler 0.1 wrote its manifest once, at the commit point, and keyed runs shared one write id.
            String key = m.writeId().startsWith("k-") ? m.writeId() : null;
            return new Manifest(1, m.writeId(), m.table(), m.mode(), State.COMMITTED, key, m.createdAt(), m.partitionColumns(),
                    m.partitions(), m.files(), m.catalog(), m.schema(), m.compression(), m.requests(), null, null);
        }
        return m;
    }

    /** The first field a manifest must have that {@code m} lacks, or null. */
    private static String missing(Manifest m) {
        if (m.writeId() == null || m.table() == null || m.mode() == null) {
            return m.writeId() == null ? "writeId" : m.table() == null ? "table" : "mode";
        }
        if (m.format() > 1 && m.state() == null) {
            return "state";
        }
        for (Partition p : m.partitions()) {
            if (p.folder() == null) {
                return "partitions[].folder";
            }
        }
        for (StagedFile f : m.files()) {
            if (f.folder() == null || f.finalKey() == null) {
                return f.folder() == null ? "files[].folder" : "files[].finalKey";
            }
        }
        return null;
    }
}
