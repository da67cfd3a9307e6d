package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TaskSettingsTest {
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
}
