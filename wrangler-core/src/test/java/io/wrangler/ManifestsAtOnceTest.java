package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.layout.Manifest;
import io.wrangler.layout.WriteIds;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reader fetches the manifests of the writes in flight at once, not one after the other: a table with several writes
 * in flight costs it one round trip for them. Each is answered before the data files are listed, and a failed one fails
 * the read as before.
 */
class ManifestsAtOnceTest {
    private final MemoryS3 s3 = MemoryS3.start();
    private final String bucket = TestLake.bucket(s3);
    private final String table = "s3://" + bucket + "/t/";
    private final ExecutorService caller = Executors.newSingleThreadExecutor();

    record Row(long id, String dt) {
    }

    @AfterEach
    void close() {
        caller.shutdownNow();
        s3.close();
    }

    /** The table's rows, and the manifests of {@code n} plain appends in flight (STARTED: their files, none yet, hidden). */
    private List<Row> tableWithWritesInFlight(int n) {
        List<Row> rows = IntStream.range(0, 6).mapToObj(i -> new Row(i, "2024-03-0" + (1 + i % 2))).toList();
        S3Parquet.write(rows).partitionBy("dt").s3(s3.client()).to(table);
        for (int i = 0; i < n; i++) {
            String id = WriteIds.next();
            s3.put(bucket, "t/_tmp/" + id + "/" + Manifest.FILE_NAME,
                    Manifest.started(id, table, WriteMode.APPEND, null, Compression.SNAPPY, null).toJson());
        }
        s3.clearRequests();
        return rows;
    }

    @Test
    void theManifestsOfThreeWritesInFlightAreFetchedAtOnce() throws Exception {
        List<Row> rows = tableWithWritesInFlight(3);
        MemoryS3.Hold hold = s3.holdWhereKeyContains("GetObject", Manifest.FILE_NAME);
        Future<List<Row>> read = caller.submit(() -> S3Parquet.read(table).s3(s3.client()).toList(Row.class));
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (hold.held() < 3 && System.nanoTime() < deadline && !read.isDone()) {
                Thread.sleep(5);
            }
            assertThat(hold.held()).as("the three manifests' GETs in flight at once (held: %d)", hold.held()).isEqualTo(3);
            assertThat(s3.requests().stream().filter(r -> r.operation().equals("ListObjectsV2") && "t/".equals(
                    ((software.amazon.awssdk.services.s3.model.ListObjectsV2Request) r.request()).prefix())))
                    .as("the data files are listed only once every manifest is answered").isEmpty();
        } finally {
            hold.release();
        }
        assertThat(read.get(30, TimeUnit.SECONDS)).containsExactlyInAnyOrderElementsOf(rows);
    }

    @Test
    void aManifestThatCannotBeFetchedAmongSeveralFailsTheRead() {
        tableWithWritesInFlight(4);
        List<String> manifests = new ArrayList<>(TestLake.keys(bucket, "t/_tmp/").stream().filter(k -> k.endsWith(Manifest.FILE_NAME))
                .sorted().toList());
        String third = manifests.get(2);
        s3.failWhereKeyContains("GetObject", third, S3Fault.ACCESS_DENIED);
        assertThatThrownBy(() -> S3Parquet.read(table).s3(s3.client()).retryPolicy(RetryPolicy.of(1, Duration.ofMillis(1),
                Duration.ofMillis(1))).toList(Row.class))
                .isExactlyInstanceOf(ReadException.class)
                .hasMessageStartingWith("Cannot read " + table + " (step: list): fetching the manifest s3://" + bucket + "/" + third + " failed (");
    }
}
