package io.wrangler.spi;

import io.wrangler.staging.StagedFile;
import io.wrangler.CommitMethod;
import io.wrangler.Progress;
import io.wrangler.WriteResult;
import io.wrangler.WriteStep;
import io.wrangler.layout.Manifest;
import io.wrangler.commit.TaskStager;
import io.wrangler.commit.Transaction;
import io.wrangler.commit.WriteSpec;
import io.wrangler.Encryption;
import io.wrangler.input.BatchSource;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableRead;
import io.wrangler.read.TableReader;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The one adapter of the engine SPI to the internal engine ({@code Transaction.begin}, {@code TaskStager.stageTask} and
 * {@code Transaction.commit} / {@code abort}; for reads {@code TableRead.plan} and a {@code TableReader} of given files):
 * converts the SPI's values to the engine's and back, and nothing else.
 */
final class Engine implements DistributedWrite {
    private final Transaction write;

    private Engine(Transaction write) {
        this.write = write;
    }

    static DistributedWrite begin(WriteTarget target, Schema schema, StepHook hook, Duration clockOffset) {
        WriteSpec spec = spec(target, hook == null ? StepHook.NONE : hook, WriteSpec.Tuning.defaults().withClockOffset(clockOffset));
        return new Engine(Transaction.begin(spec, schema));
    }

    static StagedFiles stage(WriteTarget task, String writeId, int slots, TaskBatches batches) {
        WriteSpec spec = spec(task, StepHook.NONE, share(WriteSpec.Tuning.defaults(), Runtime.getRuntime().maxMemory(), slots));
        io.wrangler.commit.StagedFiles staged = TaskStager.stageTask(spec, batches.schema(), writeId, source(batches));
        return new StagedFiles(staged.partitions(), staged.files().stream().map(Engine::toSpi).toList());
    }

    /** The engine's record of a staged file as the SPI carries it: the one conversion, with {@link #fromSpi}. */
    private static StagedFiles.File toSpi(StagedFile f) {
        return new StagedFiles.File(f.folder(), f.stagedKey(), f.finalKey(), f.bytes(), f.rows(), f.uploadId(), f.etags());
    }

    private static StagedFile fromSpi(StagedFiles.File f) {
        return new StagedFile(f.folder(), f.stagedKey(), f.finalKey(), f.bytes(), f.rows(), f.uploadId(), f.etags());
    }

    @Override
    public String writeId() {
        return write.writeId();
    }

    @Override
    public String table() {
        return write.table();
    }

    @Override
    public WriteResult commit(List<StagedFiles> tasks) {
        List<io.wrangler.commit.StagedFiles> staged = new ArrayList<>();
        for (StagedFiles t : tasks) {
            staged.add(new io.wrangler.commit.StagedFiles(t.partitions(), t.files().stream().map(Engine::fromSpi).toList()));
        }
        return write.commit(staged);
    }

    @Override
    public void abort(Throwable cause) {
        write.abort(cause);
    }

    @Override
    public void close() {
        write.close();
    }

    /** The engine's spec of a target: its threads are its options' concurrency; no progress listener, no replacement. */
    private static WriteSpec spec(WriteTarget t, StepHook hook, WriteSpec.Tuning tuning) {
        return new WriteSpec(t.uri(), t.s3(), t.options(), t.catalog(), hook, tuning.withThreads(t.options().concurrency()),
                t.idempotencyKey(), new Progress() { }, null);
    }

    /**
     * Core's memory budgets (upload parts pending, open files held, a row group) are shares of the heap for one write
     * in the JVM; an executor runs {@code slots} tasks at once, each a write of its own, so each gets its share of the
     * heap. On a heap large enough for every slot to have the defaults' caps, they are unchanged.
     */
    static WriteSpec.Tuning share(WriteSpec.Tuning t, long heap, int slots) {
        if (slots <= 1) {
            return t;
        }
        long perTask = heap / slots;
        int pendingParts = (int) Math.max(2, Math.min(t.maxPendingParts(), perTask / 4 / t.partSize()));
        long rowGroup = Math.max(1L << 20, Math.min(t.rowGroupBytes(), perTask / 8));
        long openBytes = Math.min(t.openBytes(), perTask / 4);
        return new WriteSpec.Tuning(t.threads(), t.partSize(), pendingParts, rowGroup, t.pageBytes(), t.maxOpenFiles(), t.deleteBatch(),
                t.singleCopyLimit(), t.copyPartSize(), t.leaseTtl(), openBytes, t.clockOffset());
    }

