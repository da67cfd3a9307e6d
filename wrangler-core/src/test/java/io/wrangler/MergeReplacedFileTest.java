package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.Step;
import io.wrangler.spi.StepHook;
import io.wrangler.testkit.MemoryS3;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * A file of a matched partition replaced under its own name (other bytes of the same length: a writer outside the lease,
 * a raw PUT) after the merge planned (round 9, h-hold9). The merge decides from the plan which files hold its keys and
 * rewrites only those; a replaced file it left alone may now hold an updated key, whose old row would stay beside the
 * input's (the key twice). The check under the lease compares each matched file's ETag with the plan's listing: a
 * replaced file is a conflict, nothing changed, as a file added or removed there is. A delete of rows, which decides
 * from its plan which files hold a matched row in the same way, is held to the same.
 */
class MergeReplacedFileTest {
    record Ev(String user, LocalDate seen_on, String payload, long updated_at, String region) {
    }

    private static final String P = "eu";
    private static final LocalDate D = LocalDate.of(2024, 3, 1);

    private final MemoryS3 mem = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private void append(List<Ev> rows) {
        S3Parquet.write(rows).partitionBy("region").mode(WriteMode.APPEND).s3(mem.client()).to(table);
    }

    private List<String> tableRows() {
        return TestLake.query(bucket, "t/", "SELECT user, payload, updated_at FROM t").stream()
                .map(r -> r.get(0) + "|" + r.get(1) + "|" + r.get(2)).sorted().toList();
    }

    /** Two files of one partition, of the same length: {@code [a, b]} then {@code [c, d]}. */
    private List<String> seed() {
        append(List.of(new Ev("a", D, "old", 1, P), new Ev("b", D, "old", 1, P)));
        append(List.of(new Ev("c", D, "old", 1, P), new Ev("d", D, "old", 1, P)));
        List<String> files = TestLake.keys(bucket, "t/region=" + P + "/");
        assertThat(files).hasSize(2);
        Map<String, byte[]> objects = TestLake.snapshot(bucket, "t/region=" + P + "/");
        assertThat(objects.get(files.get(0))).hasSameSizeAs(objects.get(files.get(1))); // a replacement keeps the listed length
        return files;
    }

    private String fileOf(List<String> files, String user) {
        for (String f : files) {
            if (!TestLake.queryFile(mem.get(bucket, f), "SELECT 1 FROM $file WHERE user = '" + user + "'").isEmpty()) {
                return f;
            }
        }
        throw new AssertionError("no file holds " + user);
    }

