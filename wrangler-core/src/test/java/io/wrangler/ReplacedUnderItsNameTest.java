package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A data file replaced under its own name after it was listed (an outside writer's raw PUT, or a swap swapped back before
 * the commit's check of listed ETags) is never read as the file listed (round 10, h-ifmatch10): every GET of a listed file
 * carries {@code If-Match: <its listed ETag>}, S3 answers 412, and each operation ends in its documented outcome. A read
 * gets a {@code ReadException} (read again), never another object's rows or a decode error; a merge, a delete of rows and
 * a compaction a {@code CommitConflictException} with the bucket as it was, never rows of an object other than the one
 * their commit deletes (before, the swap's rows were rewritten and the listed file's rows lost).
 */
class ReplacedUnderItsNameTest {
    record Ev(String user, LocalDate seen_on, String payload, long updated_at, String region) {
    }

    private static final String P = "eu";
    private static final LocalDate D = LocalDate.of(2024, 3, 1);

    private final MemoryS3 mem = TestLake.memory();
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private void append(String at, List<Ev> rows) {
        S3Parquet.write(rows).partitionBy("region").mode(WriteMode.APPEND).s3(mem.client()).to("s3://" + bucket + "/" + at);
    }

    private List<String> tableRows() {
        return TestLake.query(bucket, "t/", "SELECT user, payload, updated_at FROM t").stream()
                .map(r -> r.get(0) + "|" + r.get(1) + "|" + r.get(2)).sorted().toList();
    }

    /** The table's objects but its lease, key to bytes. */
    private Map<String, byte[]> objects() {
        Map<String, byte[]> out = new TreeMap<>(TestLake.snapshot(bucket, "t/"));
        out.keySet().removeIf(k -> k.endsWith("_tmp/_lease.json"));
        return out;
    }

    /**
     * Two files of the partition, {@code [a, b]} (returned) and {@code [c, d]}, and the bytes of a file {@code [a, x]} of
     * the same length as the first: what an outside writer swaps in under its name (the key {@code a} where the plan found
     * it, the row {@code b} gone, {@code x} new).
     */
    private String[] seed() {
        append("t/", List.of(new Ev("a", D, "old", 1, P), new Ev("b", D, "old", 1, P)));
        append("t/", List.of(new Ev("c", D, "old", 1, P), new Ev("d", D, "old", 1, P)));
        append("other/", List.of(new Ev("a", D, "old", 1, P), new Ev("x", D, "old", 1, P)));
        String withA = null;
        for (String f : TestLake.keys(bucket, "t/region=" + P + "/")) {
            if (!TestLake.queryFile(mem.get(bucket, f), "SELECT 1 FROM $file WHERE user = 'a'").isEmpty()) {
                withA = f;
            }
        }
        List<String> other = TestLake.keys(bucket, "other/region=" + P + "/");
        assertThat(other).hasSize(1);
        assertThat(mem.get(bucket, other.get(0))).hasSameSizeAs(mem.get(bucket, withA)); // the listed length holds
        return new String[] {withA, other.get(0)};
    }

    /**
     * A client of the MemoryS3 that runs {@code swap} once, on the first GetObject of {@code key} that {@code when}
     * accepts (the thread, the step), before it is sent.
     */
    private S3Client swappingOnGet(String key, Predicate<GetObjectRequest> when, Runnable swap) {
        S3Client to = mem.client();
        AtomicBoolean done = new AtomicBoolean();
        return (S3Client) java.lang.reflect.Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                (proxy, method, args) -> {
                    if (args != null && args.length > 0 && args[0] instanceof GetObjectRequest g && g.key().equals(key) && when.test(g)
                            && done.compareAndSet(false, true)) {
                        swap.run();
                    }
                    try {
                        return method.invoke(to, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private void put(String key, byte[] bytes) {
        mem.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
    }

    /** {@code bytes} with every byte of its column chunks (after the magic, before the footer's last 2 KiB) changed. */
    private static byte[] scrambled(byte[] bytes) {
        byte[] out = bytes.clone();
        for (int i = 4; i < out.length - 2048; i++) {
            out[i] = (byte) (out[i] ^ 0x5A);
        }
        return out;
    }

    /**
     * A read whose file is replaced under its name after the listing, before its first GET (by bytes of the same length:
     * its column chunks changed), stops with the ReadException that says to read again. Before, it decoded the other
     * object's bytes as the listed file's (a decode error or garbage rows).
     */
    @Test
    void aReadOfAFileReplacedAfterTheListingIsAReadExceptionNotAnotherObjectsBytes() {
        List<Ev> rows = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            rows.add(new Ev("user-" + i + "-" + Long.toHexString(i * 0x9E3779B97F4A7C15L), D, "payload-" + Long.toHexString(~i * 31L), i, P));
        }
        append("t/", rows);
        String key = TestLake.keys(bucket, "t/region=" + P + "/").get(0);
        byte[] listed = mem.get(bucket, key);
        assertThat(listed.length).isGreaterThan(4096);
        S3Client s3 = swappingOnGet(key, g -> true, () -> put(key, scrambled(listed)));
        Throwable thrown = null;
        try {
            S3Parquet.read(table).s3(s3).toList(Ev.class);
        } catch (Throwable t) {
            thrown = t;
        }
        assertThat(thrown).isInstanceOf(ReadException.class).hasMessage("Cannot read " + table + " (step: read): the table changed while "
                + "it was read: s3://" + bucket + "/" + key + " changed since it was listed (another object was put under its name; its GET "
                + "on the listed ETag answered 412 PreconditionFailed). A read changes nothing: read again (safe to retry), and it reads "
                + "the table as it is now.");
        // read again: the table as it is now (the other object, which is not Parquet wrangler can decode: that is its writer's doing)
        put(key, listed);
        assertThat(S3Parquet.read(table).s3(mem.client()).count()).isEqualTo(4000);
    }

    /**
     * The same file replaced after the read's first GET of it (its footer, or its whole tail), before the GETs of its
     * pages: a footer of one object and pages of another. The read stops with the same ReadException.
     */
    @Test
    void aFileReplacedBetweenItsFooterGetAndItsPageGetsIsAReadException() {
        List<Ev> rows = new ArrayList<>();
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 30_000; i++) {
            byte[] b = new byte[48];
            random.nextBytes(b);
            rows.add(new Ev("user-" + i, D, java.util.HexFormat.of().formatHex(b), i, P)); // 3 MB that does not compress
        }
        append("t/", rows);
        String key = TestLake.keys(bucket, "t/region=" + P + "/").get(0);
        byte[] listed = mem.get(bucket, key);
        assertThat(listed.length).isGreaterThan(2 * 1024 * 1024); // not fetched whole by its footer's GET
        AtomicInteger gets = new AtomicInteger();
        S3Client s3 = swappingOnGet(key, g -> gets.incrementAndGet() == 2, () -> put(key, scrambled(listed)));
        Throwable thrown = null;
        try {
            S3Parquet.read(table).s3(s3).toList(Ev.class);
        } catch (Throwable t) {
            thrown = t;
        }
        assertThat(gets).as("the file was fetched by more than one GET").hasValueGreaterThanOrEqualTo(2);
        assertThat(thrown).isInstanceOf(ReadException.class).hasMessageContaining("s3://" + bucket + "/" + key + " changed since it "
                + "was listed").hasMessageContaining("read again (safe to retry)");
    }

    /**
     * A merge's rewritten file ({@code [a, b]}) is swapped for {@code [a, x]} once the merge holds the lease, and swapped back
     * once the merge staged its new file: the check under the lease compares listed ETags and sees the same one. Before,
     * the merge committed {@code [a-new, x]} and deleted the listed file: {@code b} lost, {@code x} added. Now its rewrite's
     * GET answers 412: a conflict, the table byte for byte as before.
     */
    @Test
    void aMergeWhoseRewrittenFileIsSwappedAndSwappedBackIsAConflictWithTheTableUnchanged() {
        Swap swap = swapReady();
        Map<String, byte[]> before = swap.before();
        String withA = swap.withA();
        Throwable thrown = swap.run(hook -> S3Parquet.merge(List.of(new Ev("a", D, "new", 2, P))).on("user", "seen_on").s3(mem.client()).stepHook(hook).to(table));
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessage("Cannot merge into " + table + " (step: stage): the "
                + "file s3://" + bucket + "/" + withA + " changed since it was listed (another object was put under its name; its GET on "
                + "the listed ETag answered 412 PreconditionFailed). Nothing was changed; run the merge again.");
        assertThat(objects()).usingRecursiveComparison().isEqualTo(before);
        assertThat(tableRows()).containsExactly("a|old|1", "b|old|1", "c|old|1", "d|old|1");
        S3Parquet.merge(List.of(new Ev("a", D, "new", 2, P))).on("user", "seen_on").s3(mem.client()).to(table);
        assertThat(tableRows()).containsExactly("a|new|2", "b|old|1", "c|old|1", "d|old|1");
    }

    /** The seeded table's file holding {@code a} ({@code ab}), the bytes another writer puts under its name ({@code ax}), the bucket then. */
    private record Swap(ReplacedUnderItsNameTest test, String withA, byte[] ab, byte[] ax, Map<String, byte[]> before) {
        /**
         * Runs {@code operation} with a step hook under which another writer puts {@code ax} under {@code withA}'s name when
         * the operation starts, and {@code ab} back at its first staged file (or after it ended, if it staged none): a swap
         * the commit's comparison of listed ETags alone would not see. What it threw, or null.
         */
        Throwable run(java.util.function.Consumer<io.wrangler.spi.StepHook> operation) {
            AtomicBoolean swappedBack = new AtomicBoolean();
            Throwable thrown = null;
            try {
                operation.accept((step, n) -> {
                    if (step == Step.STARTED) {
                        test.put(withA, ax);
                    } else if (step == Step.STAGED_FILE && swappedBack.compareAndSet(false, true)) {
                        test.put(withA, ab);
                    }
                });
            } catch (Throwable t) {
                thrown = t;
            }
            if (swappedBack.compareAndSet(false, true)) {
                test.put(withA, ab); // the other writer swaps back all the same
            }
            return thrown;
        }
    }

    /** The table seeded, and what a swap of its file holding {@code a} needs. */
    private Swap swapReady() {
        String[] seeded = seed();
        return new Swap(this, seeded[0], mem.get(bucket, seeded[0]), mem.get(bucket, seeded[1]), objects());
    }

    /** The same swap under a delete of rows: before, {@code [x]} replaced the listed {@code [a, b]} ({@code b} lost). */
    @Test
    void aDeleteOfRowsWhoseFileIsSwappedAndSwappedBackIsAConflictWithTheTableUnchanged() {
        Swap swap = swapReady();
        Map<String, byte[]> before = swap.before();
        String withA = swap.withA();
        Throwable thrown = swap.run(hook -> S3Parquet.deleteRows(table).keys("user", List.of("a")).s3(mem.client()).stepHook(hook).run());
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessageStartingWith("Cannot delete rows of " + table)
                .hasMessageContaining("the file s3://" + bucket + "/" + withA + " changed since it was listed")
                .hasMessageEndingWith("run it again.");
        assertThat(objects()).usingRecursiveComparison().isEqualTo(before);
        assertThat(tableRows()).containsExactly("a|old|1", "b|old|1", "c|old|1", "d|old|1");
    }

    /** The same swap under a compaction: before, the compacted file held {@code a, x, c, d} ({@code b} lost, {@code x} added). */
    @Test
    void aCompactionWhoseInputFileIsSwappedAndSwappedBackIsAConflictWithTheTableUnchanged() {
        Swap swap = swapReady();
        Map<String, byte[]> before = swap.before();
        String withA = swap.withA();
        Throwable thrown = swap.run(hook -> S3Parquet.compact(table).s3(mem.client()).stepHook(hook).run());
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessageStartingWith("Cannot compact " + table)
                .hasMessageContaining("the file s3://" + bucket + "/" + withA + " changed since it was listed")
                .hasMessageEndingWith("run the compaction again.");
        assertThat(objects()).usingRecursiveComparison().isEqualTo(before);
        assertThat(tableRows()).containsExactly("a|old|1", "b|old|1", "c|old|1", "d|old|1");
    }

    /**
     * The file a merge matches in is replaced after the merge listed it, before its plan's first GET of it (the footer):
     * the plan stops with the conflict, before the lease, nothing written.
     */
    @Test
    void aFileReplacedBeforeAMergesPlanReadsItsFooterIsAConflict() {
        String[] seeded = seed();
        String withA = seeded[0];
        byte[] ax = mem.get(bucket, seeded[1]);
        S3Client s3 = swappingOnGet(withA, g -> true, () -> put(withA, ax));
        Throwable thrown = null;
        try {
            S3Parquet.merge(List.of(new Ev("a", D, "new", 2, P))).on("user", "seen_on").s3(s3).to(table);
        } catch (Throwable t) {
            thrown = t;
        }
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessage("Cannot merge into " + table + " (step: stage): the "
                + "file s3://" + bucket + "/" + withA + " changed since it was listed (another object was put under its name; its GET on "
                + "the listed ETag answered 412 PreconditionFailed). Nothing was changed; run the merge again.");
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty(); // the plan failed before the lease
    }

    /** The same before a delete of rows' plan reads the file: the conflict, nothing written. */
    @Test
    void aFileReplacedBeforeADeletesPlanReadsItIsAConflict() {
        String[] seeded = seed();
        String withA = seeded[0];
        byte[] ax = mem.get(bucket, seeded[1]);
        S3Client s3 = swappingOnGet(withA, g -> true, () -> put(withA, ax));
        Throwable thrown = null;
        try {
            S3Parquet.deleteRows(table).keys("user", List.of("a")).s3(s3).run();
        } catch (Throwable t) {
            thrown = t;
        }
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessage("Cannot delete rows of " + table + " (step: validate): "
                + "the file s3://" + bucket + "/" + withA + " changed since it was listed (another object was put under its name; its GET on "
                + "the listed ETag answered 412 PreconditionFailed). Nothing was changed; run it again.");
        assertThat(TestLake.keys(bucket, "t/_tmp/")).isEmpty();
    }

    /** The same before a compaction's plan reads the file's footer: the conflict, nothing written. */
    @Test
    void aFileReplacedBeforeACompactionsPlanReadsItsFooterIsAConflict() {
        String[] seeded = seed();
        String withA = seeded[0];
        byte[] ax = mem.get(bucket, seeded[1]);
        S3Client s3 = swappingOnGet(withA, g -> true, () -> put(withA, ax));
        Throwable thrown = null;
        try {
            S3Parquet.compact(table).s3(s3).run();
        } catch (Throwable t) {
            thrown = t;
        }
        assertThat(thrown).isInstanceOf(CommitConflictException.class).hasMessageStartingWith("Cannot compact " + table + " (step: ")
                .hasMessageEndingWith("): the file s3://" + bucket + "/" + withA + " changed since it was listed (another object was put "
                        + "under its name; its GET on the listed ETag answered 412 PreconditionFailed). Nothing was changed; run the "
                        + "compaction again.");
    }

    /** A count, which reads footers only, of a file replaced after the listing: the same ReadException as a read of rows. */
    @Test
    void aCountOfAFileReplacedAfterTheListingIsAReadException() {
        String[] seeded = seed();
        String withA = seeded[0];
        byte[] ax = mem.get(bucket, seeded[1]);
        S3Client s3 = swappingOnGet(withA, g -> true, () -> put(withA, scrambled(ax)));
        Throwable thrown = null;
        try {
            S3Parquet.read(table).s3(s3).count();
        } catch (Throwable t) {
            thrown = t;
        }
        assertThat(thrown).isInstanceOf(ReadException.class).hasMessageContaining("s3://" + bucket + "/" + withA + " changed since it "
                + "was listed").hasMessageContaining("read again (safe to retry)");
    }

    /** Every If-Match header of the GetObject requests a client sends, by key (none: an empty string). */
    static final class IfMatches implements ExecutionInterceptor {
        final List<String[]> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            if (context.request() instanceof GetObjectRequest g) {
                seen.add(new String[] {g.key(), context.httpRequest().firstMatchingHeader("If-Match").orElse("")});
            }
        }
    }

    /**
     * On the wire, against S3Mock over HTTP: a read of files that are not replaced works with the condition on, and every
     * GET of a data file carries its listed ETag as If-Match; a stale one is answered 412, as S3 does.
     */
    @Test
    void everyGetOfAListedFileCarriesItsListedETagAndTheServerHoldsIt() {
        String local = TestLake.bucket();
        String uri = "s3://" + local + "/t/";
        S3Parquet.write(List.of(new Ev("a", D, "old", 1, P), new Ev("b", D, "old", 1, "us"))).partitionBy("region")
                .s3(TestLake.s3().client()).to(uri);
        Map<String, String> listed = new TreeMap<>();
        for (S3Object o : TestLake.s3().client().listObjectsV2(b -> b.bucket(local).prefix("t/region=")).contents()) {
            listed.put(o.key(), o.eTag());
        }
        assertThat(listed).hasSize(2);
        IfMatches wire = new IfMatches();
        S3Client s3 = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(wire)));
        assertThat(S3Parquet.read(uri).s3(s3).toList(Ev.class)).extracting(Ev::user).containsExactlyInAnyOrder("a", "b");
        List<String[]> gets = wire.seen.stream().filter(g -> listed.containsKey(g[0])).toList();
        assertThat(gets).isNotEmpty();
        assertThat(gets).allSatisfy(g -> assertThat(g[1]).as(g[0]).isEqualTo(listed.get(g[0])));

        String key = listed.keySet().iterator().next();
        Throwable stale = null;
        try {
            TestLake.s3().client().getObjectAsBytes(b -> b.bucket(local).key(key).ifMatch("\"0123456789abcdef0123456789abcdef\""));
        } catch (Throwable t) {
            stale = t;
        }
        assertThat(stale).isInstanceOf(S3Exception.class);
        assertThat(((S3Exception) stale).statusCode()).isEqualTo(412);
    }
}