    /** A task's batches as the engine reads its input: once, not replayable. */
    private static BatchSource source(TaskBatches batches) {
        return new BatchSource() {
            @Override
            public Schema schema() {
                return batches.schema();
            }

            @Override
            public boolean next() throws IOException {
                return batches.next();
            }

            @Override
            public VectorSchemaRoot current() {
                return batches.current();
            }

            @Override
            public boolean replayable() {
                return false;
            }

            @Override
            public void rewind() {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {
            }
        };
    }

    static void discardAttempt(WriteTarget task, String writeId, String attemptPrefix) {
        try {
            S3Location table = S3Location.parse(task.uri(), WriteStep.STAGE);
            S3Store store = new S3Store(task.s3(), table.bucket(), spec(task, StepHook.NONE,
                    WriteSpec.Tuning.defaults()).options());
            List<String> keys = new ArrayList<>();
            for (S3Object o : store.list(table.tmpPrefix() + writeId + "/")) {
                if (o.key().substring(o.key().lastIndexOf('/') + 1).startsWith(attemptPrefix)) {
                    keys.add(o.key());
                }
            }
            store.delete(keys);
            if (task.options().commitMethod() == CommitMethod.DEFERRED_UPLOADS) {
                // Open uploads at final keys: the stager aborts them when it fails, but one that finished (the engine killed
                // the attempt while its commit waited) leaves them open, and the driver may have listed the open uploads already.
                for (MultipartUpload u : store.openUploads(table.prefix())) {
                    String name = u.key().substring(u.key().lastIndexOf('/') + 1);
                    if (!u.key().startsWith(table.tmpPrefix()) && name.startsWith(attemptPrefix) && name.contains(writeId)) {
                        try {
                            store.abort(u.key(), u.uploadId());
                        } catch (RuntimeException gone) {
                            // completed by no one (its message never left) or aborted meanwhile: nothing open
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            // Best effort: what stays is removed with the staging folder by the write's end or by the next recovery.
        }
    }

    static TableSnapshot plan(ReadTarget t, boolean resolveSchema) {
        TableRead.Plan p = new TableRead(t.uri(), t.catalog(), uri -> t.s3(), null, t.filter(), null, 65_536, t.retry(),
                t.expectedBucketOwner(), null, TableRead.Selection.ALL).plan(resolveSchema);
        List<TableSnapshot.File> files = new ArrayList<>();
        for (TableFiles.DataFile f : p.listing().files()) {
            files.add(new TableSnapshot.File(f.bucket(), f.key(), f.size(), f.folder(), f.values(), f.eTag()));
        }
        return new TableSnapshot(p.table(), p.schema() == null ? null : p.schema().toJson(), p.listing().partitionColumns(), files);
    }

    /** The columns a task reads (null: all) and the rows (null: all). */
    record Selection(List<String> columns, io.wrangler.RowFilter where) {
    }

    static ArrowReader read(ReadTarget t, TableSnapshot part, Selection selection, BufferAllocator allocator, int batchRows) {
        if (part.schemaJson() == null) {
            throw new IllegalArgumentException("the snapshot of " + part.table() + " has no schema: plan it with resolveSchema, or give it one");
        }
        List<TableFiles.DataFile> files = new ArrayList<>();
        for (TableSnapshot.File f : part.files()) {
            files.add(new TableFiles.DataFile(f.bucket(), f.key(), f.size(), f.folder(), f.values(), null, f.eTag()));
        }
        Map<String, Field> partitionTypes = new HashMap<>();
        List<Field> data = new ArrayList<>();
        for (Field f : part.schema().getFields()) {
            if (part.partitionColumns().contains(f.getName())) {
                partitionTypes.put(f.getName(), f);
            } else {
                data.add(f);
            }
        }
        RequestOptions options = RequestOptions.of(Encryption.none(), null, t.expectedBucketOwner(), t.retry());
        TableReader reader = new TableReader(allocator, null, new TableReader.Source(t.s3(), options, part.table(),
                new TableFiles.Listing(part.partitionColumns(), files), partitionTypes), selection.columns(), batchRows).dataColumns(data)
                .rowFilter(selection.where());
        try {
            reader.schema();
        } catch (RuntimeException e) {
            try {
                reader.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return reader;
    }
}
