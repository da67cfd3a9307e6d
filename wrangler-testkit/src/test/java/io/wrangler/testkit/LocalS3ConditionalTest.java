package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * LocalS3's conditional writes and deletes are atomic, as AWS S3's are: of requests racing on one key with the same
 * precondition, exactly one wins. (S3Mock alone checks the precondition and then stores, with no lock between, so two
 * racing creates can both succeed.)
 */
class LocalS3ConditionalTest {
    private static final int RACERS = 8;
    private static final int ROUNDS = 20;
    private static LocalS3 s3;
    private static ExecutorService pool;

    @BeforeAll
    static void start() {
        s3 = LocalS3.start();
        pool = Executors.newFixedThreadPool(RACERS);
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
        s3.close();
    }

    /** Runs {@code racer} on every thread at once; returns how many of them succeeded (no 409 or 412). */
    private static int race(java.util.function.IntConsumer racer) throws Exception {
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
    }

    @Test
    void racingCreatesOfOneKeyLeaveExactlyOneWinner() throws Exception {
        s3.createBucket("creates");
        for (int round = 0; round < ROUNDS; round++) {
            String key = "t/_tmp/_lease-" + round + ".json";
            int won = race(me -> s3.client().putObject(b -> b.bucket("creates").key(key).ifNoneMatch("*"),
                    RequestBody.fromString("holder " + me)));
            assertThat(won).as("creates of %s that succeeded", key).isEqualTo(1);
        }
    }

    @Test
    void racingSwapsOnOneEtagLeaveExactlyOneWinner() throws Exception {
        s3.createBucket("swaps");
        for (int round = 0; round < ROUNDS; round++) {
            String key = "t/_tmp/_lease-" + round + ".json";
            String etag = s3.client().putObject(b -> b.bucket("swaps").key(key), RequestBody.fromString("first")).eTag();
            int won = race(me -> s3.client().putObject(b -> b.bucket("swaps").key(key).ifMatch(etag),
                    RequestBody.fromString("holder " + me)));
            assertThat(won).as("swaps of %s that succeeded", key).isEqualTo(1);
        }
    }

    @Test
    void aDeleteAndASwapRacingOnOneEtagLeaveOneWinner() throws Exception {
        s3.createBucket("deletes");
        for (int round = 0; round < ROUNDS; round++) {
            String key = "t/_tmp/_lease-" + round + ".json";
            String etag = s3.client().putObject(b -> b.bucket("deletes").key(key), RequestBody.fromString("first")).eTag();
            int won = race(me -> {
                if (me % 2 == 0) {
                    s3.client().deleteObject(b -> b.bucket("deletes").key(key).ifMatch(etag));
                } else {
                    s3.client().putObject(b -> b.bucket("deletes").key(key).ifMatch(etag), RequestBody.fromString("holder " + me));
                }
            });
            // A delete of a key already gone answers 404 on AWS (NoSuchKey), which race() does not count as a win.
            assertThat(won).as("conditional requests on %s that succeeded", key).isEqualTo(1);
            assertThat(s3.client().listObjectsV2(b -> b.bucket("deletes").prefix(key)).contents().size()).isLessThanOrEqualTo(1);
        }
    }

    @Test
    void aGetRacingAnOverwriteAndADeleteOfItsKeyAnswersAWholeVersionOrNoSuchKey() throws Exception {
        s3.createBucket("reads");
        byte[] first = new byte[120];
        byte[] second = new byte[120];
        java.util.Arrays.fill(first, (byte) 'a');
        java.util.Arrays.fill(second, (byte) 'b');
        try (software.amazon.awssdk.services.s3.S3Client patient = s3.newClient(b -> b.overrideConfiguration(c -> c
                .apiCallTimeout(java.time.Duration.ofSeconds(20))))) {
            for (int round = 0; round < 3 * ROUNDS; round++) {
                String key = "t/_tmp/_lease-" + round + ".json";
                s3.client().putObject(b -> b.bucket("reads").key(key), RequestBody.fromBytes(first));
                List<byte[]> got = java.util.Collections.synchronizedList(new ArrayList<>());
                race(me -> {
                    if (me == 0) {
                        patient.putObject(b -> b.bucket("reads").key(key), RequestBody.fromBytes(second));
                    } else if (me == 1) {
                        patient.deleteObject(b -> b.bucket("reads").key(key));
                    } else {
                        try {
                            got.add(patient.getObjectAsBytes(b -> b.bucket("reads").key(key)).asByteArray());
                        } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException gone) {
                            // deleted first: as on S3
                        }
                    }
                });
                assertThat(got).allSatisfy(b -> assertThat(b).isIn(first, second));
            }
        }
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
