package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Endpoint;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * wrangler through an {@link S3Endpoint} (a MemoryS3 over HTTP, the SDK's default client: request checksums,
 * aws-chunked bodies): a partitioned write, an OVERWRITE_PARTITIONS rerun, a compaction and a lease conflict, read back
 * with DuckDB; and a client in another JVM, with wrangler-core and the SDK only, writing and reading the same lake.
 */
class S3EndpointLakeTest {
    record Sale(LocalDate dt, String country, long cents) {
    }

    private static final LocalDate D1 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D2 = LocalDate.of(2024, 1, 16);
    private static S3Endpoint http;

    @BeforeAll
    static void start() {
        http = S3Endpoint.start();
        http.createBucket("lake");
    }

    @AfterAll
    static void stop() {
        http.close();
    }

    private static List<List<Object>> duck(String prefix) {
        return DuckReader.query(http.client(), "lake", prefix, "SELECT CAST(dt AS VARCHAR), country, cents FROM t ORDER BY 1, 2, 3");
    }

    private static WriteResult write(String table, WriteMode mode, Sale... sales) {
        return S3Parquet.write(List.of(sales)).partitionBy("dt").mode(mode).s3(http.client()).to(table);
    }

    @Test
    void writesRerunsCompactsAndReadsThroughTheEndpoint() {
        String table = "s3://lake/sales/";
        write(table, WriteMode.OVERWRITE_PARTITIONS, new Sale(D1, "DE", 250), new Sale(D1, "RU", 100), new Sale(D2, "RU", 7));
        // the rerun of one day replaces that day only
        WriteResult rerun = write(table, WriteMode.OVERWRITE_PARTITIONS, new Sale(D2, "RU", 70), new Sale(D2, "FR", 5));
        assertThat(rerun.rows()).isEqualTo(2);
        assertThat(S3Parquet.read(table).s3(http.client()).toList(Sale.class)).containsExactlyInAnyOrder(new Sale(D1, "DE", 250),
                new Sale(D1, "RU", 100), new Sale(D2, "RU", 70), new Sale(D2, "FR", 5));

        write(table, WriteMode.APPEND, new Sale(D1, "IT", 1));
        CompactionResult compacted = S3Parquet.compact(table).s3(http.client()).run();
        assertThat(compacted.filesBefore()).as("the two files of 2024-01-15").isEqualTo(2);
        assertThat(compacted.filesAfter()).isEqualTo(1);
        assertThat(duck("sales/")).isEqualTo(List.of(List.of("2024-01-15", "DE", 250L), List.of("2024-01-15", "IT", 1L),
                List.of("2024-01-15", "RU", 100L), List.of("2024-01-16", "FR", 5L), List.of("2024-01-16", "RU", 70L)));

        // what went over the wire: conditional PUTs of the lease, ranged GETs of the reads
        List<MemoryS3.Request> seen = http.memory().requests();
        assertThat(seen).anyMatch(r -> r.request() instanceof PutObjectRequest p && "*".equals(p.ifNoneMatch()));
        assertThat(seen).anyMatch(r -> r.request() instanceof PutObjectRequest p && p.ifMatch() != null);
        assertThat(seen).anyMatch(r -> r.request() instanceof GetObjectRequest g && g.range() != null);
        assertThat(http.memory().openMultipartUploads("lake", "sales/")).isEmpty();
    }

    @Test
    void aSecondWriterIsRefusedTheLeaseOverHttp() throws Exception {
        String table = "s3://lake/leased/";
        MemoryS3.Hold hold = http.memory().holdWhereKeyContains("PutObject", ".parquet");
        CompletableFuture<WriteResult> first = CompletableFuture.supplyAsync(() -> write(table, WriteMode.OVERWRITE_PARTITIONS,
                new Sale(D1, "DE", 1)));
        try {
            assertThat(hold.awaitHeld(Duration.ofSeconds(60))).as("the first writer reached its data upload").isTrue();
            assertThatThrownBy(() -> S3Parquet.write(List.of(new Sale(D1, "DE", 2))).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS)
                    .leaseWait(Duration.ZERO).s3(http.client()).to(table))
                    .isInstanceOf(CommitConflictException.class)
                    .hasMessageStartingWith("Cannot write " + table + " (step: lease): another writer holds the table (");
        } finally {
            hold.release();
        }
        assertThat(first.get(60, TimeUnit.SECONDS).rows()).isEqualTo(1);
        assertThat(S3Parquet.read(table).s3(http.client()).toList(Sale.class)).containsExactly(new Sale(D1, "DE", 1));
    }

    @Test
    void aClientInAnotherJvmWritesAndReadsTheSameLake() throws Exception {
        ChildJvm.Result child = ChildJvm.of(EndpointClientMain.class, http.endpoint().toString(), "s3://lake/other/")
                .jvmArgs("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1").run(600).succeeded();
        assertThat(child.lines()).contains("READ [Sale[dt=2024-03-01, country=FR, cents=1000], Sale[dt=2024-03-02, country=IT, cents=2000]]");
        // and this JVM sees what it wrote, without HTTP
        assertThat(S3Parquet.read("s3://lake/other/").s3(http.memory().client()).toList(Sale.class))
                .containsExactly(new Sale(LocalDate.of(2024, 3, 1), "FR", 1_000), new Sale(LocalDate.of(2024, 3, 2), "IT", 2_000));
    }
}
