package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.WriteSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TaskSettingsTest {
    private static final long MIB = 1L << 20;

    @Test
    void slotsAreTheExecutorsCoresOverTaskCpus() {
        assertThat(TaskSettings.slots("yarn", 4, 1, 16)).isEqualTo(4);
        assertThat(TaskSettings.slots("yarn", 4, 2, 16)).isEqualTo(2);
        assertThat(TaskSettings.slots("spark://host:7077", 0, 1, 16)).isEqualTo(16);
        assertThat(TaskSettings.slots("local", 0, 1, 16)).isEqualTo(1);
        assertThat(TaskSettings.slots("local[2]", 0, 1, 16)).isEqualTo(2);
        assertThat(TaskSettings.slots("local[2,3]", 0, 1, 16)).isEqualTo(2);
        assertThat(TaskSettings.slots("local[*]", 0, 1, 16)).isEqualTo(16);
        assertThat(TaskSettings.slots("local-cluster[2, 3, 1024]", 0, 1, 16)).isEqualTo(3);
        assertThat(TaskSettings.slots("local[1]", 0, 4, 16)).isEqualTo(1);
    }

    @Test
    void eachSlotGetsItsShareOfTheHeapBudgets() {
        WriteSpec.Tuning caps = new WriteSpec.Tuning(8, 8 * (int) MIB, 16, 64 * MIB, (int) MIB, 256, 1000, 5L << 30, 512 * MIB,
                Duration.ofMinutes(2), 512 * MIB, Duration.ZERO);

        WriteSpec.Tuning small = TaskSettings.share(caps, 768 * MIB, 2);
        assertThat(small.maxPendingParts()).isEqualTo(12);
        assertThat(small.openBytes()).isEqualTo(96 * MIB);
        assertThat(small.rowGroupBytes()).isEqualTo(48 * MIB);
        assertThat(small.threads()).isEqualTo(8);

        assertThat(TaskSettings.share(caps, 4096 * MIB, 2)).isEqualTo(caps);
        assertThat(TaskSettings.share(caps, 768 * MIB, 1)).isEqualTo(caps);
    }
}
