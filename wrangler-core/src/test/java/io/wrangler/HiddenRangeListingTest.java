package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * A read's listings do not grow with what a table hides: the objects a write in flight stages under {@code _tmp/}, the
 * commit log under {@code _wrangler/} (one object a commit), other folders whose names start with {@code _}. The look at
 * the writes in flight lists the folders below {@code _tmp/} (with delimiter), and the listing of an unfiltered read
 * jumps over the keys from {@code _} to {@code _~} (StartAfter) once a page reaches them. Every data file is still
 * read, those whose names sort before {@code _} (a capital letter, a digit) as well as after.
 */
class HiddenRangeListingTest {
    private final MemoryS3 s3 = MemoryS3.start();
    private final String bucket = TestLake.bucket(s3);

    record Row(long id, String name, String dt) {
    }

    record Flat(long id, String name) {
    }

    @AfterEach
    void close() {
        s3.close();
    }

    /** The ListObjectsV2 requests sent to this test's bucket since the last clear: prefix, delimiter, start-after. */
    private List<String> listings() {
        List<String> out = new ArrayList<>();
        for (MemoryS3.Request r : s3.requests()) {
            if (r.request() instanceof ListObjectsV2Request l && bucket.equals(l.bucket())) {
                out.add(l.prefix() + (l.delimiter() == null ? "" : " delimiter " + l.delimiter())
                        + (l.startAfter() == null ? "" : " after " + l.startAfter()));
            }
        }
        return out;
    }

    private void junk(String folder, int n) {
        for (int i = 0; i < n; i++) {
            s3.put(bucket, folder + String.format("%05d.parquet", i), new byte[] {1});
        }
    }

    @Test
    void anUnfilteredReadListsPastStagedFilesAndHiddenFolders() {
        String table = "s3://" + bucket + "/t/";
        List<Row> rows = new ArrayList<>();
        for (int run = 0; run < 3; run++) {
            List<Row> batch = new ArrayList<>();
            for (String dt : List.of("2024-01-15", "2024-01-16")) {
                for (int i = 0; i < 4; i++) {
                    batch.add(new Row(run * 100 + i, "n" + run + i, dt));
                }
            }
            S3Parquet.write(batch).partitionBy("dt").mode(WriteMode.APPEND).s3(s3.client()).to(table);
            rows.addAll(batch);
        }
        // 2,500 objects a write in flight might stage (a folder not named like a write id: no write of this table), and
        // 1,500 of another tool's hidden folder: before, each read paged through all of them, twice for the first.
        junk("t/_tmp/staging-of-another-tool/", 2500);
        junk("t/_other/", 1500);
        s3.clearRequests();

        assertThat(S3Parquet.read(table).s3(s3.client()).toList(Row.class)).containsExactlyInAnyOrderElementsOf(rows);
        // The look at writes in flight: one page of folders. The listing: its first page (hidden keys only), then on from
        // after the hidden range. Before: three pages for _tmp/, five for the table.
        assertThat(listings()).containsExactly("t/_tmp/ delimiter /", "t/", "t/ after t/_~");
    }

    @Test
    void filesBeforeAndAfterTheHiddenRangeAreAllRead() {
        flatTable();
        assertThat(S3Parquet.read("s3://" + bucket + "/flat/").s3(s3.client()).toList(Flat.class)).containsExactlyInAnyOrder(
                new Flat(1, "one"), new Flat(2, "two"), new Flat(3, "three"));
        // Page one: hidden keys before "_"; page two reaches the hidden range; then on from after it.
        assertThat(listings()).containsExactly("flat/_tmp/ delimiter /", "flat/", "flat/", "flat/ after flat/_~");
    }

