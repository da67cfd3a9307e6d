package io.wrangler;

import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.provider.Arguments;

/** {@link InterleavingTest}'s cases of appends with an idempotency key, writes by deferred uploads. */
@Execution(ExecutionMode.CONCURRENT)
class InterleavingDeferredKeyedTest extends InterleavingTest {
    static Stream<Arguments> cases() {
        return casesOf(Kind.KEYED_APPEND, CommitMethod.DEFERRED_UPLOADS);
    }
}
