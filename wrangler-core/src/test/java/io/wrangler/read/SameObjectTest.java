package io.wrangler.read;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TableFiles.DataFile#sameObject}: how a merge's and a delete's checks under the lease tell a replaced file. */
class SameObjectTest {
    private static final Instant T = Instant.parse("2026-12-08T00:00:00Z");

    private static TableFiles.DataFile file(long size, Instant modified, String eTag) {
        return new TableFiles.DataFile("b", "t/dt=2026-12-08/part-0.parquet", size, "dt=2026-12-08/", List.of("2026-12-08"), modified, eTag);
    }

    @Test
    void anotherETagIsAnotherObjectEvenOfTheSameSizeAndSecond() {
        assertFalse(file(100, T, "\"a\"").sameObject(file(100, T, "\"b\"")));
        assertTrue(file(100, T, "\"a\"").sameObject(file(100, T, "\"a\"")));
    }

    @Test
    void aBlankETagIsNotKnownSoSizeAndTimeDecide() {
        // a server listing <ETag></ETag> must not make every replaced object look the same
        assertFalse(file(100, T, "").sameObject(file(120, T, "")));
        assertFalse(file(100, T, " ").sameObject(file(100, T.plusSeconds(1), " ")));
        assertFalse(file(100, T, "").sameObject(file(100, T.plusSeconds(1), "\"b\"")));
        assertTrue(file(100, T, "").sameObject(file(100, T, "")));
    }

    @Test
    void noETagFallsBackToSizeAndTime() {
        assertFalse(file(100, T, null).sameObject(file(100, T.plusSeconds(1), null)));
        assertTrue(file(100, T, null).sameObject(file(100, T, "\"a\"")));
    }
}
