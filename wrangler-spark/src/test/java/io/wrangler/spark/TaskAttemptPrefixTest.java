package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.WriteMode;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * An aborted task attempt deletes only its own staged files, by its name prefix {@code t<partition>-a<task attempt id>-}:
 * never those of an attempt whose partition or attempt id shares its digits (1 and 11, 1 and 12), which may be the one
 * that counts. Task writers are driven here without Spark, as its executor would.
 */
class TaskAttemptPrefixTest {
    private static final StructType SCHEMA = new StructType().add("country", DataTypes.StringType).add("n", DataTypes.LongType);

    private static TaskSettings settings(String uri, String writeId, String filenamePrefix) {
        return settings(uri, writeId, filenamePrefix, CommitMethod.STAGE_AND_COPY);
    }

    private static TaskSettings settings(String uri, String writeId, String filenamePrefix, CommitMethod method) {
        return new TaskSettings(uri, writeId, WriteMode.APPEND, List.of("country"), SCHEMA, Compression.SNAPPY, Long.MAX_VALUE,
                Long.MAX_VALUE, filenamePrefix, null, null, null, null, null, 3, 1, 5, 2, 16, method, List.of(), 0,
                SparkLake.settings(), TaskSettings.Layout.of(io.wrangler.WriteOptions.defaults()));
    }

    private static TaskWriter writer(TaskSettings s, int partition, long task) throws Exception {
        TaskWriter w = new TaskWriter(s, partition, task);
        w.write(new GenericInternalRow(new Object[] {UTF8String.fromString("RU"), partition * 1000L + task}));
        return w;
    }

    @Test
    void anAbortedAttemptDeletesOnlyFilesOfItsOwnPrefix() throws Exception {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        for (String userPrefix : List.of("", "x")) {
            String writeId = "20261203T120000Z-0123456789abcde" + (userPrefix.isEmpty() ? "0" : "1");
            TaskSettings s = settings(uri, writeId, userPrefix);
            long[][] attempts = {{1, 1}, {1, 11}, {1, 12}, {11, 1}, {0, 11}, {10, 1}};
            TaskWriter aborted = writer(s, 1, 1);
            List<TaskWriter> others = new java.util.ArrayList<>();
            for (long[] a : attempts) {
                if (a[0] != 1 || a[1] != 1) {
                    TaskWriter w = writer(s, (int) a[0], a[1]);
                    w.commit();
                    w.close();
                    others.add(w);
                }
            }
            // attempt 1 of partition 1 has staged its file; then an abort of that attempt deletes by its prefix
            aborted.commit();
            aborted.close();
            List<String> before = SparkLake.keys(bucket, "t/_tmp/" + writeId + "/");
            assertThat(before).hasSize(6);
            TaskWriter again = new TaskWriter(s, 1, 1);
            again.abort();
            again.close();
            List<String> after = SparkLake.keys(bucket, "t/_tmp/" + writeId + "/");
            String mine = "/" + userPrefix + "t00001-a1-";
            assertThat(before.stream().filter(k -> !k.contains(mine)).collect(Collectors.toList())).containsExactlyElementsOf(after);
            assertThat(after).hasSize(5);
        }
    }

    /**
     * Spark kills a task (its job was cancelled) while the attempt's commit waits for its stager, which then finishes: its
     * deferred uploads are complete in parts and open, its message never left, and the write may already be aborted (the
     * driver's listing of open uploads done): the attempt's abort must not leave them open.
     */
    @Test
    void aDeferredAttemptKilledWhileItsCommitWaitsLeavesNoOpenUpload() throws Exception {
        String bucket = SparkLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        TaskSettings s = settings(uri, "20261203T120000Z-0123456789abcdef", "", CommitMethod.DEFERRED_UPLOADS);
        for (int round = 0; round < 3; round++) {
            TaskWriter w = new TaskWriter(s, round, 7);
            for (int i = 0; i < 200_000; i++) {
                w.write(new GenericInternalRow(new Object[] {UTF8String.fromString("C" + (i % 40)), (long) i}));
            }
            // Spark's kill is an interrupt of the task thread, sent here once the commit is waiting for its stager (seen
            // in the thread's stack, not after a fixed delay, which a loaded machine stretches past the commit's end).
            Thread task = Thread.currentThread();
            AtomicBoolean returned = new AtomicBoolean();
            Thread killer = new Thread(() -> {
                while (!returned.get()) {
                    if (waitsForItsStager(task)) {
                        task.interrupt();
                        return;
                    }
                    LockSupport.parkNanos(200_000);
                }
            });
            killer.start();
            boolean killed;
            try {
                w.commit();
                killed = false;
            } catch (java.io.InterruptedIOException e) {
                killed = true;
            }
            returned.set(true);
            while (true) {
                try {
                    killer.join();
                    break;
                } catch (InterruptedException late) {
                    // the kill landed after the commit had returned: it is cleared below
                }
            }
            Thread.interrupted();
            if (!killed) {
                // the stager finished before the commit waited: the message left, nothing to check this round
                continue;
            }
            w.abort(); // Spark's catch block
            w.close();
            String mine = String.format("t%05d-a7-", round);
            assertThat(SparkLake.s3().openMultipartUploads(bucket, "t/")).as("round %d", round).noneMatch(k -> k.contains(mine));
            return;
        }
        throw new AssertionError("the kill never arrived while the commit waited for its stager");
    }

    private static boolean waitsForItsStager(Thread t) {
        Thread.State state = t.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().equals(TaskWriter.class.getName()) && e.getMethodName().equals("join")) {
                return true;
            }
        }
        return false;
    }
}
