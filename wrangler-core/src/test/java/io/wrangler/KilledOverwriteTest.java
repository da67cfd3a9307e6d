package io.wrangler;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** {@link KilledWriterTest}'s cases of overwrites of partitions, by staged copies and deferred uploads. */
class KilledOverwriteTest extends KilledWriterTest {
    static Stream<Arguments> cases() {
        return killsOf(WriteMode.OVERWRITE_PARTITIONS);
    }
}
