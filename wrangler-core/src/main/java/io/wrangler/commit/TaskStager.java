package io.wrangler.commit;

import io.wrangler.WriteStep;
import io.wrangler.encoding.FileEncoder;
import io.wrangler.input.BatchSource;
import io.wrangler.partition.Buckets;
import io.wrangler.hive.HivePaths;
import io.wrangler.partition.PartitionKey;
import io.wrangler.partition.Partitioner;
import io.wrangler.staging.StagedFile;
import io.wrangler.staging.Stager;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import io.wrangler.storage.Uploads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A TaskStager stages one task's input under a write's {@code _tmp/<writeId>/} (the stage step): encodes it, splits it by
 * partition (and bucket) and uploads its files, and reports them as {@link StagedFiles}. A single-process write's
 * {@link Transaction#stage} runs one in process, on the transaction's pools and with its plan's partition folders; a task
 * of a distributed write runs {@link #stageTask} where the task runs, with pools of its own, staging at the Hive folders
 * (a task cannot ask the catalog; the commit refuses a partition registered elsewhere).
 */
public final class TaskStager {
    private final Stager stager;
    private final List<String> folderNames;
    /** Stage a file of no rows when the input has none: the write creates an unpartitioned table from an empty input. */
    private final boolean emptyFile;

    private TaskStager(Stager stager, List<String> folderNames, boolean emptyFile) {
        this.stager = stager;
        this.folderNames = folderNames;
        this.emptyFile = emptyFile;
    }

    /** The stager of a single-process write: its plan's partitioner, buckets and folders, the transaction's pools. */
    static TaskStager inProcess(WritePlan plan, S3Store store, ExecutorService pool, ExecutorService encoders) {
        WriteSpec spec = plan.spec();
        Uploads uploads = new Uploads(pool, spec.tuning().maxPendingParts(), spec.tuning().partSize());
        Stager stager = new Stager(WritePlan.stagingContext(spec, plan.location(), store, plan.writeId(), plan.settings()), uploads,
                plan.partitioner(), plan.buckets(), plan.validator(), encoders, plan.folders()::folderOf);
        return new TaskStager(stager, plan.columns().partitionNames(), plan.empty() && EmptyInput.fileOfNoRows(plan));
    }

    /** Stages {@code source}; {@code assigned}: each batch's partition ids from the prepass, or null. */
    StagedFiles stage(BatchSource source, BufferAllocator allocator, List<int[]> assigned) throws IOException {
        List<StagedFile> staged = stager.stage(source, allocator, folderNames, assigned);
        if (staged.isEmpty() && emptyFile) {
            staged = stager.stageEmptyFile(folderNames);
        }
        List<List<String>> keys = new ArrayList<>();
        stager.partitions().forEach(k -> keys.add(k.values()));
        return new StagedFiles(keys, staged);
    }

    /**
     * Stages one task's rows under {@code _tmp/<writeId>/} of the write {@link Transaction#begin(WriteSpec, Schema)}
     * started, with the same checks, encoder and Hive paths as a single-process write; runs where the task runs. The file
     * names get the spec's {@code filenamePrefix}, which the caller makes unique per task attempt, so that attempts never
     * overwrite each other's files. On failure, open uploads are aborted; what the attempt finished stays in the staging
     * folder, which the write's end (commit or abort) or a recovery removes whole. With {@code CommitMethod.DEFERRED_UPLOADS}
     * the files are open uploads at their final keys instead, never completed here; on failure the attempt aborts all of
     * them.
     */
    public static StagedFiles stageTask(WriteSpec spec, Schema schema, String writeId, BatchSource source) {
        S3Location location = S3Location.parse(spec.uri(), WriteStep.STAGE);
        Outcomes outcomes = new Outcomes(location.uri(), WriteKind.of(spec));
        Planner.checkDistributed(spec);
        Columns columns = new Planner(spec, location).validateSchema(schema);
        ExecutorService pool = Pools.pool(spec.tuning().threads());
        ExecutorService encoders = Pools.pool(1);
        try (BufferAllocator allocator = new RootAllocator()) {
            return forTask(spec, location, columns, writeId, pool, encoders).stage(source, allocator, null);
        } catch (IOException | RuntimeException e) {
            throw outcomes.staging(e, false);
        } finally {
            Pools.shutdown(encoders);
            Pools.shutdown(pool);
        }
    }

    private static TaskStager forTask(WriteSpec spec, S3Location location, Columns columns, String writeId, ExecutorService pool,
                                      ExecutorService encoders) {
        S3Store store = new S3Store(spec.s3(), location.bucket(), spec.options())
                .withSingleCopyLimit(spec.tuning().singleCopyLimit(), spec.tuning().copyPartSize());
        FileEncoder.Settings settings = new FileEncoder.Settings(columns.dataOut(), spec.compression(), spec.keepNanos(), spec.int96(),
                spec.rowGroupBytes(), spec.pageBytes()).withLayout(columns.layout());
        String suffix = spec.compression().fileInfix() + ".parquet";
        String stagingFolder = location.tmpPrefix() + writeId + "/";
        String longestName = spec.filenamePrefix() + Stager.fileName(9_999_999, 99_999, writeId,
                columns.bucket().isEmpty() ? -1 : spec.buckets() - 1, suffix);
        List<String> folderNames = columns.partitionNames();
        Partitioner.NewPartition validator = new PartitionFolders(location.uri(), spec, folderNames, stagingFolder, longestName)::check;
        Partitioner partitioner = new Partitioner(names(columns.partitions()), names(columns.data()));
        Uploads uploads = new Uploads(pool, spec.tuning().maxPendingParts(), spec.tuning().partSize());
        Buckets buckets = columns.bucket().isEmpty() ? null : new Buckets(names(columns.bucket()), spec.buckets());
        Stager stager = new Stager(WritePlan.stagingContext(spec, location, store, writeId, settings), uploads, partitioner, buckets,
                validator, encoders, (PartitionKey key) -> HivePaths.folder(folderNames, key.values()));
        return new TaskStager(stager, folderNames, false);
    }

    private static List<String> names(List<Field> fields) {
        return fields.stream().map(Field::getName).toList();
    }
}
