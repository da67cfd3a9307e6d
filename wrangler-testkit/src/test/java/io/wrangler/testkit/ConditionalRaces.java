package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The races that S3's conditional requests must win exactly once, as scenarios over any client of any S3 (LocalS3,
 * an S3Endpoint over HTTP): of requests racing on one key with the same precondition, exactly one succeeds, and a GET
 * racing an overwrite and a delete sees one whole version or none. The lease and every manifest swap rely on this.
 */
final class ConditionalRaces {
    static final int RACERS = 8;

    private ConditionalRaces() {
    }

    /** Runs {@code racer} on {@link #RACERS} threads at once; how many of them succeeded (no 409, 412 or 404). */
    static int race(IntConsumer racer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(RACERS);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> racing = new ArrayList<>();
            for (int i = 0; i < RACERS; i++) {
                int me = i;
                racing.add(pool.submit(() -> {
                    go.await();
                    try {
                        racer.accept(me);
                        return true;
                    } catch (S3Exception e) {
                        if (e.statusCode() == 412 || e.statusCode() == 409 || e.statusCode() == 404) {
                            return false;
                        }
                        throw e;
                    }
                }));
            }
            go.countDown();
            int won = 0;
            for (Future<Boolean> f : racing) {
                won += f.get() ? 1 : 0;
            }
            return won;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Creates ({@code If-None-Match: *}) of one key racing: exactly one succeeds, in each of {@code rounds} keys. */
    static void createsLeaveOneWinner(S3Client s3, String bucket, int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            String key = "t/_tmp/_lease-" + round + ".json";
            int won = race(me -> s3.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*"), RequestBody.fromString("holder " + me)));
            assertThat(won).as("creates of %s that succeeded", key).isEqualTo(1);
        }
    }

    /** Swaps ({@code If-Match} one ETag) of one key racing: exactly one succeeds, in each of {@code rounds} keys. */
    static void swapsLeaveOneWinner(S3Client s3, String bucket, int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            String key = "t/_tmp/_swap-" + round + ".json";
            String etag = s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("first")).eTag();
            int won = race(me -> s3.putObject(b -> b.bucket(bucket).key(key).ifMatch(etag), RequestBody.fromString("holder " + me)));
            assertThat(won).as("swaps of %s that succeeded", key).isEqualTo(1);
        }
    }

    /** Conditional deletes and swaps on one ETag racing: exactly one succeeds, and at most one object is left. */
    static void deletesAndSwapsLeaveOneWinner(S3Client s3, String bucket, int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            String key = "t/_tmp/_delete-" + round + ".json";
            String etag = s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("first")).eTag();
            int won = race(me -> {
                if (me % 2 == 0) {
                    s3.deleteObject(b -> b.bucket(bucket).key(key).ifMatch(etag));
                } else {
                    s3.putObject(b -> b.bucket(bucket).key(key).ifMatch(etag), RequestBody.fromString("holder " + me));
                }
            });
            // A delete of a key already gone answers 404 on AWS (NoSuchKey), which race() does not count as a win.
            assertThat(won).as("conditional requests on %s that succeeded", key).isEqualTo(1);
            assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix(key)).contents().size()).isLessThanOrEqualTo(1);
        }
    }

    /** GETs racing an overwrite and a delete of their key: each answers one whole version, or NoSuchKey. */
    static void getsSeeAWholeVersionOrNone(S3Client s3, S3Client patient, String bucket, int rounds) throws Exception {
        byte[] first = new byte[120];
        byte[] second = new byte[120];
        Arrays.fill(first, (byte) 'a');
        Arrays.fill(second, (byte) 'b');
        for (int round = 0; round < rounds; round++) {
            String key = "t/_tmp/_read-" + round + ".json";
            s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(first));
            List<byte[]> got = Collections.synchronizedList(new ArrayList<>());
            race(me -> {
                if (me == 0) {
                    patient.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(second));
                } else if (me == 1) {
                    patient.deleteObject(b -> b.bucket(bucket).key(key));
                } else {
                    try {
                        got.add(patient.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray());
                    } catch (NoSuchKeyException gone) {
                        // deleted first: as on S3
                    }
                }
            });
            assertThat(got).allSatisfy(b -> assertThat(b).isIn(first, second));
        }
    }
}
