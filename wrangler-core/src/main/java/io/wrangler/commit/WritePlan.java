package io.wrangler.commit;

import io.wrangler.CommitMethod;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.encoding.FileEncoder;
import io.wrangler.layout.Manifest;
import io.wrangler.partition.Buckets;
import io.wrangler.partition.PartitionKey;
import io.wrangler.partition.Partitioner;
import io.wrangler.staging.StagedFile;
import io.wrangler.staging.StagingContext;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A write validated by the {@link Planner}: what it writes and where, decided before any I/O but reads, so that the
 * {@link Transaction} from the lease on only executes it. Immutable but for its partitioner, which learns a streamed
 * input's partitions as they come (each checked by {@code validator} as it is first met).
 *
 * <p>A plan for tasks that stage elsewhere ({@link Planner#planTasks}) has only the schema, columns, ids and catalog
 * commit: {@code settings}, {@code folders}, {@code partitioner}, {@code buckets}, {@code validator} and {@code prepass}
 * are null (each task plans its own staging, {@link TaskStager}).
 *
 * @param prepass what the validation pass over an input known in advance found, or null for a streamed input
 * @param catalogCommit the catalog's prepared commit, or null without a catalog (and for an empty input)
 * @param touched the partitions an input known in advance touches, for listing their old files while it stages; or null
 * @param bucketListed whether the validation listed the table (its shape, {@link TableShape}) in the bucket with the
 *     write's client and request options: the bucket is then known to exist and answer, and its HeadBucket is not sent
 */
record WritePlan(WriteSpec spec, S3Location location, Schema schema, Columns columns, String writeId, String keyId,
                 FileEncoder.Settings settings, PartitionFolders folders, Partitioner partitioner, Buckets buckets,
                 Partitioner.NewPartition validator, Prepass prepass, CatalogCommit catalogCommit, Manifest touched,
                 boolean bucketListed) {

    /** What the validation pass found: the rows, and each batch's partition ids, which staging reuses. */
    record Prepass(long rows, List<int[]> assigned) {
    }

    /** An input known in advance with no rows: there is nothing to write. */
    boolean empty() {
        return prepass != null && prepass.rows() == 0;
    }

    /** The table root, {@code s3://bucket/prefix/}. */
    String table() {
        return location.uri();
    }

    WriteKind kind() {
        return WriteKind.of(spec);
    }

    boolean deferred() {
        return spec.commitMethod() == CommitMethod.DEFERRED_UPLOADS;
    }

    /** {@code _tmp/<writeId>/}. */
    String stagingFolder() {
        return location.tmpPrefix() + writeId + "/";
    }

    WritePlan withTouched(Manifest touched) {
        return new WritePlan(spec, location, schema, columns, writeId, keyId, settings, folders, partitioner, buckets, validator,
                prepass, catalogCommit, touched, bucketListed);
    }

    /** What every file a write with these {@code settings} stages shares ({@link io.wrangler.staging.Stager}). */
    static StagingContext stagingContext(WriteSpec spec, S3Location location, S3Store store, String writeId,
                                         FileEncoder.Settings settings) {
        WriteSpec.Tuning tuning = spec.tuning();
        return new StagingContext(store, location.prefix(), location.tmpPrefix() + writeId + "/", writeId, spec.filenamePrefix(),
                spec.compression().fileInfix() + ".parquet", spec.commitMethod() == CommitMethod.DEFERRED_UPLOADS, settings,
                spec.maxRowsPerFile(), spec.targetFileSize(), tuning.maxOpenFiles(), tuning.openBytes(), spec.spillDirectory(),
                spec.progress(), count -> spec.hook().reached(Step.STAGED_FILE, count));
    }

    /** The manifest in state STARTED: the write's record before its first upload. */
    Manifest started() {
        return Manifest.started(writeId, table(), spec.mode(), keyId, spec.compression(), Manifest.Requests.of(spec.options()))
                .cataloged(spec.catalog() == null ? null : spec.catalog().describe());
    }

    /**
     * The manifest of the staged {@code files}, each partition in the folder {@code folders} gives it. With
     * {@code everyKey}, every partition of {@code keys} is in it whether or not it has a file yet: the partitions an
     * input known in advance touches, for listing their old files early.
     */
    Manifest manifest(List<PartitionKey> keys, List<StagedFile> files, PartitionFolders folders, boolean everyKey) {
        Map<String, long[]> totals = new LinkedHashMap<>();
        for (StagedFile f : files) {
            long[] t = totals.computeIfAbsent(f.folder(), k -> new long[2]);
            t[0] += f.rows();
            t[1] += f.bytes();
        }
        List<Manifest.Partition> partitions = new ArrayList<>();
        for (PartitionKey key : keys) {
            String folder = folders.folderOf(key);
            long[] t = everyKey ? totals.getOrDefault(folder, new long[2]) : totals.get(folder);
            if (t != null) {
                partitions.add(new Manifest.Partition(folder, key.values(), t[0], t[1]));
            }
        }
        List<Field> ordered = new ArrayList<>(columns.dataCatalog());
        ordered.addAll(columns.partitionsOut());
        return started().committed(columns.partitionNames(), partitions, files, new Schema(ordered).toJson(),
                columns.bucket().isEmpty() ? null : new Manifest.Bucketing(columns.bucketOut(), spec.buckets()));
    }
}