    private Throwable merge(S3Client s3, List<Ev> input, StepHook hook) {
        try {
            S3Parquet.merge(input).on("user", "seen_on").stepHook(hook).s3(s3).to(table);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * The file the merge leaves alone ({@code [c, d]}: its statistics rule the key out) is replaced, once the merge holds
     * the lease, by the bytes of the file it rewrites ({@code [a, b]}): the updated key {@code a} now lies in a file the
     * merge does not rewrite. Before the check compared ETags the merge committed, and the table held {@code a} twice,
     * its old row beside the merged one.
     */
    @Test
    void aFileLeftAloneReplacedAfterThePlanByOneHoldingAnUpdatedKeyIsAConflict() {
        List<String> files = seed();
        String withA = fileOf(files, "a");
        String withC = fileOf(files, "c");
        byte[] ab = mem.get(bucket, withA);
        Throwable thrown = merge(mem.client(), List.of(new Ev("a", D, "new", 2, P)), (step, n) -> {
            if (step == Step.STARTED) {
                mem.client().putObject(b -> b.bucket(bucket).key(withC), RequestBody.fromBytes(ab));
            }
        });
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessage("Cannot merge into " + table + " (step: commit): "
                + "another write changed the partitions the merge matches in after it planned (replaced: s3://" + bucket + "/" + withC
                + "). Nothing was changed: the merge's new files were removed before its commit point; rerun the merge.");
        assertThat(TestLake.keys(bucket, "t/region=" + P + "/")).containsExactlyInAnyOrderElementsOf(files);
        assertThat(tableRows()).containsExactly("a|old|1", "a|old|1", "b|old|1", "b|old|1");
        assertThat(TestLake.keys(bucket, "t/_tmp/")).allMatch(k -> k.endsWith("_lease.json"));
        // rerun: the key once
        S3Parquet.merge(List.of(new Ev("a", D, "new", 2, P))).on("user", "seen_on").s3(mem.client()).to(table);
        assertThat(tableRows()).containsExactly("a|new|2", "b|old|1", "b|old|1");
    }

    /**
     * A file the plan read the footer of is replaced before its key columns are scanned (the scan decodes by the footer the
     * plan read, not fetched again): the scan's findings are of bytes the plan's footer does not describe. A conflict.
     */
    @Test
    void aFileReplacedBetweenItsFooterReadAndItsScanIsAConflict() {
        List<String> files = seed();
        String withA = fileOf(files, "a");
        String withC = fileOf(files, "c");
        byte[] ab = mem.get(bucket, withA);
        AtomicBoolean replaced = new AtomicBoolean();
        S3Client s3 = onScan(withC, replaced, () -> mem.client().putObject(b -> b.bucket(bucket).key(withC), RequestBody.fromBytes(ab)));
        List<String> before = tableRows();
        Throwable thrown = merge(s3, List.of(new Ev("a", D, "new", 2, P), new Ev("c", D, "new", 2, P)), (step, n) -> { });
        assertThat(replaced).as("the file was replaced when the scan first read it").isTrue();
        // since round 10 the scan's GET carries If-Match on the listed ETag: refused there (412), before the check under the lease
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessageContaining("the file s3://" + bucket + "/" + withC
                + " changed since it was listed");
        assertThat(tableRows()).containsExactly("a|old|1", "a|old|1", "b|old|1", "b|old|1");
        assertThat(before).containsExactly("a|old|1", "b|old|1", "c|old|1", "d|old|1");
    }

    /** A file the plan read the footer of is deleted before its key columns are scanned: a conflict, nothing changed. */
    @Test
    void aFileDeletedBetweenItsFooterReadAndItsScanIsAConflict() {
        List<String> files = seed();
        String withC = fileOf(files, "c");
        AtomicBoolean deleted = new AtomicBoolean();
        S3Client s3 = onScan(withC, deleted, () -> mem.client().deleteObject(b -> b.bucket(bucket).key(withC)));
        Throwable thrown = merge(s3, List.of(new Ev("a", D, "new", 2, P), new Ev("c", D, "new", 2, P)), (step, n) -> { });
        assertThat(deleted).as("the file was deleted when the scan first read it").isTrue();
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessageStartingWith("Cannot merge into " + table
                + " (step: stage): a file it listed was removed by another write before the merge could read it");
        assertThat(tableRows()).containsExactly("a|old|1", "b|old|1");
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty(); // the plan failed before the lease
    }

    /**
     * A delete of rows has the same check under the lease (a file that came since its plan is scanned for matched rows):
     * a file without a matched row, replaced under its name by one holding one after the plan, must be read as a file
     * that came. Before, only new names were, and the delete committed with the row it was asked to remove still in
     * the table ({@code a}, in the file the delete left alone).
     */
    @Test
    void aDeleteWhoseFileLeftAloneIsReplacedByOneHoldingAMatchedRowIsAConflict() {
        List<String> files = seed();
        String withA = fileOf(files, "a");
        String withC = fileOf(files, "c");
        byte[] ab = mem.get(bucket, withA);
        Throwable thrown;
        try {
            S3Parquet.deleteRows(table).keys("user", List.of("a")).s3(mem.client()).stepHook((step, n) -> {
                if (step == Step.STARTED) {
                    mem.client().putObject(b -> b.bucket(bucket).key(withC), RequestBody.fromBytes(ab));
                }
            }).run();
            thrown = null;
        } catch (Throwable t) {
            thrown = t;
        }
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessage("Cannot delete rows of " + table + " (step: check): "
                + "the file s3://" + bucket + "/" + withC + " came with rows it matches after it listed the table and before it took "
                + "the lease. Nothing was changed: its staging was removed before the commit point; run it again.");
        assertThat(tableRows()).containsExactly("a|old|1", "a|old|1", "b|old|1", "b|old|1");
        S3Parquet.deleteRows(table).keys("user", List.of("a")).s3(mem.client()).run();
        assertThat(tableRows()).containsExactly("b|old|1", "b|old|1");
    }

    /**
     * A Parquet file of {@code length} bytes holding no row, with the columns of {@code like}: the footer padded with a
     * key-value entry until the file is exactly that long.
     */
    private static byte[] emptyOfLength(byte[] like, long length) {
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("hold9-empty-");
            java.nio.file.Path in = dir.resolve("like.parquet");
            java.nio.file.Path out = dir.resolve("empty.parquet");
            java.nio.file.Files.write(in, like);
            try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
                 java.sql.Statement st = c.createStatement()) {
                int pad = 0;
                for (int tries = 0; tries < 64; tries++) {
                    st.execute("COPY (SELECT * FROM '" + in + "' LIMIT 0) TO '" + out + "' (FORMAT PARQUET, KV_METADATA {pad: '"
                            + "x".repeat(pad) + "'})");
                    byte[] b = java.nio.file.Files.readAllBytes(out);
                    if (b.length == length) {
                        return b;
                    }
                    pad = (int) Math.max(0, pad + length - b.length);
                }
            } finally {
                java.nio.file.Files.deleteIfExists(in);
                java.nio.file.Files.deleteIfExists(out);
                java.nio.file.Files.deleteIfExists(dir);
            }
        } catch (java.io.IOException | java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        throw new AssertionError("no empty Parquet file of " + length + " bytes");
    }

    /**
     * The file the merge rewrites ({@code [a, b]}) holds no row while the rewrite reads it (a file of its length, no row
     * group), and its own bytes again by the check under the lease (the same ETag as planned). The rewrite must notice
     * that the file did not hold the rows planned: its reader gives no batch of an empty file, and the check of each
     * file's rows ran only when a file's first batch came, so before the fix the merge committed, and the row
     * {@code b} was gone (the file was replaced by the merge's new files, which held none of its rows).
     */
    @Test
    void aRewrittenFileThatHoldsNoRowWhileItIsRewrittenIsAConflictNotItsRowsLost() {
        List<String> files = seed();
        String withA = fileOf(files, "a");
        byte[] ab = mem.get(bucket, withA);
        byte[] empty = emptyOfLength(ab, ab.length);
        assertThat(TestLake.queryFile(empty, "SELECT count(*) FROM $file")).containsExactly(List.of(0L));
        AtomicBoolean restored = new AtomicBoolean();
        Throwable thrown = merge(mem.client(), List.of(new Ev("a", D, "new", 2, P)), (step, n) -> {
            if (step == Step.STARTED) {
                mem.client().putObject(b -> b.bucket(bucket).key(withA), RequestBody.fromBytes(empty));
            } else if (step == Step.STAGED_FILE && restored.compareAndSet(false, true)) {
                mem.client().putObject(b -> b.bucket(bucket).key(withA), RequestBody.fromBytes(ab));
            }
        });
        // since round 10 the rewrite's GET carries If-Match on the listed ETag: refused there (412), before the rows' check
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessage("Cannot merge into " + table + " (step: stage): the "
                + "file s3://" + bucket + "/" + withA + " changed since it was listed (another object was put under its name; its GET "
                + "on the listed ETag answered 412 PreconditionFailed). Nothing was changed; run the merge again.");
        assertThat(restored).as("nothing was staged").isFalse();
        assertThat(TestLake.keys(bucket, "t/region=" + P + "/")).containsExactlyInAnyOrderElementsOf(files);
        assertThat(mem.get(bucket, withA)).isEqualTo(empty); // as the other writer left it
        mem.client().putObject(b -> b.bucket(bucket).key(withA), RequestBody.fromBytes(ab));
        assertThat(tableRows()).containsExactly("a|old|1", "b|old|1", "c|old|1", "d|old|1");
    }

    /** A client whose first GET of {@code key} made by the merge's scan (not the plan's footer reads) first runs {@code first}. */
    private S3Client onScan(String key, AtomicBoolean done, Runnable first) {
        S3Client to = mem.client();
        return (S3Client) java.lang.reflect.Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                (proxy, method, args) -> {
                    String thread = Thread.currentThread().getName();
                    if (args != null && args.length > 0 && args[0] instanceof GetObjectRequest g && g.key().equals(key)
                            && (thread.equals("wrangler-merge-scan") || thread.equals("wrangler-prefetch")) && done.compareAndSet(false, true)) {
                        first.run();
                    }
                    try {
                        return method.invoke(to, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
