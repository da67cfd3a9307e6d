package io.wrangler.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.testkit.LocalS3;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The one delete batcher, {@link S3Store#delete(List, int, Runnable, java.util.function.Consumer)}, against a real S3 on loopback. */
class S3StoreDeleteTest {
    private static final LocalS3 S3 = LocalS3.start();

    @AfterAll
    static void stop() {
        S3.close();
    }

    private static S3Store storeWith(List<String> keys) {
        String bucket = "delete-" + Long.toHexString(System.nanoTime());
        S3.createBucket(bucket);
        for (String key : keys) {
            S3.put(bucket, key, new byte[] {1});
        }
        S3.put(bucket, "t/kept", new byte[] {2});
        return new S3Store(S3.client(), bucket, RequestOptions.defaults());
    }

    private static List<String> keys(S3Store store) {
        return store.list("t/").stream().map(S3Object::key).sorted().toList();
    }

    private static final List<String> FIVE = List.of("t/a", "t/b", "t/c", "t/d", "t/e");

    @Test
    void deletesInBatchesOfTheGivenSizeWithTheFenceBeforeEachBatch() {
        S3Store store = storeWith(FIVE);
        List<String> events = new ArrayList<>();
        store.delete(FIVE, 2, () -> events.add("fence " + keys(store).size()), errors -> events.add("deleted " + errors.size()));

        // Each fence runs before its batch is sent: it sees the objects the earlier batches left.
        assertThat(events).containsExactly("fence 6", "deleted 0", "fence 4", "deleted 0", "fence 2", "deleted 0");
        assertThat(keys(store)).containsExactly("t/kept");
    }

    @Test
    void aFenceThatFailsStopsTheDeletesBeforeTheNextBatchIsSent() {
        S3Store store = storeWith(FIVE);
        AtomicInteger fences = new AtomicInteger();
        assertThatThrownBy(() -> store.delete(FIVE, 2, () -> {
            if (fences.incrementAndGet() == 2) {
                throw new IllegalStateException("lease lost");
            }
        }, errors -> { })).hasMessage("lease lost");

        assertThat(keys(store)).containsExactly("t/c", "t/d", "t/e", "t/kept");
    }

    @Test
    void aBatchWhoseResultIsRefusedStopsTheRest() {
        S3Store store = storeWith(FIVE);
        AtomicInteger batches = new AtomicInteger();
        assertThatThrownBy(() -> store.delete(FIVE, 3, () -> { }, errors -> {
            batches.incrementAndGet();
            throw new IllegalStateException("stop");
        })).hasMessage("stop");

        assertThat(batches).hasValue(1);
        assertThat(keys(store)).containsExactly("t/d", "t/e", "t/kept");
    }

    @Test
    void missingKeysCountAsDeletedAndNothingElseIsTouched() {
        S3Store store = storeWith(List.of());
        List<S3Error> errors = store.delete(List.of("t/never-written", "t/nor-this"));

        assertThat(errors).isEmpty();
        assertThat(keys(store)).containsExactly("t/kept");
    }

    @Test
    void aBatchSizeAboveWhatS3AcceptsIsCutToItsLimit() {
        S3Store store = storeWith(List.of());
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < S3Store.MAX_DELETE_BATCH + 1; i++) {
            missing.add("t/missing-" + i);
        }
        AtomicInteger fences = new AtomicInteger();
        List<Integer> errors = new ArrayList<>();
        store.delete(missing, 5_000, fences::incrementAndGet, e -> errors.add(e.size()));

        assertThat(fences).hasValue(2);
        assertThat(errors).containsExactly(0, 0);
        assertThat(keys(store)).containsExactly("t/kept");
    }
}
