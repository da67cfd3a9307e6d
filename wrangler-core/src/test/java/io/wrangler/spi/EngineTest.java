package io.wrangler.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.WriteSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The engine adapter's own rules: a task's share of the heap budgets (moved here from wrangler-spark's TaskSettingsTest), the defaults it shares with the API. */
class EngineTest {
    private static final long MIB = 1L << 20;

    @Test
    void eachSlotGetsItsShareOfTheHeapBudgets() {
        WriteSpec.Tuning caps = new WriteSpec.Tuning(8, 8 * (int) MIB, 16, 64 * MIB, (int) MIB, 256, 1000, 5L << 30, 512 * MIB,
                Duration.ofMinutes(2), 512 * MIB, Duration.ZERO);

        WriteSpec.Tuning small = Engine.share(caps, 768 * MIB, 2);
        assertThat(small.maxPendingParts()).isEqualTo(12);
        assertThat(small.openBytes()).isEqualTo(96 * MIB);
        assertThat(small.rowGroupBytes()).isEqualTo(48 * MIB);
        assertThat(small.threads()).isEqualTo(8);

        assertThat(Engine.share(caps, 4096 * MIB, 2)).isEqualTo(caps);
        assertThat(Engine.share(caps, 768 * MIB, 1)).isEqualTo(caps);
    }
}
