package io.wrangler.spark;

import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.Progress;
import io.wrangler.WriteMode;
import io.wrangler.commit.StepHook;
import io.wrangler.commit.WriteSpec;
import io.wrangler.storage.RequestOptions;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.StructType;

/**
 * TaskSettings are what a task needs to stage its rows, sent from the driver with every task: the table, the write's
 * id, the encoding options and how to reach S3 ({@link S3Settings}). The executor builds its write spec from them; no
 * catalog, lease or client crosses the wire.
 */
record TaskSettings(String uri, String writeId, WriteMode mode, List<String> partitionBy, StructType schema, Compression compression,
                    long maxRowsPerFile, long targetFileSize, String filenamePrefix, String idempotencyKey, String sse, String kmsKeyId,
                    String acl, String expectedBucketOwner, int retryAttempts, long retryBaseMillis, long retryCapMillis, int taskConcurrency,
                    int batchRows, CommitMethod commitMethod, List<String> bucketBy, int buckets,
                    S3Settings s3) implements Serializable {

    /** The spec of one task attempt: its files' names start with the user's prefix, then {@code t<partition>-a<task id>-}. */
    WriteSpec taskSpec(int partitionId, long taskId) {
        return new WriteSpec(uri, s3.client(), mode, partitionBy, compression, maxRowsPerFile, false, null, StepHook.NONE,
                WriteSpec.Tuning.defaults().withThreads(taskConcurrency), idempotencyKey, false, Duration.ZERO, options(), targetFileSize,
                new Progress() { }, Path.of(System.getProperty("java.io.tmpdir")), commitMethod, attemptPrefix(partitionId, taskId),
                Map.of(), bucketBy, buckets, false, null);
    }

    /** How every file name of one task attempt begins; no other attempt's (task attempt ids are unique in a Spark application). */
    String attemptPrefix(int partitionId, long taskId) {
        return filenamePrefix + String.format("t%05d-a%d-", partitionId, taskId);
    }

    RequestOptions options() {
        return new RequestOptions(sse, kmsKeyId, acl, expectedBucketOwner, retryAttempts, Duration.ofMillis(retryBaseMillis),
                Duration.ofMillis(retryCapMillis));
    }
}
