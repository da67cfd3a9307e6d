package io.wrangler.testkit;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * LocalS3's conditional writes and deletes are atomic, as AWS S3's are: of requests racing on one key with the same
 * precondition, exactly one wins ({@link ConditionalRaces}; S3Mock alone checks the precondition and then stores, with
 * no lock between, so two racing creates can both succeed). {@link S3EndpointConformanceTest} runs the same races
 * over HTTP against a MemoryS3.
 */
class LocalS3ConditionalTest {
    private static final int ROUNDS = 20;
    private static LocalS3 s3;

    @BeforeAll
    static void start() {
        s3 = LocalS3.start();
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    @Test
    void racingCreatesOfOneKeyLeaveExactlyOneWinner() throws Exception {
        s3.createBucket("creates");
        ConditionalRaces.createsLeaveOneWinner(s3.client(), "creates", ROUNDS);
    }

    @Test
    void racingSwapsOnOneEtagLeaveExactlyOneWinner() throws Exception {
        s3.createBucket("swaps");
        ConditionalRaces.swapsLeaveOneWinner(s3.client(), "swaps", ROUNDS);
    }

    @Test
    void aDeleteAndASwapRacingOnOneEtagLeaveOneWinner() throws Exception {
        s3.createBucket("deletes");
        ConditionalRaces.deletesAndSwapsLeaveOneWinner(s3.client(), "deletes", ROUNDS);
    }

    @Test
    void aGetRacingAnOverwriteAndADeleteOfItsKeyAnswersAWholeVersionOrNoSuchKey() throws Exception {
        s3.createBucket("reads");
        try (S3Client patient = s3.newClient(b -> b.overrideConfiguration(c -> c.apiCallTimeout(Duration.ofSeconds(20))))) {
            ConditionalRaces.getsSeeAWholeVersionOrNone(s3.client(), patient, "reads", 3 * ROUNDS);
        }
    }
}
