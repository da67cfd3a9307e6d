package io.wrangler.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Every versioned read parses S3's Date header, which only the lease needs: an RFC 1123 date gives S3's clock, any
 * other form gives null (the lease then falls back to the local clock) instead of failing a manifest read.
 */
class HttpDateTest {
    @Test
    void anRfc1123DateIsS3sClockAndAnyOtherFormIsNone() {
        assertThat(S3Store.httpDate("Thu, 03 Dec 2026 15:20:00 GMT")).isEqualTo(Instant.parse("2026-12-03T15:20:00Z"));
        assertThat(S3Store.httpDate("2026-12-03T15:20:00Z")).isNull();
        assertThat(S3Store.httpDate("Thu, 03 Dec 2026 15:20:00 UTC+25")).isNull();
        assertThat(S3Store.httpDate("")).isNull();
    }
}
