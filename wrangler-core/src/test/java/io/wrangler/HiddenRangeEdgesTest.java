package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Endpoint;
import io.wrangler.testkit.S3Fixture;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/**
 * The edges of a read's listings past what a table hides (the folders below {@code _tmp/} listed with delimiter, the
 * table's listing jumping over the keys from {@code _} to {@code _~}), on both test servers: LocalS3 (S3Mock, keys in
 * UTF-8 byte order as S3) and MemoryS3 (keys in UTF-16 order). A write in flight stays hidden behind more than a page of
 * write folders and on a server that ignores the delimiter; every data file is read once whatever its name sorts as, and
 * no hidden one is read.
 */
class HiddenRangeEdgesTest {
    private static final Step CRASH_AT = Step.COPIED_FILE;

    private final MemoryS3 memory = MemoryS3.start();

    record Row(long id, String name, String dt) {
    }

    record Flat(long id, String name) {
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    @AfterEach
    void close() {
        memory.close();
    }

    private List<S3Fixture> servers() {
        return List.of(TestLake.s3(), memory);
    }

    /**
     * A table of day 15 (rows 1 and 2) with an OVERWRITE_PARTITIONS of day 15 (row 9) stopped after its commit point with
     * its new file in place and the old ones not yet deleted: a reader must see the table as before (rows 1 and 2).
     */
    private static List<Row> committedWithOldAndNewInPlace(S3Client s3, String table) {
        List<Row> before = List.of(new Row(1, "a", "2024-01-15"), new Row(2, "b", "2024-01-15"));
        S3Parquet.write(before).partitionBy("dt").maxRowsPerFile(1).s3(s3).to(table);
        assertThatThrownBy(() -> S3Parquet.write(List.of(new Row(9, "new", "2024-01-15"))).partitionBy("dt")
                .mode(WriteMode.OVERWRITE_PARTITIONS).stepHook((step, count) -> {
                    if (step == CRASH_AT && count == 1) {
                        throw new Crash();
                    }
                }).s3(s3).to(table)).isInstanceOf(Crash.class);
        return before;
    }

    /** An interceptor that rewrites each ListObjectsV2 request (as a server ignoring one of its parameters answers). */
    private static ExecutionInterceptor listings(Function<ListObjectsV2Request, ListObjectsV2Request> change) {
        return new ExecutionInterceptor() {
            @Override
            public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
                return context.request() instanceof ListObjectsV2Request l ? change.apply(l) : context.request();
            }
        };
    }

    /**
     * 1,100 folders named like write ids (older ones, holding only staged files: no manifest) sort before the stopped
     * overwrite's folder, so the listing of {@code _tmp/}'s folders takes two pages: the overwrite's manifest is still
     * found and its new file left out.
     */
    @Test
    void aWriteInFlightBehindMoreThanAPageOfWriteFoldersIsStillHidden() {
        for (S3Fixture s3 : servers()) {
            String bucket = TestLake.bucket(s3);
            String table = "s3://" + bucket + "/t/";
            List<Row> before = committedWithOldAndNewInPlace(s3.client(), table);
            for (int i = 0; i < 1100; i++) {
                s3.put(bucket, String.format("t/_tmp/20000101T000000Z-%016x/dt=2024-01-15/part-0.parquet", i), new byte[] {1});
            }
            assertThat(S3Parquet.read(table).s3(s3.client()).toList(Row.class)).as("%s", s3).containsExactlyInAnyOrderElementsOf(before);
            assertThat(S3Parquet.read(table).s3(s3.client()).filter(PartitionFilter.in("dt", "2024-01-15")).toList(Row.class))
                    .as("%s", s3).containsExactlyInAnyOrderElementsOf(before);
        }
    }

    /**
     * A server that ignores the delimiter (answers every key below {@code _tmp/}, no folders): the look at the writes
     * in flight still finds the stopped overwrite's manifest, as the listing of every object there did before.
     */
    @Test
    void aServerIgnoringTheDelimiterStillHidesAWriteInFlight() {
        String bucket = TestLake.bucket(memory);
        String table = "s3://" + bucket + "/t/";
        List<Row> before = committedWithOldAndNewInPlace(memory.client(), table);
        try (S3Endpoint served = memory.serve();
             S3Client ignoring = served.newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(
                     listings(l -> l.toBuilder().delimiter(null).build()))))) {
            assertThat(S3Parquet.read(table).s3(ignoring).toList(Row.class)).containsExactlyInAnyOrderElementsOf(before);
        }
    }

    /**
     * A flat table whose data files are named to sort everywhere around the hidden range, in UTF-8 and UTF-16 order
     * alike or not (a capital letter, a digit, {@code `}, {@code {}, {@code ~}, U+E000, U+1F600 above U+FFFF), and hidden
     * objects holding Parquet too (more than a page from {@code _} on, {@code _~} itself, below {@code _~/}, {@code _}
     * followed by a non-ASCII letter, which sorts after {@code _~}): each data file is read once, no hidden one.
     */
    @Test
    void everyFileAroundTheHiddenRangeIsReadOnceAndNoHiddenOne() {
        String[] names = {"A.parquet", "0.parquet", "`.parquet", "{.parquet", "~.parquet", "\uE000.parquet", "\uD83D\uDE00.parquet",
            "\uFFFD.parquet"};
        for (S3Fixture s3 : servers()) {
            String bucket = TestLake.bucket(s3);
            List<Flat> expected = new ArrayList<>();
            for (int i = 0; i < names.length; i++) {
                s3.put(bucket, "flat/" + names[i], parquetOf(s3, bucket, new Flat(i, names[i])));
                expected.add(new Flat(i, names[i]));
            }
            byte[] hidden = parquetOf(s3, bucket, new Flat(-1, "hidden"));
            for (int i = 0; i < 1100; i++) {
                s3.put(bucket, String.format("flat/_logs/%05d", i), new byte[] {1});
            }
            for (String h : List.of("_~", "_~/x.parquet", "_\u00e9/x.parquet", "_\uD83D\uDE00.parquet", "_~~", ".hidden.parquet")) {
                s3.put(bucket, "flat/" + h, hidden);
            }
            assertThat(S3Parquet.read("s3://" + bucket + "/flat/").s3(s3.client()).toList(Flat.class)).as("%s", s3)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /** A one-row flat Parquet file written by wrangler (its one data file, copied out of a table of its own). */
    private static byte[] parquetOf(S3Fixture s3, String bucket, Flat row) {
        String src = "src-" + row.id() + "/";
        S3Parquet.write(List.of(row)).s3(s3.client()).to("s3://" + bucket + "/" + src);
        List<String> files = s3.list(bucket, src).keySet().stream().filter(k -> k.endsWith(".parquet") && !k.contains("/_")).toList();
        assertThat(files).hasSize(1);
        return s3.get(bucket, files.get(0));
    }
}