    /**
     * Another tool's table: files named with a capital letter and a digit (both sort before "_") and a small letter
     * (after it), hidden objects before them (".", sorting first: more than a page) and between them.
     */
    private void flatTable() {
        S3Parquet.write(List.of(new Flat(1, "one"))).s3(s3.client()).to("s3://" + bucket + "/src1/");
        S3Parquet.write(List.of(new Flat(2, "two"))).s3(s3.client()).to("s3://" + bucket + "/src2/");
        S3Parquet.write(List.of(new Flat(3, "three"))).s3(s3.client()).to("s3://" + bucket + "/src3/");
        byte[] one = only("src1/");
        byte[] two = only("src2/");
        byte[] three = only("src3/");
        junk("flat/.meta/", 1100);
        s3.put(bucket, "flat/A-part.parquet", one);
        s3.put(bucket, "flat/0-part.parquet", two);
        junk("flat/_logs/", 2500);
        s3.put(bucket, "flat/z-part.parquet", three);
        s3.clearRequests();
    }

    @Test
    void aTableWhoseHiddenKeysFitOnThePageThatReachesThemCostsOneListing() {
        String table = "s3://" + bucket + "/small/";
        List<Row> rows = IntStream.range(0, 6).mapToObj(i -> new Row(i, "r" + i, "2024-02-0" + (1 + i % 3))).toList();
        S3Parquet.write(rows).partitionBy("dt").s3(s3.client()).to(table);
        s3.clearRequests();
        assertThat(S3Parquet.read(table).s3(s3.client()).toList(Row.class)).containsExactlyInAnyOrderElementsOf(rows);
        assertThat(listings()).containsExactly("small/_tmp/ delimiter /", "small/");
    }

    /**
     * A server that ignores StartAfter (an S3-compatible one) lists the first pages again after the jump: the read still
     * gets every file once, never a file twice (its rows twice).
     */
    @Test
    void aServerIgnoringStartAfterStillGivesEveryFileOnce() {
        flatTable();
        ExecutionInterceptor dropStartAfter = new ExecutionInterceptor() {
            @Override
            public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
                return context.request() instanceof ListObjectsV2Request l && l.startAfter() != null
                        ? l.toBuilder().startAfter(null).build() : context.request();
            }
        };
        try (S3Endpoint served = s3.serve();
             S3Client ignoring = served.newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(dropStartAfter)))) {
            s3.clearRequests();
            assertThat(S3Parquet.read("s3://" + bucket + "/flat/").s3(ignoring).toList(Flat.class)).containsExactlyInAnyOrder(
                    new Flat(1, "one"), new Flat(2, "two"), new Flat(3, "three"));
            // The jump was asked for and not made: the table's pages listed from the start again, after the first two.
            assertThat(listings()).startsWith("flat/_tmp/ delimiter /", "flat/", "flat/", "flat/").hasSizeGreaterThan(5);
        }
    }

    /**
     * A server whose truncated page gives no continuation token: the read fails (ReadException, retryable) instead of
     * asking for the same page for ever.
     */
    @Test
    void aTruncatedPageWithoutAContinuationTokenFailsTheRead() {
        flatTable();
        ExecutionInterceptor dropToken = new ExecutionInterceptor() {
            @Override
            public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
                return context.response() instanceof ListObjectsV2Response l && l.nextContinuationToken() != null
                        ? l.toBuilder().nextContinuationToken(null).build() : context.response();
            }
        };
        try (S3Endpoint served = s3.serve();
             S3Client broken = served.newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(dropToken)))) {
            assertThatThrownBy(() -> S3Parquet.read("s3://" + bucket + "/flat/").s3(broken).toList(Flat.class))
                    .isInstanceOf(ReadException.class).hasMessageContaining("no continuation token");
        }
    }

    /** The one data file a write put under {@code prefix}. */
    private byte[] only(String prefix) {
        List<String> files = s3.list(bucket, prefix).keySet().stream().filter(k -> k.endsWith(".parquet") && !k.contains("/_")).toList();
        assertThat(files).hasSize(1);
        return s3.get(bucket, files.get(0));
    }
}
