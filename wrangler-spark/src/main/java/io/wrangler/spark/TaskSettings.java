package io.wrangler.spark;

import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.Encryption;
import io.wrangler.RetryPolicy;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.spi.WriteTarget;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.types.StructType;

/**
 * TaskSettings are what a task needs to stage its rows, sent from the driver with every task: the table, the write's
 * id, the encoding options and how to reach S3 ({@link S3Settings}). The executor builds its write target from them; no
 * catalog, lease or client crosses the wire.
 */
record TaskSettings(String uri, String writeId, WriteMode mode, List<String> partitionBy, StructType schema, Compression compression,
                    long maxRowsPerFile, long targetFileSize, String filenamePrefix, String idempotencyKey, String sse, String kmsKeyId,
                    String acl, String expectedBucketOwner, int retryAttempts, long retryBaseMillis, long retryCapMillis, int taskConcurrency,
                    int batchRows, CommitMethod commitMethod, List<String> bucketBy, int buckets,
                    S3Settings s3, Layout layout) implements Serializable {

    /**
     * The file layout options of the write ({@code WriteOptions}' row group and page size, dictionaries, bloom filters,
     * sort, footer metadata, storage class and tags), as they cross the wire to the tasks.
     */
    record Layout(long rowGroupSize, int pageSize, LinkedHashMap<String, Boolean> dictionaryEncoding, ArrayList<String> bloomFilters,
                  double bloomFilterFpp, ArrayList<String> sortBy, LinkedHashMap<String, String> fileMetadata, String storageClass,
                  LinkedHashMap<String, String> tags) implements Serializable {
        private static final long serialVersionUID = 1L;

        static Layout of(WriteOptions o) {
            return new Layout(o.rowGroupSize().orElse(0), o.pageSize().orElse(0), new LinkedHashMap<>(o.dictionaryEncoding()),
                    new ArrayList<>(o.bloomFilters()), o.bloomFilterFpp(), new ArrayList<>(o.sortBy()), new LinkedHashMap<>(o.fileMetadata()),
                    o.storageClass().orElse(null), new LinkedHashMap<>(o.tags()));
        }

        void applyTo(WriteOptions.Builder b) {
            if (rowGroupSize > 0) {
                b.rowGroupSize(rowGroupSize);
            }
            if (pageSize > 0) {
                b.pageSize(pageSize);
            }
            b.dictionaryEncoding(dictionaryEncoding).bloomFilters(bloomFilters.toArray(String[]::new)).bloomFilterFpp(bloomFilterFpp)
                    .sortBy(sortBy.toArray(String[]::new)).fileMetadata(fileMetadata).storageClass(storageClass).tags(tags);
        }
    }

    /** The target of one task attempt: its files' names start with the user's prefix, then {@code t<partition>-a<task id>-}. */
    WriteTarget task(int partitionId, long taskId) {
        WriteOptions.Builder b = WriteOptions.builder().mode(mode).partitionBy(partitionBy.toArray(String[]::new)).compression(compression)
                .maxRowsPerFile(maxRowsPerFile).targetFileSize(targetFileSize).lease(false).leaseWait(Duration.ZERO)
                .encryption(encryption(sse, kmsKeyId)).acl(acl).expectedBucketOwner(expectedBucketOwner)
                .retryPolicy(RetryPolicy.of(retryAttempts, Duration.ofMillis(retryBaseMillis), Duration.ofMillis(retryCapMillis)))
                .concurrency(taskConcurrency).commitMethod(commitMethod).filenamePrefix(attemptPrefix(partitionId, taskId));
        if (!bucketBy.isEmpty()) {
            b.bucketBy(bucketBy, buckets);
        }
        layout.applyTo(b);
        return new WriteTarget(uri, s3.client(), b.build(), null, idempotencyKey);
    }

    /** The encryption of the data source's {@code sse} (as {@link SourceOptions#sse} normalizes it) and KMS key id. */
    static Encryption encryption(String sse, String kmsKeyId) {
        if (sse == null) {
            return Encryption.none();
        }
        if (sse.equals("AES256")) {
            return Encryption.sseS3();
        }
        return kmsKeyId == null || kmsKeyId.isBlank() ? Encryption.kms() : Encryption.kms(kmsKeyId);
    }

    /** How every file name of one task attempt begins; no other attempt's (task attempt ids are unique in a Spark application). */
    String attemptPrefix(int partitionId, long taskId) {
        return filenamePrefix + String.format("t%05d-a%d-", partitionId, taskId);
    }

    /** The tasks this executor runs at once (its cores over {@code spark.task.cpus}); 1 outside Spark. */
    static int slots() {
        SparkEnv env = SparkEnv.get();
        if (env == null) {
            return 1;
        }
        SparkConf conf = env.conf();
        return slots(conf.get("spark.master", ""), conf.getInt("spark.executor.cores", 0), conf.getInt("spark.task.cpus", 1),
                Runtime.getRuntime().availableProcessors());
    }

    /**
     * The tasks an executor runs at once: {@code spark.executor.cores} when set, else the threads of a local master
     * ({@code local}, {@code local[n]}, {@code local[n,f]}, {@code local[*]}, {@code local-cluster[e,c,m]}), else the
     * machine's processors (a standalone worker's executor takes them all); over {@code spark.task.cpus}.
     */
    static int slots(String master, int executorCores, int taskCpus, int processors) {
        int cores = executorCores;
        if (cores <= 0) {
            cores = processors;
            Matcher m = Pattern.compile("local(?:\\[(\\*|\\d+)(?:,\\s*\\d+)?\\])?").matcher(master.trim());
            Matcher cluster = Pattern.compile("local-cluster\\[\\s*\\d+\\s*,\\s*(\\d+)\\s*,.*\\]")
                    .matcher(master.trim());
            if (m.matches()) {
                cores = m.group(1) == null ? 1 : m.group(1).equals("*") ? processors : Integer.parseInt(m.group(1));
            } else if (cluster.matches()) {
                cores = Integer.parseInt(cluster.group(1));
            }
        }
        return Math.max(1, cores / Math.max(1, taskCpus));
    }
}
