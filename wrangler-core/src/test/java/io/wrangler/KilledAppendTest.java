package io.wrangler;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** {@link KilledWriterTest}'s cases of appends, by staged copies and deferred uploads. */
class KilledAppendTest extends KilledWriterTest {
    static Stream<Arguments> cases() {
        return killsOf(WriteMode.APPEND);
    }
}
