package io.wrangler;

import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.provider.Arguments;

/** {@link InterleavingTest}'s cases of overwrites of partitions, writes by deferred uploads. */
@Execution(ExecutionMode.CONCURRENT)
class InterleavingDeferredPartitionsTest extends InterleavingTest {
    static Stream<Arguments> cases() {
        return casesOf(Kind.OVERWRITE_PARTITIONS, CommitMethod.DEFERRED_UPLOADS);
    }
}
