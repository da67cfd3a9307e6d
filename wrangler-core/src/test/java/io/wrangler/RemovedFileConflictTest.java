package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.testkit.MemoryS3;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A file listed moments ago and removed by another write before it is read has one meaning in every phase of every
 * operation that reads listed files: the table changed under it, nothing was changed, rerun. A compaction and a keyed
 * rerun's rewrite get a {@link CommitConflictException}, as do a dry run (the plan of a keyed rerun), and a read gets a
 * {@link ReadException} that says the table changed while it was read. Each race is set up with MemoryS3 holds: the GET
 * of the listed file waits until the other write has removed it.
 */
class RemovedFileConflictTest {
    record Row(long id, String tag, String dt) {
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final MemoryS3 memory = TestLake.memory();
    private final S3Client s3 = memory.client();

    private void keyed(String key, List<Row> rows) {
        S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).idempotencyKey(key).s3(s3).to(table);
    }

    private List<List<Object>> rows() {
        return TestLake.query(bucket, "t/", "SELECT id, tag, CAST(dt AS VARCHAR) FROM t ORDER BY ALL");
    }

    /**
     * Runs {@code op} on another thread, holds its first GET of {@code key} (before S3 applies it) until {@code meanwhile}
     * ran, and returns the failure of {@code op}. {@code meanwhile} must not GET {@code key} itself (a write without a
     * catalog reads the footer of the table's first data file: the held file must not be that one, or the write an
     * OVERWRITE, which does not check).
     */
    private Throwable failureWhile(String key, Runnable op, Runnable meanwhile) throws Exception {
        MemoryS3.Hold hold = memory.holdWhereKeyContains("GetObject", key);
        // a thread of its own: the common pool may have one thread on two cores, and the operation may use it too
        ExecutorService thread = Executors.newSingleThreadExecutor();
        CompletableFuture<Void> running = CompletableFuture.runAsync(op, thread);
        thread.shutdown();
        try {
            assertThat(hold.awaitHeld(Duration.ofMinutes(2))).as("the operation's GET of " + key).isTrue();
            meanwhile.run();
        } finally {
            hold.release();
        }
        assertThatThrownBy(running::join).isInstanceOf(CompletionException.class);
        try {
            running.join();
            throw new AssertionError("unreachable");
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    @Test
    void aKeyedRerunReplacingAFileTheCompactionListedWhileItReadsTheFooterIsAConflict() throws Exception {
        keyed("zz", List.of(new Row(1, "zz", "d")));
        String zzFile = TestLake.keys(bucket, "t/dt=d/").get(0);
        keyed("aa", List.of(new Row(2, "aa", "d"))); // its file sorts first: the rerun's own check reads that footer, not the held one
        String name = zzFile.substring(zzFile.lastIndexOf('/') + 1);

        Throwable failed = failureWhile(name, () -> S3Parquet.compact(table).s3(s3).run(),
                () -> keyed("zz", List.of(new Row(3, "zz-rerun", "d"))));

        assertThat(failed).isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot compact " + table + " (step: validate): a file it listed was removed by another write "
                        + "before the compaction could read it (")
                .hasMessageEndingWith("). Nothing was changed; rerun the compaction.");
        assertThat(((CommitConflictException) failed).step()).isEqualTo(WriteStep.VALIDATE);
        assertThat(rows()).containsExactly(List.of(2L, "aa", "d"), List.of(3L, "zz-rerun", "d"));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
        // the rerun the message asks for compacts the table as it is now
        S3Parquet.compact(table).s3(s3).run();
        assertThat(TestLake.keys(bucket, "t/dt=d/")).hasSize(1);
        assertThat(rows()).containsExactly(List.of(2L, "aa", "d"), List.of(3L, "zz-rerun", "d"));
    }

    /** Two keyed runs compacted into one marked file ({@code _k}): a keyed rerun then reads its footer. */
    private String markedFile() {
        // a partition whose file sorts first: a write's own check of the table reads its footer, not the marked file's
        S3Parquet.write(List.of(new Row(0, "a", "a"))).partitionBy("dt").s3(s3).to(table);
        keyed("k1", List.of(new Row(1, "k1", "d")));
        keyed("k2", List.of(new Row(2, "k2", "d")));
        S3Parquet.compact(table).s3(s3).run();
        List<String> files = TestLake.keys(bucket, "t/dt=d/");
        assertThat(files).hasSize(1);
        assertThat(files.get(0)).contains("_k.");
        return files.get(0);
    }

    /** An OVERWRITE of the whole table (which reads no footer of it). */
    private void overwrite(String tag) {
        S3Parquet.write(List.of(new Row(9, tag, "d"))).partitionBy("dt").mode(WriteMode.OVERWRITE).s3(s3).to(table);
    }

    @Test
    void aPlanOfAKeyedRerunWhoseMarkedFileIsReplacedWhileItReadsItsKeyRunsIsAConflict() throws Exception {
        String marked = markedFile();
        String name = marked.substring(marked.lastIndexOf('/') + 1);

        Throwable failed = failureWhile(name, () -> S3Parquet.write(List.of(new Row(3, "k1b", "d"))).partitionBy("dt")
                .mode(WriteMode.APPEND).idempotencyKey("k1").s3(s3).plan(table), () -> overwrite("over"));

        assertThat(failed).isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot read the key runs of s3://" + bucket + "/" + marked + " for " + table + " (step: validate): a "
                        + "file listed moments before was removed by another write before it could be read (")
                .hasMessageEndingWith("). Nothing was changed; rerun the plan.");
        assertThat(rows()).containsExactly(List.of(9L, "over", "d"));
    }

