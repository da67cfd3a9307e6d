package io.wrangler.spi;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The files a read sees, as the driver's one listing found them (serializable: a part of it goes with each task): the
 * visible files of the partitions the read's filter admits (files of writes in flight left out; a concurrent commit
 * seen whole or not at all), the partition columns, and, when resolved, the read's schema. A task reads exactly the
 * files it is given; one removed since the listing fails the task ({@code ReadException}: "the table changed while it
 * was read"), it is never skipped.
 *
 * @param table the table's URI ({@code s3://bucket/prefix/})
 * @param schemaJson the read's Arrow schema (data columns, then partition columns) as Arrow's JSON, or null when not
 *     resolved ({@link DistributedRead#plan} without the schema)
 * @param partitionColumns the partition columns in key order
 * @param files the files, partition by partition
 */
public record TableSnapshot(String table, String schemaJson, List<String> partitionColumns, List<File> files) implements Serializable {
    private static final long serialVersionUID = 1L;

    public TableSnapshot {
        partitionColumns = List.copyOf(partitionColumns);
        files = List.copyOf(files);
    }

    /**
     * One data file.
     *
     * @param bucket its bucket
     * @param key its key
     * @param size its size in bytes
     * @param folder its partition's folder below the table ({@code dt=2024-01-15/}, "" unpartitioned)
     * @param values its partition's values in key order, unescaped, null for the default partition
     * @param eTag its ETag as the driver's listing gave it, or null when not known: a task's every GET of the file carries
     *     {@code If-Match} on it, so an object put under the key since the listing fails the task ("the table changed
     *     while it was read") rather than being read as the file listed
     */
    public record File(String bucket, String key, long size, String folder, List<String> values, String eTag) implements Serializable {
        private static final long serialVersionUID = 1L;

        public File {
            values = Collections.unmodifiableList(new ArrayList<>(values));
        }

        /** A file whose ETag is not known: read without a condition. */
        public File(String bucket, String key, long size, String folder, List<String> values) {
            this(bucket, key, size, folder, values, null);
        }
    }

    /** The read's schema, or null when not resolved. */
    public Schema schema() {
        try {
            return schemaJson == null ? null : Schema.fromJSON(schemaJson);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the snapshot's schema is not Arrow's JSON: " + e.getMessage(), e);
        }
    }

    /** This snapshot with {@code schema} as its schema (resolved by an earlier plan) and only {@code files}. */
    public TableSnapshot with(Schema schema, List<File> files) {
        return new TableSnapshot(table, schema == null ? null : schema.toJson(), partitionColumns, files);
    }

    /** The bytes of every file. */
    public long bytes() {
        long n = 0;
        for (File f : files) {
            n += f.size();
        }
        return n;
    }
}
