package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import io.wrangler.testkit.MemoryS3;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Attack on "The check of conditional requests" (package-info, "Round trips"): the check is no longer awaited at the
 * lease but rides with the first fence and the recovery's listings. On an endpoint that ignores conditional requests, a
 * write into a table that holds interrupted writes (one committed and to be rolled forward, one folder with no record)
 * must still write nothing under the lease: no recovery change, no record, no staged file, and the lease object removed.
 */
class UnconditionalEndpointRecoveryTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final Set<String> WRITES = Set.of("PutObject", "CopyObject", "DeleteObject", "DeleteObjects",
            "CreateMultipartUpload", "UploadPart", "UploadPartCopy", "CompleteMultipartUpload", "AbortMultipartUpload");

    private static final String LEASE = "t/_tmp/_lease.json";

    /** An S3 of its own: it is made to ignore conditional requests, which must not reach the other tests' shared one. */
    private final MemoryS3 s3 = MemoryS3.start();
    private final String bucket = TestLake.bucket(s3);
    private final String table = "s3://" + bucket + "/t/";

    private WriteBuilder write(List<Order> rows) {
        return S3Parquet.write(rows).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3.client());
    }

    private Map<String, String> objects() {
        Map<String, String> out = new HashMap<>();
        s3.snapshot(bucket, "t/").forEach((k, v) -> out.put(k, new String(v, StandardCharsets.ISO_8859_1)));
        out.remove(LEASE);
        return out;
    }

    @Test
    void anEndpointIgnoringConditionsGetsNoRecoveryChangeNoRecordAndNoLeaseLeft() {
        write(Orders.orders("a", List.of(D15), List.of("RU"), 2)).to(table);
        // an overwrite cut right after its commit point: recovery would copy its files and delete the old ones
        Throwable crash = catchThrowable(() -> write(Orders.orders("b", List.of(D15), List.of("RU"), 3))
                .stepHook((step, n) -> {
                    if (step == Step.MANIFEST_WRITTEN) {
                        throw new CrashRecoveryTest.SimulatedCrash(step, n);
                    }
                }).to(table));
        assertThat(crash).isInstanceOf(CrashRecoveryTest.SimulatedCrash.class);
        // and a write cut short before its record: recovery would remove its folder
        s3.put(bucket, "t/_tmp/20240101T000000Z-0123456789abcdef/dt=2024-01-15/country=RU/part-00000-000-20240101T000000Z-0123456789abcdef.snappy.parquet",
                new byte[] {1, 2, 3});
        Map<String, String> before = objects();
        assertThat(before.keySet()).anyMatch(k -> k.endsWith("/_manifest.json"));

        s3.ignoreConditionalWrites(true);
        s3.clearRequests();
        assertThatThrownBy(() -> write(Orders.orders("c", List.of(D15), List.of("RU"), 1)).to(table))
                .isInstanceOf(StorageException.class)
                .hasMessage("Cannot write " + table + " (step: lease): the S3 endpoint accepted a second conditional create "
                        + "(If-None-Match: *) of t/_tmp/_lease.json, so it does not enforce conditional requests and a table lease cannot "
                        + "keep two writers apart. Use an endpoint that enforces them (AWS S3 does), or turn the lease off with lease(false) "
                        + "and make sure yourself that only one writer runs per table.");

        assertThat(objects()).as("nothing changed: no recovery, no record, no staged file").isEqualTo(before);
        assertThat(s3.list(bucket, "t/_tmp/")).as("the lease object removed").doesNotContainKey(LEASE);
        assertThat(s3.openMultipartUploads(bucket, "t/")).isEmpty();
        assertThat(s3.requests().stream().filter(r -> bucket.equals(r.bucket()) && WRITES.contains(r.operation()))
                .map(MemoryS3.Request::key).filter(k -> !LEASE.equals(k)).toList())
                .as("every request that writes named the lease").isEmpty();
    }
}