    @Test
    void aKeyedRerunWhoseMarkedFileIsRemovedWhileItRewritesItIsAConflictAndChangesNothing() throws Exception {
        String marked = markedFile();
        String name = marked.substring(marked.lastIndexOf('/') + 1);

        // Under the rerun's lease only a writer that took the lease over could remove it: the test removes it itself.
        Throwable failed = failureWhile(name, () -> keyed("k1", List.of(new Row(3, "k1b", "d"))),
                () -> s3.deleteObject(b -> b.bucket(bucket).key(marked)));

        assertThat(failed).isInstanceOf(CommitConflictException.class)
                .hasMessageStartingWith("Cannot rewrite the files that hold rows of this key for " + table + " (step: stage): a file listed "
                        + "moments before was removed by another write before it could be read (")
                .hasMessageEndingWith("). Nothing of the table was changed; this write's staged files were removed. Rerun the write.");
        assertThat(TestLake.keys(bucket, "t/dt=d/")).isEmpty();
        assertThat(rows()).containsExactly(List.of(0L, "a", "a"));
    }

    @Test
    void aReadWhoseFileAnOverwriteReplacesBeforeItIsReadSaysTheTableChanged() throws Exception {
        keyed("k1", List.of(new Row(1, "k1", "d")));
        String file = TestLake.keys(bucket, "t/dt=d/").get(0);
        String name = file.substring(file.lastIndexOf('/') + 1);

        Throwable failed = failureWhile(name, () -> S3Parquet.read(table).s3(s3).toList(Row.class), () -> overwrite("over"));

        assertThat(failed).isExactlyInstanceOf(ReadException.class)
                .hasMessageStartingWith("Cannot read " + table + ": the table changed while it was read: s3://" + bucket + "/" + file
                        + ", listed by this read, was removed by another write (an overwrite, a keyed rerun or a compaction) before it "
                        + "was read (")
                .hasMessageEndingWith("). A read changes nothing: read again, and it reads the table as it is now.");
        assertThat(S3Parquet.read(table).s3(s3).toList(Row.class)).containsExactly(new Row(9, "over", "d"));
    }
}
